//! kubectl's way from client-side to server-side apply: when the manager is `kubectl`, fields
//! its `last-applied-configuration` annotation still describes may be taken without `force`,
//! and the annotation follows what it applies.

use serde_json::{Value, json};

use super::conflict::Conflicts;
use crate::fieldpath::Set;
use crate::fieldpath::schema::KindTypes;
use crate::fieldpath::typed::Duplicates;

/// The annotation client-side apply records its configuration in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The field manager kubectl applies with.
pub(super) const KUBECTL: &str = "kubectl";

fn annotation(object: &Value) -> Option<&str> {
    object["metadata"]["annotations"][LAST_APPLIED]
        .as_str()
        .filter(|a| !a.is_empty())
}

/// The fields `live`'s last-applied configuration sets to the values `live` has: conflicts on
/// them are kubectl's own earlier client-side applies. `None` without a usable annotation.
pub(super) fn allowed_conflicts(
    schema: &KindTypes,
    api_version: &str,
    live: &Value,
) -> Option<Set> {
    let last: Value = serde_json::from_str(annotation(live)?).ok()?;
    if last["apiVersion"].as_str() != Some(api_version) {
        return None;
    }
    schema.validate(live, Duplicates::Reject).ok()?;
    schema.validate(&last, Duplicates::Reject).ok()?;
    let set = schema.to_field_set(&last).ok()?;
    let changed = schema.compare(&last, live).ok()?;
    Some(
        set.difference(&changed.modified)
            .difference(&changed.added)
            .difference(&changed.removed),
    )
}

/// The conflicts not in `allowed`.
pub(super) fn remaining(conflicts: &Conflicts, allowed: &Set) -> Conflicts {
    Conflicts(
        conflicts
            .0
            .iter()
            .filter(|c| !allowed.has(&c.path.0))
            .cloned()
            .collect(),
    )
}

/// Records `config` as the last-applied configuration of `object`, when `object` has one.
pub(super) fn record(object: &mut Value, config: &Value) {
    if annotation(object).is_none() {
        return;
    }
    let mut last = config.clone();
    if let Some(Value::Object(a)) = last["metadata"].get_mut("annotations") {
        a.remove(LAST_APPLIED);
    }
    object["metadata"]["annotations"][LAST_APPLIED] =
        json!(format!("{}\n", crate::go_print::marshal(&last)));
}
