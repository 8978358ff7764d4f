//! Request bodies decoded as the apiserver decodes them for custom resources, with its
//! errors: an object for create and update (JSON or YAML), merge and JSON patches, apply
//! bodies, delete options. The bytes are read as Go reads them (kubegen-go's `json` and
//! `yaml`); the schema coercion that comes with decoding (`metadata` through Go's
//! `ObjectMeta`, unknown fields pruned) is `validation::decode`'s, which local validation
//! shares.

use kubegen_go::json as gojson;
use serde_json::Value;

use super::status::ApiError;
pub use crate::validation::decode::FieldValidation;
pub(crate) use crate::validation::decode::prune;
use crate::validation::decode::{self as shared, Parsed, Unreadable, coerce, strict_errors};
use crate::validation::gofmt;
use crate::validation::{BadValue, FieldError};

/// `fieldValidation` as a request's query parameter; an unknown value is `Invalid` in the
/// request's options (`CreateOptions`, `UpdateOptions`, `PatchOptions`).
pub fn field_validation(value: Option<&str>, options: &str) -> Result<FieldValidation, ApiError> {
    FieldValidation::parse(value)
        .map_err(|error| ApiError::invalid("meta.k8s.io", options, "", &[error]))
}

/// A create or update body for a resource of kind `kind` (served at `api_version`),
/// decoded and coerced with `schema` — the schema of the version the body names, `None` when
/// no served version has that name. `yaml` says the body is `application/yaml`. Returns the
/// object and the warnings to send.
pub fn write_body<'s>(
    data: &[u8],
    yaml: bool,
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let parsed = match yaml {
        true => shared::parse_yaml(data),
        false => shared::parse_json(data, data),
    };
    let Parsed { object, duplicates } =
        parsed.map_err(|e| ApiError::bad_request(e.message(kind, api_version, data)))?;
    shared::body(object, kind, api_version, schema, &duplicates, directive)
        .map_err(ApiError::bad_request)
}

/// What a merge or JSON patch produced, decoded and coerced as the apiserver decodes it.
/// `patch_errors` are the strict decoder's complaints about the patch itself. Failures are
/// `Invalid` causes on `patch`, quoting the patched object.
pub fn patched_object(
    doc: &mut Value,
    schema: &Value,
    patch_errors: &[String],
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    // Failures quote the patched object as it was before coercion; it is written out only
    // when something fails.
    let patched = doc.clone();
    let invalid = |why: String| invalid_patch(&patched, why);
    let unknown = coerce(Some(schema), doc).map_err(&invalid)?;
    let mut strict = patch_errors.to_vec();
    strict.extend(strict_errors(&[], &unknown));
    match directive {
        FieldValidation::Strict if !strict.is_empty() => Err(invalid(format!(
            "strict decoding error: {}",
            strict.join(", ")
        ))),
        FieldValidation::Warn => Ok(strict),
        _ => Ok(Vec::new()),
    }
}

/// The apiserver's `Invalid` for a patched object it cannot decode: a cause on `patch`
/// quoting the object.
fn invalid_patch(patched: &Value, why: String) -> ApiError {
    let error = FieldError::invalid("patch", BadValue::str(gofmt::marshal(patched)), why);
    ApiError::invalid("", "", "", &[error])
}

/// A create or update body for a resource of kind `kind` (served at `api_version`).
pub fn object(data: &[u8], kind: &str, api_version: &str) -> Result<Value, ApiError> {
    shared::parse_json(data, data)
        .map(|p| p.object)
        .map_err(|e: Unreadable| ApiError::bad_request(e.message(kind, api_version, data)))
}

/// A JSON merge patch and the strict decoder's complaints about it (`duplicate field
/// "spec.a"`). With `Warn` and `Strict` the patch is first decoded strictly (errors
/// `error decoding patch: …`); evanphx/json-patch refuses what is no object with `Invalid JSON
/// Patch`, and with `Ignore` that is all that reads it.
pub fn merge_patch(
    data: &[u8],
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    const BAD: &str = "Invalid JSON Patch";
    let strict = directive != FieldValidation::Ignore;
    let decoded = match gojson::decode(data, &[]) {
        Ok(d) => d,
        Err(e) if strict => {
            return Err(ApiError::bad_request(format!("error decoding patch: {e}")));
        }
        Err(_) => return Err(ApiError::bad_request(BAD)),
    };
    let value = match decoded.value {
        Ok(v) => v,
        Err(e) if strict => {
            return Err(ApiError::bad_request(format!("error decoding patch: {e}")));
        }
        // evanphx keeps numbers as text; the patched object is what fails to decode.
        Err(e) => return Err(invalid_patch(&Value::Null, e.to_string())),
    };
    match &value {
        Value::Object(_) => {
            let duplicates = match strict {
                true => strict_errors(&decoded.duplicates, &[]),
                false => Vec::new(),
            };
            Ok((value, duplicates))
        }
        Value::Null => Err(ApiError::bad_request(BAD)),
        Value::Array(_) if !strict => {
            // The array replaces the object, which then has no kind to read.
            Err(invalid_patch(
                &value,
                format!(
                    "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type {}",
                    shared::TYPE_META
                ),
            ))
        }
        other if strict => Err(ApiError::bad_request(format!(
            "error decoding patch: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            gojson::type_name(other)
        ))),
        _ => Err(ApiError::bad_request(BAD)),
    }
}

/// A JSON patch (RFC 6902), a list of operations (`null` is none), and the strict
/// decoder's complaints about it (`json patch duplicate field "[1].op"`). With `Warn` and
/// `Strict` it is first decoded strictly into the apiserver's operation type (errors
/// `error decoding patch: …`); evanphx/json-patch's own decoding errors come unprefixed.
pub fn json_patch(
    data: &[u8],
    directive: FieldValidation,
) -> Result<(json_patch::Patch, Vec<String>), ApiError> {
    let strict = directive != FieldValidation::Ignore;
    let refuse = |why: String| {
        ApiError::bad_request(match strict {
            true => format!("error decoding patch: {why}"),
            false => why,
        })
    };
    let decoded = gojson::decode(data, &[]).map_err(|e| refuse(e.to_string()))?;
    let value = match decoded.value {
        Ok(v) => v,
        Err(e) if strict => return Err(refuse(e.to_string())),
        Err(e) => return Err(invalid_patch(&Value::Null, e.to_string())),
    };
    let (list, op) = match strict {
        true => ("[]handlers.jsonPatchOp", "handlers.jsonPatchOp"),
        false => ("jsonpatch.Patch", "jsonpatch.Operation"),
    };
    let operations = match value {
        Value::Null => Vec::new(),
        Value::Array(items) => items,
        other => {
            return Err(refuse(format!(
                "json: cannot unmarshal {} into Go value of type {list}",
                gojson::type_name(&other)
            )));
        }
    };
    for item in &operations {
        match item {
            Value::Object(fields) if strict => {
                let wrong = ["from", "op", "path"].into_iter().find_map(|f| {
                    fields
                        .get(f)
                        .filter(|v| !v.is_string() && !v.is_null())
                        .map(|v| (f, v))
                });
                if let Some((field, v)) = wrong {
                    return Err(refuse(format!(
                        "json: cannot unmarshal {} into Go struct field jsonPatchOp.{field} of type string",
                        gojson::type_name(v)
                    )));
                }
            }
            Value::Object(_) | Value::Null => {}
            other => {
                return Err(refuse(format!(
                    "json: cannot unmarshal {} into Go value of type {op}",
                    gojson::type_name(other)
                )));
            }
        }
    }
    let complaints = match strict {
        true => strict_errors(&decoded.duplicates, &[])
            .into_iter()
            .map(|e| format!("json patch {e}"))
            .collect(),
        false => Vec::new(),
    };
    let patch = serde_json::from_value(Value::Array(operations))
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    Ok((patch, complaints))
}

/// A server-side apply body (`application/apply-patch+yaml`): the object and the duplicate
/// keys strict decoding reports, which [`apply_duplicates`] turns into the apiserver's answer
/// once the apply succeeded.
pub fn apply(data: &[u8]) -> Result<(Value, Vec<String>), ApiError> {
    shared::parse_apply(data).map_err(ApiError::bad_request)
}

/// What the apiserver makes of an apply body's duplicate keys after the apply succeeded:
/// warnings (`Warn`), a `400 BadRequest` (`Strict`), or nothing (`Ignore`).
pub fn apply_duplicates(
    duplicates: &[String],
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    shared::apply_duplicates(duplicates, directive).map_err(ApiError::bad_request)
}

/// Delete options (an empty body means none).
pub fn delete_options(data: &[u8]) -> Result<Value, ApiError> {
    if data.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    let decoded = gojson::decode(data, &[]).map_err(|e| ApiError::bad_request(e.to_string()))?;
    decoded
        .value
        .map_err(|e| ApiError::bad_request(e.to_string()))
}

#[cfg(test)]
mod tests;
