//! The registry strategies of the built-in kinds: what `PrepareForCreate` and
//! `PrepareForUpdate` change before validation (generation, status resets, generated
//! selectors and labels, ...).

use serde_json::Value;

/// Whether `group` `kind` objects carry a `metadata.generation` the strategy sets to 1 on
/// create and bumps when the spec changes.
pub fn has_generation(group: &str, kind: &str) -> bool {
    let _ = (group, kind);
    false
}

/// `PrepareForCreate`.
pub fn prepare_for_create(group: &str, version: &str, kind: &str, object: &mut Value) {
    let _ = (group, version, kind, object);
}

/// `PrepareForUpdate` of the main resource (`old` is the stored object).
pub fn prepare_for_update(group: &str, version: &str, kind: &str, object: &mut Value, old: &Value) {
    let _ = (group, version, kind, object, old);
}

/// `PrepareForUpdate` of the status strategy.
pub fn prepare_for_status_update(
    group: &str,
    version: &str,
    kind: &str,
    object: &mut Value,
    old: &Value,
) {
    let _ = (group, version, kind, object, old);
}
