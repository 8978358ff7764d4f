//! The field set of a value: what a manager owns when it applies it.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Handler, ValidationErrors, handler};
use crate::fieldpath::schema::{KindTypes, Relationship, TypeRef};
use crate::fieldpath::{PathElement, Set};

impl KindTypes {
    /// The fields `value` sets: every scalar and atomic container, every list item (by key or
    /// value), and every map entry that is null, empty, or not a declared struct field.
    /// Structs that only contain fields are not members themselves.
    pub fn to_field_set(&self, value: &Value) -> Result<Set, ValidationErrors> {
        let mut set = Set::new();
        let mut path = Vec::new();
        let errors = self.collect_set(self.root(), value, &mut path, &mut set);
        errors.into_result().map(|()| set)
    }

    fn collect_set(
        &self,
        ty: TypeRef,
        value: &Value,
        path: &mut Vec<PathElement>,
        set: &mut Set,
    ) -> ValidationErrors {
        let atom = match self.atom(ty) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let mut errors = ValidationErrors::default();
        match handler(atom, atom.deduce(Some(value))) {
            Some(Handler::Scalar(_)) => set.insert(path),
            Some(Handler::List(list)) => {
                if list.relationship == Relationship::Atomic {
                    set.insert(path);
                    return errors;
                }
                let Value::Array(items) = value else {
                    return errors;
                };
                let elements: Vec<Option<PathElement>> = items
                    .iter()
                    .map(|item| self.list_item_element(list, item).ok())
                    .collect();
                let mut seen: BTreeSet<&PathElement> = BTreeSet::new();
                let mut duplicates: BTreeSet<&PathElement> = BTreeSet::new();
                for element in elements.iter().flatten() {
                    if !seen.insert(element) && duplicates.insert(element) {
                        path.push(element.clone());
                        set.insert(path);
                        path.pop();
                    }
                }
                for (item, element) in items.iter().zip(&elements) {
                    let Some(element) = element else { continue };
                    if duplicates.contains(element) {
                        continue;
                    }
                    path.push(element.clone());
                    errors.extend(self.collect_set(list.element, item, path, set));
                    set.insert(path);
                    path.pop();
                }
            }
            Some(Handler::Map(map)) => {
                if map.relationship == Relationship::Atomic {
                    set.insert(path);
                    return errors;
                }
                let Value::Object(fields) = value else {
                    return errors;
                };
                for (key, v) in fields {
                    path.push(PathElement::field(key.as_str()));
                    errors.extend(self.collect_set(map.entry_type(key), v, path, set));
                    let empty = v.is_null() || v.as_object().is_some_and(|m| m.is_empty());
                    if empty || map.field(key).is_none() {
                        set.insert(path);
                    }
                    path.pop();
                }
            }
            None => errors.extend(ValidationErrors::one("schema error: invalid atom: inlined")),
        }
        errors
    }
}
