//! What a [`KindTypes`] makes of JSON values: validation, field sets, comparison, the apply merge
//! and removing or extracting fields — structured-merge-diff's `typed` package.
//!
//! Every walk resolves the type at each node, takes the part of it the value matches (a node
//! without `type` may hold a scalar, list or map), and treats atomic containers as single
//! values.

mod compare;
mod merge;
mod reconcile;
mod remove;
mod to_set;
mod validate;

use std::fmt;

use serde_json::Value;

pub use compare::Comparison;

use super::PathElement;
use super::schema::{Atom, KindTypes, List, Parts, Relationship, TypeRef};

/// A value that does not fit its type, at a path printed as the apiserver prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// Where, e.g. `.spec.ports[name="a"].port` (empty at the root).
    pub path: String,
    /// What is wrong, in the apiserver's words.
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// The errors a walk found; printed as the apiserver prints them (one, or `errors:` and one
/// indented line each).
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors(pub Vec<ValidationError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            all => {
                f.write_str("errors:")?;
                all.iter().try_for_each(|e| write!(f, "\n  {e}"))
            }
        }
    }
}

impl ValidationErrors {
    fn one(message: impl Into<String>) -> Self {
        ValidationErrors(vec![ValidationError {
            path: String::new(),
            message: message.into(),
        }])
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn extend(&mut self, other: ValidationErrors) {
        self.0.extend(other.0);
    }

    /// Prefixes every error's path with `element` (errors come back up the walk).
    fn prefixed(mut self, element: &PathElement) -> Self {
        if !self.0.is_empty() {
            let prefix = element.to_string();
            for e in &mut self.0 {
                e.path.insert_str(0, &prefix);
            }
        }
        self
    }

    fn into_result(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }
}

/// Whether a list may hold two items with the same key or value (live objects may; applied
/// configurations may not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplicates {
    /// Duplicates are accepted.
    Allow,
    /// Duplicates are errors.
    Reject,
}

/// The part of a type a walk handles for a value: the map part first, then the scalar, then
/// the list (as the apiserver does for nodes that allow several).
pub(crate) enum Handler<'a> {
    Map(&'a super::schema::Map),
    Scalar(super::schema::Scalar),
    List(&'a List),
}

pub(crate) fn handler<'a>(atom: &'a Atom, parts: Parts) -> Option<Handler<'a>> {
    if parts.map
        && let Some(m) = &atom.map
    {
        return Some(Handler::Map(m));
    }
    if parts.scalar
        && let Some(s) = atom.scalar
    {
        return Some(Handler::Scalar(s));
    }
    if parts.list
        && let Some(l) = &atom.list
    {
        return Some(Handler::List(l));
    }
    None
}

impl KindTypes {
    pub(crate) fn atom(&self, ty: TypeRef) -> Result<&Atom, ValidationErrors> {
        self.resolve(ty).ok_or_else(|| {
            ValidationErrors::one("schema error: no type found matching: inlined type")
        })
    }

    /// The path element that names `item` in an associative list: its key fields (missing
    /// ones from their schema defaults), or its value for a set.
    pub fn list_item_element(&self, list: &List, item: &Value) -> Result<PathElement, String> {
        if list.relationship != Relationship::Associative {
            return Err("invalid indexing of non-associative list".into());
        }
        if list.keys.is_empty() {
            return match item {
                Value::Object(_) => {
                    Err("associative list without keys has an element that's a map type".into())
                }
                Value::Array(_) => {
                    Err("not supported: associative list with lists as elements".into())
                }
                Value::Null => Err(
                    "associative list without keys has an element that's an explicit null".into(),
                ),
                v => Ok(PathElement::Value(v.clone())),
            };
        }
        let fields = match item {
            Value::Null => {
                return Err("associative list with keys may not have a null element".into());
            }
            Value::Object(fields) => fields,
            _ => return Err("associative list with keys may not have non-map elements".into()),
        };
        let item_map = self.resolve(list.element).and_then(|a| a.map.as_ref());
        let mut key = Vec::new();
        for name in &list.keys {
            match fields.get(name) {
                Some(v) => key.push((name.clone(), v.clone())),
                None => {
                    let Some(item_map) = item_map else {
                        return Err(format!(
                            "couldn't find default value for {name}: associative list may not have non-map types"
                        ));
                    };
                    if let Some(default) = item_map.field(name).and_then(|f| f.default.clone()) {
                        key.push((name.clone(), default));
                    }
                }
            }
        }
        if key.is_empty() {
            let quoted: Vec<String> = list
                .keys
                .iter()
                .map(|k| crate::go_print::quote(k))
                .collect();
            return Err(format!(
                "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
                quoted.join(" ")
            ));
        }
        Ok(PathElement::key(key))
    }
}

/// A child value of a map or list, or nothing.
pub(crate) fn as_list(v: Option<&Value>) -> Option<&Vec<Value>> {
    match v {
        Some(Value::Array(items)) => Some(items),
        _ => None,
    }
}

pub(crate) fn as_map(v: Option<&Value>) -> Option<&serde_json::Map<String, Value>> {
    match v {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
