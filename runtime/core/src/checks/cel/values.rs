//! An object's values as CEL sees them (the apiserver's `UnstructuredToVal`): typed by the
//! structural schema, not by the JSON. Integers are `int`, `number`s are `double` even when
//! written without a fraction, int-or-string is whichever it holds, strings with the formats
//! `date`, `date-time`, `duration` and `byte` are timestamps, durations and bytes, objects
//! with properties are maps keyed by their escaped property names (a property named with a
//! CEL reserved word also under its own name, as the apiserver resolves both; a `null` field
//! is absent, so `has()` is false), objects with `additionalProperties` are maps keyed by
//! the raw keys. At the root of a resource (and of an embedded resource) `apiVersion`,
//! `kind` and `metadata.name`/`metadata.generateName` are the only type and object meta
//! visible.
//!
//! Values a rule cannot name (unknown fields under preserve-unknown-fields, properties whose
//! names cannot be escaped) are kept under their raw keys so that equality sees them, as the
//! apiserver's equality does.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use kube_cel::cel::Value as Cel;
use kube_cel::cel::objects::{Key, Map};
use serde_json::Value;

use super::super::schema::{Additional, Schema};
use super::formats;
use kubegen_go::cel::{escape, is_reserved};

/// A `type: string` schema (the type meta the apiserver adds at resource roots).
static STRING: LazyLock<Schema> =
    LazyLock::new(|| Schema::new(&serde_json::json!({"type": "string"})));

/// The `metadata` the apiserver exposes at resource roots: `name` and `generateName`.
static OBJECT_META: LazyLock<Schema> = LazyLock::new(|| {
    Schema::new(&serde_json::json!({"type": "object", "properties": {
        "name": {"type": "string"}, "generateName": {"type": "string"}}}))
});

/// The schema's type as the apiserver names it in errors (`""` for int-or-string and
/// schemas without a type).
pub(super) fn type_name(schema: &Schema) -> &str {
    match schema.types.as_slice() {
        [t] => t,
        _ => "",
    }
}

/// `WithTypeAndObjectMeta`'s test: the schema already declares `kind`, `apiVersion` and
/// `metadata.name`/`generateName` as strings.
fn declares_type_and_object_meta(schema: &Schema) -> bool {
    let is = |s: Option<&Schema>, t: &str| s.is_some_and(|s| s.types.iter().any(|x| x == t));
    let meta = schema.property("metadata");
    is(schema.property("kind"), "string")
        && is(schema.property("apiVersion"), "string")
        && is(meta, "object")
        && is(meta.and_then(|m| m.property("name")), "string")
        && is(meta.and_then(|m| m.property("generateName")), "string")
}

/// The schema of property `key` of an object typed by `schema`; `resource` adds the type and
/// object meta of a resource root.
fn property<'a>(schema: &'a Schema, key: &str, resource: bool) -> Option<&'a Schema> {
    if resource && !declares_type_and_object_meta(schema) {
        match key {
            "kind" | "apiVersion" => return Some(&STRING),
            "metadata" => return Some(&OBJECT_META),
            _ => {}
        }
    }
    schema.property(key)
}

/// Converts `value` typed by `schema` to a CEL value; `resource_root` marks the root of a
/// custom resource.
pub(super) fn to_cel(value: &Value, schema: &Schema, resource_root: bool) -> Cel {
    if value.is_null() {
        return Cel::Null;
    }
    if schema.int_or_string {
        return match value {
            Value::String(s) => string(s),
            Value::Number(n) if n.as_i64().is_some() => Cel::Int(n.as_i64().unwrap_or_default()),
            other => raw(other),
        };
    }
    match (type_name(schema), value) {
        ("object", Value::Object(members)) => {
            let resource = resource_root || schema.embedded_resource;
            if let Additional::Schema(values) = &schema.additional
                && !resource
                && schema.properties.is_empty()
            {
                let map = members
                    .iter()
                    .map(|(k, v)| (key(k), to_cel(v, values, false)))
                    .collect();
                return Cel::Map(Map { map: Arc::new(map) });
            }
            let mut map = HashMap::with_capacity(members.len());
            for (k, v) in members {
                match (property(schema, k, resource), escape(k)) {
                    // A null field of an object is an absent one.
                    (Some(_), _) if v.is_null() => {}
                    (Some(s), Some(escaped)) => {
                        let value = to_cel(v, s, false);
                        if is_reserved(k) {
                            map.insert(key(k), value.clone());
                        }
                        map.insert(key(&escaped), value);
                    }
                    _ => {
                        map.entry(key(k)).or_insert_with(|| raw(v));
                    }
                }
            }
            Cel::Map(Map { map: Arc::new(map) })
        }
        ("array", Value::Array(items)) => {
            let list = match &schema.items {
                Some(item) => items.iter().map(|v| to_cel(v, item, false)).collect(),
                None => items.iter().map(raw).collect(),
            };
            Cel::List(Arc::new(list))
        }
        ("string", Value::String(s)) => match schema.format.as_deref() {
            Some("date-time") => formats::date_time(s).map_or_else(|| string(s), Cel::Timestamp),
            Some("date") => formats::date(s).map_or_else(|| string(s), Cel::Timestamp),
            Some("duration") => formats::duration(s).map_or_else(|| string(s), Cel::Duration),
            Some("byte") => {
                formats::bytes(s).map_or_else(|| string(s), |b| Cel::Bytes(Arc::new(b)))
            }
            _ => string(s),
        },
        ("number", Value::Number(n)) => Cel::Float(n.as_f64().unwrap_or(f64::NAN)),
        ("integer", Value::Number(n)) if n.as_i64().is_some() => {
            Cel::Int(n.as_i64().unwrap_or_default())
        }
        ("boolean", Value::Bool(b)) => Cel::Bool(*b),
        _ => raw(value),
    }
}

fn key(k: &str) -> Key {
    Key::String(Arc::new(k.to_owned()))
}

fn string(s: &str) -> Cel {
    Cel::String(Arc::new(s.to_owned()))
}

/// A value without a schema (preserve-unknown-fields), kept for equality.
fn raw(value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Cel::Int(i),
            None => Cel::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => string(s),
        Value::Array(items) => Cel::List(Arc::new(items.iter().map(raw).collect())),
        Value::Object(members) => Cel::Map(Map {
            map: Arc::new(members.iter().map(|(k, v)| (key(k), raw(v))).collect()),
        }),
    }
}

/// Whether the apiserver gives values of this schema a CEL type (`SchemaDeclType` is not
/// nil): rules under a schema without one are never compiled nor run.
pub(super) fn has_cel_type(schema: &Schema) -> bool {
    if schema.int_or_string {
        return true;
    }
    match type_name(schema) {
        "array" => schema.items.as_deref().is_some_and(has_cel_type),
        "object" => match &schema.additional {
            Additional::Schema(values) => has_cel_type(values),
            _ => true,
        },
        "string" | "boolean" | "number" | "integer" => true,
        _ => false,
    }
}
