//! The apply merge: a configuration laid over the live object. Granular maps merge entry by
//! entry, `map` lists item by key and `set` lists by value (keeping the live order where it
//! agrees with the configuration's), and everything else — scalars, atomic lists and maps —
//! is replaced by the configuration's value.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map as JsonMap, Value};

use super::compare::union_keys;
use super::validate::validate_scalar_pair;
use super::{Handler, ValidationErrors, as_list, as_map, handler};
use crate::fieldpath::PathElement;
use crate::fieldpath::schema::{KindTypes, List, Map, Relationship, TypeRef};

/// A list's path elements in order, and each element's item (`None` when duplicated).
type IndexedItems<'v> = (Vec<PathElement>, BTreeMap<PathElement, Option<&'v Value>>);

impl KindTypes {
    /// Merges `rhs` (an applied configuration) into `lhs` (the live object).
    pub fn merge(&self, lhs: &Value, rhs: &Value) -> Result<Value, ValidationErrors> {
        let (out, errors) = self.merge_node(self.root(), Some(lhs), Some(rhs));
        errors.into_result().map(|()| out.unwrap_or(Value::Null))
    }

    fn merge_node(
        &self,
        ty: TypeRef,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
    ) -> (Option<Value>, ValidationErrors) {
        let atom = match self.atom(ty) {
            Ok(a) => a,
            Err(e) => return (None, e),
        };
        let (l, r) = (atom.deduce(lhs), atom.deduce(rhs));
        if rhs.is_none() {
            self.merge_with(handler(atom, l), lhs, rhs)
        } else if lhs.is_none() || l == r {
            self.merge_with(handler(atom, r), lhs, rhs)
        } else {
            // The live value's kind differs: only its errors count, the configuration wins.
            let (_, mut errors) = self.merge_with(handler(atom, l), lhs, rhs);
            let (out, e) = self.merge_with(handler(atom, r), lhs, rhs);
            errors.extend(e);
            (out, errors)
        }
    }

    fn merge_with(
        &self,
        h: Option<Handler<'_>>,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
    ) -> (Option<Value>, ValidationErrors) {
        let keep_rhs = || rhs.or(lhs).cloned();
        match h {
            Some(Handler::Scalar(kind)) => {
                if let Err(errors) = validate_scalar_pair(kind, lhs, rhs) {
                    return (None, errors);
                }
                (keep_rhs(), ValidationErrors::default())
            }
            Some(Handler::List(list)) => {
                let (l, r) = (as_list(lhs), as_list(rhs));
                let empty = l.is_none_or(|l| l.is_empty()) && r.is_none_or(|r| r.is_empty());
                if list.relationship == Relationship::Atomic || empty {
                    return (keep_rhs(), ValidationErrors::default());
                }
                self.merge_list(list, l.map_or(&[][..], |v| v), r.map_or(&[][..], |v| v))
            }
            Some(Handler::Map(map)) => {
                let (l, r) = (as_map(lhs), as_map(rhs));
                let empty = l.is_none_or(|l| l.is_empty()) && r.is_none_or(|r| r.is_empty());
                if map.relationship == Relationship::Atomic || empty {
                    return (keep_rhs(), ValidationErrors::default());
                }
                self.merge_map(map, l, r)
            }
            None => (
                None,
                ValidationErrors::one("schema error: invalid atom: inlined"),
            ),
        }
    }

    fn merge_map(
        &self,
        map: &Map,
        l: Option<&JsonMap<String, Value>>,
        r: Option<&JsonMap<String, Value>>,
    ) -> (Option<Value>, ValidationErrors) {
        let mut out = JsonMap::new();
        let mut errors = ValidationErrors::default();
        for key in union_keys(l, r) {
            let (v, e) = self.merge_node(
                map.entry_type(key),
                l.and_then(|m| m.get(key)),
                r.and_then(|m| m.get(key)),
            );
            errors.extend(e.prefixed(&PathElement::field(key)));
            if let Some(v) = v {
                out.insert(key.to_owned(), v);
            }
        }
        ((!out.is_empty()).then_some(Value::Object(out)), errors)
    }

    /// Indexes a list's items by path element. Live lists may hold duplicates (their value is
    /// then null); configurations may not.
    fn index_items<'v>(
        &self,
        list: &List,
        items: &'v [Value],
        allow_duplicates: bool,
    ) -> Result<IndexedItems<'v>, ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let mut elements = Vec::with_capacity(items.len());
        let mut observed: BTreeMap<PathElement, Option<&Value>> = BTreeMap::new();
        for (i, item) in items.iter().enumerate() {
            let element = match self.list_item_element(list, item) {
                Ok(e) => e,
                Err(e) => {
                    errors.extend(ValidationErrors::one(format!("element {i}: {e}")));
                    continue;
                }
            };
            match observed.get_mut(&element) {
                Some(_) if !allow_duplicates => {
                    errors.extend(ValidationErrors::one(format!(
                        "duplicate entries for key {element}"
                    )));
                    continue;
                }
                Some(slot) => *slot = None,
                None => {
                    observed.insert(element.clone(), Some(item));
                }
            }
            elements.push(element);
        }
        if errors.is_empty() {
            Ok((elements, observed))
        } else {
            Err(errors)
        }
    }

    fn merge_list(
        &self,
        list: &List,
        lhs: &[Value],
        rhs: &[Value],
    ) -> (Option<Value>, ValidationErrors) {
        let mut errors = ValidationErrors::default();
        let rhs_index = self.index_items(list, rhs, false);
        let lhs_index = self.index_items(list, lhs, true);
        let ((rhs_pes, observed_rhs), (lhs_pes, observed_lhs)) = match (rhs_index, lhs_index) {
            (Ok(r), Ok(l)) => (r, l),
            (r, l) => {
                for e in [r.err(), l.err()].into_iter().flatten() {
                    errors.extend(e);
                }
                return (None, errors);
            }
        };
        const NULL: Value = Value::Null;
        let lookup = |map: &BTreeMap<PathElement, Option<&'_ Value>>, pe: &PathElement| {
            map.get(pe).map(|v| v.unwrap_or(&NULL)).cloned()
        };
        let mut shared = rhs_pes.iter().filter(|pe| observed_lhs.contains_key(*pe));
        let mut next_shared = shared.next();
        let mut merged_rhs: BTreeSet<&PathElement> = BTreeSet::new();
        let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
        let mut push = |this: &Self,
                        out: &mut Vec<Value>,
                        pe: &PathElement,
                        l: Option<&Value>,
                        r: Option<&Value>| {
            let (v, e) = this.merge_node(list.element, l, r);
            errors.extend(e.prefixed(pe));
            if let Some(v) = v {
                out.push(v);
            }
        };
        let (mut li, mut ri) = (0, 0);
        while li < lhs_pes.len() || ri < rhs_pes.len() {
            if li < lhs_pes.len() && ri < rhs_pes.len() {
                let pe = &lhs_pes[li];
                if *pe == rhs_pes[ri] {
                    merged_rhs.insert(pe);
                    let l = lookup(&observed_lhs, pe);
                    let r = lookup(&observed_rhs, pe);
                    push(self, &mut out, pe, l.as_ref(), r.as_ref());
                    li += 1;
                    ri += 1;
                    next_shared = shared.next();
                    continue;
                }
                if observed_rhs.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                    li += 1;
                    continue;
                }
            }
            if li < lhs_pes.len() {
                let pe = &lhs_pes[li];
                if !observed_rhs.contains_key(pe) {
                    push(self, &mut out, pe, Some(&lhs[li]), None);
                    li += 1;
                    continue;
                } else if merged_rhs.contains(pe) {
                    li += 1;
                }
            }
            if ri < rhs_pes.len() {
                let pe = &rhs_pes[ri];
                merged_rhs.insert(pe);
                let l = lookup(&observed_lhs, pe);
                let r = lookup(&observed_rhs, pe);
                push(self, &mut out, pe, l.as_ref(), r.as_ref());
                ri += 1;
                if next_shared == Some(pe) {
                    next_shared = shared.next();
                }
            }
        }
        ((!out.is_empty()).then_some(Value::Array(out)), errors)
    }
}
