//! `allOf`/`anyOf`/`oneOf`/`not`: folding a chosen branch into the node it constrains.

use serde_json::{Map, Value, json};

/// Is this the `anyOf: [{type: integer}, {type: string}]` that marks int-or-string?
pub(super) fn is_int_or_string_any_of(branches: &[Value]) -> bool {
    branches == [json!({"type": "integer"}), json!({"type": "string"})]
}

/// Where [`merge`] keeps patterns beyond the node's own (a branch adding a second one).
pub(super) const EXTRA_PATTERNS: &str = "x-kubegen-generate-patterns";

/// The node's junctors alone, to check a value against them.
pub(super) fn junctors_only(node: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ["allOf", "anyOf", "oneOf", "not"] {
        if let Some(v) = node.get(key) {
            if key == "anyOf" && matches!(v, Value::Array(b) if is_int_or_string_any_of(b)) {
                continue;
            }
            out.insert(key.into(), v.clone());
        }
    }
    out
}

/// Folds a junctor branch's value validations into `into`, keeping the tighter bound.
pub(super) fn merge(into: &mut Map<String, Value>, branch: &Map<String, Value>) {
    for (key, value) in branch {
        match key.as_str() {
            "required" => {
                let mut required: Vec<Value> = match into.remove("required") {
                    Some(Value::Array(r)) => r,
                    _ => Vec::new(),
                };
                if let Value::Array(more) = value {
                    for r in more {
                        if !required.contains(r) {
                            required.push(r.clone());
                        }
                    }
                }
                into.insert("required".into(), Value::Array(required));
            }
            "properties" => {
                let Value::Object(props) = value else {
                    continue;
                };
                let target = into
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(target) = target {
                    for (name, sub) in props {
                        let slot = target
                            .entry(name.clone())
                            .or_insert_with(|| Value::Object(Map::new()));
                        if let (Value::Object(slot), Value::Object(sub)) = (slot, sub) {
                            merge(slot, sub);
                        }
                    }
                }
            }
            "items" | "additionalProperties" => {
                if let (Some(Value::Object(slot)), Value::Object(sub)) = (into.get_mut(key), value)
                {
                    merge(slot, sub);
                }
            }
            "enum" => {
                let merged = match (into.get("enum"), value) {
                    (Some(Value::Array(a)), Value::Array(b)) => {
                        Value::Array(a.iter().filter(|v| b.contains(v)).cloned().collect())
                    }
                    _ => value.clone(),
                };
                into.insert("enum".into(), merged);
            }
            "minimum" | "minLength" | "minItems" | "minProperties" => {
                let tighter = match (into.get(key).and_then(Value::as_f64), value.as_f64()) {
                    (Some(a), Some(b)) if a >= b => continue,
                    _ => value.clone(),
                };
                into.insert(key.clone(), tighter);
            }
            "maximum" | "maxLength" | "maxItems" | "maxProperties" => {
                let tighter = match (into.get(key).and_then(Value::as_f64), value.as_f64()) {
                    (Some(a), Some(b)) if a <= b => continue,
                    _ => value.clone(),
                };
                into.insert(key.clone(), tighter);
            }
            "pattern" if into.contains_key("pattern") && into.get("pattern") != Some(value) => {
                let extra = into
                    .entry(EXTRA_PATTERNS)
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(extra) = extra {
                    extra.push(value.clone());
                }
            }
            _ => {
                if !into.contains_key(key) {
                    into.insert(key.clone(), value.clone());
                }
            }
        }
    }
}
