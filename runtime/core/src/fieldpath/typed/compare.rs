//! Which fields two values of a type differ in: what an Update changes.

use std::collections::BTreeMap;

use serde_json::Value;

use super::validate::validate_scalar_pair;
use super::{Handler, ValidationErrors, as_list, as_map, handler};
use crate::fieldpath::schema::{KindTypes, List, Map, Relationship, TypeRef};
use crate::fieldpath::{PathElement, Set, value};

/// The fields a change added, modified and removed. Containers that appear or disappear are
/// members themselves, as are the leaves inside them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Fields only the new value has.
    pub added: Set,
    /// Leaves both have, with different values.
    pub modified: Set,
    /// Fields only the old value has.
    pub removed: Set,
}

impl Comparison {
    /// Whether the values are the same.
    pub fn is_same(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// The comparison without the paths `exclude` names, nor those below its members (how the
    /// apiserver leaves out fields a subresource resets).
    pub fn excluding(mut self, exclude: &Set) -> Comparison {
        self.added.remove_recursive(exclude);
        self.modified.remove_recursive(exclude);
        self.removed.remove_recursive(exclude);
        self
    }
}

struct Walk<'s> {
    schema: &'s KindTypes,
    path: Vec<PathElement>,
    out: Comparison,
}

impl KindTypes {
    /// Compares `lhs` (old) with `rhs` (new). Both are expected to fit the schema
    /// ([`KindTypes::validate`]), as structured-merge-diff's typed values always do: members
    /// equal on both sides are not walked, so an error inside them goes unreported.
    pub fn compare(&self, lhs: &Value, rhs: &Value) -> Result<Comparison, ValidationErrors> {
        let mut w = Walk {
            schema: self,
            path: Vec::new(),
            out: Comparison::default(),
        };
        let errors = w.node(self.root(), Some(lhs), Some(rhs));
        errors.into_result().map(|()| w.out)
    }
}

impl Walk<'_> {
    fn node(&mut self, ty: TypeRef, lhs: Option<&Value>, rhs: Option<&Value>) -> ValidationErrors {
        let atom = match self.schema.atom(ty) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let (l, r) = (atom.deduce(lhs), atom.deduce(rhs));
        let mut errors = ValidationErrors::default();
        let mut in_leaf = false;
        if rhs.is_none() {
            errors.extend(self.handle(handler(atom, l), lhs, rhs, &mut in_leaf));
        } else if lhs.is_none() || l == r {
            errors.extend(self.handle(handler(atom, r), lhs, rhs, &mut in_leaf));
        } else {
            let mut other_leaf = false;
            errors.extend(self.handle(handler(atom, l), lhs, rhs, &mut other_leaf));
            errors.extend(self.handle(handler(atom, r), lhs, rhs, &mut in_leaf));
        }
        if !in_leaf {
            if lhs.is_none() {
                self.out.added.insert(&self.path);
            } else if rhs.is_none() {
                self.out.removed.insert(&self.path);
            }
        }
        errors
    }

    fn handle(
        &mut self,
        h: Option<Handler<'_>>,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> ValidationErrors {
        match h {
            Some(Handler::Scalar(kind)) => {
                if let Err(errors) = validate_scalar_pair(kind, lhs, rhs) {
                    return errors;
                }
                self.leaf(lhs, rhs, in_leaf);
                ValidationErrors::default()
            }
            Some(Handler::List(list)) => self.list(list, lhs, rhs, in_leaf),
            Some(Handler::Map(map)) => self.map(map, lhs, rhs, in_leaf),
            None => ValidationErrors::one("schema error: invalid atom: inlined"),
        }
    }

    fn leaf(&mut self, lhs: Option<&Value>, rhs: Option<&Value>, in_leaf: &mut bool) {
        if *in_leaf {
            return;
        }
        *in_leaf = true;
        match (lhs, rhs) {
            (None, _) => self.out.added.insert(&self.path),
            (_, None) => self.out.removed.insert(&self.path),
            (Some(l), Some(r)) if !value::equals(l, r) => self.out.modified.insert(&self.path),
            _ => {}
        }
    }

    fn list(
        &mut self,
        list: &List,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> ValidationErrors {
        let (l, r) = (as_list(lhs), as_list(rhs));
        let empty = l.is_none_or(|l| l.is_empty()) && r.is_none_or(|r| r.is_empty());
        if list.relationship == Relationship::Atomic || empty {
            self.leaf(lhs, rhs, in_leaf);
            return ValidationErrors::default();
        }
        let mut errors = ValidationErrors::default();
        // Items grouped by key, keys in the order they first appear (old list first).
        let mut order: Vec<PathElement> = Vec::new();
        let mut groups: Vec<(Vec<&Value>, Vec<&Value>)> = Vec::new();
        let mut group_of: BTreeMap<PathElement, usize> = BTreeMap::new();
        for (side, items) in [(0, l), (1, r)] {
            for (i, item) in items.into_iter().flatten().enumerate() {
                let element = match self.schema.list_item_element(list, item) {
                    Ok(e) => e,
                    Err(e) => {
                        errors.extend(ValidationErrors::one(format!("element {i}: {e}")));
                        continue;
                    }
                };
                let at = match group_of.get(&element) {
                    Some(at) => *at,
                    None => {
                        group_of.insert(element.clone(), order.len());
                        order.push(element);
                        groups.push((Vec::new(), Vec::new()));
                        order.len() - 1
                    }
                };
                if side == 0 {
                    groups[at].0.push(item);
                } else {
                    groups[at].1.push(item);
                }
            }
        }
        for (element, (ls, rs)) in order.into_iter().zip(groups) {
            match (ls.len(), rs.len()) {
                (0..=1, 0..=1) => {
                    let (l, r) = (ls.first().copied(), rs.first().copied());
                    if !unchanged(l, r) {
                        errors.extend(self.item(list, &element, l, r));
                    }
                }
                (2.., 2..) => {
                    let same = ls.len() == rs.len()
                        && ls.iter().zip(&rs).all(|(a, b)| value::equals(a, b));
                    if !same {
                        self.path.push(element);
                        self.out.modified.insert(&self.path);
                        self.path.pop();
                    }
                }
                (2.., _) => {
                    if let Some(r) = rs.first() {
                        errors.extend(self.item(list, &element, None, Some(r)));
                    }
                    self.path.push(element);
                    self.out.removed.insert(&self.path);
                    self.path.pop();
                }
                (_, _) => {
                    if let Some(l) = ls.first() {
                        errors.extend(self.item(list, &element, Some(l), None));
                    }
                    self.path.push(element);
                    self.out.added.insert(&self.path);
                    self.path.pop();
                }
            }
        }
        errors
    }

    fn item(
        &mut self,
        list: &List,
        element: &PathElement,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
    ) -> ValidationErrors {
        self.path.push(element.clone());
        let errors = self.node(list.element, lhs, rhs).prefixed(element);
        self.path.pop();
        errors
    }

    fn map(
        &mut self,
        map: &Map,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> ValidationErrors {
        let (l, r) = (as_map(lhs), as_map(rhs));
        let empty = l.is_none_or(|l| l.is_empty()) && r.is_none_or(|r| r.is_empty());
        if map.relationship == Relationship::Atomic || empty {
            self.leaf(lhs, rhs, in_leaf);
            return ValidationErrors::default();
        }
        let mut errors = ValidationErrors::default();
        let keys = union_keys(l, r);
        for key in keys {
            let (lv, rv) = (l.and_then(|m| m.get(key)), r.and_then(|m| m.get(key)));
            if unchanged(lv, rv) {
                continue;
            }
            self.path.push(PathElement::field(key));
            let e = self.node(map.entry_type(key), lv, rv);
            if let Some(element) = self.path.pop()
                && !e.is_empty()
            {
                errors.extend(e.prefixed(&element));
            }
        }
        errors
    }
}

/// Whether a member is on both sides and equal: its walk would find nothing added, removed or
/// modified. Both objects were typed against the schema before they are compared (the field
/// manager validates them first), so the walk would find no error in it either.
fn unchanged(lhs: Option<&Value>, rhs: Option<&Value>) -> bool {
    matches!((lhs, rhs), (Some(l), Some(r)) if value::equals(l, r))
}

/// The keys of either map, each once.
pub(super) fn union_keys<'a>(
    l: Option<&'a serde_json::Map<String, Value>>,
    r: Option<&'a serde_json::Map<String, Value>>,
) -> Vec<&'a str> {
    let mut keys: Vec<&str> = l
        .into_iter()
        .flat_map(|m| m.keys())
        .map(String::as_str)
        .collect();
    keys.extend(
        r.into_iter()
            .flat_map(|m| m.keys())
            .map(String::as_str)
            .filter(|k| !l.is_some_and(|m| m.contains_key(*k))),
    );
    keys
}
