use serde_json::{Value, json};

use super::Generator;
use super::value::schema_errors;

fn schema(spec: Value) -> Value {
    json!({"type": "object", "properties": {"spec": spec}, "required": ["spec"]})
}

/// Fields of `value` its schema does not declare (which the apiserver would prune).
fn undeclared(schema: &Value, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match value {
        Value::Object(fields) if schema["x-kubernetes-preserve-unknown-fields"] != true => {
            for (name, v) in fields {
                match (
                    schema["properties"].get(name),
                    schema.get("additionalProperties"),
                ) {
                    (Some(child), _) | (None, Some(child)) => out.extend(undeclared(child, v)),
                    (None, None) => out.push(name.clone()),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                out.extend(undeclared(&schema["items"], item));
            }
        }
        _ => {}
    }
    out
}

/// `count` specs, each checked against the schema by the local validator.
fn specs(spec: Value, count: u64) -> Vec<Value> {
    let mut g = Generator::new(schema(spec.clone()));
    (0..count)
        .map(|i| {
            let s = g.object(9, i).unwrap()["spec"].clone();
            let errors = schema_errors(&spec, &s);
            assert!(errors.is_empty(), "{s}: {errors:?}");
            assert_eq!(undeclared(&spec, &s), Vec::<String>::new(), "{s}");
            s
        })
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_objects() {
    let spec = json!({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "array", "items": {"type": "number"}},
    }});
    let mut one = Generator::new(schema(spec.clone()));
    let mut two = Generator::new(schema(spec));
    for i in 0..50 {
        assert_eq!(one.object(3, i).unwrap(), two.object(3, i).unwrap());
    }
    assert_ne!(one.object(3, 7).unwrap(), one.object(4, 7).unwrap());
}

#[test]
fn every_branch_and_optional_field_is_exercised() {
    let spec = json!({
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"x": {"type": "string"}}},
            "b": {"type": "object", "properties": {"y": {"type": "integer"}}},
            "c": {"type": "object", "properties": {"z": {"type": "boolean"}}},
            "n": {"type": "string", "nullable": true},
        },
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}, {"required": ["c"]}],
    });
    let all = specs(spec, 300);
    for field in ["a", "b", "c"] {
        assert!(all.iter().any(|s| s.get(field).is_some()), "branch {field}");
    }
    assert!(
        all.iter().any(|s| s["n"].is_null() && s.get("n").is_some()),
        "null"
    );
    assert!(all.iter().any(|s| s.get("n").is_none()), "absent");
    assert!(all.iter().any(|s| s["n"].is_string()), "present");
}

#[test]
fn bounds_are_reached_and_kept() {
    let spec = json!({"type": "object", "properties": {
        "i": {"type": "integer", "minimum": -3, "maximum": 7, "exclusiveMaximum": true},
        "m": {"type": "integer", "multipleOf": 5, "minimum": 1, "maximum": 1000000},
        "f": {"type": "number", "format": "float", "minimum": 0.5},
        "s": {"type": "string", "minLength": 2, "maxLength": 3},
        "l": {"type": "array", "items": {"type": "boolean"}, "minItems": 1, "maxItems": 2},
        "o": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 2},
    }, "required": ["i", "m", "f", "s", "l", "o"]});
    let all = specs(spec, 300);
    let ints: Vec<i64> = all.iter().map(|s| s["i"].as_i64().unwrap()).collect();
    assert!(ints.contains(&-3) && ints.contains(&6) && !ints.contains(&7));
    assert!(all.iter().all(|s| s["m"].as_i64().unwrap() % 5 == 0));
    assert!(
        all.iter()
            .all(|s| s["f"].as_f64().unwrap() <= f64::from(f32::MAX))
    );
    // Lengths are counted in code points, as the apiserver counts them.
    assert!(all.iter().any(|s| s["s"].as_str().unwrap().len() > 3));
}

#[test]
fn lists_keep_their_uniqueness() {
    let spec = json!({"type": "object", "required": ["set", "map"], "properties": {
        "set": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 5}, "x-kubernetes-list-type": "set", "minItems": 3},
        "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"], "minItems": 2,
                "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string", "enum": ["a", "b", "c"]}, "v": {"type": "string"}}}},
    }});
    for s in specs(spec, 100) {
        let set = s["set"].as_array().unwrap();
        let keys: Vec<&Value> = s["map"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| &i["k"])
            .collect();
        for (i, x) in set.iter().enumerate() {
            assert!(!set[..i].contains(x), "{s}");
        }
        for (i, k) in keys.iter().enumerate() {
            assert!(!keys[..i].contains(k), "{s}");
        }
    }
}

#[test]
fn int_or_string_patterns_and_formats() {
    let spec = json!({"type": "object", "required": ["q", "p", "t"], "properties": {
        "q": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true, "pattern": "^[0-9]+(Mi|Gi)$"},
        "p": {"type": "string", "pattern": "\\d{2}-[a-z]+"},
        "t": {"type": "string", "format": "date-time"},
    }});
    let all = specs(spec, 400);
    assert!(all.iter().any(|s| s["q"].is_i64() || s["q"].is_u64()));
    assert!(all.iter().any(|s| s["q"].is_string()));
    let digits = regex::Regex::new(r"[0-9]{2}-[a-z]+").unwrap();
    assert!(
        all.iter()
            .all(|s| digits.is_match(s["p"].as_str().unwrap())),
        "\\d is ASCII"
    );
    assert!(
        all.iter().any(|s| !s["p"]
            .as_str()
            .unwrap()
            .starts_with(|c: char| c.is_ascii_digit())),
        "unanchored"
    );
    let times: Vec<&str> = all.iter().map(|s| s["t"].as_str().unwrap()).collect();
    assert!(
        times.iter().any(|t| t.contains('t') || t.ends_with('z')),
        "lower case t and z"
    );
    assert!(
        times.iter().any(|t| t.len() > 20 && !t.contains('.')),
        "fractions introduced by any character"
    );
}

#[test]
fn contradictions_are_reported_with_their_path() {
    let spec = json!({"type": "object", "required": ["x"], "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 4}}});
    let e = Generator::new(schema(spec)).object(1, 0).unwrap_err();
    assert_eq!(e.path, ".spec.x");
}
