//! client-go's Extract functions for kubegen kinds: the apply configuration holding exactly
//! what one manager applied.

use serde::Serialize;

use super::{Apply, ObjectConfiguration};
use crate::fieldpath::{FieldsV1Error, managed};
use crate::validation::local::prepared_kind;
use crate::{CrdError, CustomResource};

/// Why a manager's fields could not be extracted.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The object does not fit its schema, or its `managedFields` do not decode.
    #[error(transparent)]
    Fields(#[from] managed::ExtractFieldsError),
    /// The kind's CRD (whose schema types the fields) could not be built.
    #[error(transparent)]
    Crd(#[from] CrdError),
    /// The object could not be written as JSON.
    #[error("error converting obj to unstructured: {0}")]
    Encode(serde_json::Error),
    /// What the manager owns does not read back as the apply configuration (a Kubernetes
    /// type's required field it does not own, say).
    #[error("the fields {manager} applied do not decode as {configuration}: {source}")]
    Decode {
        /// The manager.
        manager: String,
        /// The configuration type.
        configuration: &'static str,
        /// serde's reason.
        source: serde_json::Error,
    },
}

/// What `manager` applied to `object` (through the main resource) as `K`'s apply
/// configuration: the fields its Apply entry in `metadata.managedFields` owns, with the
/// object's name and namespace. Only the identity when the manager never applied.
pub fn extract<K>(object: &K, manager: &str) -> Result<K::Configuration, ExtractError>
where
    K: CustomResource + Apply + Serialize,
    K::Configuration: ObjectConfiguration,
{
    extract_from(object, manager, "")
}

/// What `manager` applied through the status subresource of `object`.
pub fn extract_status<K>(object: &K, manager: &str) -> Result<K::Configuration, ExtractError>
where
    K: CustomResource + Apply + Serialize + crate::resource::HasStatusSubresource,
    K::Configuration: ObjectConfiguration,
{
    extract_from(object, manager, "status")
}

fn extract_from<K>(
    object: &K,
    manager: &str,
    subresource: &str,
) -> Result<K::Configuration, ExtractError>
where
    K: CustomResource + Apply + Serialize,
    K::Configuration: ObjectConfiguration,
{
    let mut value = serde_json::to_value(object).map_err(ExtractError::Encode)?;
    expand_fields_text(&mut value)?;
    // The kind's field types, built once per process beside its validator.
    let prepared = prepared_kind::<K>()?;
    let mut extracted = managed::extract(prepared.field_types(), &value, manager, subresource)?
        .unwrap_or_else(
            || serde_json::json!({"apiVersion": value["apiVersion"], "kind": value["kind"]}),
        );
    // The identity, as client-go's Extract functions set it whatever the manager owns.
    let metadata = &mut extracted["metadata"];
    if !metadata.is_object() {
        *metadata = serde_json::json!({});
    }
    for key in ["name", "namespace"] {
        match value["metadata"].get(key) {
            Some(v) => metadata[key] = v.clone(),
            None => {
                if let Some(m) = metadata.as_object_mut() {
                    m.remove(key);
                }
            }
        }
    }
    serde_json::from_value(extracted).map_err(|source| ExtractError::Decode {
        manager: manager.to_owned(),
        configuration: std::any::type_name::<K::Configuration>(),
        source,
    })
}

/// Reads back, as trees, the `fieldsV1` a cache holds as JSON text
/// ([`CompactManagedFields`](crate::informer::CompactManagedFields)).
fn expand_fields_text(object: &mut serde_json::Value) -> Result<(), managed::ExtractFieldsError> {
    let entries = object
        .get_mut("metadata")
        .and_then(|m| m.get_mut("managedFields"))
        .and_then(|m| m.as_array_mut());
    for fields in entries
        .into_iter()
        .flatten()
        .filter_map(|e| e.get_mut("fieldsV1"))
    {
        if let serde_json::Value::String(text) = fields {
            *fields = serde_json::from_str(text)
                .map_err(|e| FieldsV1Error(format!("fieldsV1 held as text: {e}")))?;
        }
    }
    Ok(())
}
