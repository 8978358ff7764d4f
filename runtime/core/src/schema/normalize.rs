//! From what schemars generates to what the apiserver accepts.

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::{DEFINITIONS_PATH, ERROR_KEY, k8s_extensions};

/// The schemars name of k8s-openapi's `ObjectMeta`.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The schema kubegen writes for an `ObjectMeta` embedded in a spec (a Pod or Job template):
/// the fields a template may set, as controller-gen writes them with
/// `generateEmbeddedObjectMeta`. The full ObjectMeta schema would add some 10 KiB per
/// template, and a bare `type: object` would have the apiserver prune a template's labels.
pub const COMPACT_OBJECT_META: &str = r#"{
  "type": "object",
  "properties": {
    "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    "finalizers": {"type": "array", "items": {"type": "string"}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "name": {"type": "string"},
    "namespace": {"type": "string"}
  }
}"#;

/// Inlines every `$ref` to a definition in `definitions` and rewrites schemars' idioms into
/// the forms a CRD accepts: `true` schemas and `serde_json::Value` become
/// preserve-unknown-fields, `null` unions become `nullable`, `const` becomes `enum`, Rust
/// integer widths become int32/int64 with their bounds, `uniqueItems` becomes a set list.
/// A type that refers to itself is recorded as an error at the node (CRDs cannot recurse).
pub fn resolve(schema: &mut Schema, definitions: &Map<String, Value>) {
    let mut value = std::mem::take(schema).to_value();
    let mut stack = Vec::new();
    walk(&mut value, definitions, &mut stack);
    *schema = Schema::try_from(value).unwrap_or_else(|_| {
        // `walk` always leaves an object or a boolean, both of which are schemas; reaching
        // here means a bug, which the structural check then reports at the root.
        Schema::from(Map::from_iter([(
            ERROR_KEY.to_owned(),
            json!("internal: schema lost its shape"),
        )]))
    });
}

fn walk(value: &mut Value, definitions: &Map<String, Value>, stack: &mut Vec<String>) {
    match value {
        Value::Bool(true) => {
            *value = json!({"x-kubernetes-preserve-unknown-fields": true});
            return;
        }
        Value::Bool(false) => {
            *value = json!({ERROR_KEY: "a schema that accepts nothing cannot be written in a CRD"});
            return;
        }
        Value::Object(_) => {}
        _ => return,
    }
    inline_ref(value, definitions, stack);
    let Value::Object(node) = value else { return };
    normalize_node(node);
    for key in ["properties"] {
        if let Some(Value::Object(properties)) = node.get_mut(key) {
            for child in properties.values_mut() {
                walk(child, definitions, stack);
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = node.get_mut(key) {
            if key == "additionalProperties" && child == &Value::Bool(false) {
                node.remove(key);
                continue;
            }
            walk(child, definitions, stack);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(children)) = node.get_mut(key) {
            for child in children {
                walk(child, definitions, stack);
            }
        }
    }
    collapse_null_union(node);
}

fn inline_ref(value: &mut Value, definitions: &Map<String, Value>, stack: &mut Vec<String>) {
    let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
        return;
    };
    let prefix = format!("#{DEFINITIONS_PATH}/");
    let Some(name) = reference.strip_prefix(&prefix).map(str::to_owned) else {
        return;
    };
    let Value::Object(siblings) = std::mem::take(value) else {
        return;
    };
    let mut target = if name == OBJECT_META {
        let mut meta =
            serde_json::from_str(COMPACT_OBJECT_META).unwrap_or_else(|_| json!({"type": "object"}));
        k8s_extensions::apply(&name, &mut meta);
        meta
    } else if stack.contains(&name) || !matches!(definitions.get(&name), Some(Value::Object(_))) {
        // Missing, or schemars' `false` placeholder for a definition still being generated:
        // either way the type is reached again from inside itself.
        json!({ERROR_KEY: format!(
            "type `{name}` contains itself; a CRD schema cannot express recursion \
             (use #[schema(preserve_unknown_fields)] on the recursive field)"
        )})
    } else {
        let mut target = definitions[&name].clone();
        apiserver_forms(&name, &mut target);
        k8s_extensions::apply(&name, &mut target);
        stack.push(name.clone());
        walk(&mut target, definitions, stack);
        stack.pop();
        k8s_extensions::settle_list_maps(&name, &mut target);
        target
    };
    if let Value::Object(target) = &mut target {
        for (k, v) in siblings {
            if k != "$ref" {
                target.insert(k, v);
            }
        }
    }
    *value = target;
}

/// The `pattern` controller-gen writes for `resource.Quantity`: the apiserver refuses
/// `"cpu": "abc"` in a custom resource as it does in a Pod.
pub const QUANTITY: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// The date-times both the apiserver's `date-time` format and k8s-openapi's `Time` and
/// `MicroTime` (jiff timestamps) accept. The format alone admits more than jiff decodes
/// (any character before a fraction, more than nine fraction digits, offsets past 25 hours
/// or 59 minutes, text after a second `t`), and jiff's range ends inside year 9999 and,
/// written back in UTC, a year-0000 time early on January 1 or 2 with a positive offset
/// falls before year 0, which the format refuses. So: years 0000 (from January 3) to 9999
/// (until December 28), `T` or `t`, at most nine fraction digits after `.` or `,`, and `Z`,
/// `z` or an offset up to 25:59.
pub const DECODABLE_DATE_TIME: &str = concat!(
    "^(",
    "(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])",
    "-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])",
    "|0000-(01-(0[3-9]|[12][0-9]|3[01])|(0[2-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))",
    "|9999-((0[1-9]|1[01])-(0[1-9]|[12][0-9]|3[01])|12-(0[1-9]|1[0-9]|2[0-8]))",
    ")[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.,][0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-5]):[0-5][0-9])$",
);

/// An int-or-string node in the form controller-gen writes (the `anyOf` the apiserver
/// allows beside the extension), keeping the description.
fn int_or_string(schema: &Value) -> Value {
    let mut node = json!({
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": true,
    });
    if let Some(d) = schema.get("description") {
        node["description"] = d.clone();
    }
    node
}

/// The forms the apiserver gives k8s-openapi types whose schemas say less than their Go
/// types: int-or-string, quantities and timestamps. Their `x-kubernetes-*` list and map types
/// come from [`k8s_extensions`].
fn apiserver_forms(name: &str, schema: &mut Value) {
    match name {
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
        | "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" => {
            schema["pattern"] = json!(DECODABLE_DATE_TIME);
        }
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => {
            *schema = int_or_string(schema);
            // k8s-openapi's IntOrString holds an i32; the apiserver would take any int64.
            schema["minimum"] = json!(i32::MIN);
            schema["maximum"] = json!(i32::MAX);
        }
        "io.k8s.apimachinery.pkg.api.resource.Quantity" => {
            *schema = int_or_string(schema);
            schema["pattern"] = json!(QUANTITY);
        }
        _ => {}
    }
}

fn normalize_node(node: &mut Map<String, Value>) {
    node.remove("$schema");
    node.remove("definitions");
    if let Some(c) = node.remove("const") {
        node.insert("enum".into(), json!([c]));
    }
    if let Some(Value::Array(mut examples)) = node.remove("examples")
        && !examples.is_empty()
        && !node.contains_key("example")
    {
        node.insert("example".into(), examples.swap_remove(0));
    }
    // `type: ["string", "null"]`
    if let Some(Value::Array(types)) = node.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let had_null = non_null.len() < types.len();
        match non_null.len() {
            0 => {
                node.remove("type");
            }
            1 => {
                node.insert("type".into(), non_null[0].clone());
            }
            _ => {}
        }
        if had_null {
            node.insert("nullable".into(), json!(true));
        }
    }
    if node.remove("uniqueItems") == Some(json!(true))
        && !node.contains_key("x-kubernetes-list-type")
    {
        node.insert("x-kubernetes-list-type".into(), json!("set"));
    }
    integer_format(node);
    let meaningful = node
        .keys()
        .any(|k| k != "description" && k != "title" && k != "nullable");
    if !meaningful {
        node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
    }
}

/// Rust integer widths as the formats Kubernetes knows, keeping the width's bounds.
fn integer_format(node: &mut Map<String, Value>) {
    let Some(format) = node.get("format").and_then(Value::as_str) else {
        return;
    };
    let (k8s, min, max): (&str, Option<i64>, Option<i64>) = match format {
        "int8" => ("int32", Some(i8::MIN.into()), Some(i8::MAX.into())),
        "int16" => ("int32", Some(i16::MIN.into()), Some(i16::MAX.into())),
        "uint8" => ("int32", Some(0), Some(u8::MAX.into())),
        "uint16" => ("int32", Some(0), Some(u16::MAX.into())),
        "uint32" => ("int64", Some(0), Some(u32::MAX.into())),
        "uint64" | "uint" => ("int64", Some(0), None),
        "int" => ("int64", None, None),
        _ => return,
    };
    node.insert("format".into(), json!(k8s));
    if let Some(min) = min {
        let keep = node
            .get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|m| m >= min as f64);
        if !keep {
            node.insert("minimum".into(), json!(min));
        }
    }
    if let Some(max) = max {
        let keep = node
            .get("maximum")
            .and_then(Value::as_f64)
            .is_some_and(|m| m <= max as f64);
        if !keep {
            node.insert("maximum".into(), json!(max));
        }
    }
}

/// `anyOf: [X, {type: null}]` (schemars' `Option<T>` inside containers) becomes X, nullable.
fn collapse_null_union(node: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = node.get(key) else {
            continue;
        };
        let is_null = |b: &Value| b.get("type") == Some(&json!("null"));
        if branches.len() != 2 || !branches.iter().any(is_null) {
            continue;
        }
        let Some(Value::Array(branches)) = node.remove(key) else {
            continue;
        };
        for branch in branches {
            if let Value::Object(b) = branch {
                if b.get("type") == Some(&json!("null")) {
                    continue;
                }
                for (k, v) in b {
                    node.entry(k).or_insert(v);
                }
            }
        }
        node.insert("nullable".into(), json!(true));
        node.remove("x-kubernetes-preserve-unknown-fields");
        if node.keys().all(|k| k == "nullable" || k == "description") {
            node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
    }
}
