//! Request bodies decoded as the apiserver decodes them for custom resources, with its
//! errors: an object for create and update, merge and JSON patches, delete options. The
//! schema coercion that comes with decoding (`metadata` through Go's `ObjectMeta`, unknown
//! fields pruned) is `validation::decode`'s, which local validation shares.

use serde_json::Value;

use super::status::ApiError;
pub use crate::validation::decode::FieldValidation;
pub(crate) use crate::validation::decode::prune;
use crate::validation::decode::{self as shared, coerce, gojson, strict_errors};
use crate::validation::gofmt;
use crate::validation::{BadValue, FieldError};

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
    let object = self::object(data, kind)?;
    let duplicates = gojson::duplicate_fields(data);
    shared::body(object, kind, api_version, schema, &duplicates, directive)
        .map_err(ApiError::bad_request)
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

/// A create or update body for a resource of kind `kind`.
pub fn object(data: &[u8], kind: &str) -> Result<Value, ApiError> {
    let unrecognized = |why: String| ApiError::bad_request(shared::unrecognized(kind, data, &why));
    if let Some(e) = gojson::syntax_error(data) {
        return Err(unrecognized(format!(
            "couldn't get version/kind; json parse error: {e}"
        )));
    }
    let value: Value = serde_json::from_slice(data).map_err(|e| unrecognized(e.to_string()))?;
    shared::type_meta(&value, data).map_err(unrecognized)?;
    Ok(value)
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

/// A server-side apply body (`application/apply-patch+yaml`), read as YAML.
pub fn apply_patch(data: &[u8]) -> Result<Value, ApiError> {
    let text = std::str::from_utf8(data)
        .map_err(|_| ApiError::bad_request("the apply body is not UTF-8"))?;
    serde_yaml_ng::from_str(text)
        .map_err(|e| ApiError::bad_request(format!("invalid apply configuration: {e}")))
}

/// A YAML body (`Content-Type: application/yaml` on a create, update or delete) as JSON,
/// as the apiserver's YAML serializer converts it (`sigs.k8s.io/yaml.YAMLToJSON`) before
/// decoding it as it decodes JSON; a conversion error answers as a body that is no object
/// of kind `kind`. This is the one place such bodies are read as YAML.
pub fn yaml_to_json(data: &[u8], kind: &str) -> Result<Vec<u8>, ApiError> {
    let unrecognized = |why: String| ApiError::bad_request(shared::unrecognized(kind, data, &why));
    let text = std::str::from_utf8(data)
        .map_err(|_| unrecognized("yaml: invalid leading UTF-8 octet".to_owned()))?;
    let value: Value =
        serde_yaml_ng::from_str(text).map_err(|e| unrecognized(format!("yaml: {e}")))?;
    serde_json::to_vec(&value).map_err(|e| unrecognized(e.to_string()))
}

/// A DELETE's options body (one that is not empty), decoded as the apiserver decodes
/// `DeleteOptions`: `null` is no options; a body that is no object, or of another kind, or
/// with a field of the wrong type is a 400 with Go's message.
pub fn delete_options(data: &[u8]) -> Result<Value, ApiError> {
    let bad = |why: String| ApiError::bad_request(why);
    let parse_error = |why: String| {
        bad(format!(
            "couldn't get version/kind; json parse error: {why}"
        ))
    };
    if let Some(e) = gojson::syntax_error(data) {
        return Err(parse_error(e));
    }
    let value: Value = serde_json::from_slice(data).map_err(|e| bad(e.to_string()))?;
    let options = match value {
        Value::Null => return Ok(Value::Object(Default::default())),
        Value::Object(options) => options,
        other => {
            return Err(parse_error(format!(
                "json: cannot unmarshal {} into Go value of type {}",
                gojson::type_name(&other),
                shared::TYPE_META
            )));
        }
    };
    let text = |key: &str| options.get(key).filter(|v| !v.is_null());
    for key in ["apiVersion", "kind"] {
        if let Some(v) = text(key).filter(|v| !v.is_string()) {
            return Err(parse_error(format!(
                "json: cannot unmarshal {} into Go struct field .{key} of type string",
                gojson::type_name(v)
            )));
        }
    }
    let kind = text("kind").and_then(Value::as_str).unwrap_or("");
    if !kind.is_empty() && kind != "DeleteOptions" {
        let version = text("apiVersion")
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .unwrap_or("meta.k8s.io/v1");
        return Err(bad(format!(
            "no kind {} is registered for version {} in scheme \"pkg/apis/meta/internalversion/scheme/register.go:27\"",
            gofmt::quote(kind),
            gofmt::quote(version)
        )));
    }
    delete_options_types(&options).map_err(bad)?;
    Ok(Value::Object(options))
}

/// The first field of `DeleteOptions` whose value Go cannot decode into its type, as
/// `encoding/json` words it.
fn delete_options_types(options: &serde_json::Map<String, Value>) -> Result<(), String> {
    // Go names the innermost struct and the whole path: `Preconditions.preconditions.uid`.
    let refuse = |field: &str, value: &Value, go_type: &str| {
        let owner = match field.starts_with("preconditions.") {
            true => "Preconditions",
            false => "DeleteOptions",
        };
        let what = match value {
            Value::Number(n) if go_type == "int64" => format!("number {n}"),
            other => gojson::type_name(other).to_owned(),
        };
        Err(format!(
            "json: cannot unmarshal {what} into Go struct field {owner}.{field} of type {go_type}"
        ))
    };
    let fields = [
        ("gracePeriodSeconds", "int64"),
        ("orphanDependents", "bool"),
        ("propagationPolicy", "v1.DeletionPropagation"),
        ("dryRun", "[]string"),
        ("preconditions", "v1.Preconditions"),
    ];
    for (field, go_type) in fields {
        let Some(value) = options.get(field).filter(|v| !v.is_null()) else {
            continue;
        };
        let fits = match go_type {
            "int64" => value.as_i64().is_some(),
            "bool" => value.is_boolean(),
            "[]string" => value.is_array(),
            "v1.Preconditions" => value.is_object(),
            _ => value.is_string(),
        };
        if !fits {
            return refuse(field, value, go_type);
        }
    }
    for item in options
        .get("dryRun")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if !item.is_string() && !item.is_null() {
            return refuse("dryRun", item, "string");
        }
    }
    let preconditions = options.get("preconditions").and_then(Value::as_object);
    for (key, go_type) in [("uid", "types.UID"), ("resourceVersion", "string")] {
        if let Some(v) = preconditions
            .and_then(|p| p.get(key))
            .filter(|v| !v.is_string() && !v.is_null())
        {
            return refuse(&format!("preconditions.{key}"), v, go_type);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_options_get_the_apiservers_messages() {
        // Observed on kube-apiserver v1.36.2.
        let refused = |body: &[u8]| delete_options(body).unwrap_err().message;
        assert_eq!(
            refused(b"{x"),
            "couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of object key string"
        );
        assert_eq!(
            refused(b"[]"),
            r#"couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#
        );
        assert_eq!(
            refused(b"  "),
            "couldn't get version/kind; json parse error: unexpected end of JSON input"
        );
        assert_eq!(
            refused(br#"{"kind":"Pod"}"#),
            r#"no kind "Pod" is registered for version "meta.k8s.io/v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27""#
        );
        assert_eq!(
            refused(br#"{"kind":1}"#),
            "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"
        );
        assert_eq!(
            refused(br#"{"dryRun":"All"}"#),
            "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string"
        );
        assert_eq!(
            refused(br#"{"dryRun":[1]}"#),
            "json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type string"
        );
        assert_eq!(
            refused(br#"{"gracePeriodSeconds":1.5}"#),
            "json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64"
        );
        for accepted in [
            &b"null"[..],
            b"{}",
            br#"{"kind":"DeleteOptions","apiVersion":"x/y"}"#,
            br#"{"apiVersion":"x/y"}"#,
        ] {
            assert!(
                delete_options(accepted).is_ok(),
                "{}",
                String::from_utf8_lossy(accepted)
            );
        }
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
