//! Enums: unit-only enums as string enums, and enums with data as the one union shape the
//! apiserver accepts (an object covering every variant, with `oneOf`/`anyOf` branches).

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::markers::{Marker, apply};
use super::union::{merge_property, object_parts, union};
use super::{node_type, record_error};

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
/// requires, the one shape the apiserver accepts for a union.
pub struct EnumBuilder {
    repr: EnumRepr,
    variants: Vec<(String, Option<Schema>)>,
    open: bool,
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
        self.variants.push((name.to_owned(), content));
    }

    /// The finished node.
    pub fn build(self, description: Option<&str>, markers: &[Marker]) -> Schema {
        let names: Vec<&str> = self.variants.iter().map(|(n, _)| n.as_str()).collect();
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
                    .filter_map(|(_, s)| s.clone())
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

fn external(variants: &[(String, Option<Schema>)], errors: &mut Vec<String>) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut one_of = Vec::new();
    for (name, content) in variants {
        match content {
            Some(s) => {
                properties.insert(name.clone(), s.clone().to_value());
            }
            None => errors.push(format!(
                "unit variant `{name}` serializes as a string while the others are objects"
            )),
        }
        one_of.push(json!({ "required": [name] }));
    }
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    node.insert("properties".into(), Value::Object(properties));
    if one_of.len() == 1 {
        node.insert("required".into(), json!([variants[0].0]));
    } else if !one_of.is_empty() {
        node.insert("oneOf".into(), Value::Array(one_of));
    }
    node
}

fn internal(
    tag: &str,
    names: &[&str],
    variants: &[(String, Option<Schema>)],
    errors: &mut Vec<String>,
) -> Map<String, Value> {
    let mut properties = Map::new();
    properties.insert(tag.into(), json!({"type": "string", "enum": names}));
    let mut one_of = Vec::new();
    let mut preserve = false;
    for (name, content) in variants {
        let mut required = vec![json!(tag)];
        if let Some(schema) = content {
            let Some((fields, variant_required)) = object_parts(schema) else {
                errors.push(format!(
                    "variant `{name}` of an internally tagged enum must serialize as an object"
                ));
                continue;
            };
            if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true))
                || schema.get("additionalProperties").is_some()
            {
                preserve = true;
            }
            for (field, s) in fields {
                if field == tag {
                    errors.push(format!(
                        "variant `{name}` has a field named like the tag `{tag}`"
                    ));
                    continue;
                }
                merge_property(&mut properties, field, s, errors);
            }
            required.extend(variant_required);
        }
        one_of.push(json!({"properties": {tag: {"enum": [name]}}, "required": required}));
    }
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    node.insert("properties".into(), Value::Object(properties));
    node.insert("required".into(), json!([tag]));
    if one_of.len() > 1
        || one_of
            .iter()
            .any(|b| b["required"].as_array().is_some_and(|r| r.len() > 1))
    {
        node.insert("oneOf".into(), Value::Array(one_of));
    }
    if preserve {
        node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
    }
    node
}

fn adjacent(
    tag: &str,
    content: &str,
    names: &[&str],
    variants: &[(String, Option<Schema>)],
    errors: &mut Vec<String>,
) -> Map<String, Value> {
    let mut properties = Map::new();
    properties.insert(tag.into(), json!({"type": "string", "enum": names}));
    let contents: Vec<Schema> = variants.iter().filter_map(|(_, s)| s.clone()).collect();
    let mut one_of = Vec::new();
    for (name, schema) in variants {
        let mut branch_properties = Map::new();
        branch_properties.insert(tag.into(), json!({"enum": [name]}));
        let mut required = vec![json!(tag)];
        let mut branch = Map::new();
        match schema {
            Some(schema) => {
                required.push(json!(content));
                if let Some((_, r)) = object_parts(schema)
                    && !r.is_empty()
                {
                    branch_properties.insert(content.into(), json!({"required": r}));
                }
            }
            // serde refuses content for a unit variant.
            None if !contents.is_empty() => {
                branch.insert("not".into(), json!({"required": [content]}));
            }
            None => {}
        }
        branch.insert("properties".into(), Value::Object(branch_properties));
        branch.insert("required".into(), Value::Array(required));
        one_of.push(Value::Object(branch));
    }
    if !contents.is_empty() {
        properties.insert(content.into(), Value::Object(union(contents, errors)));
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
/// object decodes exactly when it has every field some variant requires: `anyOf` those
/// requirements (not `oneOf`: an object that satisfies two variants decodes as the first).
/// A variant that requires nothing decodes every object, and then no requirement is added.
fn untagged(schemas: Vec<Schema>, errors: &mut Vec<String>) -> Map<String, Value> {
    let mut requirements: Vec<Value> = Vec::new();
    let mut unconditional = false;
    for s in &schemas {
        match object_parts(s) {
            Some((_, required)) if required.is_empty() => unconditional = true,
            Some((_, required)) => {
                let branch = json!({ "required": required });
                if !requirements.contains(&branch) {
                    requirements.push(branch);
                }
            }
            None => {}
        }
    }
    // A branch that requires more than another adds nothing to the anyOf.
    let fields =
        |b: &Value| -> Vec<Value> { b["required"].as_array().cloned().unwrap_or_default() };
    let minimal: Vec<Value> = requirements
        .iter()
        .filter(|b| {
            let mine = fields(b);
            !requirements.iter().any(|other| {
                let theirs = fields(other);
                theirs.len() < mine.len() && theirs.iter().all(|f| mine.contains(f))
            })
        })
        .cloned()
        .collect();
    let mut node = union(schemas, errors);
    if unconditional || node_type(&node) != Some("object") {
        return node;
    }
    match minimal.as_slice() {
        [] => {}
        [only] => {
            // Every variant requires at least these: they are simply required.
            node.insert("required".into(), json!(fields(only)));
        }
        _ => {
            node.insert("anyOf".into(), Value::Array(minimal));
        }
    }
    node
}
