//! Removing a set of fields from a value (what apply does with fields a manager stopped
//! applying), and extracting them (the value a manager's fields describe).

use serde_json::{Map as JsonMap, Value};

use super::{Handler, handler};
use crate::fieldpath::schema::{KindTypes, Relationship, TypeRef};
use crate::fieldpath::{PathElement, Set};

impl KindTypes {
    /// `value` without the members of `set`. A container whose entries all go stays, empty.
    pub fn remove_items(&self, value: &Value, set: &Set) -> Value {
        self.walk_remove(self.root(), value, set, false)
            .unwrap_or(Value::Null)
    }

    /// Only the members of `set` (with everything below them) from `value`; with
    /// `append_key_fields`, list items keep their key fields.
    pub fn extract_items(&self, value: &Value, set: &Set, append_key_fields: bool) -> Value {
        let set = if append_key_fields {
            self.with_key_fields(value, set)
        } else {
            set.clone()
        };
        self.walk_remove(self.root(), value, &set, true)
            .unwrap_or(Value::Null)
    }

    /// `set` plus the key fields of every list item it names that `value` has.
    fn with_key_fields(&self, value: &Value, set: &Set) -> Set {
        let Ok(present) = self.to_field_set(value) else {
            return set.clone();
        };
        let mut keys = Set::new();
        for path in set.paths() {
            if !present.has(&path.0) {
                continue;
            }
            for (i, element) in path.0.iter().enumerate() {
                if let PathElement::Key(fields) = element {
                    for (name, _) in fields {
                        let mut key_path = path.0[..=i].to_vec();
                        key_path.push(PathElement::field(name.as_str()));
                        keys.insert(&key_path);
                    }
                }
            }
        }
        set.union(&keys)
    }

    fn walk_remove(&self, ty: TypeRef, value: &Value, set: &Set, extract: bool) -> Option<Value> {
        let atom = self.resolve(ty)?;
        match handler(atom, atom.deduce(Some(value)))? {
            Handler::Scalar(_) => Some(value.clone()),
            Handler::List(list) => {
                let Value::Array(items) = value else {
                    return None;
                };
                if items.is_empty() || list.relationship == Relationship::Atomic {
                    return extract.then(|| value.clone());
                }
                let mut out = Vec::new();
                let mut had_matches = false;
                for item in items {
                    let Ok(element) = self.list_item_element(list, item) else {
                        if !extract {
                            out.push(item.clone());
                        }
                        continue;
                    };
                    let exact = set.has(std::slice::from_ref(&element));
                    let below = set.child(&element).filter(|s| !s.is_empty());
                    if extract {
                        let mut item = item.clone();
                        if let Some(below) = below {
                            item = self
                                .walk_remove(list.element, &item, below, true)
                                .unwrap_or(Value::Null);
                        }
                        if exact || below.is_some() {
                            out.push(item);
                        }
                    } else {
                        if exact {
                            continue;
                        }
                        let mut item = item.clone();
                        if let Some(below) = below {
                            had_matches = true;
                            item = self.removed_child(list.element, &item, below);
                        }
                        out.push(item);
                    }
                }
                (!out.is_empty() || (had_matches && !extract)).then_some(Value::Array(out))
            }
            Handler::Map(map) => {
                let Value::Object(fields) = value else {
                    return None;
                };
                if fields.is_empty() || map.relationship == Relationship::Atomic {
                    return extract.then(|| value.clone());
                }
                let mut out = JsonMap::new();
                let mut had_matches = false;
                for (key, v) in fields {
                    let element = PathElement::field(key.as_str());
                    let ty = map.entry_type(key);
                    if set.has_member(&element) {
                        if extract {
                            let kept = self.walk_remove(ty, v, set, true).unwrap_or(Value::Null);
                            out.insert(key.clone(), kept);
                        }
                        continue;
                    }
                    match set.child(&element).filter(|s| !s.is_empty()) {
                        Some(below) => {
                            had_matches = true;
                            let kept = if extract {
                                self.walk_remove(ty, v, below, true).unwrap_or(Value::Null)
                            } else {
                                self.removed_child(ty, v, below)
                            };
                            out.insert(key.clone(), kept);
                        }
                        None if extract => {}
                        None => {
                            out.insert(key.clone(), v.clone());
                        }
                    }
                }
                (!out.is_empty() || (had_matches && !extract)).then_some(Value::Object(out))
            }
        }
    }

    /// A child with `below` removed; a container emptied this way stays as an empty one.
    fn removed_child(&self, ty: TypeRef, value: &Value, below: &Set) -> Value {
        match self.walk_remove(ty, value, below, false) {
            Some(Value::Null) | None => match value {
                Value::Object(_) => Value::Object(JsonMap::new()),
                Value::Array(_) => Value::Array(Vec::new()),
                _ => Value::Null,
            },
            Some(v) => v,
        }
    }
}
