//! What each version declares beside its schema: the deprecation warning
//! (`validateDeprecationWarning`), printer columns (`ValidateCustomResourceColumnDefinition`)
//! and the scale subresource's paths (`ValidateCustomResourceDefinitionSubresources`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion;

use serde_json::Value;

use super::Refusal;
use crate::checks::{BadValue, FieldError};
use crate::go_print;

const COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";

/// `deprecationWarning`: only on deprecated versions, 1 to 256 printable characters.
pub(super) fn deprecation(version: &CustomResourceDefinitionVersion, i: usize) -> Vec<Refusal> {
    let path = format!("spec.versions[{i}].deprecationWarning");
    let Some(warning) = version.deprecation_warning.as_deref() else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    if version.deprecated != Some(true) {
        problems.push("can only be set for deprecated versions".to_owned());
    } else {
        if warning.len() > 256 {
            problems.push("must be <= 256 characters long".to_owned());
        }
        if warning.is_empty() {
            problems.push("must not be an empty string".to_owned());
        }
        // Go also words control characters on their own, but checks printability first, and
        // no control character is printable.
        if let Some((index, _)) = warning
            .char_indices()
            .find(|(_, c)| !go_print::is_print(*c))
        {
            problems.push(format!(
                "must only contain printable UTF-8 characters; non-printable character found at index {index}"
            ));
        }
    }
    problems
        .into_iter()
        .map(|detail| {
            Refusal::new(
                // Go holds the warning as a `*string`, which its errors print as JSON.
                FieldError::invalid(&path, BadValue::Json(Value::String(warning.into())), detail),
                "`deprecated(warning = \"...\")` takes one line of at most 256 printable \
                 characters; leave `warning` out for the apiserver's default warning",
            )
        })
        .collect()
}

/// `validateSimpleJSONPath`: a path starting with `.`.
fn simple_json_path(path: &str, field: &str) -> Option<FieldError> {
    match path.as_bytes().first() {
        None => Some(FieldError::invalid(
            field,
            BadValue::str(path),
            "must not be empty",
        )),
        Some(b'.') => None,
        Some(_) => Some(FieldError::invalid(
            field,
            BadValue::str(path),
            "must be a simple json path starting with .",
        )),
    }
}

/// The scale subresource's replica and selector paths.
pub(super) fn subresources(version: &CustomResourceDefinitionVersion, path: &str) -> Vec<Refusal> {
    let Some(scale) = version.subresources.as_ref().and_then(|s| s.scale.as_ref()) else {
        return Vec::new();
    };
    let selector = scale.label_selector_path.as_deref().unwrap_or_default();
    let paths: [(&str, &str, &[&str], &str, bool); 3] = [
        (
            &scale.spec_replicas_path,
            "specReplicasPath",
            &[".spec."],
            ".spec",
            true,
        ),
        (
            &scale.status_replicas_path,
            "statusReplicasPath",
            &[".status."],
            ".status",
            true,
        ),
        (
            selector,
            "labelSelectorPath",
            &[".spec.", ".status."],
            "either .spec or .status",
            false,
        ),
    ];
    let mut out = Vec::new();
    for (value, name, prefixes, under, required) in paths {
        let field = format!("{path}.scale.{name}");
        let error = if value.is_empty() {
            if !required {
                continue;
            }
            FieldError::required(&field, "")
        } else if let Some(e) = simple_json_path(value, &field) {
            e
        } else if !prefixes.iter().any(|p| value.starts_with(p)) {
            // Go holds the selector path as a `*string`, which its errors print as JSON.
            let shown = match required {
                true => BadValue::str(value),
                false => BadValue::Json(Value::String(value.into())),
            };
            FieldError::invalid(
                &field,
                shown,
                format!("should be a json path under {under}"),
            )
        } else {
            continue;
        };
        out.push(Refusal::new(
            error,
            "`scale(...)` paths are JSON paths into the object: `spec_replicas_path` under `.spec.`, \
             `status_replicas_path` under `.status.`, `label_selector_path` under either \
             (`.spec.replicas`, `.status.replicas`, `.status.selector`)",
        ));
    }
    out
}

/// Each printer column's name, type, format and JSON path.
pub(super) fn columns(version: &CustomResourceDefinitionVersion, path: &str) -> Vec<Refusal> {
    let mut out = Vec::new();
    let hint = "`printcolumn(name = ..., json_path = \".spec.x\", type = ...)` needs a name, a \
                type among integer, number, string, boolean and date, a format (if any) among \
                int32, int64, float, double, byte, date, date-time and password, and a JSON path \
                starting with `.`";
    for (i, column) in version
        .additional_printer_columns
        .iter()
        .flatten()
        .enumerate()
    {
        let at = |field: &str| format!("{path}[{i}].{field}");
        let mut errors = Vec::new();
        if column.name.is_empty() {
            errors.push(FieldError::required(&at("name"), ""));
        }
        if column.type_.is_empty() {
            errors.push(FieldError::required(
                &at("type"),
                format!("must be one of {COLUMN_TYPES}"),
            ));
        } else if !COLUMN_TYPES.split(',').any(|t| t == column.type_) {
            errors.push(FieldError::invalid(
                &at("type"),
                BadValue::str(&column.type_),
                format!("must be one of {COLUMN_TYPES}"),
            ));
        }
        if let Some(format) = column.format.as_deref().filter(|f| !f.is_empty())
            && !COLUMN_FORMATS.split(',').any(|f| f == format)
        {
            errors.push(FieldError::invalid(
                &at("format"),
                BadValue::str(format),
                format!("must be one of {COLUMN_FORMATS}"),
            ));
        }
        if column.json_path.is_empty() {
            errors.push(FieldError::required(&at("JSONPath"), ""));
        } else {
            errors.extend(simple_json_path(&column.json_path, &at("JSONPath")));
        }
        out.extend(errors.into_iter().map(|e| Refusal::new(e, hint)));
    }
    out
}
