//! Sets of field paths, stored as the apiserver stores them: a tree whose nodes hold the
//! elements that are members at that level and the children below them, both sorted. Both
//! are B-trees, so building a set of n paths in any order costs n log n, and the set algebra
//! walks two sets in order, in time linear in their sizes.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::iter::Peekable;

use super::{Path, PathElement};

/// A set of paths. A path is a member when it is owned itself; a node can have children
/// without being a member (owning `spec.replicas` does not own `spec`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Set {
    members: BTreeSet<PathElement>,
    children: BTreeMap<PathElement, Set>,
}

impl Set {
    /// The empty set.
    pub fn new() -> Self {
        Set::default()
    }

    /// The set of the given paths.
    pub fn from_paths(paths: impl IntoIterator<Item = Path>) -> Self {
        let mut set = Set::new();
        for p in paths {
            set.insert(&p.0);
        }
        set
    }

    /// Adds the path `path` (ignored when empty).
    pub fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                if !self.members.contains(last) {
                    self.members.insert(last.clone());
                }
            }
            [first, rest @ ..] => self.descend(first).insert(rest),
        }
    }

    /// The child node for `element`, created when missing.
    pub fn descend(&mut self, element: &PathElement) -> &mut Set {
        self.children.entry(element.clone()).or_default()
    }

    /// The members at this level, in order.
    pub fn members(&self) -> impl ExactSizeIterator<Item = &PathElement> + Clone + '_ {
        self.members.iter()
    }

    /// The child nodes at this level, in order.
    pub fn children(&self) -> impl ExactSizeIterator<Item = (&PathElement, &Set)> + Clone + '_ {
        self.children.iter()
    }

    /// The set below `element` (what `element`'s children hold), if any.
    pub fn child(&self, element: &PathElement) -> Option<&Set> {
        self.children.get(element)
    }

    /// The subset below `element`, empty when there is none.
    pub fn with_prefix(&self, element: &PathElement) -> Set {
        self.child(element).cloned().unwrap_or_default()
    }

    /// Whether `element` is a member at this level.
    pub fn has_member(&self, element: &PathElement) -> bool {
        self.members.contains(element)
    }

    /// Whether `path` is a member.
    pub fn has(&self, path: &[PathElement]) -> bool {
        match path {
            [] => false,
            [last] => self.has_member(last),
            [first, rest @ ..] => self.child(first).is_some_and(|c| c.has(rest)),
        }
    }

    /// Whether no path is a member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.values().all(Set::is_empty)
    }

    /// The number of member paths.
    pub fn len(&self) -> usize {
        self.members.len() + self.children.values().map(Set::len).sum::<usize>()
    }

    /// Every member path, members of a level before the paths below it, each in order.
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Path>) {
        for m in &self.members {
            let mut p = prefix.clone();
            p.push(m.clone());
            out.push(Path(p));
        }
        for (e, child) in &self.children {
            prefix.push(e.clone());
            child.collect(prefix, out);
            prefix.pop();
        }
    }

    /// Paths in either set.
    pub fn union(&self, other: &Set) -> Set {
        Set {
            members: self.members.union(&other.members).cloned().collect(),
            children: zip_children(&self.children, &other.children, |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(a.union(b)),
                (Some(x), None) | (None, Some(x)) => Some(x.clone()),
                (None, None) => None,
            }),
        }
    }

    /// Paths in both sets.
    pub fn intersection(&self, other: &Set) -> Set {
        Set {
            members: self.members.intersection(&other.members).cloned().collect(),
            children: zip_children(&self.children, &other.children, |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(a.intersection(b)).filter(|s| !s.is_empty()),
                _ => None,
            }),
        }
    }

    /// Paths of this set that are not in `other`.
    pub fn difference(&self, other: &Set) -> Set {
        Set {
            members: self.members.difference(&other.members).cloned().collect(),
            children: zip_children(&self.children, &other.children, |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(a.difference(b)).filter(|s| !s.is_empty()),
                (Some(a), None) => Some(a.clone()),
                _ => None,
            }),
        }
    }

    /// Paths of this set that neither are in `other` nor lie below a member of `other`.
    pub fn recursive_difference(&self, other: &Set) -> Set {
        Set {
            members: self.members.difference(&other.members).cloned().collect(),
            children: zip_children(&self.children, &other.children, |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(a.recursive_difference(b)).filter(|s| !s.is_empty()),
                (Some(a), None) => Some(a.clone()),
                _ => None,
            })
            .into_iter()
            .filter(|(e, _)| !other.has_member(e))
            .collect(),
        }
    }

    /// [`union`](Set::union) in place: `other`'s paths added, copying only what this set
    /// lacks.
    pub fn insert_all(&mut self, other: &Set) {
        for m in &other.members {
            if !self.members.contains(m) {
                self.members.insert(m.clone());
            }
        }
        for (e, o) in &other.children {
            match self.children.get_mut(e) {
                Some(child) => child.insert_all(o),
                None => {
                    self.children.insert(e.clone(), o.clone());
                }
            }
        }
    }

    /// [`difference`](Set::difference) in place: `other`'s paths taken out, a child left
    /// empty by it dropped.
    pub fn remove_all(&mut self, other: &Set) {
        for m in &other.members {
            self.members.remove(m);
        }
        self.remove_below(other, Set::remove_all);
    }

    /// [`recursive_difference`](Set::recursive_difference) in place.
    pub fn remove_recursive(&mut self, other: &Set) {
        for m in &other.members {
            self.members.remove(m);
            self.children.remove(m);
        }
        self.remove_below(other, Set::remove_recursive);
    }

    /// `remove` applied to each child `other` has too; a child left empty is dropped.
    fn remove_below(&mut self, other: &Set, remove: fn(&mut Set, &Set)) {
        for (e, o) in &other.children {
            if let Some(child) = self.children.get_mut(e) {
                remove(child, o);
                if child.is_empty() {
                    self.children.remove(e);
                }
            }
        }
    }

    /// The members that have no member below them.
    pub fn leaves(&self) -> Set {
        Set {
            members: self
                .members
                .iter()
                .filter(|m| self.child(m).is_none())
                .cloned()
                .collect(),
            children: self
                .children
                .iter()
                .map(|(e, c)| (e.clone(), c.leaves()))
                .collect(),
        }
    }

    pub(crate) fn from_parts(
        members: impl IntoIterator<Item = PathElement>,
        children: impl IntoIterator<Item = (PathElement, Set)>,
    ) -> Self {
        Set {
            members: members.into_iter().collect(),
            children: children.into_iter().collect(),
        }
    }
}

/// Walks two child maps together in order, keeping what `f` returns for each element. The
/// result comes out sorted, which the B-tree builds from in linear time.
fn zip_children(
    a: &BTreeMap<PathElement, Set>,
    b: &BTreeMap<PathElement, Set>,
    f: impl Fn(Option<&Set>, Option<&Set>) -> Option<Set>,
) -> BTreeMap<PathElement, Set> {
    let mut out = Vec::new();
    let (mut a, mut b): (Peekable<_>, Peekable<_>) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (Some((x, _)), Some((y, _))) => x.cmp(y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        let (x, y) = match order {
            Ordering::Less => (a.next(), None),
            Ordering::Greater => (None, b.next()),
            Ordering::Equal => (a.next(), b.next()),
        };
        let Some(element) = x.or(y).map(|(e, _)| e) else {
            break;
        };
        if let Some(set) = f(x.map(|(_, s)| s), y.map(|(_, s)| s)) {
            out.push((element.clone(), set));
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn set(paths: &[&[&str]]) -> Set {
        Set::from_paths(paths.iter().map(|p| Path::fields(p.iter().copied())))
    }

    #[test]
    fn union_intersection_and_difference_work_level_by_level() {
        let a = set(&[&["spec"], &["spec", "a"], &["spec", "b"], &["status", "x"]]);
        let b = set(&[&["spec", "b"], &["spec", "c"], &["metadata", "labels", "l"]]);
        assert_eq!(
            a.union(&b),
            set(&[
                &["spec"],
                &["spec", "a"],
                &["spec", "b"],
                &["spec", "c"],
                &["status", "x"],
                &["metadata", "labels", "l"]
            ])
        );
        assert_eq!(a.intersection(&b), set(&[&["spec", "b"]]));
        assert_eq!(
            a.difference(&b),
            set(&[&["spec"], &["spec", "a"], &["status", "x"]])
        );
        assert!(a.intersection(&set(&[&["other"]])).is_empty());
        assert_eq!(a.len(), 4);
        assert!(a.has(&Path::fields(["spec"]).0) && !b.has(&Path::fields(["spec"]).0));
    }

    #[test]
    fn recursive_difference_removes_everything_below_a_member() {
        let owned = set(&[
            &["status"],
            &["status", "phase"],
            &["status", "conditions", "c"],
            &["spec", "x"],
        ]);
        let reset = set(&[&["status"]]);
        assert_eq!(
            owned.difference(&reset),
            set(&[
                &["status", "phase"],
                &["status", "conditions", "c"],
                &["spec", "x"]
            ])
        );
        assert_eq!(owned.recursive_difference(&reset), set(&[&["spec", "x"]]));
    }

    #[test]
    fn the_in_place_operations_equal_the_copying_ones() {
        let mut with_empty_child = set(&[&["spec", "a"]]);
        with_empty_child.descend(&PathElement::field("status"));
        let sets = [
            Set::new(),
            set(&[&["spec"], &["spec", "a"], &["spec", "b"], &["status", "x"]]),
            set(&[&["spec", "b"], &["spec", "c"], &["metadata", "labels", "l"]]),
            set(&[&["status"]]),
            set(&[
                &["spec", "a"],
                &["spec", "b"],
                &["status"],
                &["status", "x", "y"],
            ]),
            with_empty_child,
        ];
        for a in &sets {
            for b in &sets {
                let mut union = a.clone();
                union.insert_all(b);
                assert_eq!(union, a.union(b), "{a:?} with {b:?}");
                let mut difference = a.clone();
                difference.remove_all(b);
                assert_eq!(difference, a.difference(b), "{a:?} without {b:?}");
                let mut recursive = a.clone();
                recursive.remove_recursive(b);
                assert_eq!(recursive, a.recursive_difference(b), "{a:?} without {b:?}");
            }
        }
    }

    #[test]
    fn leaves_drop_members_with_children() {
        let s = set(&[
            &["spec"],
            &["spec", "a"],
            &["spec", "m"],
            &["spec", "m", "k"],
        ]);
        assert_eq!(s.leaves(), set(&[&["spec", "a"], &["spec", "m", "k"]]));
    }

    #[test]
    fn paths_list_members_before_children_in_element_order() {
        let key = |name: &str| PathElement::key([("name".to_owned(), json!(name))]);
        let mut s = Set::new();
        s.insert(&[
            PathElement::field("spec"),
            PathElement::field("ports"),
            key("b"),
        ]);
        s.insert(&[
            PathElement::field("spec"),
            PathElement::field("ports"),
            key("a"),
            PathElement::field("port"),
        ]);
        s.insert(&[
            PathElement::field("spec"),
            PathElement::field("ports"),
            key("a"),
        ]);
        s.insert(&[PathElement::field("apiVersion")]);
        let printed: Vec<String> = s.paths().iter().map(Path::to_string).collect();
        assert_eq!(
            printed,
            [
                ".apiVersion",
                r#".spec.ports[name="a"]"#,
                r#".spec.ports[name="b"]"#,
                r#".spec.ports[name="a"].port"#
            ]
        );
        assert_eq!(s.with_prefix(&PathElement::field("spec")).len(), 3);
        assert!(s.with_prefix(&PathElement::field("none")).is_empty());
    }
}
