//! What decoding a custom resource does after parsing its JSON (the apiextensions-apiserver's
//! schema coercer): `metadata` goes through Go's `ObjectMeta`, fields the schema does not
//! declare are pruned, and embedded resources get the same treatment for their `apiVersion`,
//! `kind` and `metadata`. The paths of the fields dropped on the way are returned, in the
//! apiserver's order, for `unknown field` warnings or strict-mode errors.

use serde_json::{Map, Value};

use super::objectmeta;
use crate::checks::{BadValue, FieldError};

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

/// Coerces `object` in place with its version's `schema` (`None`: a version the kind does not
/// have, so everything but `apiVersion`, `kind` and `metadata` is unknown). The error is the
/// decode error the apiserver reports.
pub fn coerce(schema: Option<&Value>, object: &mut Value) -> Result<Vec<String>, String> {
    let mut unknown = coerce_metadata(object)?;
    let empty = serde_json::json!({});
    let schema = schema.unwrap_or(&empty);
    let mut pruned = Vec::new();
    prune(schema, object, true, &mut String::new(), &mut pruned);
    pruned.sort();
    unknown.extend(pruned);
    let mut embedded = Vec::new();
    embedded_resources(schema, object, &mut String::new(), &mut embedded)?;
    embedded.sort();
    unknown.extend(embedded);
    Ok(unknown)
}

/// Removes what `schema` does not declare, as decoding does (without reporting it).
pub fn prune_unreported(schema: &Value, object: &mut Value) {
    prune(schema, object, true, &mut String::new(), &mut Vec::new());
}

/// Only the root `metadata`'s round trip through `ObjectMeta` (all the apiserver does to an
/// object of another kind).
pub fn coerce_metadata(object: &mut Value) -> Result<Vec<String>, String> {
    let Some(meta) = object.get_mut("metadata") else {
        return Ok(Vec::new());
    };
    // The object is not used after an error: its metadata is taken, not copied.
    let decoded = objectmeta::decode(meta.take(), "metadata")?;
    *meta = decoded.meta;
    Ok(decoded.unknown)
}

/// Removes fields the schema does not declare, recording their paths (`spec.ports[0].junk`).
/// Under `x-kubernetes-preserve-unknown-fields` nothing is removed, but declared fields are
/// still pruned inside; `apiVersion`, `kind` and `metadata` stay at the root and in embedded
/// resources.
fn prune(schema: &Value, value: &mut Value, root: bool, path: &mut String, out: &mut Vec<String>) {
    let Value::Object(node) = schema else { return };
    match value {
        Value::Object(fields) => {
            let keep_all = flag(node, "x-kubernetes-preserve-unknown-fields");
            let embedded = root || flag(node, "x-kubernetes-embedded-resource");
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            let meta_field = |name: &str| matches!(name, "apiVersion" | "kind" | "metadata");
            let known = |name: &str| {
                keep_all
                    || additional.is_some()
                    || properties.is_some_and(|p| p.contains_key(name))
                    || (embedded && meta_field(name))
            };
            // Most objects hold only declared fields: look before rebuilding the map.
            if !fields.keys().all(|name| known(name)) {
                fields.retain(|name, _| {
                    let known = known(name);
                    if !known {
                        out.push(join(path, name));
                    }
                    known
                });
            }
            for (name, v) in fields.iter_mut() {
                // ObjectMeta has its own rules; the CRD schema only says `type: object`.
                if !is_container(v) || (embedded && meta_field(name)) {
                    continue;
                }
                if let Some(child) = properties.and_then(|p| p.get(name)).or(additional) {
                    let len = path.len();
                    push_field(path, name);
                    prune(child, v, false, path, out);
                    path.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                for (i, v) in items.iter_mut().enumerate() {
                    if !is_container(v) {
                        continue;
                    }
                    let len = path.len();
                    push_index(path, i);
                    prune(item, v, false, path, out);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// `apiVersion`, `kind` and `metadata` of every embedded resource below the root.
fn embedded_resources(
    schema: &Value,
    value: &mut Value,
    path: &mut String,
    out: &mut Vec<String>,
) -> Result<(), String> {
    let Value::Object(node) = schema else {
        return Ok(());
    };
    match value {
        Value::Object(fields) => {
            if !path.is_empty() && flag(node, "x-kubernetes-embedded-resource") {
                for key in ["apiVersion", "kind"] {
                    if let Some(v) = fields.get(key).filter(|v| !v.is_string()) {
                        let error = FieldError::invalid(
                            &join(path, key),
                            BadValue::of(v),
                            "must be a string",
                        );
                        return Err(error.to_string());
                    }
                }
                if let Some(meta) = fields.get("metadata") {
                    let at = join(path, "metadata");
                    let decoded = objectmeta::decode(meta.clone(), &at)
                        .map_err(|e| FieldError::invalid(&at, BadValue::of(meta), e).to_string())?;
                    let mut meta = decoded.meta;
                    if let Value::Object(m) = &mut meta
                        && m.get("creationTimestamp") == Some(&Value::Null)
                    {
                        m.remove("creationTimestamp");
                    }
                    fields.insert("metadata".into(), meta);
                    out.extend(decoded.unknown);
                }
            }
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            for (name, v) in fields.iter_mut() {
                if !is_container(v) {
                    continue;
                }
                if let Some(child) = properties.and_then(|p| p.get(name)).or(additional) {
                    let len = path.len();
                    push_field(path, name);
                    embedded_resources(child, v, path, out)?;
                    path.truncate(len);
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                for (i, v) in items.iter_mut().enumerate() {
                    if !is_container(v) {
                        continue;
                    }
                    let len = path.len();
                    push_index(path, i);
                    embedded_resources(item, v, path, out)?;
                    path.truncate(len);
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Whether a walk along the schema has anything to do below `value` (a scalar has no fields).
pub fn is_container(value: &Value) -> bool {
    matches!(value, Value::Object(_) | Value::Array(_))
}

/// `path` extended by the field `key`, in place (`spec` → `spec.ports`).
fn push_field(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// `path` extended by the index `i`, in place (`spec.ports` → `spec.ports[0]`).
fn push_index(path: &mut String, i: usize) {
    use std::fmt::Write as _;
    let _ = write!(path, "[{i}]");
}

/// `path` extended by the field `key`, as a new path ([`push_field`]'s rule).
pub(super) fn join(path: &str, key: &str) -> String {
    let mut joined = String::with_capacity(path.len() + 1 + key.len());
    joined.push_str(path);
    push_field(&mut joined, key);
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prunes_and_reports_unknown_fields_as_the_apiserver_does() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                    "limits": {"type": "object", "additionalProperties": {"type": "object", "properties": {"max": {"type": "integer"}}}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                }},
            },
        });
        let mut object = json!({
            "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n", "bogus": 1}, "other": true,
            "spec": {
                "ports": [{"name": "a", "junk": 1}], "limits": {"x": {"max": 1, "min": 0}},
                "free": {"anything": 1}, "template": {"kind": "ConfigMap", "metadata": {"name": "c", "what": 2}},
            },
        });
        // Observed order on kube-apiserver v1.36.2: metadata, then the sorted pruned paths,
        // then embedded metadata.
        assert_eq!(
            coerce(Some(&schema), &mut object).unwrap(),
            [
                "metadata.bogus",
                "other",
                "spec.limits.x.min",
                "spec.ports[0].junk",
                "spec.template.metadata.what"
            ]
        );
        assert_eq!(object["spec"]["template"]["metadata"], json!({"name": "c"}));
        assert_eq!(object["spec"]["free"], json!({"anything": 1}));
        let mut bad = json!({"kind": "K", "spec": {"template": {"apiVersion": 1}}});
        assert_eq!(
            coerce(Some(&schema), &mut bad).unwrap_err(),
            "spec.template.apiVersion: Invalid value: 1: must be a string"
        );
    }
}
