//! What the apiserver does to a custom object with its schema before validating it: drop
//! nulls the schema does not allow, prune unknown fields, apply defaults. (Validation is
//! `crate::validation`'s.)

use serde_json::{Map, Value};

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

/// Drops disallowed nulls, prunes and defaults `object` with its version's schema, in
/// the apiserver's order. `metadata` is left to the server.
pub fn admit(schema: &Value, object: &mut Value) {
    drop_nulls(schema, object);
    prune(schema, object, true);
    apply_defaults(schema, object);
}

/// Removes `null` members whose schema is not nullable (the apiserver does this before
/// defaulting, so a defaulted field sent as null gets its default).
pub fn drop_nulls(schema: &Value, value: &mut Value) {
    let Value::Object(node) = schema else { return };
    let fields = match value {
        Value::Object(fields) => fields,
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                items.iter_mut().for_each(|i| drop_nulls(item, i));
            }
            return;
        }
        _ => return,
    };
    let properties = node.get("properties").and_then(Value::as_object);
    let additional = node.get("additionalProperties");
    fields.retain(|name, v| {
        let child = properties.and_then(|p| p.get(name)).or(additional);
        !(v.is_null() && child.is_some_and(|c| c.get("nullable") != Some(&Value::Bool(true))))
    });
    for (name, v) in fields.iter_mut() {
        if let Some(child) = properties.and_then(|p| p.get(name)).or(additional) {
            drop_nulls(child, v);
        }
    }
}

/// Removes fields the schema does not declare, except under
/// `x-kubernetes-preserve-unknown-fields` (and `apiVersion`/`kind`/`metadata` at the root
/// and in embedded resources).
pub fn prune(schema: &Value, value: &mut Value, root: bool) {
    let Value::Object(node) = schema else { return };
    match value {
        Value::Object(fields) => {
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            let keep_all = flag(node, "x-kubernetes-preserve-unknown-fields");
            let embedded = root || flag(node, "x-kubernetes-embedded-resource");
            fields.retain(|name, _| {
                keep_all
                    || additional.is_some()
                    || properties.is_some_and(|p| p.contains_key(name))
                    || (embedded && matches!(name.as_str(), "apiVersion" | "kind" | "metadata"))
            });
            for (name, v) in fields.iter_mut() {
                // ObjectMeta has its own rules; the CRD schema only says `type: object`.
                if embedded && name == "metadata" {
                    continue;
                }
                if let Some(child) = properties.and_then(|p| p.get(name)).or(additional) {
                    prune(child, v, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                items.iter_mut().for_each(|i| prune(item, i, false));
            }
        }
        _ => {}
    }
}

/// Fills missing fields that declare a `default`, top-down, so defaults inside a default
/// are applied too.
pub fn apply_defaults(schema: &Value, value: &mut Value) {
    let Value::Object(node) = schema else { return };
    match value {
        Value::Object(fields) => {
            if let Some(Value::Object(properties)) = node.get("properties") {
                for (name, child) in properties {
                    if !fields.contains_key(name)
                        && let Some(default) = child.get("default")
                    {
                        fields.insert(name.clone(), default.clone());
                    }
                    if let Some(v) = fields.get_mut(name) {
                        apply_defaults(child, v);
                    }
                }
            }
            if let Some(additional @ Value::Object(_)) = node.get("additionalProperties") {
                fields
                    .values_mut()
                    .for_each(|v| apply_defaults(additional, v));
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                items.iter_mut().for_each(|i| apply_defaults(item, i));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prunes_and_defaults_like_the_apiserver() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "replicas": {"type": "integer", "default": 1, "minimum": 0},
                        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "ports": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "integer", "default": 80}}}},
                        "note": {"type": "string", "nullable": true},
                    },
                },
            },
        });
        let mut object = json!({
            "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"}, "junk": 1,
            "spec": {"replicas": null, "free": {"any": {"thing": 1}}, "ports": [{"q": 1}], "note": null, "extra": true},
        });
        admit(&schema, &mut object);
        assert_eq!(
            object,
            json!({
                "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
                "spec": {"replicas": 1, "free": {"any": {"thing": 1}}, "ports": [{"p": 80}], "note": null},
            })
        );
    }
}
