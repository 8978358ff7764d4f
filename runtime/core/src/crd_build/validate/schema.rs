//! Schema rules of the apiserver that [`structural`](crate::schema::structural) does not
//! check, worded and placed as the apiserver words and places them: from its structural
//! invariants (`ValidateStructural`: `additionalProperties` at the root, embedded resources,
//! int-or-string extensions, the types of `kind`, `apiVersion` and `metadata`, `title` and
//! `metadata` in junctors) and from `ValidateCustomResourceDefinitionOpenAPISchema` (the root
//! with a status subresource, defaults and embedded resources inside object metadata, list and
//! map types on the wrong type, sets of lists, repeated list map keys, and the keys of
//! `x-kubernetes-validations` rules).

use serde_json::{Map, Value};

use super::Refusal;
use super::go_schema::go_schema;
use crate::checks::cel::resolve_field_path;
use crate::checks::{BadValue, FieldError, field};

/// The root fields the apiserver allows with a status subresource (Go field names, and the
/// JSON keys they come from).
const ROOT_WITH_STATUS: &[(&str, &str)] = &[
    ("Description", "description"),
    ("Type", "type"),
    ("Format", "format"),
    ("Title", "title"),
    ("Maximum", "maximum"),
    ("ExclusiveMaximum", "exclusiveMaximum"),
    ("Minimum", "minimum"),
    ("ExclusiveMinimum", "exclusiveMinimum"),
    ("MaxLength", "maxLength"),
    ("MinLength", "minLength"),
    ("Pattern", "pattern"),
    ("MaxItems", "maxItems"),
    ("MinItems", "minItems"),
    ("UniqueItems", "uniqueItems"),
    ("MultipleOf", "multipleOf"),
    ("Required", "required"),
    ("Items", "items"),
    ("Properties", "properties"),
    ("ExternalDocs", "externalDocs"),
    ("Example", "example"),
    (
        "XPreserveUnknownFields",
        "x-kubernetes-preserve-unknown-fields",
    ),
    ("XValidations", "x-kubernetes-validations"),
];

const META_FIELDS: &[&str] = &["metadata", "kind", "apiVersion"];

/// The rules for one `openAPIV3Schema` at `path`; `status`: the status subresource is on.
pub(super) fn check(schema: &Value, path: &str, status: bool) -> Vec<Refusal> {
    let Value::Object(root) = schema else {
        return Vec::new();
    };
    let mut c = Checker::default();
    if status {
        c.root_with_status(root, path);
    }
    if flag(root, "nullable") {
        c.push(
            FieldError::forbidden(
                &field::child(path, "nullable"),
                "nullable cannot be true at the root",
            ),
            "kubegen builds the root; a root marked nullable comes from a hand-written schema",
        );
    }
    let top = Context {
        root: true,
        ..Context::default()
    };
    c.node(root, path, &top);
    c.out
}

/// Where a node sits, as far as the rules care.
#[derive(Clone, Default)]
struct Context {
    /// The schema's root.
    root: bool,
    /// Inside the `metadata`, `kind` or `apiVersion` of the root or of an embedded resource.
    meta: bool,
    /// Why defaults are forbidden here, if they are.
    no_defaults: Option<String>,
}

#[derive(Default)]
struct Checker {
    out: Vec<Refusal>,
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn text<'a>(node: &'a Map<String, Value>, key: &str) -> &'a str {
    node.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn object<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    node.get(key).and_then(Value::as_object)
}

fn branches(node: &Map<String, Value>) -> Vec<(String, &Map<String, Value>)> {
    let mut out = Vec::new();
    for key in ["allOf", "oneOf", "anyOf"] {
        for (i, b) in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Value::Object(b) = b {
                out.push((format!("{key}[{i}]"), b));
            }
        }
    }
    if let Some(not) = object(node, "not") {
        out.push(("not".into(), not));
    }
    out
}

impl Checker {
    fn push(&mut self, error: FieldError, hint: impl Into<String>) {
        self.out.push(Refusal::new(error, hint));
    }

    fn root_with_status(&mut self, root: &Map<String, Value>, path: &str) {
        let set = |key: &str, value: &Value| match value {
            Value::Bool(b) => *b,
            Value::Null => false,
            Value::String(s) => !s.is_empty() || key == "default",
            _ => true,
        };
        let disallowed = root
            .iter()
            .any(|(k, v)| set(k, v) && !ROOT_WITH_STATUS.iter().any(|(_, json)| json == k));
        if disallowed {
            let names: Vec<&str> = ROOT_WITH_STATUS.iter().map(|(go, _)| *go).collect();
            self.push(
                FieldError::invalid(
                    path,
                    BadValue::Marshalled(go_schema(&Value::Object(root.clone()))),
                    format!(
                        "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                        names.join(" ")
                    ),
                ),
                "with a status subresource the schema's root may hold only properties, required, \
                 rules and plain value bounds; kubegen builds the root, so this comes from a \
                 hand-written schema",
            );
        }
    }

    /// A structural node: the structural invariants, then the OpenAPI rules, then its children.
    fn node(&mut self, node: &Map<String, Value>, path: &str, ctx: &Context) {
        self.structural(node, path, ctx.root);
        self.openapi(node, path, ctx);
        let embedded = flag(node, "x-kubernetes-embedded-resource");
        if let Some(properties) = object(node, "properties") {
            for (name, child) in properties {
                let Value::Object(child) = child else {
                    continue;
                };
                let mut sub = Context {
                    root: false,
                    ..ctx.clone()
                };
                if (ctx.root || embedded) && META_FIELDS.contains(&name.as_str()) {
                    sub.meta = true;
                    if ctx.root {
                        sub.no_defaults = Some(format!("in top-level {name}"));
                    }
                }
                self.node(child, &format!("{path}.properties[{name}]"), &sub);
            }
        }
        if let Some(values) = object(node, "additionalProperties") {
            let mut sub = Context {
                root: false,
                ..ctx.clone()
            };
            if ctx.meta {
                sub.no_defaults =
                    Some("inside additionalProperties applying to object metadata".into());
            }
            self.node(values, &format!("{path}.additionalProperties"), &sub);
        }
        if let Some(items) = object(node, "items") {
            let sub = Context {
                root: false,
                ..ctx.clone()
            };
            self.node(items, &format!("{path}.items"), &sub);
        }
        for (key, branch) in branches(node) {
            let sub = Context {
                root: false,
                ..ctx.clone()
            };
            self.junctor(branch, &format!("{path}.{key}"), &sub);
        }
    }

    /// A node under allOf/anyOf/oneOf/not: value validations only.
    fn junctor(&mut self, node: &Map<String, Value>, path: &str, ctx: &Context) {
        if !text(node, "title").is_empty() {
            self.push(
                FieldError::forbidden(&format!("{path}.title"), "must be empty to be structural"),
                "inside allOf/anyOf/oneOf/not only value validations may stand; move `title` to the node itself",
            );
        }
        if object(node, "properties").is_some_and(|p| p.contains_key("metadata")) {
            self.push(
                FieldError::forbidden(
                    &format!("{path}.properties[metadata]"),
                    "must not be specified in a nested context",
                ),
                "allOf/anyOf/oneOf/not may not constrain `metadata`",
            );
        }
        self.openapi(node, path, ctx);
        for (name, child) in object(node, "properties").into_iter().flatten() {
            if let Value::Object(child) = child {
                self.junctor(child, &format!("{path}.properties[{name}]"), ctx);
            }
        }
        if let Some(values) = object(node, "additionalProperties") {
            self.junctor(values, &format!("{path}.additionalProperties"), ctx);
        }
        if let Some(items) = object(node, "items") {
            self.junctor(items, &format!("{path}.items"), ctx);
        }
        for (key, branch) in branches(node) {
            self.junctor(branch, &format!("{path}.{key}"), ctx);
        }
    }

    /// `validateStructuralInvariants`' rules that the structural check leaves out.
    fn structural(&mut self, node: &Map<String, Value>, path: &str, root: bool) {
        let embedded = flag(node, "x-kubernetes-embedded-resource");
        let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
        let int_or_string = flag(node, "x-kubernetes-int-or-string");
        let additional = node
            .get("additionalProperties")
            .is_some_and(|a| !a.is_null());
        if additional && root {
            self.push(
                FieldError::forbidden(&format!("{path}.additionalProperties"), "must not be used at the root"),
                "a kind's root has fixed fields; kubegen builds it, so this comes from a hand-written schema",
            );
        }
        if embedded && additional {
            self.push(
                FieldError::forbidden(
                    &format!("{path}.additionalProperties"),
                    "must not be used if x-kubernetes-embedded-resource is set",
                ),
                "an embedded resource is an object with `apiVersion`, `kind` and `metadata`, not a map: \
                 put `#[schema(embedded_resource)]` on a struct, or on a `serde_json::Value` field \
                 (with `preserve_unknown_fields`)",
            );
        }
        if int_or_string && preserve {
            self.push(
                FieldError::invalid(
                    &format!("{path}.x-kubernetes-preserve-unknown-fields"),
                    BadValue::Bool(true),
                    "must be false if x-kubernetes-int-or-string is true",
                ),
                "an int-or-string holds a number or a string, nothing to preserve: drop `preserve_unknown_fields`",
            );
        }
        if int_or_string && embedded {
            self.push(
                FieldError::invalid(
                    &format!("{path}.x-kubernetes-embedded-resource"),
                    BadValue::Bool(true),
                    "must be false if x-kubernetes-int-or-string is true",
                ),
                "an int-or-string is not a resource: drop `embedded_resource`",
            );
        }
        let properties = object(node, "properties");
        if root || embedded {
            for (name, want) in [
                ("kind", "string"),
                ("apiVersion", "string"),
                ("metadata", "object"),
            ] {
                let Some(Value::Object(p)) = properties.and_then(|p| p.get(name)) else {
                    continue;
                };
                let t = text(p, "type");
                if t != want {
                    self.push(
                        FieldError::invalid(
                            &format!("{path}.properties[{name}].type"),
                            BadValue::str(t),
                            format!("must be {want}"),
                        ),
                        format!(
                            "in an embedded resource `{name}` is the resource's own {name}: \
                             {}",
                            if want == "string" {
                                "a `String`"
                            } else {
                                "an `ObjectMeta`"
                            }
                        ),
                    );
                }
            }
        }
        if embedded && !preserve && properties.is_none_or(Map::is_empty) {
            self.push(
                FieldError::required(
                    &format!("{path}.properties"),
                    "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
                ),
                "an embedded resource needs its fields (a struct with `api_version`, `kind`, `metadata`, ...) \
                 or `#[schema(preserve_unknown_fields)]` beside `embedded_resource`",
            );
        }
    }

    /// `ValidateCustomResourceDefinitionOpenAPISchema`'s rules that the structural check leaves out.
    fn openapi(&mut self, node: &Map<String, Value>, path: &str, ctx: &Context) {
        if let Some(reason) = &ctx.no_defaults
            && node.get("default").is_some_and(|d| !d.is_null())
        {
            self.push(
                FieldError::forbidden(&format!("{path}.default"), format!("must not be set {reason}")),
                "the apiserver sets an object's metadata, kind and apiVersion itself; drop the default",
            );
        }
        if ctx.meta && flag(node, "x-kubernetes-embedded-resource") {
            self.push(
                FieldError::forbidden(
                    &format!("{path}.x-kubernetes-embedded-resource"),
                    "must not be used inside of resource meta",
                ),
                "metadata, kind and apiVersion cannot hold an embedded resource",
            );
        }
        let t = text(node, "type");
        for (key, want, hint) in [
            (
                "x-kubernetes-map-type",
                "object",
                "`map_type` applies to maps and structs",
            ),
            (
                "x-kubernetes-list-type",
                "array",
                "`list_type` applies to lists",
            ),
        ] {
            if node.contains_key(key) && t != want {
                let field = format!("{path}.type");
                let detail = format!("must be {want} if {key} is specified");
                let error = match t {
                    "" => FieldError::required(&field, detail),
                    t => FieldError::invalid(&field, BadValue::str(t), detail),
                };
                self.push(error, hint);
            }
        }
        if t == "array"
            && text(node, "x-kubernetes-list-type") == "set"
            && let Some(items) = object(node, "items")
            && text(items, "type") == "array"
            && let Some(inner) = items.get("x-kubernetes-list-type").and_then(Value::as_str)
            && inner != "atomic"
        {
            self.push(
                FieldError::invalid(
                    &format!("{path}.items.x-kubernetes-list-type"),
                    BadValue::Json(Value::String(inner.into())),
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                ),
                "a set compares its items whole: lists inside a set must be atomic (no `list_type`, or `list_type = \"atomic\"`)",
            );
        }
        if text(node, "x-kubernetes-list-type") == "map"
            && let Some(Value::Array(keys)) = node.get("x-kubernetes-list-map-keys")
        {
            for (i, key) in keys.iter().enumerate() {
                if keys[..i].contains(key) {
                    self.push(
                        FieldError::invalid(
                            &format!("{path}.x-kubernetes-list-map-keys"),
                            BadValue::Json(Value::Array(keys.clone())),
                            "must not contain duplicate entries",
                        ),
                        "name each field of `list_map_keys` once",
                    );
                }
            }
        }
        self.rules(node, path);
    }

    /// The keys of `x-kubernetes-validations` entries.
    fn rules(&mut self, node: &Map<String, Value>, path: &str) {
        let Some(Value::Array(rules)) = node.get("x-kubernetes-validations") else {
            return;
        };
        let newline = |s: &str| s.contains(['\n', '\r']);
        for (i, rule) in rules.iter().enumerate() {
            let Value::Object(rule) = rule else { continue };
            let at = |key: &str| format!("{path}.x-kubernetes-validations[{i}].{key}");
            let (source, message) = (text(rule, "rule"), text(rule, "message"));
            if source.trim().is_empty() {
                // The structural check refuses it in its own words.
            } else if !message.is_empty() && message.trim().is_empty() {
                self.push(
                    FieldError::invalid(
                        &at("message"),
                        BadValue::str(message),
                        "must be non-empty if specified",
                    ),
                    "a rule message must not be blank; leave `message` out for the default message",
                );
            } else if newline(message.trim()) {
                self.push(
                    FieldError::invalid(
                        &at("message"),
                        BadValue::str(message),
                        "must not contain line breaks",
                    ),
                    "a rule message is one line",
                );
            } else if newline(source.trim()) && message.trim().is_empty() {
                self.push(
                    FieldError::required(
                        &at("message"),
                        "message must be specified if rule contains line breaks",
                    ),
                    "a rule written over several lines needs a `message`",
                );
            }
            let expression = text(rule, "messageExpression");
            if !expression.is_empty() && expression.trim().is_empty() {
                self.push(
                    FieldError::required(
                        &at("messageExpression"),
                        "messageExpression must be non-empty if specified",
                    ),
                    "leave `message_expression` out, or give it an expression",
                );
            }
            let field_path = text(rule, "fieldPath");
            let bad = |detail: &str| {
                FieldError::invalid(&at("fieldPath"), BadValue::str(field_path), detail)
            };
            let hint = "`field_path` names a field below the rule's node, by serde names (`.spec.replicas`, `.ports['http']`)";
            if !field_path.is_empty() && field_path.trim().is_empty() {
                self.push(bad("must be non-empty if specified"), hint);
            }
            if newline(field_path) {
                self.push(bad("must not contain line breaks"), hint);
            }
            if !field_path.is_empty()
                && resolve_field_path(field_path, &Value::Object(node.clone()), true).is_err()
            {
                self.push(bad("must be a valid path"), hint);
            }
        }
    }
}
