//! Marker attributes (`#[validate]`, `#[schema]`, `#[rule]`) as data, and where they land.

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::{closed, node_type, record_error};

/// A number written in a marker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
}

impl Num {
    fn to_json(self) -> Value {
        match self {
            Num::Int(i) => json!(i),
            Num::Float(f) => json!(f),
        }
    }
}

/// A literal written in a marker (`example = ...`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(&'static str),
    /// A boolean.
    Bool(bool),
}

impl Lit {
    fn to_json(self) -> Value {
        match self {
            Lit::Int(i) => json!(i),
            Lit::Float(f) => json!(f),
            Lit::Str(s) => json!(s),
            Lit::Bool(b) => json!(b),
        }
    }
}

/// One `x-kubernetes-validations` entry, from `#[rule(...)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The CEL expression.
    pub rule: &'static str,
    /// Message shown when the rule fails.
    pub message: Option<&'static str>,
    /// CEL expression producing the message.
    pub message_expression: Option<&'static str>,
    /// Machine-readable reason: FieldValueInvalid, FieldValueForbidden, ...
    pub reason: Option<&'static str>,
    /// JSON path of the field the failure is reported on.
    pub field_path: Option<&'static str>,
    /// Whether `oldSelf` is optional (transition rules on create).
    pub optional_old_self: Option<bool>,
}

/// A marker, applied to the schema node of the field or type it is written on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Marker {
    /// `minimum`.
    Minimum(Num),
    /// `maximum`.
    Maximum(Num),
    /// `exclusive_minimum`: the minimum itself is not allowed.
    ExclusiveMinimum,
    /// `exclusive_maximum`: the maximum itself is not allowed.
    ExclusiveMaximum,
    /// `multiple_of`.
    MultipleOf(Num),
    /// `min_length`.
    MinLength(u64),
    /// `max_length`.
    MaxLength(u64),
    /// `pattern` (checked to compile as a regex by the derive).
    Pattern(&'static str),
    /// `format`.
    Format(&'static str),
    /// `min_items`.
    MinItems(u64),
    /// `max_items`.
    MaxItems(u64),
    /// `unique_items`: written as `x-kubernetes-list-type: set`.
    UniqueItems,
    /// `min_properties`.
    MinProperties(u64),
    /// `max_properties`.
    MaxProperties(u64),
    /// `list_type`: atomic, set or map.
    ListType(&'static str),
    /// `list_map_keys`.
    ListMapKeys(&'static [&'static str]),
    /// `map_type` / `struct_type`: atomic or granular.
    MapType(&'static str),
    /// `preserve_unknown_fields`.
    PreserveUnknownFields,
    /// `embedded_resource`.
    EmbeddedResource,
    /// `int_or_string`: the node accepts an integer or a string.
    IntOrString,
    /// `nullable`.
    Nullable(bool),
    /// `title`.
    Title(&'static str),
    /// `example`.
    Example(Lit),
    /// `#[rule(...)]`.
    Rule(Rule),
}

enum Needs {
    Number,
    String,
    Array,
    Object,
    Any,
}

impl Marker {
    fn name(&self) -> &'static str {
        match self {
            Marker::Minimum(_) => "minimum",
            Marker::Maximum(_) => "maximum",
            Marker::ExclusiveMinimum => "exclusive_minimum",
            Marker::ExclusiveMaximum => "exclusive_maximum",
            Marker::MultipleOf(_) => "multiple_of",
            Marker::MinLength(_) => "min_length",
            Marker::MaxLength(_) => "max_length",
            Marker::Pattern(_) => "pattern",
            Marker::Format(_) => "format",
            Marker::MinItems(_) => "min_items",
            Marker::MaxItems(_) => "max_items",
            Marker::UniqueItems => "unique_items",
            Marker::MinProperties(_) => "min_properties",
            Marker::MaxProperties(_) => "max_properties",
            Marker::ListType(_) => "list_type",
            Marker::ListMapKeys(_) => "list_map_keys",
            Marker::MapType(_) => "map_type",
            Marker::PreserveUnknownFields => "preserve_unknown_fields",
            Marker::EmbeddedResource => "embedded_resource",
            Marker::IntOrString => "int_or_string",
            Marker::Nullable(_) => "nullable",
            Marker::Title(_) => "title",
            Marker::Example(_) => "example",
            Marker::Rule(_) => "rule",
        }
    }

    fn needs(&self) -> Needs {
        match self {
            Marker::Minimum(_)
            | Marker::Maximum(_)
            | Marker::ExclusiveMinimum
            | Marker::ExclusiveMaximum
            | Marker::MultipleOf(_) => Needs::Number,
            Marker::MinLength(_) | Marker::MaxLength(_) | Marker::Pattern(_) => Needs::String,
            Marker::MinItems(_)
            | Marker::MaxItems(_)
            | Marker::UniqueItems
            | Marker::ListType(_)
            | Marker::ListMapKeys(_) => Needs::Array,
            Marker::MinProperties(_)
            | Marker::MaxProperties(_)
            | Marker::MapType(_)
            | Marker::EmbeddedResource => Needs::Object,
            _ => Needs::Any,
        }
    }
}

/// Applies markers to a node in order, recording an error on the node for a marker whose
/// kind of value does not match the node's type (the derive rejects the cases it can see;
/// this catches the ones hidden behind type aliases and foreign types).
pub(super) fn apply(schema: &mut Schema, markers: &[Marker]) {
    for marker in markers {
        let object = schema.ensure_object();
        let int_or_string = object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        let preserves =
            object.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        if *marker == Marker::EmbeddedResource && preserves && node_type(object).is_none() {
            // kubebuilder's RawExtension pattern: an object kept as written.
            object.insert("type".into(), json!("object"));
        }
        let ty = node_type(object).map(str::to_owned);
        let fits = match (marker.needs(), ty.as_deref()) {
            (Needs::Any, _) => true,
            (Needs::Number, Some("integer" | "number")) => true,
            (Needs::String, Some("string")) => true,
            (Needs::Number | Needs::String, None) => int_or_string,
            (Needs::Array, Some("array")) => true,
            (Needs::Object, Some("object")) => true,
            _ => false,
        };
        if !fits {
            let found = ty.unwrap_or_else(|| "untyped".into());
            record_error(
                schema,
                format!("`{}` cannot apply to a node of type {found}", marker.name()),
            );
            continue;
        }
        if let Some(conflict) = closed::marker_conflict(object, marker) {
            record_error(schema, conflict);
            continue;
        }
        apply_one(object, marker);
    }
}

fn set(object: &mut Map<String, Value>, key: &str, value: Value) {
    object.insert(key.to_owned(), value);
}

fn apply_one(object: &mut Map<String, Value>, marker: &Marker) {
    match *marker {
        Marker::Minimum(n) => set(object, "minimum", n.to_json()),
        Marker::Maximum(n) => set(object, "maximum", n.to_json()),
        Marker::ExclusiveMinimum => set(object, "exclusiveMinimum", json!(true)),
        Marker::ExclusiveMaximum => set(object, "exclusiveMaximum", json!(true)),
        Marker::MultipleOf(n) => set(object, "multipleOf", n.to_json()),
        Marker::MinLength(n) => set(object, "minLength", json!(n)),
        Marker::MaxLength(n) => set(object, "maxLength", json!(n)),
        Marker::Pattern(p) => set(object, "pattern", json!(p)),
        Marker::Format(f) => set(object, "format", json!(f)),
        Marker::MinItems(n) => set(object, "minItems", json!(n)),
        Marker::MaxItems(n) => set(object, "maxItems", json!(n)),
        Marker::UniqueItems => set(object, "x-kubernetes-list-type", json!("set")),
        Marker::MinProperties(n) => set(object, "minProperties", json!(n)),
        Marker::MaxProperties(n) => set(object, "maxProperties", json!(n)),
        Marker::ListType(t) => set(object, "x-kubernetes-list-type", json!(t)),
        Marker::ListMapKeys(keys) => set(object, "x-kubernetes-list-map-keys", json!(keys)),
        Marker::MapType(t) => set(object, "x-kubernetes-map-type", json!(t)),
        Marker::PreserveUnknownFields => {
            set(object, "x-kubernetes-preserve-unknown-fields", json!(true))
        }
        Marker::EmbeddedResource => set(object, "x-kubernetes-embedded-resource", json!(true)),
        Marker::IntOrString => {
            // The form controller-gen writes; the apiserver allows exactly this anyOf. Value
            // validations stay: each applies to the integers or the strings alone (an
            // IntOrString's int32 bounds, a Quantity's pattern).
            object.retain(|k, _| {
                matches!(
                    k.as_str(),
                    "description"
                        | "nullable"
                        | "minimum"
                        | "maximum"
                        | "exclusiveMinimum"
                        | "exclusiveMaximum"
                        | "multipleOf"
                        | "pattern"
                        | "minLength"
                        | "maxLength"
                        | "default"
                )
            });
            object.insert(
                "anyOf".into(),
                json!([{"type": "integer"}, {"type": "string"}]),
            );
            object.insert("x-kubernetes-int-or-string".into(), json!(true));
        }
        Marker::Nullable(true) => set(object, "nullable", json!(true)),
        Marker::Nullable(false) => {
            object.remove("nullable");
        }
        Marker::Title(t) => set(object, "title", json!(t)),
        Marker::Example(l) => set(object, "example", l.to_json()),
        Marker::Rule(rule) => {
            let mut entry = Map::new();
            entry.insert("rule".into(), json!(rule.rule));
            let optional = [
                ("message", rule.message),
                ("messageExpression", rule.message_expression),
                ("reason", rule.reason),
                ("fieldPath", rule.field_path),
            ];
            for (key, value) in optional {
                if let Some(v) = value {
                    entry.insert(key.into(), json!(v));
                }
            }
            if let Some(b) = rule.optional_old_self {
                entry.insert("optionalOldSelf".into(), json!(b));
            }
            match object.get_mut("x-kubernetes-validations") {
                Some(Value::Array(rules)) => rules.push(Value::Object(entry)),
                _ => set(object, "x-kubernetes-validations", json!([entry])),
            }
        }
    }
}
