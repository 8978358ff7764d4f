//! A path from the root of an object to one field, list item or value.

use std::fmt;

use super::PathElement;

/// A sequence of path elements, printed as the apiserver prints it in conflicts:
/// `.spec.ports[name="http"].port`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Path(pub Vec<PathElement>);

impl Path {
    /// A path of object fields.
    pub fn fields<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Path(names.into_iter().map(PathElement::field).collect())
    }

    /// The path with `element` appended.
    pub fn child(&self, element: PathElement) -> Self {
        let mut elements = self.0.clone();
        elements.push(element);
        Path(elements)
    }

    /// Whether this is the root (no elements).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<PathElement>> for Path {
    fn from(elements: Vec<PathElement>) -> Self {
        Path(elements)
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|e| write!(f, "{e}"))
    }
}
