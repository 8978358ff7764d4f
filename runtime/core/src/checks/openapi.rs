//! A port of kube-openapi's `validate.SchemaValidator` as the apiextensions-apiserver runs
//! it on custom resources: the same checks in the same order, the same messages, the same
//! "best failure" choice inside `anyOf`/`oneOf` (by match count), and the conversion of its
//! result into field errors (`kubeOpenAPIResultToFieldErrors`), with update ratcheting
//! (errors in a value that did not change are dropped, as the `CRDValidationRatcheting`
//! feature does).
//!
//! Where Go iterates a map (an object's properties), errors of sibling properties come out
//! in a random rotation from one request to the next; here they follow the schema's
//! (alphabetical) property order.

use serde_json::{Map, Value};

use super::field::{self, BadValue, FieldError, NIL_PATH};
use super::formats;
use super::maplist::{MapList, correlated_equal};
use super::schema::{Additional, Schema};
use crate::go_print;

/// kube-openapi's error codes that change how an error becomes a field error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Code {
    InvalidType,
    Required,
    TooLong,
    Enum,
    MaxItems,
    TooManyProperties,
    Other,
}

/// One error of a validation result.
#[derive(Clone, Debug)]
pub(super) enum OpenApiError {
    /// An `errors.Validation`: a path, the offending value and a message.
    Validation {
        code: Code,
        name: String,
        value: Option<BadValue>,
        valid: i64,
        values: Vec<Value>,
        message: String,
    },
    /// Any other error (junctor messages, range checks): reported at the root path.
    Plain(String),
}

impl OpenApiError {
    fn message(&self) -> &str {
        match self {
            OpenApiError::Validation { message, .. } | OpenApiError::Plain(message) => message,
        }
    }

    pub(super) fn at(code: Code, name: &str, value: Option<BadValue>, message: String) -> Self {
        OpenApiError::Validation {
            code,
            name: name.to_owned(),
            value,
            valid: -1,
            values: Vec::new(),
            message,
        }
    }
}

/// `validate.Result`: errors (deduplicated by message) and the match count the junctors
/// use to pick the most relevant failing branch.
#[derive(Default)]
pub(super) struct Outcome {
    pub(super) errors: Vec<OpenApiError>,
    pub(super) match_count: usize,
}

impl Outcome {
    pub(super) fn error(e: OpenApiError) -> Self {
        Outcome {
            errors: vec![e],
            match_count: 0,
        }
    }

    pub(super) fn add(&mut self, e: OpenApiError) {
        if !self.errors.iter().any(|x| x.message() == e.message()) {
            self.errors.push(e);
        }
    }

    pub(super) fn merge(&mut self, other: Outcome) {
        for e in other.errors {
            self.add(e);
        }
        self.match_count += other.match_count;
    }

    fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Validates `value` against `schema` and returns the apiserver's field errors. `root` is
/// the field path the schema sits at (`None` for a whole object, `Some("status")` for the
/// status subresource). `old` is the previous value on an update: errors in parts that did
/// not change are dropped.
pub fn validate(
    schema: &Schema,
    value: &Value,
    old: Option<&Value>,
    root: Option<&str>,
) -> Vec<FieldError> {
    let outcome = Validator { root_level: true }.node(schema, value, "", old);
    to_field_errors(root, outcome.errors)
}

/// `kubeOpenAPIResultToFieldErrors`.
fn to_field_errors(root: Option<&str>, errors: Vec<OpenApiError>) -> Vec<FieldError> {
    let root_path = root.unwrap_or(NIL_PATH).to_owned();
    errors
        .into_iter()
        .map(|e| match e {
            OpenApiError::Plain(message) => {
                FieldError::invalid(&root_path, BadValue::str(""), message)
            }
            OpenApiError::Validation {
                code,
                name,
                value,
                valid,
                values,
                message,
            } => {
                let path = if name.is_empty() || name == "." {
                    root_path.clone()
                } else {
                    field::child(root.unwrap_or(""), name.trim_start_matches('.'))
                };
                let or_empty = |v: Option<BadValue>| v.unwrap_or_else(|| BadValue::str(""));
                match code {
                    Code::Required => FieldError::required(&path, ""),
                    Code::Enum => {
                        let supported: Vec<String> = values
                            .iter()
                            .map(|v| match v {
                                Value::String(s) => s.clone(),
                                other => go_print::marshal(other),
                            })
                            .collect();
                        let value = value.unwrap_or(BadValue::Json(Value::Null));
                        FieldError::not_supported(&path, value, &supported)
                    }
                    Code::TooLong => FieldError::too_long(&path, valid),
                    Code::MaxItems | Code::TooManyProperties => {
                        let actual = match value {
                            Some(BadValue::Int(i)) => i,
                            _ => -1,
                        };
                        FieldError::too_many(&path, actual, valid)
                    }
                    Code::InvalidType => FieldError::type_invalid(&path, or_empty(value), message),
                    Code::Other => FieldError::invalid(&path, or_empty(value), message),
                }
            }
        })
        .collect()
}

/// `%q`-style message prefix used by kube-openapi: `<path> in body`.
pub(super) fn in_body(path: &str) -> String {
    format!("{path} in body")
}

struct Validator {
    /// Whether the node being validated is the root of the object (type meta fields are
    /// not correlated for ratcheting there).
    root_level: bool,
}

impl Validator {
    /// `SchemaValidator.Validate`, ratcheted when `old` is the correlated previous value.
    fn node(&self, s: &Schema, data: &Value, path: &str, old: Option<&Value>) -> Outcome {
        let outcome = self.node_unratcheted(s, data, path, old);
        if !outcome.is_valid()
            && let Some(old) = old
            && correlated_equal(s, data, old)
        {
            // The errors become warnings, which the apiserver does not report.
            return Outcome {
                errors: Vec::new(),
                match_count: outcome.match_count,
            };
        }
        outcome
    }

    fn node_unratcheted(
        &self,
        s: &Schema,
        data: &Value,
        path: &str,
        old: Option<&Value>,
    ) -> Outcome {
        let mut result = Outcome::default();
        if data.is_null() {
            result.merge(type_check(s, data, path));
            result.merge(enum_check(s, data, path));
            return result;
        }
        let step = |r: Outcome, result: &mut Outcome| {
            result.merge(r);
            result.match_count += 1;
        };
        if !s.types.is_empty() || s.format.is_some() {
            step(type_check(s, data, path), &mut result);
        }
        step(self.junctors(s, data, path), &mut result);
        if let Value::String(text) = data {
            step(string_check(s, text, path), &mut result);
            if let Some(format) = s.format.as_deref().filter(|f| formats::is_string_format(f)) {
                step(format_check(format, text, path), &mut result);
            }
        }
        if let Value::Number(n) = data {
            step(number_check(s, n, path), &mut result);
        }
        if let Value::Array(items) = data {
            step(self.slice(s, items, path, old), &mut result);
        }
        step(enum_check(s, data, path), &mut result);
        if let Value::Object(members) = data {
            step(self.object(s, members, path, old), &mut result);
        }
        result.match_count += 1;
        result
    }

    /// A plain validator for junctor branches: they never ratchet.
    fn plain(&self) -> Validator {
        Validator { root_level: false }
    }

    fn junctors(&self, s: &Schema, data: &Value, path: &str) -> Outcome {
        let mut main = Outcome::default();
        let plain = self.plain();
        if !s.any_of.is_empty() {
            let mut best: Option<Outcome> = None;
            let mut first_success: Option<Outcome> = None;
            for branch in &s.any_of {
                let r = plain.node(branch, data, path, None);
                if r.is_valid() {
                    best = None;
                    first_success = Some(r);
                    break;
                }
                if best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                    best = Some(r);
                }
            }
            if first_success.is_none() {
                main.add(OpenApiError::Plain(format!(
                    "{} must validate at least one schema (anyOf)",
                    go_print::quote(path)
                )));
            }
            if let Some(b) = best.or(first_success) {
                main.merge(b);
            }
        }
        if !s.one_of.is_empty() {
            let mut best: Option<Outcome> = None;
            let mut first_success: Option<Outcome> = None;
            let mut validated = 0;
            for branch in &s.one_of {
                let r = plain.node(branch, data, path, None);
                if r.is_valid() {
                    validated += 1;
                    best = None;
                    if first_success.is_none() {
                        first_success = Some(r);
                    }
                    continue;
                }
                if validated == 0 && best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                    best = Some(r);
                }
            }
            if validated != 1 {
                let found = if validated == 0 {
                    "Found none valid".to_owned()
                } else {
                    format!("Found {validated} valid alternatives")
                };
                main.add(OpenApiError::Plain(format!(
                    "{} must validate one and only one schema (oneOf). {found}",
                    go_print::quote(path)
                )));
                if let Some(b) = best {
                    main.merge(b);
                }
            } else if let Some(f) = first_success {
                main.merge(f);
            }
        }
        if !s.all_of.is_empty() {
            let mut validated = 0;
            for branch in &s.all_of {
                let r = plain.node(branch, data, path, None);
                if r.is_valid() {
                    validated += 1;
                }
                main.merge(r);
            }
            if validated != s.all_of.len() {
                let none = if validated == 0 {
                    ". None validated"
                } else {
                    ""
                };
                main.add(OpenApiError::Plain(format!(
                    "{} must validate all the schemas (allOf){none}",
                    go_print::quote(path)
                )));
            }
        }
        if let Some(not) = &s.not
            && plain.node(not, data, path, None).is_valid()
        {
            main.add(OpenApiError::Plain(format!(
                "{} must not validate the schema (not)",
                go_print::quote(path)
            )));
        }
        main.match_count += 1;
        main
    }

    fn slice(&self, s: &Schema, items: &[Value], path: &str, old: Option<&Value>) -> Outcome {
        let mut result = Outcome::default();
        if let Some(item) = &s.items {
            let child = self.plain();
            let old_items = old.and_then(|o| MapList::new(s, o));
            for (i, v) in items.iter().enumerate() {
                let item_old = old_items.as_ref().and_then(|o| o.get(v));
                result.merge(child.node(item, v, &field::index(path, i), item_old));
            }
        }
        let size = items.len() as i64;
        if let Some(min) = s.min_items
            && size < min
        {
            let mut e = OpenApiError::at(
                Code::Other,
                path,
                Some(BadValue::Int(size)),
                format!("{} should have at least {min} items", in_body(path)),
            );
            set_valid(&mut e, min);
            result.add(e);
        }
        if let Some(max) = s.max_items
            && size > max
        {
            let mut e = OpenApiError::at(
                Code::MaxItems,
                path,
                Some(BadValue::Int(size)),
                format!("{} should have at most {max} items", in_body(path)),
            );
            set_valid(&mut e, max);
            result.add(e);
        }
        if s.unique_items
            && items
                .iter()
                .enumerate()
                .any(|(i, v)| items[..i].contains(v))
        {
            result.add(OpenApiError::at(
                Code::Other,
                path,
                None,
                format!("{} shouldn't contain duplicates", in_body(path)),
            ));
        }
        result.match_count += 1;
        result
    }

    fn object(
        &self,
        s: &Schema,
        members: &Map<String, Value>,
        path: &str,
        old: Option<&Value>,
    ) -> Outcome {
        let mut result = Outcome::default();
        let n = members.len() as i64;
        if let Some(min) = s.min_properties
            && n < min
        {
            result.add(OpenApiError::at(
                Code::Other,
                path,
                Some(BadValue::Int(n)),
                format!("{} should have at least {min} properties", in_body(path)),
            ));
        }
        if let Some(max) = s.max_properties
            && n > max
        {
            let mut e = OpenApiError::at(
                Code::TooManyProperties,
                path,
                Some(BadValue::Int(n)),
                format!("{} should have at most {max} properties", in_body(path)),
            );
            set_valid(&mut e, max);
            result.add(e);
        }
        let child_validator = self.plain();
        let child_old = |key: &str| -> Option<&Value> {
            if self.root_level && path.is_empty() && matches!(key, "kind" | "apiVersion") {
                return None;
            }
            old.and_then(Value::as_object)
                .and_then(|o| o.get(key))
                .filter(|_| s.member(key).is_some())
        };
        match &s.additional {
            Additional::Allows(false) => {
                for key in members.keys().filter(|k| s.property(k).is_none()) {
                    result.add(OpenApiError::at(
                        Code::Other,
                        path,
                        Some(BadValue::str(key.as_str())),
                        format!("{path}.{key} in body is a forbidden property"),
                    ));
                }
            }
            Additional::Schema(additional) => {
                for (key, value) in members.iter().filter(|(k, _)| s.property(k).is_none()) {
                    let p = format!("{path}.{key}");
                    result.merge(child_validator.node(additional, value, &p, child_old(key)));
                }
            }
            _ => {}
        }
        for (name, property) in &s.properties {
            if let Some(value) = members.get(name) {
                let p = field::child(path, name);
                result.merge(child_validator.node(property, value, &p, child_old(name)));
            }
        }
        for name in &s.required {
            if !members.contains_key(name) {
                let p = format!("{path}.{name}");
                let message = format!("{} is required", in_body(&p));
                result.add(OpenApiError::at(Code::Required, &p, None, message));
            }
        }
        result
    }
}

pub(super) fn set_valid(e: &mut OpenApiError, v: i64) {
    if let OpenApiError::Validation { valid, .. } = e {
        *valid = v;
    }
}

use super::numbers::number_check;
use super::values::{enum_check, format_check, string_check, type_check};
