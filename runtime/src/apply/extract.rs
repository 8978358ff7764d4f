//! client-go's Extract functions for kubegen kinds: the apply configuration holding exactly
//! what one manager applied.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use super::{Apply, ObjectConfiguration};
use crate::CustomResource;
use crate::fieldpath::managed;
use crate::fieldpath::schema::Schema;

/// Why a manager's fields could not be extracted.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The object does not fit its schema, or its `managedFields` do not decode.
    #[error(transparent)]
    Fields(#[from] managed::ExtractError),
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
    K: CustomResource + Apply + Serialize + crate::client::HasStatusSubresource,
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
    let value = serde_json::to_value(object).map_err(ExtractError::Encode)?;
    let types = field_types::<K>();
    let mut extracted = managed::extract(types, &value, manager, subresource)?.unwrap_or_else(
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

/// The field types of `K`, built once per kind from its schema as the apiserver builds them.
fn field_types<K: CustomResource>() -> &'static Schema {
    static TYPES: Mutex<Option<HashMap<&'static str, &'static Schema>>> = Mutex::new(None);
    let mut types = TYPES.lock().unwrap_or_else(PoisonError::into_inner);
    let types = types.get_or_insert_with(HashMap::new);
    types.entry(K::INFO.rust_type).or_insert_with(|| {
        let built = Schema::from_openapi_or_deduced(&(K::INFO.schema)().to_value());
        // One per kind for the life of the process, like a generated static.
        Box::leak(Box::new(built))
    })
}
