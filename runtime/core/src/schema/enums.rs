//! Enums: unit-only enums as string enums, and enums with data as the one union shape the
//! apiserver accepts (an object covering every variant, with `oneOf`/`anyOf` branches).

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::markers::{Marker, apply};
use super::union::{merge_property, object_parts, union};
use super::{closed, node_type, record_error};

/// A unit-only enum: a string with the variants' serialized names as its `enum`.
pub fn string_enum(description: Option<&str>, values: &[&str], markers: &[Marker]) -> Schema {
    let mut object = Map::new();
    object.insert("type".into(), json!("string"));
    if let Some(d) = description {
        object.insert("description".into(), json!(d));
    }
    // An empty list means `#[serde(other)]` accepts any string.
    if !values.is_empty() {
        object.insert("enum".into(), json!(values));
    }
    let mut schema = Schema::from(object);
    apply(&mut schema, markers);
    schema
}

/// How serde writes an enum with data, from `#[serde(tag, content, untagged)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumRepr {
    /// `{"Variant": content}`.
    External,
    /// `{"tag": "Variant", ...fields}`.
    Internal {
        /// The tag field's name.
        tag: &'static str,
    },
    /// `{"tag": "Variant", "content": content}`.
    Adjacent {
        /// The tag field's name.
        tag: &'static str,
        /// The content field's name.
        content: &'static str,
    },
    /// The content alone.
    Untagged,
}

/// Builds the structural schema of an enum with data: one object whose properties cover
/// every variant, with `oneOf` branches that only state which properties each variant
/// requires, the one shape the apiserver accepts for a union. A variant whose type refuses
/// unknown fields (`#[serde(deny_unknown_fields)]`) also refuses the other variants' fields.
pub struct EnumBuilder {
    repr: EnumRepr,
    variants: Vec<Variant>,
    open: bool,
}

/// A variant: the names serde reads it under (the one it writes first, then its aliases),
/// and its content (`None` for a unit variant).
struct Variant {
    names: Vec<String>,
    content: Option<Schema>,
}

impl Variant {
    fn name(&self) -> &str {
        &self.names[0]
    }
}

impl EnumBuilder {
    /// A builder for the given representation.
    pub fn new(repr: EnumRepr) -> Self {
        Self {
            repr,
            variants: Vec::new(),
            open: false,
        }
    }

    /// The enum has a `#[serde(other)]` variant, so any tag is accepted: the tag gets no
    /// `enum` and variants no `oneOf` branches (they would reject unknown tags).
    pub fn open(&mut self) {
        self.open = true;
    }

    /// Adds a variant under its serialized name; `None` for a unit variant.
    pub fn variant(&mut self, name: &str, content: Option<Schema>) {
        self.variants.push(Variant {
            names: vec![name.to_owned()],
            content,
        });
    }

    /// Another name serde reads the last variant under (`#[serde(alias = "...")]`).
    pub fn alias(&mut self, alias: &str) {
        if let Some(v) = self.variants.last_mut() {
            v.names.push(alias.to_owned());
        }
    }

    /// The finished node.
    pub fn build(self, description: Option<&str>, markers: &[Marker]) -> Schema {
        let names: Vec<&str> = self
            .variants
            .iter()
            .flat_map(|v| v.names.iter().map(String::as_str))
            .collect();
        let mut errors = Vec::new();
        let mut node = match self.repr {
            EnumRepr::External => external(&self.variants, &mut errors),
            EnumRepr::Internal { tag } => internal(tag, &names, &self.variants, &mut errors),
            EnumRepr::Adjacent { tag, content } => {
                adjacent(tag, content, &names, &self.variants, &mut errors)
            }
            EnumRepr::Untagged => {
                let contents = self
                    .variants
                    .iter()
                    .filter_map(|v| v.content.clone())
                    .collect();
                untagged(contents, &mut errors)
            }
        };
        if self.open {
            let tag = match self.repr {
                EnumRepr::Internal { tag } | EnumRepr::Adjacent { tag, .. } => Some(tag),
                _ => None,
            };
            if let Some(Value::Object(tag_schema)) =
                tag.and_then(|t| node.get_mut("properties").and_then(|p| p.get_mut(t)))
            {
                tag_schema.remove("enum");
            }
            // Any other tag decodes as the `#[serde(other)]` variant, but a known tag still
            // needs its variant's fields: one more branch, for tags that are none of them.
            match (tag, node.get_mut("oneOf")) {
                (Some(tag), Some(Value::Array(branches))) => {
                    branches.push(json!({"not": {"properties": {tag: {"enum": names}}}}));
                }
                _ => {
                    node.remove("oneOf");
                }
            }
        }
        if let Some(d) = description {
            node.insert("description".into(), json!(d));
        }
        let mut schema = Schema::from(node);
        for e in errors {
            record_error(&mut schema, e);
        }
        apply(&mut schema, markers);
        schema
    }
}

fn external(variants: &[Variant], errors: &mut Vec<String>) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut one_of = Vec::new();
    for v in variants {
        if v.content.is_none() {
            errors.push(format!(
                "unit variant `{}` serializes as a string while the others are objects",
                v.name()
            ));
        }
        // serde reads a variant under each of its names, one key per object.
        for name in &v.names {
            if let Some(s) = &v.content {
                properties.insert(name.clone(), s.clone().to_value());
            }
            one_of.push(json!({ "required": [name] }));
        }
    }
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    node.insert("properties".into(), Value::Object(properties));
    match one_of.as_mut_slice() {
        [] => {}
        [only] => {
            node.insert("required".into(), only["required"].take());
        }
        _ => {
            node.insert("oneOf".into(), Value::Array(one_of));
        }
    }
    node
}

/// The fields of an object variant's content: all of them, and the required ones.
struct Fields {
    names: Vec<String>,
    required: Vec<Value>,
}

fn internal(
    tag: &str,
    names: &[&str],
    variants: &[Variant],
    errors: &mut Vec<String>,
) -> Map<String, Value> {
    let mut properties = Map::new();
    properties.insert(tag.into(), json!({"type": "string", "enum": names}));
    let mut preserve = false;
    let mut contents: Vec<Option<Fields>> = Vec::new();
    for v in variants {
        let Some(schema) = &v.content else {
            contents.push(None);
            continue;
        };
        let Some((fields, required)) = object_parts(schema) else {
            errors.push(format!(
                "variant `{}` of an internally tagged enum must serialize as an object",
                v.name()
            ));
            contents.push(None);
            continue;
        };
        preserve |= keeps_unknown_fields(schema);
        let mut names = Vec::new();
        for (field, s) in fields {
            if field == tag {
                errors.push(format!(
                    "variant `{}` has a field named like the tag `{tag}`",
                    v.name()
                ));
                continue;
            }
            names.push(field.clone());
            merge_property(&mut properties, field, s, errors);
        }
        contents.push(Some(Fields { names, required }));
    }
    let all: Vec<String> = properties.keys().filter(|k| *k != tag).cloned().collect();
    closed::check_union(
        variants.iter().map(|v| v.content.as_ref()),
        preserve,
        errors,
    );
    let mut one_of = Vec::new();
    for (v, fields) in variants.iter().zip(&contents) {
        let mut branch = Map::new();
        branch.insert("properties".into(), json!({tag: {"enum": v.names}}));
        let mut required = vec![json!(tag)];
        if let Some(f) = fields {
            required.extend(f.required.iter().cloned());
            if let Some(refusal) = refusal(v.content.as_ref(), &all, &f.names) {
                branch.insert("not".into(), refusal);
            }
        }
        branch.insert("required".into(), Value::Array(required));
        one_of.push(Value::Object(branch));
    }
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    node.insert("properties".into(), Value::Object(properties));
    node.insert("required".into(), json!([tag]));
    let says_more =
        |b: &Value| b.get("not").is_some() || b["required"].as_array().is_some_and(|r| r.len() > 1);
    if one_of.len() > 1 || one_of.iter().any(says_more) {
        node.insert("oneOf".into(), Value::Array(one_of));
    }
    if preserve {
        node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
    }
    node
}

/// The names of an object node's properties.
fn property_names(node: &Map<String, Value>) -> Vec<String> {
    node.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Whether a variant's content keeps fields its schema does not declare.
fn keeps_unknown_fields(schema: &Schema) -> bool {
    schema.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true))
        || schema.get("additionalProperties").is_some()
}

/// For a variant whose type refuses unknown fields: the constraint refusing the fields of
/// `all` that are not its own.
fn refusal(content: Option<&Schema>, all: &[String], own: &[String]) -> Option<Value> {
    let content = content?;
    if !closed::is_closed(content.as_value()) {
        return None;
    }
    let others: Vec<&String> = all.iter().filter(|f| !own.contains(f)).collect();
    closed::refusing(&others)
}

fn adjacent(
    tag: &str,
    content: &str,
    names: &[&str],
    variants: &[Variant],
    errors: &mut Vec<String>,
) -> Map<String, Value> {
    let mut properties = Map::new();
    properties.insert(tag.into(), json!({"type": "string", "enum": names}));
    let contents: Vec<Schema> = variants.iter().filter_map(|v| v.content.clone()).collect();
    let union_node = (!contents.is_empty()).then(|| union(contents.clone(), errors));
    let all = union_node.as_ref().map(property_names).unwrap_or_default();
    if let Some(u) = &union_node {
        let preserve = u.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true));
        closed::check_union(
            variants.iter().map(|v| v.content.as_ref()),
            preserve,
            errors,
        );
    }
    let mut one_of = Vec::new();
    for v in variants {
        let mut branch_properties = Map::new();
        branch_properties.insert(tag.into(), json!({"enum": v.names}));
        let mut required = vec![json!(tag)];
        let mut branch = Map::new();
        match &v.content {
            Some(schema) => {
                required.push(json!(content));
                let mut content_branch = Map::new();
                if let Some((own, r)) = object_parts(schema) {
                    if !r.is_empty() {
                        content_branch.insert("required".into(), Value::Array(r));
                    }
                    let own: Vec<String> = own.keys().cloned().collect();
                    if let Some(refusal) = refusal(Some(schema), &all, &own) {
                        content_branch.insert("not".into(), refusal);
                    }
                }
                if !content_branch.is_empty() {
                    branch_properties.insert(content.into(), Value::Object(content_branch));
                }
            }
            // serde refuses content for a unit variant.
            None if union_node.is_some() => {
                branch.insert("not".into(), json!({"required": [content]}));
            }
            None => {}
        }
        branch.insert("properties".into(), Value::Object(branch_properties));
        branch.insert("required".into(), Value::Array(required));
        one_of.push(Value::Object(branch));
    }
    if let Some(u) = union_node {
        properties.insert(content.into(), Value::Object(u));
    }
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    node.insert("properties".into(), Value::Object(properties));
    node.insert("required".into(), json!([tag]));
    node.insert("oneOf".into(), Value::Array(one_of));
    node
}

/// An untagged enum: the [`union`] of its variants, where object variants also keep what
/// each requires. serde tries the variants in order and takes the first that decodes, so an
/// object decodes exactly when some variant takes it: it has every field the variant
/// requires and, if the variant refuses unknown fields, no other: `anyOf` those branches
/// (not `oneOf`: an object that satisfies two variants decodes as the first). A variant
/// that requires nothing and refuses nothing decodes every object, and then no branch is
/// added.
fn untagged(schemas: Vec<Schema>, errors: &mut Vec<String>) -> Map<String, Value> {
    let mut node = union(schemas.clone(), errors);
    if node_type(&node) != Some("object") {
        return node;
    }
    let all = property_names(&node);
    let mut branches: Vec<Map<String, Value>> = Vec::new();
    for s in &schemas {
        let Some((own, required)) = object_parts(s) else {
            continue;
        };
        let mut branch = Map::new();
        if !required.is_empty() {
            branch.insert("required".into(), Value::Array(required));
        }
        let own: Vec<String> = own.keys().cloned().collect();
        if let Some(refusal) = refusal(Some(s), &all, &own) {
            branch.insert("not".into(), refusal);
        }
        if branch.is_empty() {
            // This variant takes every object.
            return node;
        }
        if !branches.contains(&branch) {
            branches.push(branch);
        }
    }
    // A branch that only requires more than another, which refuses nothing, adds nothing.
    let required = |b: &Map<String, Value>| -> Vec<Value> {
        b.get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let minimal: Vec<Map<String, Value>> = branches
        .iter()
        .filter(|b| {
            let mine = required(b);
            !branches.iter().any(|other| {
                let theirs = required(other);
                !other.contains_key("not")
                    && other != *b
                    && theirs.len() <= mine.len()
                    && theirs.iter().all(|f| mine.contains(f))
            })
        })
        .cloned()
        .collect();
    match minimal.as_slice() {
        [] => {}
        [only] => {
            // Every object that decodes satisfies this one branch: it holds at the node.
            node.extend(only.clone());
        }
        _ => {
            node.insert(
                "anyOf".into(),
                Value::Array(minimal.into_iter().map(Value::Object).collect()),
            );
        }
    }
    node
}
