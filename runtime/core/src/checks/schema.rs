//! A CRD version's `openAPIV3Schema` compiled for validation: the shape the
//! apiextensions-apiserver hands kube-openapi's `SchemaValidator` after converting the CRD
//! schema (int-or-string becomes the types `integer,string`; formats the apiserver does not
//! validate are stripped; patterns are compiled once).

use kubegen_go::regexp::Regexp;
use serde_json::{Map, Value};

use super::cel::ValidationRule;
use super::formats;

/// A compiled schema node. Build one with [`Schema::new`].
#[derive(Debug, Default)]
pub struct Schema {
    pub(super) types: Vec<String>,
    pub(super) nullable: bool,
    pub(super) format: Option<String>,
    pub(super) maximum: Option<f64>,
    pub(super) exclusive_maximum: bool,
    pub(super) minimum: Option<f64>,
    pub(super) exclusive_minimum: bool,
    pub(super) max_length: Option<i64>,
    pub(super) min_length: Option<i64>,
    pub(super) pattern: Option<Pattern>,
    pub(super) max_items: Option<i64>,
    pub(super) min_items: Option<i64>,
    pub(super) unique_items: bool,
    pub(super) multiple_of: Option<f64>,
    pub(super) max_properties: Option<i64>,
    pub(super) min_properties: Option<i64>,
    pub(super) required: Vec<String>,
    pub(super) enumeration: Vec<Value>,
    pub(super) all_of: Vec<Schema>,
    pub(super) one_of: Vec<Schema>,
    pub(super) any_of: Vec<Schema>,
    pub(super) not: Option<Box<Schema>>,
    pub(super) properties: Vec<(String, Schema)>,
    pub(super) additional: Additional,
    pub(super) items: Option<Box<Schema>>,
    pub(super) list_type: Option<String>,
    pub(super) list_map_keys: Vec<String>,
    pub(super) embedded_resource: bool,
    pub(super) int_or_string: bool,
    pub(super) map_type: Option<String>,
    /// `x-kubernetes-validations`, evaluated by [`super::cel`].
    pub(super) rules: Vec<ValidationRule>,
}

/// `additionalProperties`.
#[derive(Debug, Default)]
pub(super) enum Additional {
    /// Absent (any property allowed, none validated).
    #[default]
    Absent,
    /// `true` or `false`.
    Allows(bool),
    /// A schema every other property must satisfy.
    Schema(Box<Schema>),
}

/// A `pattern`, compiled as Go's `regexp.Compile` compiles it (or Go's error for it).
#[derive(Debug)]
pub(super) struct Pattern {
    pub(super) source: String,
    pub(super) regex: Result<Regexp, kubegen_go::regexp::Error>,
}

impl Pattern {
    fn new(source: &str) -> Self {
        Pattern {
            source: source.to_owned(),
            regex: Regexp::new(source),
        }
    }
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn int(node: &Map<String, Value>, key: &str) -> Option<i64> {
    node.get(key).and_then(Value::as_i64)
}

fn float(node: &Map<String, Value>, key: &str) -> Option<f64> {
    node.get(key).and_then(Value::as_f64)
}

fn strings(node: &Map<String, Value>, key: &str) -> Vec<String> {
    match node.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

impl Schema {
    /// Compiles an `openAPIV3Schema` (any node of one). Keywords a CRD cannot carry are
    /// ignored; a non-object schema validates nothing.
    pub fn new(schema: &Value) -> Self {
        let Value::Object(node) = schema else {
            return Schema::default();
        };
        let mut types: Vec<String> = node
            .get("type")
            .and_then(Value::as_str)
            .map(|t| vec![t.to_owned()])
            .unwrap_or_default();
        let int_or_string = flag(node, "x-kubernetes-int-or-string");
        if int_or_string {
            types = vec!["integer".into(), "string".into()];
        }
        let format = node
            .get("format")
            .and_then(Value::as_str)
            .filter(|f| formats::is_validated(&types, f))
            .map(str::to_owned);
        let list = |key: &str| -> Vec<Schema> {
            match node.get(key) {
                Some(Value::Array(items)) => items.iter().map(Schema::new).collect(),
                _ => Vec::new(),
            }
        };
        let additional = match node.get("additionalProperties") {
            Some(Value::Bool(b)) => Additional::Allows(*b),
            Some(s @ Value::Object(_)) => Additional::Schema(Box::new(Schema::new(s))),
            _ => Additional::Absent,
        };
        Schema {
            types,
            nullable: flag(node, "nullable"),
            format,
            maximum: float(node, "maximum"),
            exclusive_maximum: flag(node, "exclusiveMaximum"),
            minimum: float(node, "minimum"),
            exclusive_minimum: flag(node, "exclusiveMinimum"),
            max_length: int(node, "maxLength"),
            min_length: int(node, "minLength"),
            pattern: node
                .get("pattern")
                .and_then(Value::as_str)
                .filter(|p| !p.is_empty())
                .map(Pattern::new),
            max_items: int(node, "maxItems"),
            min_items: int(node, "minItems"),
            unique_items: flag(node, "uniqueItems"),
            multiple_of: float(node, "multipleOf"),
            max_properties: int(node, "maxProperties"),
            min_properties: int(node, "minProperties"),
            required: strings(node, "required"),
            enumeration: match node.get("enum") {
                Some(Value::Array(values)) => values.clone(),
                _ => Vec::new(),
            },
            all_of: list("allOf"),
            one_of: list("oneOf"),
            any_of: list("anyOf"),
            not: node.get("not").map(|n| Box::new(Schema::new(n))),
            properties: match node.get("properties") {
                Some(Value::Object(p)) => {
                    p.iter().map(|(k, v)| (k.clone(), Schema::new(v))).collect()
                }
                _ => Vec::new(),
            },
            additional,
            items: node
                .get("items")
                .filter(|i| i.is_object())
                .map(|i| Box::new(Schema::new(i))),
            list_type: node
                .get("x-kubernetes-list-type")
                .and_then(Value::as_str)
                .map(str::to_owned),
            list_map_keys: strings(node, "x-kubernetes-list-map-keys"),
            embedded_resource: flag(node, "x-kubernetes-embedded-resource"),
            int_or_string,
            map_type: node
                .get("x-kubernetes-map-type")
                .and_then(Value::as_str)
                .map(str::to_owned),
            rules: ValidationRule::list(node.get("x-kubernetes-validations")),
        }
    }

    /// The schema of property `name`, if declared.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, s)| s)
    }

    /// The schema a member `name` of an object is validated with: its property, else
    /// `additionalProperties`.
    pub(super) fn member(&self, name: &str) -> Option<&Schema> {
        self.property(name).or(match &self.additional {
            Additional::Schema(s) => Some(s),
            _ => None,
        })
    }

    /// Whether this node or any property, item or map value below it carries
    /// `x-kubernetes-validations` (CEL rules); rules only inside `allOf`/`anyOf`/`oneOf`/`not`
    /// do not count, as the apiserver does not count them.
    pub fn has_rules(&self) -> bool {
        !self.rules.is_empty()
            || self.properties.iter().any(|(_, s)| s.has_rules())
            || matches!(&self.additional, Additional::Schema(s) if s.has_rules())
            || self.items.as_ref().is_some_and(|s| s.has_rules())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patterns_are_go_s() {
        let p = Pattern::new(r"^\d+\s\w$");
        let re = p.regex.as_ref().unwrap_or_else(|e| panic!("{e}"));
        assert!(re.is_match("12 a"));
        assert!(
            !re.is_match("١٢ a"),
            "Arabic-Indic digits are not \\d in Go"
        );
        let refused = Pattern::new("(?x)a b")
            .regex
            .map(drop)
            .map_err(|e| e.to_string());
        assert_eq!(
            refused,
            Err("error parsing regexp: invalid or unsupported Perl syntax: `(?x`".into())
        );
    }

    #[test]
    fn int_or_string_has_both_types_and_formats_are_stripped() {
        let s = Schema::new(&json!({
            "type": "object",
            "properties": {
                "ios": {"x-kubernetes-int-or-string": true, "format": "uuid"},
                "b": {"type": "boolean", "format": "uuid"},
                "n": {"type": "integer", "format": "int32"},
                "u": {"type": "string", "format": "unknownfmt"},
                "d": {"type": "string", "format": "date-time"},
            },
            "x-kubernetes-validations": [{"rule": "true"}],
        }));
        let ios = s
            .property("ios")
            .map(|p| (p.types.clone(), p.format.clone()));
        assert_eq!(
            ios,
            Some((vec!["integer".into(), "string".into()], Some("uuid".into())))
        );
        assert_eq!(s.property("b").and_then(|p| p.format.clone()), None);
        assert_eq!(
            s.property("n").and_then(|p| p.format.clone()),
            Some("int32".into())
        );
        assert_eq!(s.property("u").and_then(|p| p.format.clone()), None);
        assert_eq!(
            s.property("d").and_then(|p| p.format.clone()),
            Some("date-time".into())
        );
        assert!(s.has_rules());
        assert!(!Schema::new(&json!({"type": "string"})).has_rules());
    }
}
