//! Checking a JSON value against a kubegen schema, with apiserver-style field errors.
//!
//! The structural check uses it to prove `#[default]` values are valid where they stand;
//! it is written against the schema dialect CRDs use (OpenAPI v3 as the apiserver reads it),
//! so the same verdicts serve anything that validates objects locally.

use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Value};

/// The kind of a field error, named as the apiserver names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldErrorType {
    /// `FieldValueRequired`: a required field is missing.
    Required,
    /// `FieldValueTypeInvalid`: the value has the wrong JSON type.
    TypeInvalid,
    /// `FieldValueInvalid`: a bound, pattern or other validation failed.
    Invalid,
    /// `FieldValueNotSupported`: the value is not one of the enum's values.
    NotSupported,
    /// `FieldValueDuplicate`: a set or map list repeats an element or key.
    Duplicate,
    /// `FieldValueTooLong`: a string is longer than `maxLength`.
    TooLong,
    /// `FieldValueTooMany`: a list or object has more elements than allowed.
    TooMany,
    /// A field the schema does not know (the apiserver prunes it).
    Unknown,
}

impl FieldErrorType {
    /// The apiserver's name for this error type, as it appears in a `Status` cause.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldErrorType::Required => "FieldValueRequired",
            FieldErrorType::TypeInvalid => "FieldValueTypeInvalid",
            FieldErrorType::Invalid => "FieldValueInvalid",
            FieldErrorType::NotSupported => "FieldValueNotSupported",
            FieldErrorType::Duplicate => "FieldValueDuplicate",
            FieldErrorType::TooLong => "FieldValueTooLong",
            FieldErrorType::TooMany => "FieldValueTooMany",
            FieldErrorType::Unknown => "FieldValueUnknown",
        }
    }
}

/// One validation failure, at a JSON path such as `.spec.containers[0].name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Where the failure is.
    pub path: String,
    /// What kind of failure.
    pub kind: FieldErrorType,
    /// A sentence describing it.
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "<root>"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// Validates `value` against `schema`. Unknown fields are reported when `report_unknown` is
/// set (the apiserver would prune them rather than reject them).
pub fn validate(
    schema: &Value,
    value: &Value,
    path: &str,
    report_unknown: bool,
) -> Vec<FieldError> {
    let mut v = Validator {
        errors: Vec::new(),
        report_unknown,
    };
    v.node(schema, value, path);
    v.errors
}

struct Validator {
    errors: Vec<FieldError>,
    report_unknown: bool,
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn flag(schema: &Map<String, Value>, key: &str) -> bool {
    schema.get(key) == Some(&Value::Bool(true))
}

impl Validator {
    fn push(&mut self, path: &str, kind: FieldErrorType, message: String) {
        self.errors.push(FieldError {
            path: path.to_owned(),
            kind,
            message,
        });
    }

    fn node(&mut self, schema: &Value, value: &Value, path: &str) {
        let Value::Object(schema) = schema else {
            return;
        };
        if value.is_null() {
            if !flag(schema, "nullable") && schema.contains_key("type") {
                self.push(path, FieldErrorType::TypeInvalid, "must not be null".into());
            }
            return;
        }
        if flag(schema, "x-kubernetes-int-or-string") {
            if !matches!(json_type(value), "integer" | "string") {
                self.push(
                    path,
                    FieldErrorType::TypeInvalid,
                    "must be an integer or a string".into(),
                );
                return;
            }
        } else if let Some(expected) = schema.get("type").and_then(Value::as_str) {
            let actual = json_type(value);
            let ok = actual == expected || (expected == "number" && actual == "integer");
            if !ok {
                self.push(
                    path,
                    FieldErrorType::TypeInvalid,
                    format!("must be of type {expected}, not {actual}"),
                );
                return;
            }
        }
        self.enumeration(schema, value, path);
        match value {
            Value::Number(n) => self.number(schema, n.as_f64().unwrap_or(f64::NAN), path),
            Value::String(s) => self.string(schema, s, path),
            Value::Array(items) => self.array(schema, items, path),
            Value::Object(fields) => self.object(schema, fields, path),
            _ => {}
        }
        self.junctors(schema, value, path);
    }

    fn enumeration(&mut self, schema: &Map<String, Value>, value: &Value, path: &str) {
        if let Some(Value::Array(allowed)) = schema.get("enum")
            && !allowed.contains(value)
        {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            self.push(
                path,
                FieldErrorType::NotSupported,
                format!(
                    "unsupported value {value}: supported values: {}",
                    list.join(", ")
                ),
            );
        }
    }

    fn number(&mut self, schema: &Map<String, Value>, n: f64, path: &str) {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            let exclusive = flag(schema, "exclusiveMinimum");
            if n < min || (exclusive && n == min) {
                let op = if exclusive {
                    "greater than"
                } else {
                    "greater than or equal to"
                };
                self.push(
                    path,
                    FieldErrorType::Invalid,
                    format!("should be {op} {min}"),
                );
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
            let exclusive = flag(schema, "exclusiveMaximum");
            if n > max || (exclusive && n == max) {
                let op = if exclusive {
                    "less than"
                } else {
                    "less than or equal to"
                };
                self.push(
                    path,
                    FieldErrorType::Invalid,
                    format!("should be {op} {max}"),
                );
            }
        }
        if let Some(m) = schema.get("multipleOf").and_then(Value::as_f64)
            && m > 0.0
            && (n / m).fract().abs() > f64::EPSILON
        {
            self.push(
                path,
                FieldErrorType::Invalid,
                format!("should be a multiple of {m}"),
            );
        }
    }

    fn string(&mut self, schema: &Map<String, Value>, s: &str, path: &str) {
        let len = s.chars().count() as u64;
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            self.push(
                path,
                FieldErrorType::TooLong,
                format!("may not be more than {max} bytes"),
            );
        }
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            self.push(
                path,
                FieldErrorType::Invalid,
                format!("should be at least {min} chars long"),
            );
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            match regex::Regex::new(pattern) {
                Ok(re) if !re.is_match(s) => {
                    self.push(
                        path,
                        FieldErrorType::Invalid,
                        format!("should match '{pattern}'"),
                    );
                }
                Ok(_) => {}
                Err(e) => self.push(
                    path,
                    FieldErrorType::Invalid,
                    format!("pattern '{pattern}' does not compile: {e}"),
                ),
            }
        }
    }

    fn array(&mut self, schema: &Map<String, Value>, items: &[Value], path: &str) {
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && items.len() as u64 > max
        {
            self.push(
                path,
                FieldErrorType::TooMany,
                format!("must have at most {max} items"),
            );
        }
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            self.push(
                path,
                FieldErrorType::Invalid,
                format!("should have at least {min} items"),
            );
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                self.node(item_schema, item, &format!("{path}[{i}]"));
            }
        }
        match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => {
                for (i, item) in items.iter().enumerate() {
                    if items[..i].contains(item) {
                        self.push(
                            &format!("{path}[{i}]"),
                            FieldErrorType::Duplicate,
                            format!("duplicate value: {item}"),
                        );
                    }
                }
            }
            Some("map") => {
                let keys: Vec<&str> = match schema.get("x-kubernetes-list-map-keys") {
                    Some(Value::Array(k)) => k.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                let mut seen = HashSet::new();
                for (i, item) in items.iter().enumerate() {
                    let key: Vec<String> = keys
                        .iter()
                        .map(|k| item.get(*k).map(Value::to_string).unwrap_or_default())
                        .collect();
                    if !seen.insert(key.clone()) {
                        self.push(
                            &format!("{path}[{i}]"),
                            FieldErrorType::Duplicate,
                            format!("duplicate entries for key [{}]", key.join(",")),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    fn object(&mut self, schema: &Map<String, Value>, fields: &Map<String, Value>, path: &str) {
        if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64)
            && fields.len() as u64 > max
        {
            self.push(
                path,
                FieldErrorType::TooMany,
                format!("must have at most {max} properties"),
            );
        }
        if let Some(min) = schema.get("minProperties").and_then(Value::as_u64)
            && (fields.len() as u64) < min
        {
            self.push(
                path,
                FieldErrorType::Invalid,
                format!("should have at least {min} properties"),
            );
        }
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !fields.contains_key(name) {
                    self.push(
                        &format!("{path}.{name}"),
                        FieldErrorType::Required,
                        "Required value".into(),
                    );
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
        for (name, value) in fields {
            let child = format!("{path}.{name}");
            if let Some(p) = properties.and_then(|p| p.get(name)) {
                self.node(p, value, &child);
            } else if let Some(a) = additional {
                self.node(a, value, &child);
            } else if self.report_unknown
                && !preserve
                && !flag(schema, "x-kubernetes-embedded-resource")
            {
                self.push(
                    &child,
                    FieldErrorType::Unknown,
                    format!("unknown field \"{name}\""),
                );
            }
        }
    }

    fn junctors(&mut self, schema: &Map<String, Value>, value: &Value, path: &str) {
        let passes = |s: &Value| validate(s, value, path, false).is_empty();
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for s in all {
                let errors = validate(s, value, path, false);
                self.errors.extend(errors);
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf")
            && !flag(schema, "x-kubernetes-int-or-string")
            && !any.iter().any(passes)
        {
            self.push(
                path,
                FieldErrorType::Invalid,
                "must validate at least one schema (anyOf)".into(),
            );
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let matching = one.iter().filter(|s| passes(s)).count();
            if matching != 1 {
                self.push(
                    path,
                    FieldErrorType::Invalid,
                    format!("must validate one and only one schema (oneOf), matched {matching}"),
                );
            }
        }
        if let Some(not) = schema.get("not")
            && passes(not)
        {
            self.push(
                path,
                FieldErrorType::Invalid,
                "must not validate the schema (not)".into(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FieldErrorType, validate};
    use serde_json::json;

    #[test]
    fn reports_apiserver_style_field_errors() {
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "count": {"type": "integer", "minimum": 1, "maximum": 5, "exclusiveMaximum": true},
                "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set", "maxItems": 2},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["p"], "items": {"type": "object", "properties": {"p": {"type": "integer"}}}},
                "opt": {"type": "string", "nullable": true},
            },
        });
        let value = json!({
            "mode": "c", "count": 5, "tags": ["x", "x", "y"], "ports": [{"p": 1}, {"p": 1}], "opt": null, "extra": 1,
        });
        let errors: Vec<(String, FieldErrorType)> = validate(&schema, &value, "", true)
            .into_iter()
            .map(|e| (e.path, e.kind))
            .collect();
        assert_eq!(
            errors,
            [
                (".name".into(), FieldErrorType::Required),
                (".count".into(), FieldErrorType::Invalid),
                (".extra".into(), FieldErrorType::Unknown),
                (".mode".into(), FieldErrorType::NotSupported),
                (".ports[1]".into(), FieldErrorType::Duplicate),
                (".tags".into(), FieldErrorType::TooMany),
                (".tags[1]".into(), FieldErrorType::Duplicate),
            ]
        );
        let ok = json!({"name": "abc", "count": 4, "tags": ["x"], "ports": [{"p": 1}, {"p": 2}]});
        assert!(validate(&schema, &ok, "", true).is_empty());
        let long = json!({"name": "abcd1"});
        let kinds: Vec<FieldErrorType> = validate(&schema, &long, "", true)
            .into_iter()
            .map(|e| e.kind)
            .collect();
        assert_eq!(kinds, [FieldErrorType::TooLong, FieldErrorType::Invalid]);
    }

    #[test]
    fn junctors_follow_json_schema() {
        let one_of = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]});
        assert!(validate(&one_of, &json!({"a": "x"}), "", false).is_empty());
        assert_eq!(
            validate(&one_of, &json!({"a": "x", "b": "y"}), "", false).len(),
            1
        );
        assert_eq!(validate(&one_of, &json!({}), "", false).len(), 1);
        let int_or_string = json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]});
        assert!(validate(&int_or_string, &json!(3), "", false).is_empty());
        assert!(validate(&int_or_string, &json!("25%"), "", false).is_empty());
        assert_eq!(
            validate(&int_or_string, &json!(true), "", false)[0].kind,
            FieldErrorType::TypeInvalid
        );
    }
}
