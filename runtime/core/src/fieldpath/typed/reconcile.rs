//! Field sets against the schema's shape: sets recorded before a container became atomic are
//! collapsed to the container, and sets get their struct fields as members where apply needs
//! them to be.

use super::{Handler, handler};
use crate::fieldpath::schema::{Atom, KindTypes, Parts, Relationship, Scalar, TypeRef};
use crate::fieldpath::{PathElement, Set};

impl KindTypes {
    /// `set` with every struct field that has members below it made a member too (so that
    /// removing a manager's set removes the structs it alone filled).
    pub fn ensure_named_fields_are_members(&self, set: &Set) -> Set {
        self.ensure_at(self.root(), set)
    }

    fn ensure_at(&self, ty: TypeRef, set: &Set) -> Set {
        let atom = self.resolve(ty);
        let map = atom.and_then(|a| a.map.as_ref());
        let list = atom.and_then(|a| a.list.as_ref());
        let mut members: Vec<PathElement> = set.members().cloned().collect();
        let mut children = Vec::with_capacity(set.children().len());
        for (element, child) in set.children() {
            let child_ty = match (element, map, list) {
                (PathElement::Field(name), Some(m), _) => {
                    if m.field(name).is_some() && !set.has_member(element) {
                        members.push(element.clone());
                    }
                    m.entry_type(name)
                }
                (PathElement::Key(_), _, Some(l)) => l.element,
                _ => TypeRef::NONE,
            };
            children.push((element.clone(), self.ensure_at(child_ty, child)));
        }
        Set::from_parts(members, children)
    }

    /// `set` adjusted to the schema: paths below an atomic list or map are replaced by the
    /// container itself. `None` when nothing changes.
    pub fn reconcile_field_set(&self, set: &Set) -> Option<Set> {
        let mut r = Reconcile {
            schema: self,
            path: Vec::new(),
            remove: Set::new(),
            add: Set::new(),
        };
        r.node(self.root(), Some(set), false);
        if r.remove.is_empty() && r.add.is_empty() {
            return None;
        }
        Some(set.recursive_difference(&r.remove).union(&r.add))
    }
}

struct Reconcile<'s> {
    schema: &'s KindTypes,
    path: Vec<PathElement>,
    remove: Set,
    add: Set,
}

impl Reconcile<'_> {
    fn node(&mut self, ty: TypeRef, set: Option<&Set>, is_atomic: bool) {
        let Some(atom) = self.schema.resolve(ty) else {
            return;
        };
        let all = Parts {
            scalar: atom.scalar.is_some(),
            list: atom.list.is_some(),
            map: atom.map.is_some(),
        };
        match handler(atom, all) {
            Some(Handler::List(list)) => {
                if !is_atomic && list.relationship == Relationship::Atomic {
                    self.collapse();
                    return;
                }
                if let Some(set) = set {
                    self.items(set, |_| Some(list.element));
                }
            }
            Some(Handler::Map(map)) => {
                if is_untyped_deduced(self.schema, atom) {
                    return;
                }
                if !is_atomic && map.relationship == Relationship::Atomic {
                    if set.is_some_and(|s| !s.is_empty()) {
                        self.collapse();
                    }
                    return;
                }
                if let Some(set) = set {
                    self.items(set, |element| {
                        let ty = match element {
                            PathElement::Field(name) => map.entry_type(name),
                            _ => map.element,
                        };
                        ty.is_some().then_some(ty)
                    });
                }
            }
            _ => {}
        }
    }

    fn collapse(&mut self) {
        self.remove.insert(&self.path);
        self.add.insert(&self.path);
    }

    /// Children that are not members first, then members, as the apiserver walks them.
    fn items(&mut self, set: &Set, type_of: impl Fn(&PathElement) -> Option<TypeRef>) {
        let non_members = set
            .children()
            .map(|(e, _)| e)
            .filter(|e| !set.has_member(e))
            .map(|e| (e, false));
        let members = set.members().map(|e| (e, true));
        for (element, is_member) in non_members.chain(members) {
            let Some(ty) = type_of(element) else { continue };
            let child = set.child(element);
            if is_member && child.is_none() && self.is_leaf(ty) {
                // A member with nothing below it at a scalar: nothing to reconcile.
                continue;
            }
            self.path.push(element.clone());
            self.node(ty, child, is_member && child.is_none());
            self.path.pop();
        }
    }

    /// Whether `ty` is only a scalar.
    fn is_leaf(&self, ty: TypeRef) -> bool {
        self.schema
            .resolve(ty)
            .is_some_and(|a| a.map.is_none() && a.list.is_none())
    }
}

/// A map of undeclared entries typed by what they hold (no declared fields, untyped scalar
/// elements): nothing to reconcile below it.
fn is_untyped_deduced(schema: &KindTypes, atom: &Atom) -> bool {
    let Some(map) = &atom.map else { return false };
    map.fields.is_empty()
        && schema
            .resolve(map.element)
            .is_some_and(|e| e.scalar == Some(Scalar::Untyped))
}
