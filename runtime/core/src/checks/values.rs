//! kube-openapi's checks of a single value (its `type.go`, `values.go` and format and enum
//! validators): each returns the errors and match count the schema validator merges.

use serde_json::Value;

use super::field::BadValue;
use super::formats;
use super::openapi::{Code, OpenApiError, Outcome, in_body, set_valid};
use super::schema::Schema;
use crate::go_print::{self, GoNumber};

/// The JSON type kube-openapi infers for a value (`schemaInfoForType`), and its format.
fn type_of(value: &Value) -> (&'static str, &'static str) {
    match value {
        Value::Null => ("null", ""),
        Value::Bool(_) => ("boolean", ""),
        Value::String(_) => ("string", ""),
        Value::Number(n) => match go_print::go_number(n) {
            GoNumber::Int(_) => ("integer", "int64"),
            GoNumber::Float(_) => ("number", "float64"),
        },
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
    }
}

/// go-openapi's `swag.IsFloat64AJSONInteger`: integral, or within a relative 1e-9 of the
/// integer below it, inside ±(2^53-1).
pub(super) fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    if f.fract() == 0.0 {
        return true;
    }
    if f < 0.0 {
        // Go converts a negative float to uint64 out of range; the comparison then fails.
        return false;
    }
    let g = f.trunc();
    let diff = (f - g).abs();
    if g == 0.0 {
        return diff < 1e-9 * f64::from_bits(1);
    }
    diff / (f.abs() + g.abs()).min(f64::MAX) < 1e-9
}

/// A value as kube-openapi's errors carry it.
fn go_value(value: &Value) -> BadValue {
    BadValue::of(value)
}

/// `typeValidator`.
pub(super) fn type_check(s: &Schema, data: &Value, path: &str) -> Outcome {
    let ok = Outcome {
        errors: Vec::new(),
        match_count: 1,
    };
    let invalid = |expected: &str, found: &str| {
        Outcome::error(OpenApiError::at(
            Code::InvalidType,
            path,
            Some(BadValue::str(found)),
            format!(
                "{} must be of type {expected}: {}",
                in_body(path),
                go_print::quote(found)
            ),
        ))
    };
    let has = |t: &str| s.types.iter().any(|x| x == t);
    if data.is_null() {
        if !s.types.is_empty() && !has("null") && !s.nullable {
            // Observed on kube-apiserver v1.36.2: `spec.title: Invalid value: "null":
            // spec.title in body must be of type string: "null"`.
            return invalid(&s.types.join(","), "null");
        }
        return ok;
    }
    let (sch_type, format) = type_of(data);
    let is_float_int =
        sch_type == "number" && data.as_f64().is_some_and(is_json_integer) && has("integer");
    let is_int_float = sch_type == "integer" && has("number");
    let is_string_or_slice = matches!(data, Value::String(_) | Value::Array(_));
    if let Some(f) = s.format.as_deref()
        && !is_string_or_slice
        && !(has(sch_type) || format == f || is_float_int || is_int_float)
    {
        return invalid(f, format);
    }
    if !(has("number") || has("integer")) && s.format.is_some() && is_string_or_slice {
        return ok;
    }
    if !(has(sch_type) || is_float_int || is_int_float) {
        return invalid(&s.types.join(","), sch_type);
    }
    ok
}

/// `stringValidator`: the first failing of maxLength, minLength, pattern.
pub(super) fn string_check(s: &Schema, text: &str, path: &str) -> Outcome {
    let len = text.chars().count() as i64;
    let value = || Some(BadValue::str(text));
    if let Some(max) = s.max_length
        && len > max
    {
        let mut e = OpenApiError::at(
            Code::TooLong,
            path,
            value(),
            format!("{} should be at most {max} chars long", in_body(path)),
        );
        set_valid(&mut e, max);
        return Outcome::error(e);
    }
    if let Some(min) = s.min_length
        && len < min
    {
        return Outcome::error(OpenApiError::at(
            Code::Other,
            path,
            value(),
            format!("{} should be at least {min} chars long", in_body(path)),
        ));
    }
    if let Some(pattern) = &s.pattern {
        let shown = match &pattern.regex {
            Ok(re) if re.is_match(text) => return Outcome::default(),
            Ok(_) => pattern.source.clone(),
            Err(e) => format!("{}, but pattern is invalid: {e}", pattern.source),
        };
        return Outcome::error(OpenApiError::at(
            Code::Other,
            path,
            value(),
            format!("{} should match '{shown}'", in_body(path)),
        ));
    }
    Outcome::default()
}

/// `formatValidator`.
pub(super) fn format_check(format: &str, text: &str, path: &str) -> Outcome {
    if formats::validates(format, text) {
        return Outcome::default();
    }
    Outcome::error(OpenApiError::at(
        Code::InvalidType,
        path,
        Some(BadValue::str(text)),
        format!(
            "{} must be of type {format}: {}",
            in_body(path),
            go_print::quote(text)
        ),
    ))
}

/// `basicCommonValidator`: enum membership with Go's conversions between types.
pub(super) fn enum_check(s: &Schema, data: &Value, path: &str) -> Outcome {
    if s.enumeration.is_empty() || s.enumeration.iter().any(|e| enum_matches(data, e)) {
        return Outcome::default();
    }
    // Only compared with other messages (results drop duplicates); Go prints `%v`.
    let rendered: Vec<String> = s.enumeration.iter().map(go_print::marshal).collect();
    Outcome::error(OpenApiError::Validation {
        code: Code::Enum,
        name: path.to_owned(),
        value: (!data.is_null()).then(|| go_value(data)),
        valid: -1,
        values: s.enumeration.clone(),
        message: format!(
            "{} should be one of [{}]",
            in_body(path),
            rendered.join(" ")
        ),
    })
}

/// Whether `data` equals the enum value `allowed` after Go's `reflect` conversion of
/// `data` to the enum value's type (an int64 converts to a float64 and to a one-rune
/// string, a float64 truncates to an int64).
fn enum_matches(data: &Value, allowed: &Value) -> bool {
    match (data, allowed) {
        (Value::Number(d), Value::Number(a)) => {
            match (go_print::go_number(d), go_print::go_number(a)) {
                (GoNumber::Int(d), GoNumber::Int(a)) => d == a,
                (GoNumber::Float(d), GoNumber::Float(a)) => d == a,
                (GoNumber::Int(d), GoNumber::Float(a)) => d as f64 == a,
                (GoNumber::Float(d), GoNumber::Int(a)) => d as i64 == a,
            }
        }
        (Value::Number(d), Value::String(a)) => match go_print::go_number(d) {
            GoNumber::Int(i) => {
                let c = u32::try_from(i)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('\u{fffd}');
                a.chars().eq(std::iter::once(c))
            }
            GoNumber::Float(_) => false,
        },
        (Value::Null, _) => false,
        _ => data == allowed,
    }
}
