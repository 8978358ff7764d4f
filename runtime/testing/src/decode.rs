//! Request bodies decoded as the apiserver decodes them for custom resources, with its
//! errors: an object for create and update (JSON or YAML), merge and JSON patches, apply
//! bodies, delete options. The bytes are read as Go reads them (kubegen-go's `json` and
//! `yaml`); the schema coercion that comes with decoding (`metadata` through Go's
//! `ObjectMeta`, unknown fields pruned) is `validation::decode`'s, which local validation
//! shares.

use kubegen_go::json as gojson;
use serde_json::Value;

use super::jsonpatch;
use super::status::ApiError;
use kubegen_core::go_print;
pub(super) use kubegen_runtime::validation::decode::FieldValidation;
pub(crate) use kubegen_runtime::validation::decode::prune;
use kubegen_runtime::validation::decode::{self as shared, Parsed, Unreadable, strict_errors};
use kubegen_runtime::validation::{BadValue, FieldError};

/// A create or update body for a resource of kind `kind` (served at `api_version`),
/// decoded and coerced with `schema` — the schema of the version the body names, `None` when
/// no served version has that name. `yaml` says the body is `application/yaml`. Returns the
/// object and the warnings to send.
pub(super) fn write_body<'s>(
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

/// [`write_body`] of an object that is already a value, with `apiVersion` and `kind`
/// strings of its own (an in-process request's): what decoding its JSON gives — its numbers
/// as Go writes and reads them — coerced alike.
pub(super) fn write_value<'s>(
    mut object: Value,
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    gojson::through_storage(&mut object);
    shared::body(object, kind, api_version, schema, &[], directive).map_err(ApiError::bad_request)
}

/// A create or update body of a built-in kind `kind` (served at `api_version`) as the
/// scheme's typed decoder reads its type: a missing, `null` or empty `apiVersion` or `kind`
/// takes the endpoint's, and any other group, version or kind is not registered (400).
/// Returns the body rewritten as JSON with the endpoint's type when it lacked one; `None`
/// when it is fine as it is, or unreadable (its error is [`write_body`]'s to give).
pub(super) fn builtin_body(
    data: &[u8],
    yaml: bool,
    kind: &str,
    api_version: &str,
) -> Result<Option<Vec<u8>>, ApiError> {
    let value = match yaml {
        true => kubegen_go::yaml::unmarshal(data).ok().map(|d| d.value),
        false => gojson::decode(data, &[]).ok().and_then(|d| d.value.ok()),
    };
    let Some(Value::Object(mut fields)) = value else {
        return Ok(None);
    };
    let named = |key: &str| match fields.get(key) {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => None,
    };
    let (Some(named_version), Some(named_kind)) = (named("apiVersion"), named("kind")) else {
        return Ok(None);
    };
    let body_version = match named_version.as_str() {
        "" => api_version,
        v => v,
    };
    let body_kind = match named_kind.as_str() {
        "" => kind,
        k => k,
    };
    if (body_version, body_kind) != (api_version, kind) {
        let version = body_version
            .rsplit_once('/')
            .map_or(body_version, |(_, v)| v);
        return Err(ApiError::bad_request(format!(
            "{body_kind} in version {} cannot be handled as a {kind}: no kind {} is registered for version {} in scheme \"pkg/api/legacyscheme/scheme.go:30\"",
            go_print::quote(version),
            go_print::quote(body_kind),
            go_print::quote(body_version)
        )));
    }
    if named_version == api_version && named_kind == kind {
        return Ok(None);
    }
    fields.insert("apiVersion".into(), Value::from(api_version));
    fields.insert("kind".into(), Value::from(kind));
    Ok(Some(gojson::to_vec(&Value::Object(fields))))
}

/// What a merge or JSON patch of a resource of kind `kind` (served at `api_version`)
/// produced, decoded and coerced as the apiserver decodes it: its apiVersion and kind read
/// first, then the schema of the version it names applied (`schema` gives it).
/// `patch_errors` are the strict decoder's complaints about the patch itself. Failures are
/// `Invalid` causes on `patch`, quoting the patched object, or what `quoted` gives (a
/// strategic merge patch's failures quote the patch as Go prints a map).
pub(super) fn patched_object<'s>(
    doc: &mut Value,
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
    patch_errors: &[String],
    directive: FieldValidation,
    quoted: Option<&str>,
) -> Result<Vec<String>, ApiError> {
    // Failures quote the patched object as it was before coercion; it is written out only
    // when something fails.
    let patched = doc.clone();
    let invalid = |why: String| match quoted {
        Some(text) => {
            let error = FieldError::invalid("patch", BadValue::str(text), why);
            ApiError::invalid("", "", "", &[error])
        }
        None => invalid_patch(&patched, why),
    };
    shared::patched_type_meta(doc).map_err(&invalid)?;
    let unknown = shared::coerce_as_named(doc, kind, api_version, schema).map_err(&invalid)?;
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
    let error = FieldError::invalid("patch", BadValue::str(go_print::marshal(patched)), why);
    ApiError::invalid("", "", "", &[error])
}

/// A create or update body for a resource of kind `kind` (served at `api_version`).
pub(super) fn object(data: &[u8], kind: &str, api_version: &str) -> Result<Value, ApiError> {
    shared::parse_json(data, data)
        .map(|p| p.object)
        .map_err(|e: Unreadable| ApiError::bad_request(e.message(kind, api_version, data)))
}

/// A strategic merge patch's body, read as the patcher reads it (into a Go map): text that
/// is not JSON is a 400 with Go's message; what the patch may be is the patch's to say.
pub(super) fn strategic_patch(data: &[u8]) -> Result<Value, ApiError> {
    let decoded = gojson::decode(data, &[]).map_err(|e| ApiError::bad_request(e.to_string()))?;
    decoded
        .value
        .map_err(|e| ApiError::bad_request(e.to_string()))
}

/// A JSON merge patch and the strict decoder's complaints about it (`duplicate field
/// "spec.a"`). With `Warn` and `Strict` the patch is first decoded strictly (errors
/// `error decoding patch: …`); evanphx/json-patch refuses what is no object with `Invalid JSON
/// Patch`, and with `Ignore` that is all that reads it.
pub(super) fn merge_patch(
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
pub(super) fn json_patch(
    data: &[u8],
    directive: FieldValidation,
) -> Result<(jsonpatch::Patch, Vec<String>), ApiError> {
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
    // Keys `jsonPatchOp` does not have, as the strict decoder names them (`[1].vlue`).
    let unknown: Vec<String> = operations
        .iter()
        .enumerate()
        .filter_map(|(i, item)| Some((i, item.as_object()?)))
        .flat_map(|(i, fields)| {
            fields
                .keys()
                .filter(|k| !["op", "path", "from", "value"].contains(&k.as_str()))
                .map(move |k| format!("[{i}].{k}"))
        })
        .collect();
    let complaints = match strict {
        true => strict_errors(&decoded.duplicates, &unknown)
            .into_iter()
            .map(|e| format!("json patch {e}"))
            .collect(),
        false => Vec::new(),
    };
    if operations.len() > jsonpatch::MAX_OPERATIONS {
        return Err(ApiError::too_large(&format!(
            "The allowed maximum operations in a JSON patch is {}, got {}",
            jsonpatch::MAX_OPERATIONS,
            operations.len()
        )));
    }
    Ok((jsonpatch::Patch(operations), complaints))
}

/// A server-side apply body (`application/apply-patch+yaml`): the object and the duplicate
/// keys strict decoding reports, which [`apply_duplicates`] turns into the apiserver's answer
/// once the apply succeeded.
pub(super) fn apply(data: &[u8]) -> Result<(Value, Vec<String>), ApiError> {
    shared::parse_apply(data).map_err(ApiError::bad_request)
}

/// What the apiserver makes of an apply body's duplicate keys after the apply succeeded:
/// warnings (`Warn`), a `400 BadRequest` (`Strict`), or nothing (`Ignore`).
pub(super) fn apply_duplicates(
    duplicates: &[String],
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    shared::apply_duplicates(duplicates, directive).map_err(ApiError::bad_request)
}

/// A YAML body (`Content-Type: application/yaml`) as JSON, converted as sigs.k8s.io/yaml's
/// `YAMLToJSON` converts it; its errors answer as a body that is no object of kind `kind`.
/// For bodies read as Go types (`Scale`, `DeleteOptions`); create and update bodies go
/// through [`write_body`].
pub(super) fn yaml_to_json(data: &[u8], kind: &str) -> Result<Vec<u8>, ApiError> {
    let document = kubegen_go::yaml::unmarshal(data)
        .map_err(|e| ApiError::bad_request(shared::unrecognized(kind, data, &e.to_string())))?;
    let json = gojson::to_vec(&document.value);
    gojson::dismantle(document.value);
    Ok(json)
}

/// A DELETE's options body (one that is not empty), decoded as the apiserver decodes
/// `DeleteOptions`: `null` is no options; a body that is no object, or of another kind, or
/// with a field of the wrong type is a 400 with Go's message.
pub(super) fn delete_options(data: &[u8]) -> Result<Value, ApiError> {
    let bad = |why: String| ApiError::bad_request(why);
    let parse_error = |why: String| {
        bad(format!(
            "couldn't get version/kind; json parse error: {why}"
        ))
    };
    let decoded = gojson::decode(data, &[]).map_err(|e| parse_error(e.to_string()))?;
    let value = decoded.value.map_err(|e| bad(e.to_string()))?;
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
            go_print::quote(kind),
            go_print::quote(version)
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
mod tests;
