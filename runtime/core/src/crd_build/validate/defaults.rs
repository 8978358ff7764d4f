//! Defaults against what the structural check does not run on them (`ValidateDefaults`):
//! the metadata of embedded resources, and the CEL rules of the defaulted node and those
//! below it. A default must pass them, or the apiserver refuses the CRD.
//!
//! Defaults inside the `metadata`, `kind` or `apiVersion` of an embedded resource (which the
//! apiserver checks as metadata in a whole object) are not checked here.

use serde_json::{Map, Value};

use super::Refusal;
use crate::checks::cel::Validator;
use crate::checks::{Schema, objectmeta};

const HINT: &str = "a `#[default]` must be a value the field accepts, its `#[rule]`s (and those \
    of its type) included: change the default, or the rule";

/// Every default below the root of the schema at `path`.
pub(super) fn check(schema: &Value, path: &str) -> Vec<Refusal> {
    let mut out = Vec::new();
    if let Value::Object(root) = schema {
        walk(root, path, false, true, &mut out);
    }
    out
}

/// `root`: the apiserver treats the schema's root as an embedded resource.
fn walk(node: &Map<String, Value>, path: &str, in_meta: bool, root: bool, out: &mut Vec<Refusal>) {
    let embedded = root || node.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
    let in_meta = in_meta && !embedded;
    if let Some(default) = node.get("default").filter(|d| !d.is_null())
        && !in_meta
    {
        out.extend(default_of(node, default, path));
    }
    // Defaults under additionalProperties are refused elsewhere; the apiserver does not look.
    if let Some(Value::Object(items)) = node.get("items") {
        walk(items, &format!("{path}.items"), in_meta, false, out);
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        for (name, child) in properties {
            if let Value::Object(child) = child {
                let meta = in_meta
                    || (embedded && matches!(name.as_str(), "metadata" | "apiVersion" | "kind"));
                walk(
                    child,
                    &format!("{path}.properties[{name}]"),
                    meta,
                    false,
                    out,
                );
            }
        }
    }
}

fn default_of(node: &Map<String, Value>, default: &Value, path: &str) -> Vec<Refusal> {
    let schema = Schema::new(&Value::Object(node.clone()));
    let at = format!("{path}.default");
    let meta = objectmeta::validate_embedded_at(&at, &schema, default);
    if !meta.is_empty() {
        return meta.into_iter().map(|e| Refusal::new(e, HINT)).collect();
    }
    let validator = Validator::for_node(&schema);
    if !validator.has_rules() {
        return Vec::new();
    }
    // The apiserver runs the rules once as an update to the default itself (transition rules
    // included), and once as a create.
    let mut errors = validator
        .validate_at(&schema, &at, default, Some(default))
        .errors;
    for e in validator.validate_at(&schema, &at, default, None).errors {
        if !errors.contains(&e) {
            errors.push(e);
        }
    }
    errors.into_iter().map(|e| Refusal::new(e, HINT)).collect()
}
