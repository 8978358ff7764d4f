//! Reading `metadata.managedFields` in tests: what one manager's entry owns.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

/// The `fieldsV1` of `manager`'s entry for `operation` ("Apply" or "Update") through
/// `subresource` ("" for the main resource), or `None` when it has no such entry.
pub fn owned_fields(
    meta: &ObjectMeta,
    manager: &str,
    operation: &str,
    subresource: &str,
) -> Option<Value> {
    meta.managed_fields
        .iter()
        .flatten()
        .find(|e| {
            e.manager.as_deref() == Some(manager)
                && e.operation.as_deref() == Some(operation)
                && e.subresource.as_deref().unwrap_or("") == subresource
        })
        .and_then(|e| e.fields_v1.as_ref())
        .map(|f| f.0.clone())
}
