//! The builders generated `JsonSchema` impls call.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::markers::{Marker, apply};
use super::{ERROR_KEY, closed, node_type, record_error, resolve};

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
    /// `#[serde(deny_unknown_fields)]`.
    closed: bool,
    errors: Vec<String>,
}

impl ObjectBuilder {
    /// An object with no properties yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The type refuses fields it does not declare (`#[serde(deny_unknown_fields)]`).
    pub fn deny_unknown_fields(&mut self) {
        self.closed = true;
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
        if let Some(values) = object.get("additionalProperties")
            && !any_value(values)
        {
            // The object keeps every unknown field whatever its value (a node cannot have
            // both properties and typed additionalProperties), so only a map that reads any
            // value decodes what the apiserver keeps.
            self.errors.push(
                "a flattened map collects every unknown field, and the apiserver can only keep \
                 them untyped beside the declared fields, so values the map's value type cannot \
                 read would be stored; make the values serde_json::Value"
                    .into(),
            );
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
        let mut errors = self.errors;
        if self.closed {
            if self.preserve_unknown_fields {
                errors.push(
                    "#[serde(deny_unknown_fields)] refuses every field the flattened map would \
                     collect, while the apiserver keeps them; drop one of the two"
                        .into(),
                );
            }
            closed::mark(&mut object);
        }
        let mut schema = Schema::from(object);
        for e in errors {
            record_error(&mut schema, e);
        }
        apply(&mut schema, markers);
        schema
    }
}

/// Whether a schema takes any JSON value (`serde_json::Value`'s).
fn any_value(schema: &Value) -> bool {
    let Value::Object(node) = schema else {
        return schema == &Value::Bool(true);
    };
    node.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true))
        && node.keys().all(|k| {
            matches!(
                k.as_str(),
                "x-kubernetes-preserve-unknown-fields" | "description" | "nullable"
            )
        })
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
