//! What one applier set: the part of an object a manager's Apply entry owns, as an apply
//! configuration it could send again (client-go's `ExtractInto`).

use serde_json::Value;

use crate::fieldpath::schema::KindTypes;
use crate::fieldpath::typed::{Duplicates, ValidationErrors};
use crate::fieldpath::{FieldsV1Error, Set};

/// Why an object's fields could not be extracted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExtractFieldsError {
    /// The object does not fit its schema.
    #[error("error converting obj to typed: {0}")]
    Typed(#[from] ValidationErrors),
    /// The manager's `fieldsV1` does not decode.
    #[error("error marshalling FieldsV1 to JSON: {0}")]
    Fields(#[from] FieldsV1Error),
    /// The extracted value is not an object.
    #[error("unable to convert managed fields for {0} to unstructured, expected map")]
    NotAnObject(String),
}

/// The fields of `object` that `manager` applied (through `subresource`, empty for the main
/// resource), with `apiVersion` and `kind`; `None` when it has no Apply entry.
pub fn extract(
    schema: &KindTypes,
    object: &Value,
    manager: &str,
    subresource: &str,
) -> Result<Option<Value>, ExtractFieldsError> {
    schema.validate(object, Duplicates::Reject)?;
    let entries = object["metadata"]["managedFields"].as_array();
    let Some(entry) = entries.into_iter().flatten().find(|e| {
        e["manager"].as_str().unwrap_or("") == manager
            && e["operation"] == "Apply"
            && e["subresource"].as_str().unwrap_or("") == subresource
    }) else {
        return Ok(None);
    };
    let set = match entry.get("fieldsV1") {
        Some(fields) if !fields.is_null() => Set::from_fields_v1(fields)?,
        _ => Set::new(),
    };
    let mut extracted = schema.extract_items(object, &set.leaves(), false);
    let Value::Object(fields) = &mut extracted else {
        return Err(ExtractFieldsError::NotAnObject(manager.to_owned()));
    };
    if !fields.contains_key("kind") && object["kind"].as_str().is_some_and(|k| !k.is_empty()) {
        fields.insert("kind".into(), object["kind"].clone());
        fields.insert("apiVersion".into(), object["apiVersion"].clone());
    }
    Ok(Some(extracted))
}
