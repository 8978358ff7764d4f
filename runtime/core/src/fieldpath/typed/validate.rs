//! Whether a value fits its type: the check the apiserver makes before it tracks fields, whose
//! failure on an applied configuration is the apply's error.

use serde_json::Value;

use super::{Duplicates, Handler, ValidationErrors, handler};
use crate::fieldpath::PathElement;
use crate::fieldpath::schema::{KindTypes, List, Map, Relationship, Scalar, TypeRef};

impl KindTypes {
    /// Checks `value` against the root type: scalars of the declared kind, no undeclared
    /// fields (outside maps with an element type), well-formed list keys, and no duplicate
    /// keys unless `duplicates` allows them.
    pub fn validate(&self, value: &Value, duplicates: Duplicates) -> Result<(), ValidationErrors> {
        self.validate_at(self.root(), value, duplicates)
            .into_result()
    }

    fn validate_at(&self, ty: TypeRef, value: &Value, duplicates: Duplicates) -> ValidationErrors {
        let atom = match self.atom(ty) {
            Ok(a) => a,
            Err(e) => return e,
        };
        match handler(atom, atom.deduce(Some(value))) {
            Some(Handler::Scalar(s)) => validate_scalar(s, value, ""),
            Some(Handler::List(l)) => self.validate_list(l, value, duplicates),
            Some(Handler::Map(m)) => self.validate_map(m, value, duplicates),
            None => ValidationErrors::one("schema error: invalid atom: inlined"),
        }
    }

    fn validate_list(
        &self,
        list: &List,
        value: &Value,
        duplicates: Duplicates,
    ) -> ValidationErrors {
        let items = match value {
            Value::Null => return ValidationErrors::default(),
            Value::Array(items) => items,
            v => return ValidationErrors::one(format!("expected list, got {}", go_value_v(v))),
        };
        let mut errors = ValidationErrors::default();
        let mut seen: Vec<PathElement> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let element = if list.relationship == Relationship::Associative {
                match self.list_item_element(list, item) {
                    Ok(e) => e,
                    Err(e) => {
                        errors.extend(ValidationErrors::one(format!("element {i}: {e}")));
                        return errors;
                    }
                }
            } else {
                PathElement::Index(i)
            };
            if matches!(element, PathElement::Key(_) | PathElement::Value(_)) {
                match seen.binary_search(&element) {
                    Ok(_) if duplicates == Duplicates::Reject => errors.extend(
                        ValidationErrors::one(format!("duplicate entries for key {element}")),
                    ),
                    Ok(_) => {}
                    Err(at) => seen.insert(at, element.clone()),
                }
            }
            errors.extend(
                self.validate_at(list.element, item, duplicates)
                    .prefixed(&element),
            );
        }
        errors
    }

    fn validate_map(&self, map: &Map, value: &Value, duplicates: Duplicates) -> ValidationErrors {
        let fields = match value {
            Value::Null => return ValidationErrors::default(),
            Value::Object(fields) => fields,
            v => return ValidationErrors::one(format!("expected map, got {}", go_value_v(v))),
        };
        let mut errors = ValidationErrors::default();
        for (key, v) in fields {
            let ty = map.entry_type(key);
            let found = match ty.is_some() {
                true => self.validate_at(ty, v, duplicates),
                false => ValidationErrors::one("field not declared in schema"),
            };
            // The path element is built only for an error: most fields have none.
            if !found.is_empty() {
                errors.extend(found.prefixed(&PathElement::field(key.as_str())));
            }
            if !ty.is_some() {
                break;
            }
        }
        errors
    }
}

/// A scalar's kind against its type (`null` fits every scalar).
/// Both sides of a two-sided walk at a scalar: an error only when both are invalid, as
/// structured-merge-diff reports it.
pub(super) fn validate_scalar_pair(
    kind: Scalar,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
) -> Result<(), ValidationErrors> {
    let mut l = lhs
        .map(|v| validate_scalar(kind, v, "lhs: "))
        .unwrap_or_default();
    let r = rhs
        .map(|v| validate_scalar(kind, v, "rhs: "))
        .unwrap_or_default();
    if !l.is_empty() && !r.is_empty() {
        l.extend(r);
        return Err(l);
    }
    Ok(())
}

pub(super) fn validate_scalar(kind: Scalar, v: &Value, prefix: &str) -> ValidationErrors {
    let ok = matches!(
        (kind, v),
        (_, Value::Null)
            | (Scalar::Numeric, Value::Number(_))
            | (Scalar::String, Value::String(_))
            | (Scalar::Boolean, Value::Bool(_))
            | (
                Scalar::Untyped,
                Value::Number(_) | Value::String(_) | Value::Bool(_)
            )
    );
    if ok {
        return ValidationErrors::default();
    }
    ValidationErrors::one(match kind {
        Scalar::Numeric => format!(
            "{prefix}expected numeric (int or float), got {}",
            go_type(v)
        ),
        Scalar::String => format!("{prefix}expected string, got {}", go_value_sharp_v(v)),
        Scalar::Boolean => format!("{prefix}expected boolean, got {}", go_value_v(v)),
        Scalar::Untyped => format!("{prefix}expected any scalar, got {}", go_value_v(v)),
    })
}

/// Go's `%T` of a decoded JSON value.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of the apiserver's wrapped value: `&{...}` around the plain value.
fn go_value_v(v: &Value) -> String {
    format!("&{{{}}}", go_plain_v(v))
}

fn go_plain_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(go_plain_v).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(m) => format!(
            "map[{}]",
            m.iter()
                .map(|(k, v)| format!("{k}:{}", go_plain_v(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        other => crate::fieldpath::value::to_text(other),
    }
}

/// Go's `%#v` of the apiserver's wrapped value.
fn go_value_sharp_v(v: &Value) -> String {
    format!("&value.valueUnstructured{{Value:{}}}", go_sharp_v(v))
}

fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::Array(items) => format!(
            "[]interface {{}}{{{}}}",
            items.iter().map(go_sharp_v).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(m) => format!(
            "map[string]interface {{}}{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}:{}", crate::go_print::quote(k), go_sharp_v(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => crate::fieldpath::value::to_text(other),
    }
}
