//! The types of a kind's fields, as structured-merge-diff sees them: scalars, lists (atomic,
//! sets, or maps keyed by some of their items' fields) and maps (structs with declared fields
//! and/or an element type; granular or atomic).
//!
//! A [`KindTypes`] is built from a CRD version's OpenAPI v3 schema with
//! [`KindTypes::from_openapi`], the way the apiserver builds the type converter it tracks field
//! ownership with: `metadata` (at the root and in embedded resources) is Kubernetes'
//! `ObjectMeta`, `apiVersion` and `kind` are strings, nodes without a type
//! (`x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`) may hold a scalar, a
//! list or a map, and fields nobody declared under `x-kubernetes-preserve-unknown-fields` are
//! typed by what they hold (maps granular, lists atomic).

mod builtin;
mod openapi;

use serde_json::Value;

/// A reference to a type of a [`KindTypes`]; [`TypeRef::NONE`] is "no type": a map whose element
/// type is none accepts only its declared fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeRef(Option<u32>);

impl TypeRef {
    /// No type.
    pub const NONE: TypeRef = TypeRef(None);

    /// Whether this refers to a type.
    pub fn is_some(self) -> bool {
        self.0.is_some()
    }
}

/// Which kind of scalar a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// An integer or a float.
    Numeric,
    /// A string.
    String,
    /// A boolean.
    Boolean,
    /// Any scalar (int-or-string, dates, quantities, other formats).
    Untyped,
}

/// How a container's items relate to each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relationship {
    /// The container is one value: owned, merged and replaced whole.
    Atomic,
    /// A list whose items are identified by their value (`set`) or key fields (`map`).
    Associative,
    /// A map whose entries are owned and merged separately.
    Separable,
}

/// A list type.
#[derive(Clone, Debug)]
pub struct List {
    /// The items' type.
    pub element: TypeRef,
    /// Atomic, or associative (`set` without keys, `map` with them).
    pub relationship: Relationship,
    /// The key fields of a `map` list.
    pub keys: Vec<String>,
}

/// A field of a struct.
#[derive(Clone, Debug)]
pub struct StructField {
    /// The field's name.
    pub name: String,
    /// Its type.
    pub ty: TypeRef,
    /// Its schema default (used for list-map keys an item leaves out).
    pub default: Option<Value>,
}

/// A map type: a struct's declared fields, and the type of any other entry.
#[derive(Clone, Debug)]
pub struct Map {
    /// Declared fields, sorted by name.
    pub fields: Vec<StructField>,
    /// The type of undeclared entries ([`TypeRef::NONE`]: none allowed).
    pub element: TypeRef,
    /// Separable (granular) or atomic.
    pub relationship: Relationship,
}

impl Map {
    /// The declared field `name`.
    pub fn field(&self, name: &str) -> Option<&StructField> {
        self.fields
            .binary_search_by(|f| by_name(&f.name, name))
            .ok()
            .map(|at| &self.fields[at])
    }

    /// The type of entry `name`: its field's type, or the element type.
    pub fn entry_type(&self, name: &str) -> TypeRef {
        self.field(name).map_or(self.element, |f| f.ty)
    }
}

/// `a.cmp(b)`, deciding by the first bytes where they differ without a call to `memcmp`:
/// most steps of a search through field names end there. Lookups by name are the field
/// manager's most frequent step.
#[inline]
fn by_name(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// What a value of a type may be. A type with more than one (a node without `type`) takes the
/// one matching the value.
#[derive(Clone, Debug, Default)]
pub struct Atom {
    /// Scalar.
    pub scalar: Option<Scalar>,
    /// List.
    pub list: Option<List>,
    /// Map.
    pub map: Option<Map>,
}

impl Atom {
    /// The parts of this type a value takes: the one matching the value's kind, or all of
    /// them when none matches (or the value is absent or null).
    pub fn deduce(&self, value: Option<&Value>) -> Parts {
        let all = Parts {
            scalar: self.scalar.is_some(),
            list: self.list.is_some(),
            map: self.map.is_some(),
        };
        match value {
            Some(Value::Number(_) | Value::String(_) | Value::Bool(_)) if all.scalar => Parts {
                scalar: true,
                ..Parts::default()
            },
            Some(Value::Array(_)) if all.list => Parts {
                list: true,
                ..Parts::default()
            },
            Some(Value::Object(_)) if all.map => Parts {
                map: true,
                ..Parts::default()
            },
            _ => all,
        }
    }
}

/// Which parts of an [`Atom`] apply to a value. Walks handle the map part first, then the
/// scalar, then the list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    /// The scalar part.
    pub scalar: bool,
    /// The list part.
    pub list: bool,
    /// The map part.
    pub map: bool,
}

/// The types of one kind (one version of it), with the kind's root type.
#[derive(Clone, Debug)]
pub struct KindTypes {
    atoms: Vec<Atom>,
    root: TypeRef,
}

/// A schema the apiserver could not turn into types.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot type the schema: {}", .0.join("; "))]
pub struct SchemaError(pub Vec<String>);

impl KindTypes {
    /// The root type: the kind's object.
    pub fn root(&self) -> TypeRef {
        self.root
    }

    /// The type `ty` refers to.
    pub fn resolve(&self, ty: TypeRef) -> Option<&Atom> {
        ty.0.and_then(|i| self.atoms.get(i as usize))
    }

    fn add(&mut self, atom: Atom) -> TypeRef {
        self.atoms.push(atom);
        TypeRef(Some((self.atoms.len() - 1) as u32))
    }

    /// The schema of `autoscaling/v1` `Scale`, the object of the scale subresource.
    pub fn scale() -> KindTypes {
        let mut schema = openapi::Builder::new();
        let root = schema.kind(&builtin::scale(), false);
        schema.finish(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_order_as_strings_do_and_every_declared_field_is_found() {
        let names = [
            "",
            "a",
            "apiVersion",
            "apiversion",
            "b",
            "kind",
            "kin",
            "metadata",
            "spec",
            "spe",
            "status",
            "x",
            "\u{e9}t\u{e9}",
            "Z",
        ];
        for a in names {
            for b in names {
                assert_eq!(by_name(a, b), a.cmp(b), "{a:?} against {b:?}");
            }
        }
        let mut sorted: Vec<&str> = names.to_vec();
        sorted.sort_unstable();
        let map = Map {
            fields: (sorted.iter())
                .map(|n| StructField {
                    name: (*n).to_owned(),
                    ty: TypeRef::NONE,
                    default: None,
                })
                .collect(),
            element: TypeRef::NONE,
            relationship: Relationship::Atomic,
        };
        for n in names {
            assert_eq!(map.field(n).map(|f| f.name.as_str()), Some(n));
        }
        assert!(map.field("absent").is_none() && map.field("spec2").is_none());
    }
}
