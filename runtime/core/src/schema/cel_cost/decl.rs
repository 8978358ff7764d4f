//! A schema as CEL sees it: declared types with the size bounds the apiserver assumes.
//!
//! This is the apiserver's `SchemaDeclType` (k8s.io/apiserver `pkg/cel/common/schemas.go`):
//! every node becomes a type with the largest number of elements (list items, map entries,
//! string characters, bytes) it may hold, taken from `maxItems`, `maxProperties` and
//! `maxLength` or, where those are missing, from how many of the smallest possible element fit
//! into one request (3 MiB).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use kubegen_go::cel::escape;

/// The apiserver's largest request, which bounds everything a schema leaves unbounded.
pub(crate) const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;

/// One schema node as a CEL type.
#[derive(Debug)]
pub(crate) struct Decl {
    /// What the node holds.
    pub kind: DeclKind,
    /// The most elements the node may hold (0 for scalars and objects).
    pub max_elements: i64,
    /// The fewest bytes the node's JSON can take.
    pub min_serialized_size: i64,
}

/// The shape of a [`Decl`].
#[derive(Debug)]
pub(crate) enum DeclKind {
    Bool,
    Int,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    /// `x-kubernetes-int-or-string`.
    Dyn,
    List(Arc<Decl>),
    /// A map with string keys and these values.
    Map(Arc<Decl>),
    /// An object's fields, by their escaped CEL names.
    Object(BTreeMap<String, Arc<Decl>>),
}

impl Decl {
    fn simple(kind: DeclKind, min_serialized_size: i64) -> Arc<Decl> {
        Arc::new(Decl {
            kind,
            max_elements: 0,
            min_serialized_size,
        })
    }

    /// A map's key type: the apiserver's plain `string`, whose size it leaves at zero.
    pub(super) fn map_key() -> Arc<Decl> {
        Decl::simple(DeclKind::String, 2)
    }
}

fn int(node: &Map<String, Value>, key: &str) -> Option<i64> {
    node.get(key).and_then(Value::as_i64)
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn zero_if_negative(v: i64) -> i64 {
    v.max(0)
}

/// Whether a node is `x-kubernetes-embedded-resource`.
pub(crate) fn is_embedded(node: &Map<String, Value>) -> bool {
    flag(node, "x-kubernetes-embedded-resource")
}

/// The CEL type of a schema node, or `None` where the apiserver exposes nothing to CEL.
/// `resource_root` is true for the top of a custom resource and of an embedded resource.
pub(crate) fn schema_decl(node: &Map<String, Value>, resource_root: bool) -> Option<Arc<Decl>> {
    if flag(node, "x-kubernetes-int-or-string") {
        let max = match int(node, "maxLength") {
            Some(n) => zero_if_negative(n).saturating_mul(4),
            None => MAX_REQUEST_SIZE_BYTES - 2,
        };
        return Some(Arc::new(Decl {
            kind: DeclKind::Dyn,
            max_elements: max,
            min_serialized_size: 1,
        }));
    }
    let with_meta;
    let node = if resource_root {
        with_meta = with_type_and_object_meta(node);
        &with_meta
    } else {
        node
    };
    let ty = node.get("type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "array" => {
            let items = node.get("items")?.as_object()?;
            let item = schema_decl(items, is_embedded(items))?;
            let max = match int(node, "maxItems") {
                Some(n) => zero_if_negative(n),
                None => (MAX_REQUEST_SIZE_BYTES - 2) / (item.min_serialized_size + 1),
            };
            Some(Arc::new(Decl {
                kind: DeclKind::List(item),
                max_elements: max,
                min_serialized_size: 2,
            }))
        }
        "object" => {
            if let Some(Value::Object(values)) = node.get("additionalProperties") {
                let value = schema_decl(values, is_embedded(values))?;
                let max = match int(node, "maxProperties") {
                    Some(n) => zero_if_negative(n),
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / (value.min_serialized_size + 6),
                };
                return Some(Arc::new(Decl {
                    kind: DeclKind::Map(value),
                    max_elements: max,
                    min_serialized_size: 2,
                }));
            }
            let required: Vec<&str> = node
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut fields = BTreeMap::new();
            let mut min_size: i64 = 2;
            if let Some(Value::Object(properties)) = node.get("properties") {
                for (name, prop) in properties {
                    let Some(prop) = prop.as_object() else {
                        continue;
                    };
                    let Some(field) = schema_decl(prop, is_embedded(prop)) else {
                        continue;
                    };
                    if required.contains(&name.as_str()) && !prop.contains_key("default") {
                        min_size += name.len() as i64 + field.min_serialized_size + 4;
                    }
                    if let Some(escaped) = escape(name) {
                        fields.insert(escaped, field);
                    }
                }
            }
            Some(Arc::new(Decl {
                kind: DeclKind::Object(fields),
                max_elements: 0,
                min_serialized_size: min_size,
            }))
        }
        "string" => {
            let format = node.get("format").and_then(Value::as_str).unwrap_or("");
            let max_length = int(node, "maxLength");
            let (kind, min, max) = match format {
                "byte" => (
                    DeclKind::Bytes,
                    2,
                    max_length.map_or(MAX_REQUEST_SIZE_BYTES - 2, zero_if_negative),
                ),
                "duration" => (DeclKind::Duration, 3, 32),
                "date" => (DeclKind::Timestamp, 12, 12),
                "date-time" => (DeclKind::Timestamp, 21, 32),
                _ => {
                    let max = match max_length {
                        Some(n) => zero_if_negative(n).saturating_mul(4),
                        None => match node.get("enum").and_then(Value::as_array) {
                            Some(values) if !values.is_empty() => values
                                .iter()
                                .filter_map(Value::as_str)
                                .map(|s| s.len() as i64)
                                .max()
                                .unwrap_or(0),
                            _ => MAX_REQUEST_SIZE_BYTES - 2,
                        },
                    };
                    (DeclKind::String, 2, max)
                }
            };
            Some(Arc::new(Decl {
                kind,
                max_elements: max,
                min_serialized_size: min,
            }))
        }
        "boolean" => Some(Decl::simple(DeclKind::Bool, 4)),
        "number" => Some(Decl::simple(DeclKind::Double, 1)),
        "integer" => Some(Decl::simple(DeclKind::Int, 1)),
        _ => None,
    }
}

/// The apiserver always lets rules at a resource's root read `apiVersion`, `kind`,
/// `metadata.name` and `metadata.generateName`: unless all four are declared as strings, it
/// declares them itself (and `metadata` with only those two fields).
fn with_type_and_object_meta(node: &Map<String, Value>) -> Map<String, Value> {
    let props = node.get("properties").and_then(Value::as_object);
    let typed = |p: Option<&Value>, ty: &str| {
        p.and_then(|p| p.get("type")).and_then(Value::as_str) == Some(ty)
    };
    let metadata = props.and_then(|p| p.get("metadata"));
    let meta_props = metadata.and_then(|m| m.get("properties"));
    let complete = props.is_some()
        && typed(props.and_then(|p| p.get("kind")), "string")
        && typed(props.and_then(|p| p.get("apiVersion")), "string")
        && typed(metadata, "object")
        && meta_props.is_some()
        && typed(meta_props.and_then(|m| m.get("name")), "string")
        && typed(meta_props.and_then(|m| m.get("generateName")), "string");
    let mut result = node.clone();
    if complete {
        return result;
    }
    let mut properties = props.cloned().unwrap_or_default();
    let string = serde_json::json!({"type": "string"});
    properties.insert("kind".into(), string.clone());
    properties.insert("apiVersion".into(), string.clone());
    properties.insert(
        "metadata".into(),
        serde_json::json!({"type": "object", "properties": {"name": string, "generateName": string}}),
    );
    result.insert("properties".into(), Value::Object(properties));
    result
}
