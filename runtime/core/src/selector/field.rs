//! Field selectors: `metadata.name=a,spec.color!=red`, parsed, checked and matched the way
//! the apiserver does it for custom resources.

use std::fmt;

use serde_json::Value;

/// How a field requirement compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldOperator {
    /// `field=value` or `field==value`.
    Equals,
    /// `field!=value`.
    NotEquals,
}

/// One `field=value` or `field!=value` term, its value unescaped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldRequirement {
    /// The field, a path without the leading dot: `metadata.name`, `spec.color`.
    pub field: String,
    /// How the field's value is compared.
    pub operator: FieldOperator,
    /// The value compared with.
    pub value: String,
}

impl FieldRequirement {
    /// Whether a field whose value reads `actual` satisfies the term.
    fn holds(&self, actual: &str) -> bool {
        (actual == self.value) == (self.operator == FieldOperator::Equals)
    }
}

/// The term as a selector would write it, its value escaped.
impl fmt::Display for FieldRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.operator {
            FieldOperator::Equals => "=",
            FieldOperator::NotEquals => "!=",
        };
        write!(f, "{}{op}{}", self.field, escape(&self.value))
    }
}

/// A parsed field selector: every term must hold. Empty, it selects everything.
///
/// ```
/// use kubegen_core::selector::FieldSelector;
/// let allowed = ["metadata.name".to_string(), "spec.color".to_string()];
/// let s = FieldSelector::parse(r"spec.color=a\,b,metadata.name!=x", &allowed).unwrap();
/// let object = serde_json::json!({"metadata": {"name": "w"}, "spec": {"color": "a,b"}});
/// assert!(s.matches(&object));
/// assert_eq!(
///     FieldSelector::parse("spec.size=1", &allowed).unwrap_err().to_string(),
///     "field label not supported: spec.size"
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldSelector(pub Vec<FieldRequirement>);

impl FieldSelector {
    /// The selector that matches everything.
    pub fn everything() -> Self {
        Self(Vec::new())
    }

    /// Whether the selector has no terms (and so matches everything).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses a selector as the apiserver does (`fieldSelector=` of a list or watch of a
    /// custom resource), accepting only the fields in `allowed` (paths without the leading
    /// dot). Terms are comma-separated `field=value`, `field==value` or `field!=value`; in a
    /// value, `\,`, `\=` and `\\` stand for `,`, `=` and `\`. Empty terms, and terms with
    /// neither a field nor a value (`=`), are ignored. Nothing is trimmed.
    ///
    /// Terms are read in sorted order, so of several faulty terms the first in that order is
    /// reported; any syntax error is reported before an unsupported field.
    pub fn parse(selector: &str, allowed: &[String]) -> Result<Self, FieldSelectorError> {
        let mut terms = split_terms(selector);
        terms.sort_unstable();
        let mut requirements = Vec::new();
        for term in terms.into_iter().filter(|t| !t.is_empty()) {
            let Some((field, operator, raw)) = split_term(term) else {
                return Err(FieldSelectorError::NoOperator {
                    selector: selector.to_owned(),
                    term: term.to_owned(),
                });
            };
            let value = unescape(raw)?;
            if field.is_empty() && value.is_empty() {
                continue;
            }
            requirements.push(FieldRequirement {
                field: field.to_owned(),
                operator,
                value,
            });
        }
        if let Some(r) = requirements.iter().find(|r| !allowed.contains(&r.field)) {
            return Err(FieldSelectorError::UnsupportedField(r.field.clone()));
        }
        Ok(Self(requirements))
    }

    /// Whether `object` (as JSON) satisfies every term. A field the object does not have, or
    /// that is null, reads as the empty string; numbers and booleans as their JSON text.
    pub fn matches(&self, object: &Value) -> bool {
        self.0
            .iter()
            .all(|r| r.holds(&field_text(object, &r.field)))
    }
}

/// The selector as a `fieldSelector=` parameter would carry it.
impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::write_joined(f, &self.0)
    }
}

/// Why a field selector was refused; its text is the apiserver's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldSelectorError {
    /// A term without `=`, `==` or `!=`.
    #[error("invalid selector: '{selector}'; can't understand '{term}'")]
    NoOperator {
        /// The whole selector.
        selector: String,
        /// The term.
        term: String,
    },
    /// A `\` followed by something other than `\`, `,` or `=` (or by nothing).
    #[error("invalid field selector: invalid escape sequence: {0}")]
    InvalidEscape(String),
    /// A `=` (or `,`) in a value without a `\` before it; shown as its code point.
    #[error("invalid field selector: unescaped character in value: {}", u32::from(*.0))]
    UnescapedCharacter(char),
    /// A field the kind does not offer for selection.
    #[error("field label not supported: {0}")]
    UnsupportedField(String),
}

/// Splits on commas that are not escaped with `\`.
fn split_terms(selector: &str) -> Vec<&str> {
    if selector.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (i, c) in selector.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                terms.push(&selector[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&selector[start..]);
    terms
}

/// Splits a term at its first operator (`!=`, `==` or `=`, tried in that order at each
/// position).
fn split_term(term: &str) -> Option<(&str, FieldOperator, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        let (operator, len) = if rest.starts_with("!=") {
            (FieldOperator::NotEquals, 2)
        } else if rest.starts_with("==") {
            (FieldOperator::Equals, 2)
        } else if rest.starts_with('=') {
            (FieldOperator::Equals, 1)
        } else {
            return None;
        };
        Some((&term[..i], operator, &rest[len..]))
    })
}

/// Undoes `\\`, `\,` and `\=`.
fn unescape(raw: &str) -> Result<String, FieldSelectorError> {
    if !raw.contains(['\\', ',', '=']) {
        return Ok(raw.to_owned());
    }
    let mut out = String::with_capacity(raw.len());
    let mut escaped = false;
    for c in raw.chars() {
        match c {
            '\\' | ',' | '=' if escaped => {
                out.push(c);
                escaped = false;
            }
            _ if escaped => return Err(FieldSelectorError::InvalidEscape(format!("\\{c}"))),
            '\\' => escaped = true,
            ',' | '=' => return Err(FieldSelectorError::UnescapedCharacter(c)),
            _ => out.push(c),
        }
    }
    match escaped {
        true => Err(FieldSelectorError::InvalidEscape("\\".to_owned())),
        false => Ok(out),
    }
}

/// Escapes `\`, `,` and `=` in a value.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The text of the field at dotted `path` in `object`, `""` when missing or null.
fn field_text(object: &Value, path: &str) -> String {
    let found = path
        .split('.')
        .try_fold(object, |node, segment| node.get(segment));
    match found {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}
