//! Request bodies decoded as the apiserver decodes them for custom resources, with its
//! errors: an object for create and update, merge and JSON patches, delete options.

use serde_json::Value;

use super::gojson;
use super::status::ApiError;

/// How the apiserver shows a body it could not make sense of: up to 30 bytes, as text when it
/// starts like an object, as hex otherwise.
fn summarize(data: &[u8]) -> String {
    const MAX: usize = 30;
    let (shown, more) = match data.len() > MAX {
        true => (&data[..MAX], " ..."),
        false => (data, ""),
    };
    match data.first() {
        None => "<empty>".to_owned(),
        Some(b'{') => format!("{}{more}", String::from_utf8_lossy(shown)),
        Some(_) => {
            let hex: String = shown.iter().map(|b| format!("{b:02x}")).collect();
            format!("{hex}{more}")
        }
    }
}

/// The Go type the apiserver first decodes a body into, to find its apiVersion and kind.
const TYPE_META: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

/// A create or update body for a resource of kind `kind`.
pub fn object(data: &[u8], kind: &str) -> Result<Value, ApiError> {
    let unrecognized = |why: String| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): {why} ({})",
            summarize(data)
        ))
    };
    if let Some(e) = gojson::syntax_error(data) {
        return Err(unrecognized(format!(
            "couldn't get version/kind; json parse error: {e}"
        )));
    }
    let value: Value = serde_json::from_slice(data).map_err(|e| unrecognized(e.to_string()))?;
    match &value {
        Value::Object(m) => {
            for key in ["apiVersion", "kind"] {
                if let Some(v) = m.get(key).filter(|v| !v.is_string() && !v.is_null()) {
                    return Err(unrecognized(format!(
                        "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go struct field .{key} of type string",
                        gojson::type_name(v)
                    )));
                }
            }
            if m.get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                return Err(unrecognized(format!(
                    "Object 'Kind' is missing in '{}'",
                    String::from_utf8_lossy(data)
                )));
            }
            Ok(value)
        }
        Value::Null => Err(unrecognized(
            "Object 'Kind' is missing in 'null'".to_owned(),
        )),
        other => Err(unrecognized(format!(
            "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type {TYPE_META}",
            gojson::type_name(other)
        ))),
    }
}

/// A JSON merge patch.
pub fn merge_patch(data: &[u8]) -> Result<Value, ApiError> {
    if let Some(e) = gojson::syntax_error(data) {
        return Err(ApiError::bad_request(format!("error decoding patch: {e}")));
    }
    let value: Value = serde_json::from_slice(data)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::bad_request(format!(
            "error decoding patch: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            gojson::type_name(&value)
        )));
    }
    Ok(value)
}

/// A JSON patch (RFC 6902): a list of operations.
pub fn json_patch(data: &[u8]) -> Result<json_patch::Patch, ApiError> {
    if let Some(e) = gojson::syntax_error(data) {
        return Err(ApiError::bad_request(format!("error decoding patch: {e}")));
    }
    let value: Value = serde_json::from_slice(data)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
    if !value.is_array() {
        return Err(ApiError::bad_request(format!(
            "error decoding patch: json: cannot unmarshal {} into Go value of type []handlers.jsonPatchOp",
            gojson::type_name(&value)
        )));
    }
    serde_json::from_value(value).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// Delete options (an empty body means none).
pub fn delete_options(data: &[u8]) -> Result<Value, ApiError> {
    if data.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    if let Some(e) = gojson::syntax_error(data) {
        return Err(ApiError::bad_request(e));
    }
    serde_json::from_slice(data).map_err(|e| ApiError::bad_request(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_summarized_as_the_apiserver_does() {
        assert_eq!(summarize(b""), "<empty>");
        assert_eq!(summarize(b"{not json"), "{not json");
        assert_eq!(summarize(b"[1, 2]"), "5b312c20325d");
        assert_eq!(summarize(&[b'{'; 40]), format!("{} ...", "{".repeat(30)));
    }

    #[test]
    fn malformed_objects_get_the_apiservers_messages() {
        // Observed on kube-apiserver v1.36.2.
        assert_eq!(
            object(b"{not json", "Scalar").unwrap_err().message,
            "the object provided is unrecognized (must be of type Scalar): couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string ({not json)"
        );
        assert_eq!(
            object(b"[1, 2]", "Scalar").unwrap_err().message,
            r#"the object provided is unrecognized (must be of type Scalar): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (5b312c20325d)"#
        );
        assert_eq!(
            object(b"{}", "Scalar").unwrap_err().message,
            "the object provided is unrecognized (must be of type Scalar): Object 'Kind' is missing in '{}' ({})"
        );
        assert!(object(br#"{"kind": "Scalar"}"#, "Scalar").is_ok());
    }
}
