//! Request bodies decoded as the apiserver decodes them for custom resources, with its
//! errors: an object for create and update, merge and JSON patches, delete options; and the
//! schema coercion that comes with decoding (`metadata` through Go's `ObjectMeta`, unknown
//! fields pruned), reported by `fieldValidation` as warnings or errors.

mod coerce;
pub(crate) mod gotime;
mod objectmeta;

use serde_json::Value;

use super::gojson;
use super::status::ApiError;
use crate::validation::gofmt;
use crate::validation::{BadValue, FieldError};

pub use coerce::{coerce, prune_unreported as prune};

/// `fieldValidation`: what the apiserver does with unknown and duplicate fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them and say so in `Warning` headers (the default).
    #[default]
    Warn,
    /// Refuse the request.
    Strict,
}

impl FieldValidation {
    /// The query parameter, checked as the apiserver checks its `options` (`CreateOptions`,
    /// `UpdateOptions`, `PatchOptions`).
    pub fn parse(value: Option<&str>, options: &str) -> Result<Self, ApiError> {
        match value.unwrap_or("") {
            "" | "Warn" => Ok(FieldValidation::Warn),
            "Ignore" => Ok(FieldValidation::Ignore),
            "Strict" => Ok(FieldValidation::Strict),
            other => {
                let supported = ["", "Ignore", "Strict", "Warn"].map(String::from);
                let error =
                    FieldError::not_supported("fieldValidation", BadValue::str(other), &supported);
                Err(ApiError::invalid("meta.k8s.io", options, "", &[error]))
            }
        }
    }
}

/// The strict decoder's complaints: duplicate fields, then unknown ones.
fn strict_errors(duplicates: &[String], unknown: &[String]) -> Vec<String> {
    duplicates
        .iter()
        .map(|p| format!("duplicate field {}", gofmt::quote(p)))
        .chain(
            unknown
                .iter()
                .map(|p| format!("unknown field {}", gofmt::quote(p))),
        )
        .collect()
}

/// A create or update body for a resource of kind `kind` (served at `api_version`),
/// decoded and coerced with `schema` — the schema of the version the body names, `None` when
/// no served version has that name. Returns the object and the warnings to send.
pub fn write_body<'s>(
    data: &[u8],
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let mut object = self::object(data, kind)?;
    let body_kind = object["kind"].as_str().unwrap_or(kind).to_owned();
    let body_api_version = object["apiVersion"]
        .as_str()
        .unwrap_or(api_version)
        .to_owned();
    let (group, version) = body_api_version
        .rsplit_once('/')
        .unwrap_or(("", body_api_version.as_str()));
    let cannot = |why: String| {
        ApiError::bad_request(format!(
            "{body_kind} in version {} cannot be handled as a {kind}: {why}",
            gofmt::quote(version)
        ))
    };
    let own_kind = body_kind == kind && Some(group) == api_version.rsplit_once('/').map(|g| g.0);
    // The apiserver prunes only objects of its own group and kind.
    let unknown = match own_kind {
        true => coerce(schema(version), &mut object),
        false => coerce::coerce_metadata(&mut object),
    }
    .map_err(cannot)?;
    let strict = strict_errors(&gojson::duplicate_fields(data), &unknown);
    match directive {
        FieldValidation::Strict if !strict.is_empty() => Err(cannot(format!(
            "strict decoding error: {}",
            strict.join(", ")
        ))),
        FieldValidation::Warn => Ok((object, strict)),
        _ => Ok((object, Vec::new())),
    }
}

/// What a merge or JSON patch produced, decoded and coerced as the apiserver decodes it.
/// Its failures are `Invalid` causes on `patch`, quoting the patched object.
pub fn patched_object(
    doc: &mut Value,
    schema: &Value,
    patch_duplicates: &[String],
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    // Failures quote the patched object as it was before coercion; it is written out only
    // when something fails.
    let patched = doc.clone();
    let invalid = |why: String| {
        let error = FieldError::invalid("patch", BadValue::str(gofmt::marshal(&patched)), why);
        ApiError::invalid("", "", "", &[error])
    };
    let unknown = coerce(Some(schema), doc).map_err(&invalid)?;
    let strict = strict_errors(patch_duplicates, &unknown);
    match directive {
        FieldValidation::Strict if !strict.is_empty() => Err(invalid(format!(
            "strict decoding error: {}",
            strict.join(", ")
        ))),
        FieldValidation::Warn => Ok(strict),
        _ => Ok(Vec::new()),
    }
}

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
