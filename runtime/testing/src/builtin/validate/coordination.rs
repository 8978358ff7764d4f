//! `coordination.k8s.io/v1`: Lease (`pkg/apis/coordination/validation`), without the
//! coordinated-election fields (their feature gate is off by default and the apiserver
//! drops them).

use serde_json::Value;

use super::common::get;
use super::{Meta, Write};
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    (kind == "Lease").then(|| meta.first(write, lease_spec(get(object, "spec"))))
}

/// `ValidateLeaseSpec`.
fn lease_spec(spec: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(d) = spec["leaseDurationSeconds"].as_i64().filter(|d| *d <= 0) {
        errors.push(FieldError::invalid(
            "spec.leaseDurationSeconds",
            BadValue::Int(d),
            "must be greater than 0",
        ));
    }
    if let Some(t) = spec["leaseTransitions"].as_i64().filter(|t| *t < 0) {
        errors.push(FieldError::invalid(
            "spec.leaseTransitions",
            BadValue::Int(t),
            "must be greater than or equal to 0",
        ));
    }
    errors
}
