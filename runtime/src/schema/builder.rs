//! The builders generated `JsonSchema` impls call.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::markers::{Marker, apply};
use super::{ERROR_KEY, node_type, record_error, resolve};

/// The schema of a field of type `T`, inlined, so markers see the node's real type.
pub fn field<T: JsonSchema + ?Sized>(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = generator.subschema_for::<T>();
    resolve(&mut schema, generator.definitions());
    schema
}

/// Finishes a field's node: its own doc comment (or none: a field never inherits its
/// type's description), `nullable` when serde writes `null` for it, then its markers.
pub fn decorate(
    mut schema: Schema,
    description: Option<&str>,
    nullable: bool,
    markers: &[Marker],
) -> Schema {
    let object = schema.ensure_object();
    match description {
        Some(d) => {
            object.insert("description".into(), json!(d));
        }
        None => {
            object.remove("description");
        }
    }
    if nullable {
        object.insert("nullable".into(), json!(true));
    }
    apply(&mut schema, markers);
    schema
}

/// Builds the schema of a struct, one serialized field at a time.
#[derive(Default)]
pub struct ObjectBuilder {
    properties: Map<String, Value>,
    required: Vec<String>,
    /// The `oneOf`/`anyOf` of flattened enums, each as `{"oneOf": [...]}`.
    one_of: Vec<Value>,
    preserve_unknown_fields: bool,
    errors: Vec<String>,
}

impl ObjectBuilder {
    /// An object with no properties yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a property under its serialized name.
    pub fn property(&mut self, name: &str, required: bool, schema: Schema) {
        if self.properties.contains_key(name) {
            self.errors
                .push(format!("two fields serialize as `{name}`"));
        }
        self.properties.insert(name.to_owned(), schema.to_value());
        if required {
            self.required.push(name.to_owned());
        }
    }

    /// Merges a `#[serde(flatten)]` field: its properties become this object's. A flattened
    /// map or `serde_json::Value` keeps unknown fields, as serde does.
    pub fn flatten(&mut self, schema: Schema, optional: bool) {
        let Value::Object(mut object) = schema.to_value() else {
            self.errors
                .push("a flattened field must serialize as an object".into());
            return;
        };
        if let Some(Value::String(e)) = object.remove(ERROR_KEY) {
            self.errors.push(e);
        }
        let preserves = object.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true));
        match node_type(&object) {
            Some("object") => {}
            None if preserves => {}
            other => {
                self.errors.push(format!(
                    "a flattened field must serialize as an object, not {}",
                    other.unwrap_or("an untyped value")
                ));
                return;
            }
        }
        if preserves || object.contains_key("additionalProperties") {
            self.preserve_unknown_fields = true;
        }
        if let Some(Value::Object(properties)) = object.remove("properties") {
            for (name, schema) in properties {
                if self.properties.contains_key(&name) {
                    self.errors
                        .push(format!("flattened field `{name}` is already a field"));
                }
                self.properties.insert(name, schema);
            }
        }
        if !optional {
            if let Some(Value::Array(required)) = object.remove("required") {
                self.required
                    .extend(required.into_iter().filter_map(|v| match v {
                        Value::String(s) => Some(s),
                        _ => None,
                    }));
            }
            for junctor in ["oneOf", "anyOf"] {
                if let Some(Value::Array(branches)) = object.remove(junctor) {
                    self.one_of.push(json!({ junctor: branches }));
                }
            }
        }
    }

    /// The finished object node, with the type's description and type-level markers.
    pub fn build(self, description: Option<&str>, markers: &[Marker]) -> Schema {
        let mut object = Map::new();
        object.insert("type".into(), json!("object"));
        if let Some(d) = description {
            object.insert("description".into(), json!(d));
        }
        if !self.properties.is_empty() {
            object.insert("properties".into(), Value::Object(self.properties));
        }
        if !self.required.is_empty() {
            object.insert("required".into(), json!(self.required));
        }
        match self.one_of.len() {
            0 => {}
            1 => {
                let mut only = self.one_of;
                if let Some(Value::Object(o)) = only.pop() {
                    object.extend(o);
                }
            }
            _ => {
                object.insert("allOf".into(), Value::Array(self.one_of));
            }
        }
        if self.preserve_unknown_fields {
            object.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        let mut schema = Schema::from(object);
        for e in self.errors {
            record_error(&mut schema, e);
        }
        apply(&mut schema, markers);
        schema
    }
}

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

fn object_parts(schema: &Schema) -> Option<(Map<String, Value>, Vec<Value>)> {
    let object = schema.as_object()?;
    if node_type(object) != Some("object") {
        return None;
    }
    let properties = match object.get("properties") {
        Some(Value::Object(p)) => p.clone(),
        _ => Map::new(),
    };
    let required = match object.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    Some((properties, required))
}

fn without_description(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(o) = &mut v {
        o.remove("description");
    }
    v
}

fn merge_property(
    into: &mut Map<String, Value>,
    name: String,
    schema: Value,
    errors: &mut Vec<String>,
) {
    match into.get(&name) {
        Some(existing) if without_description(existing) != without_description(&schema) => {
            errors.push(format!(
                "variants give field `{name}` different schemas; a Kubernetes object field has one schema"
            ));
        }
        Some(_) => {}
        None => {
            into.insert(name, schema);
        }
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

/// One node that accepts every value any of `schemas` accepts: objects merge their
/// properties (a field is required only if every branch requires it), integer and string
/// become int-or-string, anything else Kubernetes cannot express is an error.
fn union(schemas: Vec<Schema>, errors: &mut Vec<String>) -> Map<String, Value> {
    let mut types: Vec<String> = Vec::new();
    for s in &schemas {
        let ty = s
            .as_object()
            .and_then(node_type)
            .unwrap_or("untyped")
            .to_owned();
        if !types.contains(&ty) {
            types.push(ty);
        }
    }
    types.sort();
    let mut node = Map::new();
    match types
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => {
            node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        ["object"] => {
            let mut properties = Map::new();
            let mut required: Option<Vec<Value>> = None;
            let mut preserve = false;
            for s in &schemas {
                if let Some((fields, r)) = object_parts(s) {
                    for (name, f) in fields {
                        merge_property(&mut properties, name, f, errors);
                    }
                    required = Some(match required {
                        None => r,
                        Some(acc) => acc.into_iter().filter(|x| r.contains(x)).collect(),
                    });
                }
                preserve |= s.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true))
                    || s.get("additionalProperties").is_some();
            }
            node.insert("type".into(), json!("object"));
            node.insert("properties".into(), Value::Object(properties));
            if let Some(r) = required.filter(|r| !r.is_empty()) {
                node.insert("required".into(), Value::Array(r));
            }
            if preserve {
                node.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
            }
        }
        [_] => {
            let first = without_description(schemas[0].as_value());
            if schemas
                .iter()
                .all(|s| without_description(s.as_value()) == first)
            {
                if let Value::Object(o) = first {
                    node = o;
                }
            } else {
                let Value::Object(o) = first else { return node };
                node.insert("type".into(), o["type"].clone());
                match node_type(&o) {
                    Some("integer") => integer_side(&schemas, &mut node),
                    Some("string") => string_enums(&schemas, &mut node, errors),
                    _ => {}
                }
                if let Some(items) = o.get("items") {
                    let all_same = schemas.iter().all(|s| s.get("items") == Some(items));
                    if !all_same {
                        errors.push("variants are lists of different item types".into());
                    }
                    node.insert("items".into(), items.clone());
                }
            }
        }
        ["integer", "string"] => {
            node.insert(
                "anyOf".into(),
                json!([{"type": "integer"}, {"type": "string"}]),
            );
            node.insert("x-kubernetes-int-or-string".into(), json!(true));
            integer_side(&schemas, &mut node);
            string_side(&schemas, &mut node, errors);
        }
        ["integer", "number"] => {
            node.insert("type".into(), json!("number"));
        }
        other => {
            errors.push(format!(
                "variants serialize as different types ({}); a Kubernetes schema node has one type \
                 (integer-or-string aside): use a tagged enum or #[schema(preserve_unknown_fields)]",
                other.join(", ")
            ));
        }
    }
    node
}

/// The bounds of an int-or-string union's integers: the smallest range holding every
/// integer variant's (a width's `int32` format becomes its bounds, since an int-or-string
/// node has no type to carry a format). Value validations at the node apply to integers only.
fn integer_side(schemas: &[Schema], node: &mut Map<String, Value>) {
    let mut lo: Option<f64> = Some(f64::INFINITY);
    let mut hi: Option<f64> = Some(f64::NEG_INFINITY);
    for s in schemas.iter().filter_map(Schema::as_object) {
        if node_type(s) != Some("integer") {
            continue;
        }
        let int32 = s.get("format") == Some(&json!("int32"));
        let min = s
            .get("minimum")
            .and_then(Value::as_f64)
            .or(int32.then_some(f64::from(i32::MIN)));
        let max = s
            .get("maximum")
            .and_then(Value::as_f64)
            .or(int32.then_some(f64::from(i32::MAX)));
        lo = lo.zip(min).map(|(a, b)| a.min(b));
        hi = hi.zip(max).map(|(a, b)| a.max(b));
    }
    for (key, bound) in [("minimum", lo), ("maximum", hi)] {
        if let Some(b) = bound.filter(|b| b.is_finite()) {
            node.insert(key.into(), json!(b as i64));
        }
    }
}

/// What an int-or-string union's strings must satisfy: the string variant's own `pattern`,
/// lengths and format, or, for a string enum, a pattern matching exactly its values (an
/// `enum` at the node would refuse the integers). Several restricted string variants would
/// need an alternation of their constraints, which is refused.
fn string_side(schemas: &[Schema], node: &mut Map<String, Value>, errors: &mut Vec<String>) {
    const STRING_KEYS: [&str; 4] = ["pattern", "minLength", "maxLength", "format"];
    let strings: Vec<&Map<String, Value>> = schemas
        .iter()
        .filter_map(Schema::as_object)
        .filter(|s| node_type(s) == Some("string"))
        .collect();
    let restricted = |s: &&Map<String, Value>| {
        s.contains_key("enum") || STRING_KEYS.iter().any(|k| s.contains_key(*k))
    };
    if strings.iter().any(|s| !restricted(s)) {
        return;
    }
    match strings.as_slice() {
        [only] => {
            for key in STRING_KEYS {
                if let Some(v) = only.get(key) {
                    node.insert(key.into(), v.clone());
                }
            }
            if let Some(Value::Array(values)) = only.get("enum") {
                let alternatives: Vec<String> = values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(regex::escape)
                    .collect();
                node.insert(
                    "pattern".into(),
                    json!(format!("^(?:{})$", alternatives.join("|"))),
                );
            }
        }
        _ => errors.push(
            "several string variants with different restrictions cannot share an \
             integer-or-string node; give one variant the string form"
                .into(),
        ),
    }
}

/// Untagged string variants that differ: a string decodes if any variant takes it, so either
/// one variant takes every string, or each is an enum and the node takes their values.
fn string_enums(schemas: &[Schema], node: &mut Map<String, Value>, errors: &mut Vec<String>) {
    let mut values: Vec<Value> = Vec::new();
    for s in schemas.iter().filter_map(Schema::as_object) {
        let restricted = ["enum", "pattern", "minLength", "maxLength", "format"]
            .iter()
            .any(|k| s.contains_key(*k));
        if !restricted {
            return;
        }
        match s.get("enum") {
            Some(Value::Array(more))
                if s.keys().all(|k| {
                    matches!(k.as_str(), "type" | "enum" | "description" | "nullable")
                }) =>
            {
                values.extend(
                    more.iter()
                        .filter(|v| !values.contains(v))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
            }
            _ => {
                errors.push(
                    "string variants with different restrictions cannot share one schema node; \
                     give one variant plain strings or make each a string enum"
                        .into(),
                );
                return;
            }
        }
    }
    node.insert("enum".into(), Value::Array(values));
}

/// The schema of a kind: apiVersion, kind, metadata, spec (required) and status.
pub fn kind_schema(description: Option<&str>, spec: Schema, status: Option<Schema>) -> Schema {
    let mut spec = spec.to_value();
    if let Value::Object(o) = &mut spec {
        o.remove("description");
    }
    let mut properties = Map::new();
    properties.insert(
        "apiVersion".into(),
        json!({"type": "string", "description": "The versioned schema of this representation of an object."}),
    );
    properties.insert(
        "kind".into(),
        json!({"type": "string", "description": "The REST resource this object represents."}),
    );
    properties.insert("metadata".into(), json!({"type": "object"}));
    properties.insert("spec".into(), spec);
    if let Some(status) = status {
        properties.insert("status".into(), status.to_value());
    }
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    if let Some(d) = description {
        node.insert("description".into(), json!(d));
    }
    node.insert("properties".into(), Value::Object(properties));
    node.insert("required".into(), json!(["spec"]));
    Schema::from(node)
}
