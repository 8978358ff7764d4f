//! A CRD schema as the apiserver's errors print it: its internal `JSONSchemaProps`, which Go
//! marshals field by field in declaration order (`{"ID":"","Schema":"",...}`), every field
//! present. The status-subresource rule shows the whole root this way.

use serde_json::{Map, Value};

use crate::go_print;

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn text<'a>(node: &'a Map<String, Value>, key: &str) -> &'a str {
    node.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The apiserver's internal `JSONSchemaProps` of `schema`, marshalled as Go marshals the
/// struct (field names as declared, every field present), as its errors print it.
pub(super) fn go_schema(schema: &Value) -> String {
    let Value::Object(s) = schema else {
        return "null".into();
    };
    let string = |k: &str| go_print::marshal(&Value::String(text(s, k).to_owned()));
    let boolean = |k: &str| flag(s, k).to_string();
    let any = |k: &str| match s.get(k) {
        None => "null".to_owned(),
        Some(v) => go_print::marshal(v),
    };
    let float = |k: &str| match s.get(k).and_then(Value::as_f64) {
        None => "null".to_owned(),
        Some(f) => go_print::json_float(f),
    };
    let list = |k: &str| match s.get(k) {
        Some(Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(go_schema).collect();
            format!("[{}]", items.join(","))
        }
        _ => "null".into(),
    };
    let map = |k: &str| match s.get(k) {
        Some(Value::Object(m)) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .iter()
                .map(|key| {
                    format!(
                        "{}:{}",
                        go_print::marshal(&Value::String((*key).clone())),
                        go_schema(&m[*key])
                    )
                })
                .collect();
            format!("{{{}}}", entries.join(","))
        }
        _ => "null".into(),
    };
    let or_bool = |k: &str| match s.get(k) {
        Some(Value::Bool(b)) => format!("{{\"Allows\":{b},\"Schema\":null}}"),
        Some(v @ Value::Object(_)) => format!("{{\"Allows\":true,\"Schema\":{}}}", go_schema(v)),
        _ => "null".into(),
    };
    let items = match s.get("items") {
        Some(Value::Array(_)) => format!("{{\"Schema\":null,\"JSONSchemas\":{}}}", list("items")),
        Some(v @ Value::Object(_)) => {
            format!("{{\"Schema\":{},\"JSONSchemas\":null}}", go_schema(v))
        }
        _ => "null".into(),
    };
    let docs = match s.get("externalDocs").and_then(Value::as_object) {
        Some(d) => format!(
            "{{\"Description\":{},\"URL\":{}}}",
            go_print::marshal(&Value::String(text(d, "description").into())),
            go_print::marshal(&Value::String(text(d, "url").into()))
        ),
        None => "null".into(),
    };
    let rules = match s.get("x-kubernetes-validations") {
        Some(Value::Array(rules)) => {
            let rules: Vec<String> = rules.iter().map(go_rule).collect();
            format!("[{}]", rules.join(","))
        }
        _ => "null".into(),
    };
    let fields: [(&str, String); 44] = [
        ("ID", string("id")),
        ("Schema", string("$schema")),
        ("Ref", any("$ref")),
        ("Description", string("description")),
        ("Type", string("type")),
        ("Nullable", boolean("nullable")),
        ("Format", string("format")),
        ("Title", string("title")),
        ("Default", any("default")),
        ("Maximum", float("maximum")),
        ("ExclusiveMaximum", boolean("exclusiveMaximum")),
        ("Minimum", float("minimum")),
        ("ExclusiveMinimum", boolean("exclusiveMinimum")),
        ("MaxLength", any("maxLength")),
        ("MinLength", any("minLength")),
        ("Pattern", string("pattern")),
        ("MaxItems", any("maxItems")),
        ("MinItems", any("minItems")),
        ("UniqueItems", boolean("uniqueItems")),
        ("MultipleOf", float("multipleOf")),
        ("Enum", any("enum")),
        ("MaxProperties", any("maxProperties")),
        ("MinProperties", any("minProperties")),
        ("Required", any("required")),
        ("Items", items),
        ("AllOf", list("allOf")),
        ("OneOf", list("oneOf")),
        ("AnyOf", list("anyOf")),
        ("Not", s.get("not").map_or_else(|| "null".into(), go_schema)),
        ("Properties", map("properties")),
        ("AdditionalProperties", or_bool("additionalProperties")),
        ("PatternProperties", map("patternProperties")),
        ("Dependencies", any("dependencies")),
        ("AdditionalItems", or_bool("additionalItems")),
        ("Definitions", map("definitions")),
        ("ExternalDocs", docs),
        ("Example", any("example")),
        (
            "XPreserveUnknownFields",
            any("x-kubernetes-preserve-unknown-fields"),
        ),
        (
            "XEmbeddedResource",
            boolean("x-kubernetes-embedded-resource"),
        ),
        ("XIntOrString", boolean("x-kubernetes-int-or-string")),
        ("XListMapKeys", any("x-kubernetes-list-map-keys")),
        ("XListType", any("x-kubernetes-list-type")),
        ("XMapType", any("x-kubernetes-map-type")),
        ("XValidations", rules),
    ];
    let fields: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", fields.join(","))
}

/// A `ValidationRule` marshalled as Go marshals the struct.
fn go_rule(rule: &Value) -> String {
    let s = |k: &str| {
        go_print::marshal(&Value::String(
            rule.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ))
    };
    let any = |k: &str| {
        rule.get(k)
            .map_or_else(|| "null".to_owned(), go_print::marshal)
    };
    format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{},\"FieldPath\":{},\"OptionalOldSelf\":{}}}",
        s("rule"),
        s("message"),
        s("messageExpression"),
        any("reason"),
        s("fieldPath"),
        any("optionalOldSelf")
    )
}
