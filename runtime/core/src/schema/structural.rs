//! The apiserver's rules for a CRD's `openAPIV3Schema`, checked before a CRD is handed out.
//!
//! These are the rules `kubectl apply` would otherwise reject the CRD for (or, worse,
//! accept while pruning fields users rely on): structural schemas, the `x-kubernetes-*`
//! extensions' preconditions, and defaults that validate where they stand.

use std::fmt;

use serde_json::{Map, Value};

use super::ERROR_KEY;
use crate::checks::{self as validation, BadValue, FieldError, NIL_PATH};

/// One broken rule, at a JSON path such as `.spec.containers[*].name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where in the object the rule is broken (`<root>` for the top).
    pub path: String,
    /// The rule and how to satisfy it.
    pub rule: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "<root>"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.rule)
    }
}

/// Every keyword a CRD schema may use (JSONSchemaProps less the ones v1 CRDs forbid).
const ALLOWED: &[&str] = &[
    "description",
    "type",
    "format",
    "title",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "items",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "properties",
    "additionalProperties",
    "externalDocs",
    "example",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

/// Keywords forbidden inside allOf/anyOf/oneOf/not.
const FORBIDDEN_IN_JUNCTORS: &[&str] = &[
    "description",
    "type",
    "default",
    "additionalProperties",
    "nullable",
];

const TYPES: &[&str] = &["object", "array", "string", "integer", "number", "boolean"];

const RULE_REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

/// Checks a kind's whole schema (the CRD's `openAPIV3Schema`).
pub fn check(schema: &Value) -> Vec<Violation> {
    let mut c = Checker {
        violations: Vec::new(),
        outer: Vec::new(),
    };
    match schema {
        Value::Object(root) => {
            if root.get("type").and_then(Value::as_str) != Some("object") {
                c.push("", "the root of a CRD schema must be `type: object`");
            }
            c.metadata(root);
            c.node(root, "", false);
        }
        _ => c.push("", "the schema must be an object"),
    }
    c.violations
}

struct Checker {
    violations: Vec<Violation>,
    /// Inside junctors, the properties of the structural node they constrain: a junctor
    /// nested in a junctor (a `not` inside a `oneOf` branch) names fields of that node too.
    outer: Vec<Map<String, Value>>,
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn is_scalar_type(node: &Value) -> bool {
    matches!(
        node.get("type").and_then(Value::as_str),
        Some("string" | "integer" | "number" | "boolean")
    ) || node.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
}

impl Checker {
    fn push(&mut self, path: &str, rule: impl Into<String>) {
        self.violations.push(Violation {
            path: path.to_owned(),
            rule: rule.into(),
        });
    }

    fn metadata(&mut self, root: &Map<String, Value>) {
        let Some(Value::Object(meta)) = root.get("properties").and_then(|p| p.get("metadata"))
        else {
            return;
        };
        if let Some(Value::Object(props)) = meta.get("properties") {
            for name in props.keys() {
                if name != "name" && name != "generateName" {
                    self.push(
                        ".metadata",
                        format!(
                            "metadata may only restrict `name` and `generateName`, not `{name}`"
                        ),
                    );
                }
            }
        }
    }

    fn node(&mut self, node: &Map<String, Value>, path: &str, in_junctor: bool) {
        if let Some(Value::String(e)) = node.get(ERROR_KEY) {
            self.push(path, e.clone());
        }
        for key in node.keys() {
            if key == ERROR_KEY {
                continue;
            }
            if !ALLOWED.contains(&key.as_str()) {
                let hint = match key.as_str() {
                    "$ref" => " (references are not allowed; is a type recursive?)",
                    "uniqueItems" => " (use x-kubernetes-list-type: set)",
                    "patternProperties" | "dependencies" | "additionalItems" | "definitions"
                    | "id" => " (v1 CRDs forbid it)",
                    _ => "",
                };
                self.push(
                    path,
                    format!("keyword `{key}` is not allowed in a CRD schema{hint}"),
                );
            }
        }
        let int_or_string = flag(node, "x-kubernetes-int-or-string");
        let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
        match node.get("type") {
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {
                if int_or_string {
                    self.push(
                        path,
                        "x-kubernetes-int-or-string must not be combined with a type",
                    );
                }
            }
            Some(other) => self.push(
                path,
                format!("type must be one of {}, not {other}", TYPES.join(", ")),
            ),
            None if in_junctor || int_or_string || preserve => {}
            None => self.push(
                path,
                "every node needs a type (unless int-or-string or preserve-unknown-fields)",
            ),
        }
        if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            self.push(
                path,
                "x-kubernetes-preserve-unknown-fields must be true or absent",
            );
        }
        if node.contains_key("properties") && node.contains_key("additionalProperties") {
            self.push(
                path,
                "properties and additionalProperties are mutually exclusive",
            );
        }
        if matches!(node.get("additionalProperties"), Some(Value::Bool(_))) {
            self.push(path, "additionalProperties must be a schema, not a boolean");
        }
        if flag(node, "x-kubernetes-embedded-resource")
            && node.get("type") != Some(&Value::String("object".into()))
        {
            self.push(path, "x-kubernetes-embedded-resource requires type: object");
        }
        if let Some(Value::Array(values)) = node.get("enum") {
            for v in values {
                if !valid(&Value::Object(type_only(node)), v) {
                    self.push(
                        path,
                        format!("enum value {v} does not match the node's type"),
                    );
                }
            }
        }
        self.lists(node, path);
        self.maps(node, path);
        self.rules(node, path);
        self.pattern(node, path);
        if in_junctor {
            // The apiserver reads a key with its zero value (`false`, `""`, `[]`, `null`) as
            // absent.
            let set = |v: &Value| match v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                _ => true,
            };
            for key in FORBIDDEN_IN_JUNCTORS {
                if node.get(*key).is_some_and(set) {
                    self.push(
                        path,
                        format!("`{key}` is not allowed inside allOf/anyOf/oneOf/not"),
                    );
                }
            }
            let extensions = node
                .iter()
                .filter(|(k, v)| k.starts_with("x-kubernetes-") && set(v));
            for (key, _) in extensions {
                self.push(
                    path,
                    format!("`{key}` is not allowed inside allOf/anyOf/oneOf/not"),
                );
            }
        }
        self.children(node, path, in_junctor);
        // A `null` default is no default to the apiserver.
        if let Some(default) = node.get("default").filter(|d| !d.is_null())
            && !in_junctor
        {
            // As the apiserver words it: the validator's message, then unknown fields.
            let schema = validation::Schema::new(&Value::Object(node.clone()));
            for e in validation::openapi::validate(&schema, default, None, None) {
                self.push(path, format!("default is invalid: {}", e.body()));
            }
            if has_unknown_fields(node, default) {
                let e = FieldError::invalid(
                    NIL_PATH,
                    BadValue::of(default),
                    "must not have unknown fields",
                );
                self.push(path, format!("default is invalid: {}", e.body()));
            }
        }
    }

    fn children(&mut self, node: &Map<String, Value>, path: &str, in_junctor: bool) {
        if let Some(Value::Object(properties)) = node.get("properties") {
            for (name, child) in properties {
                if in_junctor {
                    // Descending in a junctor: the structural node is the outer one's field.
                    let inner = self
                        .outer
                        .last()
                        .and_then(|o| o.get(name))
                        .and_then(|f| f.get("properties"))
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    self.outer.push(inner);
                    self.child(child, &format!("{path}.{name}"), in_junctor);
                    self.outer.pop();
                } else {
                    self.child(child, &format!("{path}.{name}"), in_junctor);
                }
            }
        }
        match node.get("items") {
            Some(Value::Array(_)) => self.push(
                path,
                "items must be one schema, not a list (tuples cannot be expressed)",
            ),
            Some(child) => self.child(child, &format!("{path}[*]"), in_junctor),
            None if node.get("type") == Some(&Value::String("array".into())) && !in_junctor => {
                self.push(path, "an array node needs items")
            }
            None => {}
        }
        if let Some(child @ Value::Object(_)) = node.get("additionalProperties") {
            self.child(child, &format!("{path}.*"), in_junctor);
        }
        let outer_properties = if in_junctor {
            self.outer.last().cloned()
        } else {
            node.get("properties").and_then(Value::as_object).cloned()
        };
        let mut branches: Vec<&Value> = Vec::new();
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = node.get(key) {
                branches.extend(list);
            }
        }
        branches.extend(node.get("not"));
        for branch in branches {
            self.outer
                .push(outer_properties.clone().unwrap_or_default());
            self.junctor_branch(branch, outer_properties.as_ref(), node, path);
            self.outer.pop();
        }
    }

    fn junctor_branch(
        &mut self,
        branch: &Value,
        outer: Option<&Map<String, Value>>,
        node: &Map<String, Value>,
        path: &str,
    ) {
        let int_or_string_pattern = flag(node, "x-kubernetes-int-or-string")
            && matches!(
                branch.get("type").and_then(Value::as_str),
                Some("integer" | "string")
            )
            && branch.as_object().is_some_and(|b| b.len() == 1);
        if int_or_string_pattern {
            return;
        }
        if let Some(Value::Object(props)) = branch.get("properties") {
            for name in props.keys() {
                if !outer.is_some_and(|o| o.contains_key(name)) {
                    self.push(path, format!("field `{name}` inside allOf/anyOf/oneOf/not must also be specified outside"));
                }
            }
        }
        if branch.get("items").is_some() && node.get("items").is_none() {
            self.push(
                path,
                "items inside allOf/anyOf/oneOf/not must also be specified outside",
            );
        }
        self.child(branch, path, true);
    }

    fn child(&mut self, child: &Value, path: &str, in_junctor: bool) {
        match child {
            Value::Object(c) => self.node(c, path, in_junctor),
            _ => self.push(path, "a schema node must be an object"),
        }
    }

    fn lists(&mut self, node: &Map<String, Value>, path: &str) {
        let list_type = node.get("x-kubernetes-list-type").and_then(Value::as_str);
        if let Some(t) = list_type
            && !matches!(t, "atomic" | "set" | "map")
        {
            self.push(
                path,
                format!("x-kubernetes-list-type must be atomic, set or map, not {t}"),
            );
        }
        let items = node.get("items");
        if matches!(list_type, Some("set" | "map"))
            && items.is_some_and(|i| i.get("nullable") == Some(&Value::Bool(true)))
        {
            self.push(
                path,
                format!(
                    "items cannot be nullable when x-kubernetes-list-type is {}",
                    list_type.unwrap_or_default()
                ),
            );
        }
        if list_type == Some("set") {
            let atomic = items.is_some_and(|i| {
                i.get("x-kubernetes-map-type") == Some(&Value::String("atomic".into()))
            });
            // Lists inside a set must be atomic too; `crd::validate` words that as the apiserver.
            let object =
                items.is_some_and(|i| i.get("type") == Some(&Value::String("object".into())));
            if object && !atomic {
                self.push(
                    path,
                    "x-kubernetes-list-type: set needs scalar items (or atomic objects)",
                );
            }
        }
        let keys = node.get("x-kubernetes-list-map-keys");
        if keys.is_some() && list_type != Some("map") {
            self.push(
                path,
                "x-kubernetes-list-map-keys requires x-kubernetes-list-type: map",
            );
        }
        if list_type == Some("map") {
            let Some(Value::Array(keys)) = keys else {
                self.push(
                    path,
                    "x-kubernetes-list-type: map needs x-kubernetes-list-map-keys",
                );
                return;
            };
            if keys.is_empty() {
                self.push(path, "x-kubernetes-list-map-keys must not be empty");
            }
            let Some(Value::Object(items)) = items else {
                return;
            };
            if items.get("type").and_then(Value::as_str) != Some("object") {
                self.push(path, "x-kubernetes-list-type: map needs object items");
                return;
            }
            let required: Vec<&str> = match items.get("required") {
                Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            for key in keys.iter().filter_map(Value::as_str) {
                match items.get("properties").and_then(|p| p.get(key)) {
                    None => self.push(
                        path,
                        format!("list map key `{key}` is not a field of the items"),
                    ),
                    Some(field) => {
                        if !is_scalar_type(field) {
                            self.push(path, format!("list map key `{key}` must be a scalar field"));
                        }
                        if !required.contains(&key) && field.get("default").is_none() {
                            self.push(
                                path,
                                format!("list map key `{key}` must be required or have a default"),
                            );
                        }
                        if field.get("nullable") == Some(&Value::Bool(true)) {
                            self.push(path, format!("list map key `{key}` cannot be nullable"));
                        }
                    }
                }
            }
        }
    }

    fn maps(&mut self, node: &Map<String, Value>, path: &str) {
        if let Some(t) = node.get("x-kubernetes-map-type").and_then(Value::as_str)
            && !matches!(t, "atomic" | "granular")
        {
            self.push(
                path,
                format!("x-kubernetes-map-type must be atomic or granular, not {t}"),
            );
        }
    }

    /// `pattern`: the apiserver compiles it with Go's `regexp.Compile` and refuses the CRD,
    /// in its words, when Go cannot parse it.
    fn pattern(&mut self, node: &Map<String, Value>, path: &str) {
        if let Some(Value::String(pattern)) = node.get("pattern")
            && !pattern.is_empty()
            && let Err(e) = kubegen_go::regexp::check(pattern)
        {
            let detail = format!("must be a valid regular expression, but isn't: {e}");
            let e = FieldError::invalid("pattern", BadValue::str(pattern.clone()), detail);
            self.push(path, e.to_string());
        }
    }

    fn rules(&mut self, node: &Map<String, Value>, path: &str) {
        let Some(rules) = node.get("x-kubernetes-validations") else {
            return;
        };
        let Value::Array(rules) = rules else {
            self.push(path, "x-kubernetes-validations must be a list");
            return;
        };
        for rule in rules {
            if rule
                .get("rule")
                .and_then(Value::as_str)
                .is_none_or(|r| r.trim().is_empty())
            {
                self.push(path, "a validation rule must not be empty");
            }
            if let Some(reason) = rule.get("reason").and_then(Value::as_str)
                && !RULE_REASONS.contains(&reason)
            {
                self.push(
                    path,
                    format!("rule reason must be one of {}", RULE_REASONS.join(", ")),
                );
            }
            if rule
                .get("message")
                .and_then(Value::as_str)
                .is_some_and(|m| m.contains('\n'))
            {
                self.push(path, "a rule message must not contain line breaks");
            }
        }
    }
}

/// Whether `value` passes the schema `node` as the apiserver validates it.
fn valid(node: &Value, value: &Value) -> bool {
    validation::openapi::validate(&validation::Schema::new(node), value, None, None).is_empty()
}

/// Whether `value` has fields the schema would prune (outside preserve-unknown-fields
/// nodes; embedded resources keep apiVersion, kind and metadata).
fn has_unknown_fields(node: &Map<String, Value>, value: &Value) -> bool {
    let child = |v: &Value, schema: Option<&Value>| match schema {
        Some(Value::Object(s)) => has_unknown_fields(s, v),
        _ => false,
    };
    match value {
        Value::Object(fields) => {
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            let embedded = flag(node, "x-kubernetes-embedded-resource");
            fields.iter().any(|(name, v)| {
                match properties.and_then(|p| p.get(name)).or(additional) {
                    Some(schema) => child(v, Some(schema)),
                    None => {
                        let kept =
                            embedded && matches!(name.as_str(), "apiVersion" | "kind" | "metadata");
                        !(flag(node, "x-kubernetes-preserve-unknown-fields") || kept)
                    }
                }
            })
        }
        Value::Array(items) => items.iter().any(|i| child(i, node.get("items"))),
        _ => false,
    }
}

fn type_only(node: &Map<String, Value>) -> Map<String, Value> {
    node.iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "type" | "nullable" | "x-kubernetes-int-or-string"
            )
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::check;
    use serde_json::{Value, json};

    fn spec(field: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"f": field}}}})
    }

    fn rules(schema: Value) -> Vec<String> {
        check(&schema).into_iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn a_pattern_go_cannot_parse_is_refused_in_the_apiserver_s_words() {
        let schema = spec(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "(?x)a b"},
                "b": {"type": "string", "pattern": "[a&&b]"},
                "c": {"type": "string", "pattern": ""},
            },
            "anyOf": [{"properties": {"a": {"pattern": "a{2}{3}"}}}],
        }));
        assert_eq!(
            rules(schema),
            [
                // kube-apiserver v1.36.2's message, after the path.
                ".spec.f.a: pattern: Invalid value: \"(?x)a b\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?x`",
                ".spec.f.a: pattern: Invalid value: \"a{2}{3}\": must be a valid regular expression, but isn't: error parsing regexp: invalid nested repetition operator: `{2}{3}`",
            ]
        );
    }

    #[test]
    fn a_well_formed_schema_passes() {
        let ok = spec(json!({
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80, "minimum": 1}},
                "oneOf": [{"required": ["port"]}, {"properties": {"name": {"enum": ["x"]}}}],
            },
        }));
        assert_eq!(rules(ok), Vec::<String>::new());
    }

    #[test]
    fn each_rule_is_reported_at_its_path() {
        let cases = [
            (
                json!({"$ref": "#/definitions/X"}),
                ".spec.f: keyword `$ref` is not allowed in a CRD schema (references are not allowed; is a type recursive?)",
            ),
            (
                json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
                ".spec.f: keyword `uniqueItems` is not allowed in a CRD schema (use x-kubernetes-list-type: set)",
            ),
            (
                json!({"description": "untyped"}),
                ".spec.f: every node needs a type (unless int-or-string or preserve-unknown-fields)",
            ),
            (
                json!({"type": "string", "x-kubernetes-int-or-string": true}),
                ".spec.f: x-kubernetes-int-or-string must not be combined with a type",
            ),
            (
                json!({"type": "date"}),
                ".spec.f: type must be one of object, array, string, integer, number, boolean, not \"date\"",
            ),
            (
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false}),
                ".spec.f: x-kubernetes-preserve-unknown-fields must be true or absent",
            ),
            (
                json!({"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}),
                ".spec.f: properties and additionalProperties are mutually exclusive",
            ),
            (
                json!({"type": "object", "additionalProperties": false}),
                ".spec.f: additionalProperties must be a schema, not a boolean",
            ),
            (
                json!({"type": "string", "x-kubernetes-embedded-resource": true}),
                ".spec.f: x-kubernetes-embedded-resource requires type: object",
            ),
            (
                json!({"type": "integer", "enum": [1, "two"]}),
                ".spec.f: enum value \"two\" does not match the node's type",
            ),
            (
                json!({"type": "array"}),
                ".spec.f: an array node needs items",
            ),
            (
                json!({"type": "array", "items": [{"type": "string"}]}),
                ".spec.f: items must be one schema, not a list (tuples cannot be expressed)",
            ),
            (
                json!({"type": "object", "oneOf": [{"type": "object"}]}),
                ".spec.f: `type` is not allowed inside allOf/anyOf/oneOf/not",
            ),
            (
                json!({"type": "object", "anyOf": [{"properties": {"g": {}}}]}),
                ".spec.f: field `g` inside allOf/anyOf/oneOf/not must also be specified outside",
            ),
            (
                json!({"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "set"}),
                ".spec.f: x-kubernetes-list-type: set needs scalar items (or atomic objects)",
            ),
            (
                json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}),
                ".spec.f: x-kubernetes-list-type must be atomic, set or map, not bag",
            ),
            (
                json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-map-keys": ["a"]}),
                ".spec.f: x-kubernetes-list-map-keys requires x-kubernetes-list-type: map",
            ),
            (
                json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a"]}),
                ".spec.f: list map key `a` must be required or have a default",
            ),
            (
                json!({"type": "array", "items": {"type": "object", "properties": {}}, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["b"]}),
                ".spec.f: list map key `b` is not a field of the items",
            ),
            (
                json!({"type": "array", "items": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "nullable": true}}}, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a"]}),
                ".spec.f: list map key `a` cannot be nullable",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "nullable": true}, "x-kubernetes-list-type": "set"}),
                ".spec.f: items cannot be nullable when x-kubernetes-list-type is set",
            ),
            (
                json!({"type": "object", "x-kubernetes-map-type": "loose"}),
                ".spec.f: x-kubernetes-map-type must be atomic or granular, not loose",
            ),
            (
                json!({"type": "string", "x-kubernetes-validations": [{"rule": " "}]}),
                ".spec.f: a validation rule must not be empty",
            ),
            (
                json!({"type": "string", "x-kubernetes-validations": [{"rule": "true", "reason": "Nope"}]}),
                ".spec.f: rule reason must be one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate",
            ),
            (
                json!({"type": "integer", "default": "three"}),
                // As kube-apiserver v1.36.2 words an invalid default in a CRD.
                ".spec.f: default is invalid: Invalid value: \"string\":  in body must be of type integer: \"string\"",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "default": {"b": 1}}),
                ".spec.f: default is invalid: Invalid value: {\"b\":1}: must not have unknown fields",
            ),
            (
                json!({"x-kubegen-error": "found by a builder"}),
                ".spec.f: found by a builder",
            ),
        ];
        for (field, expected) in cases {
            let found = rules(spec(field.clone()));
            assert!(
                found.iter().any(|f| f == expected),
                "for {field}: expected {expected:?}, found {found:?}"
            );
        }
    }

    #[test]
    fn root_and_metadata_rules() {
        assert_eq!(
            rules(json!({"type": "string"})),
            ["<root>: the root of a CRD schema must be `type: object`"]
        );
        let meta = json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}});
        assert_eq!(
            rules(meta),
            [".metadata: metadata may only restrict `name` and `generateName`, not `labels`"]
        );
        let name_only = json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}}}});
        assert_eq!(rules(name_only), Vec::<String>::new());
    }

    #[test]
    fn nested_junctors_name_fields_of_the_node_they_constrain() {
        let ok = spec(
            json!({"type": "object", "properties": {"kind": {"type": "string"}},
            "oneOf": [{"required": ["kind"]}, {"not": {"properties": {"kind": {"enum": ["A"]}}}}]}),
        );
        assert_eq!(rules(ok), Vec::<String>::new());
        let unknown = spec(
            json!({"type": "object", "properties": {"kind": {"type": "string"}},
            "oneOf": [{"not": {"properties": {"other": {"enum": ["A"]}}}}]}),
        );
        assert_eq!(
            rules(unknown),
            [".spec.f: field `other` inside allOf/anyOf/oneOf/not must also be specified outside"]
        );
    }

    #[test]
    fn zero_values_count_as_absent() {
        // kube-apiserver v1.36.2 accepts both: it reads `null`, `false`, `""` and `[]` as unset.
        let null_default = spec(json!({"type": "string", "default": null}));
        assert_eq!(rules(null_default), Vec::<String>::new());
        let junctor = spec(
            json!({"type": "string", "anyOf": [{"nullable": false, "description": "",
            "default": null, "x-kubernetes-validations": [], "x-kubernetes-int-or-string": false}]}),
        );
        assert_eq!(rules(junctor), Vec::<String>::new());
    }

    #[test]
    fn int_or_string_keeps_its_any_of() {
        let ok = spec(
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true}),
        );
        assert_eq!(rules(ok), Vec::<String>::new());
    }
}
