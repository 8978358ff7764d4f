//! Label and field selectors, parsed, checked and matched the way the apiserver does it, with
//! its error messages. Listers filter with them; the in-memory server serves them.
//!
//! - [`LabelSelector`]: `app=web,tier in (a,b),!canary,replicas>2`.
//! - [`FieldSelector`]: `metadata.name=a,spec.color!=red`, values escaped with `\`.
//!
//! Use them to check a selector a user gives before sending it (the apiserver's error,
//! without the round trip) or to filter objects in memory the way a list would.
//!
//! ```
//! use std::collections::BTreeMap;
//! use kubegen::selector::LabelSelector;
//!
//! let selector = LabelSelector::parse("app=web,tier in (a,b),!canary").unwrap();
//! let labels = BTreeMap::from([("app".to_string(), "web".to_string()), ("tier".to_string(), "b".to_string())]);
//! assert!(selector.matches(&labels));
//! assert!(LabelSelector::parse("app in (web").is_err());
//! ```

use crate::go_print;
use std::fmt;

mod field;
mod label;
mod lexer;
mod names;
#[cfg(test)]
mod tests;

pub use field::{FieldOperator, FieldRequirement, FieldSelector, FieldSelectorError};
pub use label::{
    Expected, LabelSelector, LabelSelectorError, Operator, Requirement, RequirementError,
};
pub use names::{LABEL_MAX_LENGTH, label_key_problems, label_value_problems};

/// One invalid key or value, written as the apiserver writes a field error:
/// `values[0][app]: Invalid value: "-web": a valid label must ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidValue {
    /// Where: `key`, `values[0]`, `values[0][app]`, or `<nil>` for a selector's key.
    pub path: String,
    /// The value as the message shows it (quoted, or a JSON list).
    pub shown: String,
    /// What is wrong with it.
    pub detail: String,
}

impl InvalidValue {
    fn new(path: impl Into<String>, value: &str, detail: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            shown: go_print::quote(value),
            detail: detail.into(),
        }
    }

    fn list(path: &str, values: &[String], detail: &str) -> Self {
        Self {
            path: path.to_owned(),
            shown: go_json(values),
            detail: detail.to_owned(),
        }
    }
}

impl fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: Invalid value: {}: {}",
            self.path, self.shown, self.detail
        )
    }
}

/// Every invalid key and value of a requirement (at least one). One is shown alone, several
/// as `[first, second]`, repeats once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidValues(Vec<InvalidValue>);

impl InvalidValues {
    fn new(errors: Vec<InvalidValue>) -> Self {
        let mut unique: Vec<InvalidValue> = Vec::with_capacity(errors.len());
        for e in errors {
            if !unique.contains(&e) {
                unique.push(e);
            }
        }
        Self(unique)
    }

    /// The errors, in the order they were found.
    pub fn errors(&self) -> &[InvalidValue] {
        &self.0
    }
}

impl fmt::Display for InvalidValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            many => {
                f.write_str("[")?;
                for (i, e) in many.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl std::error::Error for InvalidValues {}

/// Writes `items` separated by commas, as a selector parameter carries its terms.
fn write_joined<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// A list of strings as Go's `encoding/json` writes it.
fn go_json(values: &[String]) -> String {
    go_print::marshal(&serde_json::Value::from(values.to_vec()))
}
