//! Partial objects: what the apiserver's field manager asks a conversion webhook to convert.
//!
//! Server-side apply tracks each manager's fields at the version the manager wrote them in.
//! When an apply removes what its manager no longer applies, structured-merge-diff's
//! `Updater.prune` (`merge/update.go`: `addBackOwnedItems`, `addBackDanglingItems`) converts
//! the object *pruned to some managers' fields* to every version a manager holds fields in, and
//! computes field sets from what comes back. Such an object can lack required fields, whole
//! structs, even `metadata`. A converter must convert it anyway, and what it returns decides
//! which fields survive the apply:
//!
//! - a field it leaves out that the input had (at any version) is removed from the object unless
//!   a manager at that version owns it — so a converter must never drop what it was given;
//! - a field it adds that the input did not have is kept — so values invented for absent fields
//!   stop an applier from removing a field it dropped.
//!
//! kubegen therefore decodes a partial object by reading each absent required field as the
//! Rust type's `Default` (Go's zero value, as a Go webhook decodes it) or, where the default
//! object has nothing at that path (inside list items), the schema's zero value; converts it as
//! usual; and then takes out of the result what only the filling produced: every filled field
//! still at its path with the filled value, and every `null` (a `None` serialized) at a path the
//! input did not have. Fields converted by hand (`ManualConvert`) from filled values are not
//! taken out: their authors' code sees each absent field as its default and must accept it.

use serde_json::{Map, Value};

use super::kind::CONVERSION_DATA_ANNOTATION;

/// A step into a JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// What was filled into a partial object to decode it: each filled field's path and value.
#[derive(Debug, Default)]
pub(crate) struct Filled(Vec<(Vec<Step>, Value)>);

impl Filled {
    /// Whether nothing had to be filled (the object was whole).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `path` is a filled field or lies inside one.
    fn covers(&self, path: &[Step]) -> bool {
        self.0.iter().any(|(p, _)| path.starts_with(p))
    }
}

/// Fills the absent required fields of `object`, described by `schema` (the version's
/// `openAPIV3Schema`): with the value `defaults` (the kind's default object, serialized) has at
/// the same path, else the schema's zero value.
pub(crate) fn fill(object: &mut Value, schema: &Value, defaults: &Value) -> Filled {
    let mut filled = Filled::default();
    fill_node(object, schema, Some(defaults), &mut Vec::new(), &mut filled);
    filled
}

fn fill_node(
    node: &mut Value,
    schema: &Value,
    defaults: Option<&Value>,
    path: &mut Vec<Step>,
    filled: &mut Filled,
) {
    match node {
        Value::Object(fields) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required = schema.get("required").and_then(Value::as_array);
            for name in required.into_iter().flatten().filter_map(Value::as_str) {
                if fields.contains_key(name) {
                    continue;
                }
                let Some(child) = properties.and_then(|p| p.get(name)) else {
                    continue;
                };
                let value = defaults
                    .and_then(|d| d.get(name))
                    .cloned()
                    .unwrap_or_else(|| zero(child));
                path.push(Step::Key(name.to_owned()));
                filled.0.push((path.clone(), value.clone()));
                path.pop();
                fields.insert(name.to_owned(), value);
            }
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (name, value) in fields.iter_mut() {
                let Some(child) = properties.and_then(|p| p.get(name)).or(additional) else {
                    continue;
                };
                path.push(Step::Key(name.clone()));
                let defaults = defaults.and_then(|d| d.get(name));
                fill_node(value, child, defaults, path, filled);
                path.pop();
            }
        }
        Value::Array(items) => {
            let Some(item) = schema.get("items") else {
                return;
            };
            for (i, value) in items.iter_mut().enumerate() {
                path.push(Step::Index(i));
                fill_node(value, item, None, path, filled);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The zero value of a schema node: what Go decodes an absent field of its type to, in a form
/// the Rust type decodes (an enum's first value, the epoch for a timestamp, `"0"` for an
/// int-or-string, which a `Quantity` also reads).
fn zero(schema: &Value) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        return Value::Null;
    }
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Value::String("0".into());
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => Value::String(
            match schema.get("format").and_then(Value::as_str) {
                Some("date-time") => "1970-01-01T00:00:00Z",
                Some("date") => "1970-01-01",
                _ => "",
            }
            .into(),
        ),
        Some("integer" | "number") => Value::from(0),
        Some("boolean") => Value::Bool(false),
        Some("array") => Value::Array(Vec::new()),
        _ => {
            let mut object = Value::Object(Map::new());
            fill_node(
                &mut object,
                schema,
                None,
                &mut Vec::new(),
                &mut Filled::default(),
            );
            object
        }
    }
}

/// Takes out of `output` (the conversion of a filled `input`) what only the filling produced:
/// filled fields still at their path with their filled value (and structs the filling created
/// that are left empty), `null`s at paths `input` did not have, and hub fields kept in the
/// conversion-data annotation that were filled. `input` is the object as it came, unfilled.
pub(crate) fn trim(output: &mut Value, input: &Value, filled: &Filled) {
    for (path, value) in &filled.0 {
        if let Some((last, parent)) = path.split_last()
            && let Some(parent) = at_mut(output, parent)
        {
            let remove = child_mut(parent, last).is_some_and(|node| strip_same(node, value));
            if remove {
                remove_child(parent, last);
            }
        }
    }
    trim_nulls(output, Some(input));
    if !filled.is_empty() {
        trim_annotation(output, filled);
    }
}

/// Strips from `node` what equals `filled` (recursively through objects); whether nothing is
/// left of it.
fn strip_same(node: &mut Value, filled: &Value) -> bool {
    if node == filled {
        return true;
    }
    match (node, filled) {
        (Value::Object(fields), Value::Object(filled)) => {
            fields.retain(|k, v| !filled.get(k).is_some_and(|f| strip_same(v, f)));
            fields.is_empty()
        }
        _ => false,
    }
}

fn at_mut<'a>(mut node: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    for step in path {
        node = child_mut(node, step)?;
    }
    Some(node)
}

fn child_mut<'a>(node: &'a mut Value, step: &Step) -> Option<&'a mut Value> {
    match (node, step) {
        (Value::Object(fields), Step::Key(k)) => fields.get_mut(k),
        (Value::Array(items), Step::Index(i)) => items.get_mut(*i),
        _ => None,
    }
}

fn remove_child(node: &mut Value, step: &Step) {
    // Array items are never filled, only the fields inside them.
    if let (Value::Object(fields), Step::Key(k)) = (node, step) {
        fields.remove(k);
    }
}

/// Removes every `null` at a path `input` does not have: a `None` the Rust type serializes
/// for an absent optional field, which a field set would count as present.
fn trim_nulls(output: &mut Value, input: Option<&Value>) {
    match output {
        Value::Object(fields) => {
            let input = input.and_then(Value::as_object);
            fields.retain(|k, v| !v.is_null() || input.is_some_and(|i| i.contains_key(k)));
            for (k, v) in fields.iter_mut() {
                trim_nulls(v, input.and_then(|i| i.get(k)));
            }
        }
        Value::Array(items) => {
            let input = input.and_then(Value::as_array);
            for (i, v) in items.iter_mut().enumerate() {
                trim_nulls(v, input.and_then(|items| items.get(i)));
            }
        }
        _ => {}
    }
}

/// Drops from a conversion-data annotation the hub fields that were filled, not given.
fn trim_annotation(output: &mut Value, filled: &Filled) {
    let Some(Value::Object(annotations)) = output.pointer_mut("/metadata/annotations") else {
        return;
    };
    let Some(Value::String(data)) = annotations.get(CONVERSION_DATA_ANNOTATION) else {
        return;
    };
    let Ok(Value::Object(mut kept)) = serde_json::from_str::<Value>(data) else {
        return;
    };
    if let Some(Value::Object(spec)) = kept.get_mut("spec") {
        spec.retain(|name, _| !filled.covers(&[Step::Key("spec".into()), Step::Key(name.clone())]));
        if spec.is_empty() {
            kept.remove("spec");
        }
    }
    if kept.is_empty() {
        annotations.remove(CONVERSION_DATA_ANNOTATION);
    } else {
        annotations.insert(
            CONVERSION_DATA_ANNOTATION.to_owned(),
            Value::String(Value::Object(kept).to_string()),
        );
    }
    if annotations.is_empty()
        && let Some(Value::Object(metadata)) = output.get_mut("metadata")
    {
        metadata.remove("annotations");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["spec"],
            "properties": {
                "metadata": {"type": "object"},
                "spec": {
                    "type": "object",
                    "required": ["engine", "size", "items"],
                    "properties": {
                        "engine": {"type": "string", "enum": ["postgres", "mysql"]},
                        "size": {"type": "string"},
                        "replicas": {"type": "integer"},
                        "items": {"type": "array", "items": {
                            "type": "object",
                            "required": ["name", "port", "at"],
                            "properties": {
                                "name": {"type": "string"},
                                "port": {"x-kubernetes-int-or-string": true},
                                "at": {"type": "string", "format": "date-time"},
                            },
                        }},
                    },
                },
            },
        })
    }

    #[test]
    fn absent_required_fields_take_the_default_object_then_the_schema_zero() {
        let defaults =
            json!({"metadata": {}, "spec": {"engine": "mysql", "size": "1Gi", "items": []}});
        let mut object = json!({"spec": {"replicas": 2, "items": [{"name": "a"}]}});
        let filled = fill(&mut object, &schema(), &defaults);
        assert_eq!(
            object,
            json!({"spec": {"replicas": 2, "engine": "mysql", "size": "1Gi",
                   "items": [{"name": "a", "port": "0", "at": "1970-01-01T00:00:00Z"}]}})
        );
        assert_eq!(filled.0.len(), 4);

        let mut whole = json!({"spec": {"engine": "postgres", "size": "", "items": []}});
        assert!(fill(&mut whole, &schema(), &defaults).is_empty());

        let mut empty = json!({"metadata": {"name": "x"}});
        fill(&mut empty, &schema(), &json!({}));
        assert_eq!(
            empty["spec"],
            json!({"engine": "postgres", "size": "", "items": []})
        );
    }

    #[test]
    fn what_only_the_filling_produced_is_taken_out() {
        let input = json!({"metadata": {"name": "x"}, "spec": {"items": [{"name": "a"}]}});
        let mut filled_input = input.clone();
        let filled = fill(&mut filled_input, &schema(), &json!({}));
        // A conversion that renamed `size` to `storage` (by hand) and kept the rest.
        let mut output = json!({
            "metadata": {"name": "x"},
            "spec": {
                "engine": "postgres", "storage": "0", "backup": null,
                "items": [{"name": "a", "port": "0", "at": "1970-01-01T00:00:00Z", "note": null}],
            },
        });
        trim(&mut output, &input, &filled);
        assert_eq!(
            output,
            json!({"metadata": {"name": "x"}, "spec": {"storage": "0", "items": [{"name": "a"}]}})
        );
    }

    #[test]
    fn a_struct_the_filling_created_goes_when_nothing_else_is_in_it() {
        let input = json!({"metadata": {}});
        let mut filled_input = input.clone();
        let filled = fill(&mut filled_input, &schema(), &json!({}));
        let mut output = filled_input.clone();
        trim(&mut output, &input, &filled);
        assert_eq!(output, input);
    }

    #[test]
    fn nulls_the_input_had_stay() {
        let input = json!({"spec": {"note": null, "engine": "mysql", "size": "1", "items": []}});
        let mut output = input.clone();
        trim(&mut output, &input, &Filled::default());
        assert_eq!(output, input);
    }

    #[test]
    fn filled_hub_fields_leave_the_conversion_data_annotation() {
        let data = json!({"spec": {"backup": {"schedule": ""}, "size": "0"}}).to_string();
        let mut output = json!({"metadata": {"annotations": {CONVERSION_DATA_ANNOTATION: data}}});
        let filled = Filled(vec![(vec![Step::Key("spec".into())], json!({}))]);
        trim(&mut output, &json!({}), &filled);
        assert_eq!(output, json!({"metadata": {}}));
    }
}
