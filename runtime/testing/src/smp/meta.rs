//! The patch metadata of a field (`LookupPatchMetadataForStruct` / `ForSlice`), read from the
//! OpenAPI schema instead of the Go struct tags it is published from. Where the Go lookup
//! fails (the value is not a struct, the struct has no such field) the apiserver answers 500
//! with the lookup's error; the schema tells which case it is.

use serde_json::Value;

use super::SmpError;
use kubegen_core::go_print;

/// A field's `patchStrategy` and `patchMergeKey`.
pub(super) struct PatchMeta<'a> {
    strategies: Vec<&'a str>,
    pub merge_key: &'a str,
}

impl<'a> PatchMeta<'a> {
    fn of(field: &'a Value) -> Self {
        let strategies = field
            .get("x-kubernetes-patch-strategy")
            .and_then(Value::as_str)
            .map(|s| s.split(',').collect())
            .unwrap_or_default();
        let merge_key = field
            .get("x-kubernetes-patch-merge-key")
            .and_then(Value::as_str)
            .unwrap_or("");
        PatchMeta {
            strategies,
            merge_key,
        }
    }

    /// The strategy beside `retainKeys` (`extractRetainKeysPatchStrategy`): `merge`,
    /// `replace` or `""`.
    pub(super) fn strategy(&self) -> Result<&'a str, SmpError> {
        match self.strategies.as_slice() {
            [] | ["retainKeys"] => Ok(""),
            [one] => Ok(one),
            ["retainKeys", other] | [other, "retainKeys"] => Ok(other),
            _ => Err(SmpError::Internal(format!(
                "unexpected patch strategy: [{}]",
                self.strategies.join(" ")
            ))),
        }
    }
}

/// The schema and patch metadata of the field `key` of the struct `schema`.
pub(super) fn for_struct<'a>(
    schema: &'a Value,
    key: &str,
) -> Result<(&'a Value, PatchMeta<'a>), SmpError> {
    let kind = go_kind(schema);
    if kind != "struct" {
        return Err(SmpError::Internal(format!(
            "merging an object in json but data type is not struct, instead is: {kind}"
        )));
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    // Go's JSON field lookup: the exact name, else a case-insensitive match.
    let field = properties.and_then(|p| {
        p.get(key).or_else(|| {
            p.iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(key))
                .map(|(_, v)| v)
        })
    });
    match field {
        Some(field) => Ok((field, PatchMeta::of(field))),
        None => Err(SmpError::Internal(format!(
            "unable to find api field in struct {} for the json field {}",
            struct_name(schema),
            go_print::quote(key)
        ))),
    }
}

/// The schema of the items and the patch metadata of the list field `key` of `schema`.
pub(super) fn for_slice<'a>(
    schema: &'a Value,
    key: &str,
) -> Result<(&'a Value, PatchMeta<'a>), SmpError> {
    let (field, meta) = for_struct(schema, key)?;
    if go_kind(field) != "slice" {
        return Err(SmpError::Internal(format!(
            "expected slice or array type, but got: {}",
            go_kind(schema)
        )));
    }
    let items = field.get("items").unwrap_or(&Value::Null);
    if go_kind(items) == "slice" {
        return Err(SmpError::Internal("unexpected slice of slice".into()));
    }
    Ok((items, meta))
}

/// The `reflect.Kind` of the Go type a schema describes.
pub(super) fn go_kind(schema: &Value) -> &'static str {
    if schema.get("additionalProperties").is_some() {
        return "map";
    }
    let format = schema.get("format").and_then(Value::as_str);
    match (schema.get("type").and_then(Value::as_str), format) {
        (Some("array"), _) => "slice",
        // Time, MicroTime, IntOrString, Quantity are structs that marshal as scalars.
        (Some("string"), Some("date-time" | "int-or-string")) => "struct",
        (Some("string"), _) => "string",
        (Some("integer"), Some("int32")) => "int32",
        (Some("integer"), _) => "int64",
        (Some("number"), _) => "float64",
        (Some("boolean"), _) => "bool",
        _ if schema.get("items").is_some() => "slice",
        _ => "struct",
    }
}

/// The Go name of a struct, for the lookup's error. The resolved schema keeps it only for a
/// kind (`x-kubernetes-group-version-kind`) and for the opaque types it can recognise; a
/// nested struct of known fields is left unnamed (its lookup fails only for a
/// `$setElementOrder/` of a field it does not have).
fn struct_name(schema: &Value) -> &str {
    if let Some(kind) = schema
        .pointer("/x-kubernetes-group-version-kind/0/kind")
        .and_then(Value::as_str)
    {
        return kind;
    }
    let atomic = schema.get("x-kubernetes-map-type").and_then(Value::as_str) == Some("atomic");
    if schema.get("properties").is_some() {
        ""
    } else if schema.get("x-kubernetes-preserve-unknown-fields").is_some() && !atomic {
        "JSONSchemaProps"
    } else if schema.get("type").is_some() {
        "RawExtension"
    } else {
        "JSON"
    }
}
