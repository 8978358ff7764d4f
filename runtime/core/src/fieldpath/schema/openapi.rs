//! From an OpenAPI v3 structural schema to types, as the apiserver's type converter does it
//! for custom resources (kube-openapi's `schemaconv` over the apiextensions builder's output).

use serde_json::{Map as JsonMap, Value};

use super::{
    Atom, KindTypes, List, Map, Relationship, Scalar, SchemaError, StructField, TypeRef, builtin,
};

/// Builds a [`KindTypes`]'s types node by node.
pub(super) struct Builder {
    schema: KindTypes,
    untyped: TypeRef,
    deduced: TypeRef,
    object_meta: Option<TypeRef>,
    errors: Vec<String>,
}

impl Builder {
    pub(super) fn new() -> Self {
        let mut schema = KindTypes {
            atoms: Vec::new(),
            root: TypeRef::NONE,
        };
        // `__untyped_atomic_`: any value, containers atomic.
        let untyped = schema.add(Atom::default());
        // `__untyped_deduced_`: any value; maps granular, lists atomic.
        let deduced = schema.add(Atom::default());
        schema.atoms[untyped.0.unwrap_or(0) as usize] = Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(List {
                element: untyped,
                relationship: Relationship::Atomic,
                keys: Vec::new(),
            }),
            map: Some(Map {
                fields: Vec::new(),
                element: untyped,
                relationship: Relationship::Atomic,
            }),
        };
        schema.atoms[deduced.0.unwrap_or(1) as usize] = Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(List {
                element: untyped,
                relationship: Relationship::Atomic,
                keys: Vec::new(),
            }),
            map: Some(Map {
                fields: Vec::new(),
                element: deduced,
                relationship: Relationship::Separable,
            }),
        };
        Builder {
            schema,
            untyped,
            deduced,
            object_meta: None,
            errors: Vec::new(),
        }
    }

    pub(super) fn finish(mut self, root: TypeRef) -> KindTypes {
        self.schema.root = root;
        self.schema
    }

    /// A kind's object type: its schema with `apiVersion`, `kind` and `metadata` set as the
    /// apiserver's OpenAPI builder sets them.
    pub(super) fn kind(&mut self, node: &Value, preserve_unknown: bool) -> TypeRef {
        let mut node = node.clone();
        add_type_meta(&mut node);
        self.node(&node, preserve_unknown)
    }

    fn object_meta(&mut self) -> TypeRef {
        if let Some(t) = self.object_meta {
            return t;
        }
        let t = self.node(&builtin::object_meta(), false);
        self.object_meta = Some(t);
        t
    }

    fn node(&mut self, node: &Value, preserve_unknown: bool) -> TypeRef {
        let empty = JsonMap::new();
        let n = node.as_object().unwrap_or(&empty);
        if n.get("$ref").and_then(Value::as_str) == Some(builtin::OBJECT_META_REF) {
            return self.object_meta();
        }
        let preserve_unknown = preserve_unknown || flag(n, "x-kubernetes-preserve-unknown-fields");
        let atom = match n.get("type").and_then(Value::as_str).unwrap_or("") {
            "" => Atom {
                scalar: Some(Scalar::Untyped),
                list: Some(self.list(n, preserve_unknown)),
                map: Some(self.map(n, preserve_unknown)),
            },
            "object" => Atom {
                map: Some(self.map(n, preserve_unknown)),
                ..Atom::default()
            },
            "array" => Atom {
                list: Some(self.list(n, preserve_unknown)),
                ..Atom::default()
            },
            "integer" | "number" => scalar(Scalar::Numeric),
            "boolean" => scalar(Scalar::Boolean),
            "string" => match n.get("format").and_then(Value::as_str).unwrap_or("") {
                "" | "byte" => scalar(Scalar::String),
                _ => scalar(Scalar::Untyped),
            },
            other => {
                self.errors.push(format!("unrecognized type: '{other}'"));
                scalar(Scalar::Untyped)
            }
        };
        self.schema.add(atom)
    }

    fn map(&mut self, n: &JsonMap<String, Value>, preserve_unknown: bool) -> Map {
        let properties = n.get("properties").and_then(Value::as_object);
        let mut fields: Vec<StructField> = properties
            .into_iter()
            .flatten()
            .map(|(name, member)| StructField {
                name: name.clone(),
                ty: self.node(member, preserve_unknown),
                default: member.get("default").cloned(),
            })
            .collect();
        fields.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let element = match n.get("additionalProperties") {
            None | Some(Value::Null) => {
                if preserve_unknown || fields.is_empty() {
                    self.deduced
                } else {
                    TypeRef::NONE
                }
            }
            Some(Value::Bool(true)) => self.deduced,
            Some(Value::Bool(_)) => TypeRef::NONE,
            Some(schema) => self.node(schema, preserve_unknown),
        };
        let relationship = match n.get("x-kubernetes-map-type").and_then(Value::as_str) {
            Some("atomic") => Relationship::Atomic,
            _ => Relationship::Separable,
        };
        Map {
            fields,
            element,
            relationship,
        }
    }

    fn list(&mut self, n: &JsonMap<String, Value>, preserve_unknown: bool) -> List {
        let (relationship, keys) = match n.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => (Relationship::Associative, Vec::new()),
            Some("map") => {
                let keys: Vec<String> = n
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect();
                if keys.is_empty() {
                    self.errors.push("missing map keys".into());
                }
                (Relationship::Associative, keys)
            }
            _ => (Relationship::Atomic, Vec::new()),
        };
        let element = match n.get("items") {
            Some(items) if items.is_object() => self.node(items, preserve_unknown),
            _ => self.untyped,
        };
        List {
            element,
            relationship,
            keys,
        }
    }
}

fn scalar(s: Scalar) -> Atom {
    Atom {
        scalar: Some(s),
        ..Atom::default()
    }
}

fn flag(n: &JsonMap<String, Value>, key: &str) -> bool {
    n.get(key) == Some(&Value::Bool(true))
}

/// `apiVersion`, `kind` and `metadata` at the root, and in every embedded resource below it.
fn add_type_meta(node: &mut Value) {
    set_type_meta(node);
    add_embedded(node);
}

fn set_type_meta(node: &mut Value) {
    if !node.is_object() {
        return;
    }
    let props = &mut node["properties"];
    if !props.is_object() {
        *props = Value::Object(JsonMap::new());
    }
    props["apiVersion"] = serde_json::json!({"type": "string"});
    props["kind"] = serde_json::json!({"type": "string"});
    props["metadata"] = serde_json::json!({"$ref": builtin::OBJECT_META_REF});
}

fn add_embedded(node: &mut Value) {
    let Value::Object(n) = node else { return };
    if let Some(Value::Object(props)) = n.get_mut("properties") {
        props.values_mut().for_each(add_embedded);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = n.get_mut(key) {
            add_embedded(child);
        }
    }
    if flag(n, "x-kubernetes-embedded-resource") {
        set_type_meta(node);
    }
}

impl KindTypes {
    /// The types of a kind from its CRD version's `openAPIV3Schema`, as the apiserver builds
    /// them. Errors name what the apiserver's converter would refuse (then it tracks fields
    /// without a schema).
    pub fn from_openapi(open_api_v3_schema: &Value) -> Result<KindTypes, SchemaError> {
        let mut b = Builder::new();
        let root = b.kind(open_api_v3_schema, false);
        if !b.errors.is_empty() {
            return Err(SchemaError(b.errors));
        }
        Ok(b.finish(root))
    }

    /// The types the apiserver tracks a kind's fields with: from its schema, or — when the
    /// schema cannot be typed — by what the fields hold, as the apiserver falls back to.
    pub fn from_openapi_or_deduced(open_api_v3_schema: &Value) -> KindTypes {
        KindTypes::from_openapi(open_api_v3_schema).unwrap_or_else(|_| KindTypes::deduced())
    }

    /// The schema the apiserver falls back to when a kind has none: every field typed by what
    /// it holds.
    pub fn deduced() -> KindTypes {
        let b = Builder::new();
        let deduced = b.deduced;
        b.finish(deduced)
    }
}
