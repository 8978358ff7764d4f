//! Structural defaulting, as the apiserver does it to a custom object after decoding and
//! before validating: `null`s the schema does not allow are dropped, then missing fields
//! with a `default` get it. The in-memory server and local validation share it.

use serde_json::Value;

use crate::checks::decode::coerce::is_container;

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
    let schema_of = |name: &str| properties.and_then(|p| p.get(name)).or(additional);
    if fields.values().any(Value::is_null) {
        fields.retain(|name, v| {
            let child = schema_of(name);
            !(v.is_null() && child.is_some_and(|c| c.get("nullable") != Some(&Value::Bool(true))))
        });
    }
    for (name, v) in fields.iter_mut() {
        if is_container(v)
            && let Some(child) = schema_of(name)
        {
            drop_nulls(child, v);
        }
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
                    let v = match fields.get_mut(name) {
                        Some(v) => v,
                        None => match child.get("default") {
                            Some(default) => fields.entry(name.clone()).or_insert(default.clone()),
                            None => continue,
                        },
                    };
                    if is_container(v) {
                        apply_defaults(child, v);
                    }
                }
            }
            if let Some(additional @ Value::Object(_)) = node.get("additionalProperties") {
                fields
                    .values_mut()
                    .filter(|v| is_container(v))
                    .for_each(|v| apply_defaults(additional, v));
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                items
                    .iter_mut()
                    .filter(|v| is_container(v))
                    .for_each(|i| apply_defaults(item, i));
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
    fn drops_nulls_and_defaults_like_the_apiserver() {
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
            "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"replicas": null, "free": {"any": {"thing": 1}}, "ports": [{}], "note": null},
        });
        drop_nulls(&schema, &mut object);
        apply_defaults(&schema, &mut object);
        assert_eq!(
            object,
            json!({
                "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
                "spec": {"replicas": 1, "free": {"any": {"thing": 1}}, "ports": [{"p": 80}], "note": null},
            })
        );
    }
}
