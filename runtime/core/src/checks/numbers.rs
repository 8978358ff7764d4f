//! kube-openapi's `numberValidator`: the range a value's type and format allow, then
//! `multipleOf`, `minimum` and `maximum`, compared as integers when the value and the bound
//! are integers (bounds are truncated to int64 then, as Go converts them).

use serde_json::Number;

use super::field::BadValue;
use super::openapi::{Code, OpenApiError, Outcome, in_body};
use super::schema::Schema;
use super::values::is_json_integer;
use crate::go_print::{self, GoNumber};

/// `IsValueValidAgainstRange`: `None` when `value` fits the type and format.
fn range_error(
    value: &GoNumber,
    type_name: &str,
    format: &str,
    prefix: &str,
    path: &str,
) -> Option<String> {
    let text = match value {
        GoNumber::Int(i) => i.to_string(),
        GoNumber::Float(f) => go_print::plain_decimal(*f),
    };
    let fits = match (type_name, format) {
        ("integer", "int32") => text.parse::<i32>().is_ok(),
        ("integer", _) => text.parse::<i64>().is_ok(),
        (_, "float") => text.parse::<f64>().is_ok_and(|f| !(f as f32).is_infinite()),
        _ => true,
    };
    if fits {
        return None;
    }
    Some(if format.is_empty() {
        format!("{prefix} value must be of type {type_name} (default format) in {path}")
    } else {
        format!("{prefix} value must be of type {type_name} with format {format} in {path}")
    })
}

fn as_float(v: &GoNumber) -> f64 {
    match v {
        GoNumber::Int(i) => *i as f64,
        GoNumber::Float(f) => *f,
    }
}

fn validation(path: &str, value: BadValue, message: String) -> OpenApiError {
    OpenApiError::at(Code::Other, path, Some(value), message)
}

fn bound_message(path: &str, upper: bool, exclusive: bool, bound: &str) -> String {
    let relation = match (upper, exclusive) {
        (true, false) => "less than or equal to",
        (true, true) => "less than",
        (false, false) => "greater than or equal to",
        (false, true) => "greater than",
    };
    format!("{} should be {relation} {bound}", in_body(path))
}

/// A minimum or maximum check; `upper` for maximum.
fn bound(
    value: &GoNumber,
    limit: f64,
    exclusive: bool,
    upper: bool,
    native: bool,
    path: &str,
) -> Option<OpenApiError> {
    if let (true, GoNumber::Int(data)) = (native, value) {
        let limit = limit as i64;
        let fails = if upper {
            *data > limit || (exclusive && *data >= limit)
        } else {
            *data < limit || (exclusive && *data <= limit)
        };
        return fails.then(|| {
            let message = bound_message(path, upper, exclusive, &limit.to_string());
            validation(path, BadValue::Int(*data), message)
        });
    }
    let data = as_float(value);
    let fails = if upper {
        data > limit || (exclusive && data >= limit)
    } else {
        data < limit || (exclusive && data <= limit)
    };
    fails.then(|| {
        let message = bound_message(path, upper, exclusive, &go_print::format_float(limit));
        validation(path, BadValue::Float(data), message)
    })
}

fn multiple(value: &GoNumber, factor: f64, native: bool, path: &str) -> Option<OpenApiError> {
    if let (true, GoNumber::Int(data)) = (native, value) {
        let factor = factor as i64;
        if factor <= 0 {
            let message =
                format!("factor MultipleOf declared for {path} must be positive: {factor}");
            return Some(validation(path, BadValue::Int(factor), message));
        }
        return (data % factor != 0).then(|| {
            let message = format!("{} should be a multiple of {factor}", in_body(path));
            validation(path, BadValue::Int(*data), message)
        });
    }
    let data = as_float(value);
    if factor <= 0.0 {
        let message = format!(
            "factor MultipleOf declared for {path} must be positive: {}",
            go_print::format_float(factor)
        );
        return Some(validation(path, BadValue::Float(factor), message));
    }
    let quotient = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    (!is_json_integer(quotient)).then(|| {
        let message = format!(
            "{} should be a multiple of {}",
            in_body(path),
            go_print::format_float(factor)
        );
        validation(path, BadValue::Float(data), message)
    })
}

/// `numberValidator.Validate`.
pub(super) fn number_check(s: &Schema, n: &Number, path: &str) -> Outcome {
    let (type_name, format) = match s.types.as_slice() {
        [t] if t == "integer" => (
            "integer",
            s.format
                .as_deref()
                .filter(|f| matches!(*f, "int32" | "int64")),
        ),
        [t] if t == "number" => (
            "number",
            s.format
                .as_deref()
                .filter(|f| matches!(*f, "float" | "double")),
        ),
        _ => ("", None),
    };
    let format = format.unwrap_or("");
    let value = go_print::go_number(n);
    let mut result = Outcome::default();
    if let Some(e) = range_error(&value, type_name, format, "Checked", path) {
        result.add(OpenApiError::Plain(e));
    }
    // Each constraint is first checked against the type's range itself; a bound outside it
    // is reported and the comparison falls back to floats.
    let constraint = |limit: f64, prefix: &str, out: &mut Outcome| -> bool {
        match range_error(&GoNumber::Float(limit), type_name, format, prefix, path) {
            Some(e) => {
                out.add(OpenApiError::Plain(e));
                false
            }
            None => true,
        }
    };
    let mut multiple_result = Outcome::default();
    if let Some(factor) = s.multiple_of {
        let native = constraint(factor, "MultipleOf", &mut multiple_result);
        if let Some(e) = multiple(&value, factor, native, path) {
            multiple_result.add(e);
        }
    }
    let mut maximum_result = Outcome::default();
    if let Some(max) = s.maximum {
        let native = constraint(max, "Maximum boundary", &mut maximum_result);
        if let Some(e) = bound(&value, max, s.exclusive_maximum, true, native, path) {
            maximum_result.add(e);
        }
    }
    let mut minimum_result = Outcome::default();
    if let Some(min) = s.minimum {
        let native = constraint(min, "Minimum boundary", &mut minimum_result);
        if let Some(e) = bound(&value, min, s.exclusive_minimum, false, native, path) {
            minimum_result.add(e);
        }
    }
    result.merge(multiple_result);
    result.merge(minimum_result);
    result.merge(maximum_result);
    result.match_count += 1;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_decimals_never_use_exponents() {
        use go_print::plain_decimal;
        assert_eq!(plain_decimal(1.5), "1.5");
        assert_eq!(plain_decimal(3.0), "3");
        assert_eq!(plain_decimal(1e21), "1000000000000000000000");
        assert_eq!(plain_decimal(1e-7), "0.0000001");
        assert_eq!(plain_decimal(-2.5e22), "-25000000000000000000000");
    }

    #[test]
    fn ranges_follow_the_format() {
        let int = |i| GoNumber::Int(i);
        assert!(range_error(&int(3_000_000_000), "integer", "int32", "Checked", "x").is_some());
        assert!(range_error(&int(3_000_000_000), "integer", "int64", "Checked", "x").is_none());
        assert_eq!(
            range_error(
                &GoNumber::Float(1.5),
                "integer",
                "",
                "Checked",
                "spec.replicas"
            ),
            Some("Checked value must be of type integer (default format) in spec.replicas".into())
        );
        assert!(range_error(&GoNumber::Float(3.0), "integer", "int32", "Checked", "x").is_none());
        assert_eq!(
            range_error(
                &GoNumber::Float(1e300),
                "number",
                "float",
                "Checked",
                "spec.f32"
            ),
            Some("Checked value must be of type number with format float in spec.f32".into())
        );
        assert!(range_error(&GoNumber::Float(1e300), "number", "double", "Checked", "x").is_none());
    }
}
