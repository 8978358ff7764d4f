//! `x-kubernetes-list-type` invariants: items of a `set` are unique, keys of a `map` list
//! are unique (the apiextensions-apiserver's `listtype.ValidateListSetsAndMaps`). Only the
//! second occurrence of a repeated value is reported.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::field::{self, BadValue, FieldError};
use super::schema::{Additional, Schema};
use crate::go_print::{self, GoNumber};

/// Every set and map list in `object` (a whole object or any object node of it) that
/// repeats an item or a key.
pub fn validate(schema: &Schema, object: &Value) -> Vec<FieldError> {
    match object {
        Value::Object(members) => object_node("", schema, members),
        _ => Vec::new(),
    }
}

fn object_node(path: &str, s: &Schema, members: &Map<String, Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Additional::Schema(additional) = &s.additional {
        for (k, v) in members {
            errors.extend(value(&field::key(path, k), additional, v));
        }
    }
    if !s.properties.is_empty() {
        for (k, v) in members {
            if let Some(property) = s.property(k) {
                errors.extend(value(&field::child(path, k), property, v));
            }
        }
    }
    errors
}

fn value(path: &str, s: &Schema, v: &Value) -> Vec<FieldError> {
    match v {
        Value::Array(items) => array(path, s, items),
        Value::Object(members) => object_node(path, s, members),
        _ => Vec::new(),
    }
}

fn array(path: &str, s: &Schema, items: &[Value]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    match s.list_type.as_deref() {
        Some("set") => {
            for i in repeated(items) {
                errors.push(FieldError::duplicate(
                    &field::index(path, i),
                    BadValue::of(&items[i]),
                ));
            }
        }
        Some("map") => errors.extend(map_list(path, s, items)),
        _ => {}
    }
    if let Some(item) = &s.items {
        for (i, v) in items.iter().enumerate() {
            errors.extend(value(&field::index(path, i), item, v));
        }
    }
    errors
}

/// How Go tells items apart: scalars by type and value (an int64 is never equal to a
/// float64), lists and objects by their JSON encoding.
fn identity(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("b:{b}"),
        Value::String(s) => format!("s:{s}"),
        Value::Number(n) => match go_print::go_number(n) {
            GoNumber::Int(i) => format!("i:{i}"),
            GoNumber::Float(f) => format!("f:{}", f.to_bits()),
        },
        Value::Array(_) | Value::Object(_) => format!("c:{}", go_print::marshal(v)),
    }
}

/// Indices of the second occurrence of each repeated item.
fn repeated(items: &[Value]) -> Vec<usize> {
    if items.len() <= 1 {
        return Vec::new();
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let times = seen.entry(identity(item)).or_insert(0);
        *times += 1;
        if *times == 2 {
            out.push(i);
        }
    }
    out
}

fn map_list(path: &str, s: &Schema, items: &[Value]) -> Vec<FieldError> {
    for (i, item) in items.iter().enumerate() {
        if !item.is_null() && !item.is_object() {
            return vec![FieldError::invalid(
                &field::index(path, i),
                BadValue::of(item),
                "must be an object for an array of list-type map",
            )];
        }
    }
    if items.len() <= 1 {
        return Vec::new();
    }
    // The key of each item: the key fields it has (a missing key is a value of its own).
    let keys: Vec<Value> = items
        .iter()
        .map(|item| {
            let mut key = Map::new();
            for k in &s.list_map_keys {
                if let Some(v) = item.get(k) {
                    key.insert(k.clone(), v.clone());
                }
            }
            Value::Object(key)
        })
        .collect();
    let ids: Vec<Value> = match s.list_map_keys.as_slice() {
        // One key: its value compared as Go compares scalars; a missing key is its own value.
        [single] => keys
            .iter()
            .map(|k| match k.get(single) {
                Some(v) => Value::String(format!("some:{}", identity(v))),
                None => Value::String("unspecified".into()),
            })
            .collect(),
        _ => keys.clone(),
    };
    repeated(&ids)
        .into_iter()
        .map(|i| FieldError::duplicate(&field::index(path, i), BadValue::Json(keys[i].clone())))
        .collect()
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Expectations are the causes kube-apiserver v1.36.2 returned for the same lists.
    #[test]
    fn sets_and_map_lists_report_second_occurrences() {
        let schema = Schema::new(&json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {
                "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "intset": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "proto"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"}, "proto": {"type": "string"}, "port": {"type": "integer"}}}},
                "byname": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            }}},
        }));
        let object = json!({"spec": {
            "set": ["a", "b", "a", "a", "b"],
            "intset": [1, 1],
            "ports": [{"name": "a"}, {"name": "a", "proto": "TCP"}, {"name": "a", "proto": "TCP"}, {"name": "b", "proto": "UDP"}, {"name": "b", "proto": "UDP", "port": 3}],
            "byname": [{"name": "x"}, {}, {"name": "x"}, {}],
        }});
        let got: Vec<(String, String)> = validate(&schema, &object)
            .into_iter()
            .map(|e| (e.field.clone(), e.body()))
            .collect();
        let want = [
            ("spec.byname[2]", r#"Duplicate value: {"name":"x"}"#),
            ("spec.byname[3]", "Duplicate value: {}"),
            ("spec.intset[1]", "Duplicate value: 1"),
            (
                "spec.ports[2]",
                r#"Duplicate value: {"name":"a","proto":"TCP"}"#,
            ),
            (
                "spec.ports[4]",
                r#"Duplicate value: {"name":"b","proto":"UDP"}"#,
            ),
            ("spec.set[2]", "Duplicate value: \"a\""),
            ("spec.set[4]", "Duplicate value: \"b\""),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want);
        let bad = json!({"spec": {"byname": [{"name": "x"}, "str"]}});
        assert_eq!(
            validate(&schema, &bad)[0].to_string(),
            "spec.byname[1]: Invalid value: \"str\": must be an object for an array of list-type map"
        );
    }
}
