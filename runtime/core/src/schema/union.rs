//! One schema node for several variants' schemas: what an untagged enum's value, or an
//! adjacently tagged enum's content, may be.

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::node_type;

pub(super) fn object_parts(schema: &Schema) -> Option<(Map<String, Value>, Vec<Value>)> {
    let object = schema.as_object()?;
    if node_type(object) != Some("object") {
        return None;
    }
    let properties = match object.get("properties") {
        Some(Value::Object(p)) => p.clone(),
        _ => Map::new(),
    };
    let required = match object.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    Some((properties, required))
}

fn without_description(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(o) = &mut v {
        o.remove("description");
    }
    v
}

pub(super) fn merge_property(
    into: &mut Map<String, Value>,
    name: String,
    schema: Value,
    errors: &mut Vec<String>,
) {
    match into.get(&name) {
        Some(existing) if without_description(existing) != without_description(&schema) => {
            errors.push(format!(
                "variants give field `{name}` different schemas; a Kubernetes object field has one schema"
            ));
        }
        Some(_) => {}
        None => {
            into.insert(name, schema);
        }
    }
}

/// One node that accepts every value any of `schemas` accepts: objects merge their
/// properties (a field is required only if every branch requires it), integer and string
/// become int-or-string, anything else Kubernetes cannot express is an error.
pub(super) fn union(schemas: Vec<Schema>, errors: &mut Vec<String>) -> Map<String, Value> {
    let mut types: Vec<String> = Vec::new();
    for s in &schemas {
        let ty = s
            .as_object()
            .and_then(node_type)
            .unwrap_or("untyped")
            .to_owned();
        if !types.contains(&ty) {
            types.push(ty);
        }
    }
    types.sort();
    let mut node = Map::new();
    match types
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => {
            node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        ["object"] => {
            let mut properties = Map::new();
            let mut required: Option<Vec<Value>> = None;
            let mut preserve = false;
            for s in &schemas {
                if let Some((fields, r)) = object_parts(s) {
                    for (name, f) in fields {
                        merge_property(&mut properties, name, f, errors);
                    }
                    required = Some(match required {
                        None => r,
                        Some(acc) => acc.into_iter().filter(|x| r.contains(x)).collect(),
                    });
                }
                preserve |= s.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true))
                    || s.get("additionalProperties").is_some();
            }
            node.insert("type".into(), json!("object"));
            node.insert("properties".into(), Value::Object(properties));
            if let Some(r) = required.filter(|r| !r.is_empty()) {
                node.insert("required".into(), Value::Array(r));
            }
            if preserve {
                node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
            }
        }
        [_] => {
            let first = without_description(schemas[0].as_value());
            if schemas
                .iter()
                .all(|s| without_description(s.as_value()) == first)
            {
                if let Value::Object(o) = first {
                    node = o;
                }
            } else {
                let Value::Object(o) = first else { return node };
                node.insert("type".into(), o["type"].clone());
                match node_type(&o) {
                    Some("integer") => integer_side(&schemas, &mut node),
                    Some("string") => string_enums(&schemas, &mut node, errors),
                    _ => {}
                }
                if let Some(items) = o.get("items") {
                    let all_same = schemas.iter().all(|s| s.get("items") == Some(items));
                    if !all_same {
                        errors.push("variants are lists of different item types".into());
                    }
                    node.insert("items".into(), items.clone());
                }
            }
        }
        ["integer", "string"] => {
            node.insert(
                "anyOf".into(),
                json!([{"type": "integer"}, {"type": "string"}]),
            );
            node.insert("x-kubernetes-int-or-string".into(), json!(true));
            integer_side(&schemas, &mut node);
            string_side(&schemas, &mut node, errors);
        }
        ["integer", "number"] => {
            node.insert("type".into(), json!("number"));
        }
        other => {
            errors.push(format!(
                "variants serialize as different types ({}); a Kubernetes schema node has one type \
                 (integer-or-string aside): use a tagged enum or #[schema(preserve_unknown_fields)]",
                other.join(", ")
            ));
        }
    }
    node
}

/// The bounds of an int-or-string union's integers: the smallest range holding every
/// integer variant's (a width's `int32` format becomes its bounds, since an int-or-string
/// node has no type to carry a format). Value validations at the node apply to integers only.
fn integer_side(schemas: &[Schema], node: &mut Map<String, Value>) {
    let mut lo: Option<f64> = Some(f64::INFINITY);
    let mut hi: Option<f64> = Some(f64::NEG_INFINITY);
    for s in schemas.iter().filter_map(Schema::as_object) {
        if node_type(s) != Some("integer") {
            continue;
        }
        let int32 = s.get("format") == Some(&json!("int32"));
        let min = s
            .get("minimum")
            .and_then(Value::as_f64)
            .or(int32.then_some(f64::from(i32::MIN)));
        let max = s
            .get("maximum")
            .and_then(Value::as_f64)
            .or(int32.then_some(f64::from(i32::MAX)));
        lo = lo.zip(min).map(|(a, b)| a.min(b));
        hi = hi.zip(max).map(|(a, b)| a.max(b));
    }
    for (key, bound) in [("minimum", lo), ("maximum", hi)] {
        if let Some(b) = bound.filter(|b| b.is_finite()) {
            node.insert(key.into(), json!(b as i64));
        }
    }
}

/// What an int-or-string union's strings must satisfy: the string variant's own `pattern`,
/// lengths and format, or, for a string enum, a pattern matching exactly its values (an
/// `enum` at the node would refuse the integers). Several restricted string variants would
/// need an alternation of their constraints, which is refused.
fn string_side(schemas: &[Schema], node: &mut Map<String, Value>, errors: &mut Vec<String>) {
    const STRING_KEYS: [&str; 4] = ["pattern", "minLength", "maxLength", "format"];
    let strings: Vec<&Map<String, Value>> = schemas
        .iter()
        .filter_map(Schema::as_object)
        .filter(|s| node_type(s) == Some("string"))
        .collect();
    let restricted = |s: &&Map<String, Value>| {
        s.contains_key("enum") || STRING_KEYS.iter().any(|k| s.contains_key(*k))
    };
    if strings.iter().any(|s| !restricted(s)) {
        return;
    }
    match strings.as_slice() {
        [only] => {
            for key in STRING_KEYS {
                if let Some(v) = only.get(key) {
                    node.insert(key.into(), v.clone());
                }
            }
            if let Some(Value::Array(values)) = only.get("enum") {
                let alternatives: Vec<String> = values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(regex::escape)
                    .collect();
                node.insert(
                    "pattern".into(),
                    json!(format!("^(?:{})$", alternatives.join("|"))),
                );
            }
        }
        _ => errors.push(
            "several string variants with different restrictions cannot share an \
             integer-or-string node; give one variant the string form"
                .into(),
        ),
    }
}

/// Untagged string variants that differ: a string decodes if any variant takes it, so either
/// one variant takes every string, or each is an enum and the node takes their values.
fn string_enums(schemas: &[Schema], node: &mut Map<String, Value>, errors: &mut Vec<String>) {
    let mut values: Vec<Value> = Vec::new();
    for s in schemas.iter().filter_map(Schema::as_object) {
        let restricted = ["enum", "pattern", "minLength", "maxLength", "format"]
            .iter()
            .any(|k| s.contains_key(*k));
        if !restricted {
            return;
        }
        match s.get("enum") {
            Some(Value::Array(more))
                if s.keys().all(|k| {
                    matches!(k.as_str(), "type" | "enum" | "description" | "nullable")
                }) =>
            {
                values.extend(
                    more.iter()
                        .filter(|v| !values.contains(v))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
            }
            _ => {
                errors.push(
                    "string variants with different restrictions cannot share one schema node; \
                     give one variant plain strings or make each a string enum"
                        .into(),
                );
                return;
            }
        }
    }
    node.insert("enum".into(), Value::Array(values));
}
