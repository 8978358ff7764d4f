//! openapi-gen / controller-gen: the OpenAPI v3 schema of a kind.
//!
//! Generated `JsonSchema` impls are thin: they call the builders here ([`ObjectBuilder`],
//! [`EnumBuilder`], [`field`]) with names, flags and [`Marker`]s, and this module puts every
//! marker at its node. [`resolve`] then inlines the type definitions schemars collected and
//! rewrites schemars' idioms into the forms the apiserver accepts; [`structural::check`]
//! applies the apiserver's structural-schema rules before a CRD is handed out.
//!
//! A kind's CRD carries the schema already (`Widget::crd()`, crdgen). Reach for this module
//! to see the schema of one type on its own (a test of a marker, a shared type's docs), or
//! to check a schema written by hand before putting it in a CRD.
//!
//! ```
//! use kubegen::prelude::*;
//! use kubegen::schema::{schema_for, structural};
//!
//! #[derive(ApiType, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! struct Port {
//!     /// The port's name, unique in the list.
//!     #[validate(max_length = 15)]
//!     name: String,
//!     #[validate(minimum = 1, maximum = 65535)]
//!     container_port: i32,
//! }
//!
//! let schema = schema_for::<Port>().to_value();
//! assert_eq!(schema["required"], serde_json::json!(["name", "containerPort"]));
//! assert_eq!(schema["properties"]["containerPort"]["maximum"], 65535);
//! assert_eq!(schema["properties"]["name"]["description"], "The port's name, unique in the list.");
//!
//! // A node without a type is not structural: the apiserver refuses such a CRD.
//! let untyped = serde_json::json!({"type": "object", "properties": {"spec": {"properties": {}}}});
//! assert_eq!(structural::check(&untyped)[0].path, ".spec");
//! ```

mod builder;
pub mod cel_cost;
mod closed;
mod decodable;
pub use crate::checks::defaulting;
mod enums;
pub mod k8s_extensions;
mod markers;
mod normalize;
pub mod structural;
mod union;

pub use builder::{ObjectBuilder, decorate, field, kind_schema};
pub use decodable::{DecodeProbe, NoDeserialize, ViaDeserialize, check_decodes};
pub use enums::{EnumBuilder, EnumRepr, string_enum};
pub use markers::{Lit, Marker, Num, Rule};
pub use normalize::{COMPACT_OBJECT_META, DECODABLE_DATE_TIME, QUANTITY, resolve};

use schemars::{Schema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value};

/// The key under which a builder records a problem it found while building a node.
///
/// It is never part of a schema kubegen hands out: [`structural::check`] reports every such
/// node as a violation, with its path, so `crd()` fails with the message instead.
pub const ERROR_KEY: &str = "x-kubegen-error";

/// The generator kubegen's schemas are built with: definitions are collected (not inlined)
/// so [`resolve`] can inline them itself, detect recursion, and compact `ObjectMeta`.
pub fn generator() -> SchemaGenerator {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = false;
    settings.meta_schema = None;
    settings.transforms.clear();
    settings.definitions_path = DEFINITIONS_PATH.into();
    settings.into_generator()
}

pub(crate) const DEFINITIONS_PATH: &str = "/definitions";

/// The complete, inlined, Kubernetes-shaped schema of `T`, not yet structurally checked.
pub fn schema_for<T: schemars::JsonSchema + ?Sized>() -> Schema {
    let mut generator = generator();
    let mut schema = T::json_schema(&mut generator);
    resolve(&mut schema, generator.definitions());
    closed::strip(&mut schema);
    schema
}

/// Records `message` on `schema` so the structural check reports it at this node.
pub fn record_error(schema: &mut Schema, message: impl Into<String>) {
    let object = schema.ensure_object();
    let message = message.into();
    match object.get_mut(ERROR_KEY) {
        Some(Value::String(existing)) => {
            existing.push_str("; ");
            existing.push_str(&message);
        }
        _ => {
            object.insert(ERROR_KEY.into(), Value::String(message));
        }
    }
}

/// Sets the node's default from a serialized `#[default(expr)]` value. Object members that
/// serialized as `null` (a `None` without `skip_serializing_if`) are dropped: in Rust they
/// mean "unset", which is what an absent field means to the apiserver.
pub fn set_default(schema: &mut Schema, value: Result<Value, serde_json::Error>) {
    fn drop_nulls(value: &mut Value) {
        match value {
            Value::Object(members) => {
                members.retain(|_, v| !v.is_null());
                members.values_mut().for_each(drop_nulls);
            }
            Value::Array(items) => items.iter_mut().for_each(drop_nulls),
            _ => {}
        }
    }
    match value {
        Ok(mut value) => {
            drop_nulls(&mut value);
            schema.insert("default".into(), value);
        }
        Err(e) => record_error(
            schema,
            format!("the #[default] value does not serialize: {e}"),
        ),
    }
}

pub(crate) fn node_type(node: &Map<String, Value>) -> Option<&str> {
    node.get("type").and_then(Value::as_str)
}
