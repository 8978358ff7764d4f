//! JSON values as structured-merge-diff sees them: a total order across types, numeric
//! equality between integers and floats, and how Kubernetes prints a value as text (in conflict
//! messages). As JSON (in `FieldsV1` keys) values are written as Go's `encoding/json` writes
//! them (`go_print::marshal`).

use std::cmp::Ordering;

use serde_json::Value;

use crate::go_print;

/// A number as the apiserver holds it: JSON integers are 64-bit integers, the rest floats.
enum Num {
    Int(i64),
    Float(f64),
}

fn number(v: &Value) -> Option<Num> {
    let Value::Number(n) = v else { return None };
    match n.as_i64() {
        Some(i) => Some(Num::Int(i)),
        None => n.as_f64().map(Num::Float),
    }
}

fn float_cmp(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// Position of each kind of value in the total order: numbers, strings, booleans, lists,
/// maps, null.
fn rank(v: &Value) -> u8 {
    match v {
        Value::Number(_) => 0,
        Value::String(_) => 1,
        Value::Bool(_) => 2,
        Value::Array(_) => 3,
        Value::Object(_) => 4,
        Value::Null => 5,
    }
}

/// The total order structured-merge-diff sorts set members and list keys by: numbers
/// (integers and floats compared numerically) before strings, booleans, lists, maps and null;
/// lists compare item by item, maps key by key in lexical key order.
pub fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => match (number(a), number(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => x.cmp(&y),
            (Some(Num::Int(x)), Some(Num::Float(y))) => float_cmp(x as f64, y),
            (Some(Num::Float(x)), Some(Num::Int(y))) => float_cmp(x, y as f64),
            (Some(Num::Float(x)), Some(Num::Float(y))) => float_cmp(x, y),
            _ => Ordering::Equal,
        },
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (l, r) in x.iter().zip(y) {
                let c = compare(l, r);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => map_compare(x, y),
        (Value::Null, Value::Null) => Ordering::Equal,
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Maps compared as the apiserver does: walking the union of keys in lexical order, a side
/// that runs out of keys first, or lacks the current key, decides.
fn map_compare(x: &serde_json::Map<String, Value>, y: &serde_json::Map<String, Value>) -> Ordering {
    if x.is_empty() && y.is_empty() {
        return Ordering::Equal;
    }
    let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
    keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    keys.dedup();
    for (i, key) in keys.into_iter().enumerate() {
        let c = match (x.get(key), y.get(key)) {
            _ if i == x.len() => Ordering::Less,
            _ if i == y.len() => Ordering::Greater,
            (None, _) => Ordering::Greater,
            (_, None) => Ordering::Less,
            (Some(l), Some(r)) => compare(l, r),
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

/// Equality as the apiserver decides "changed": `1` equals `1.0`; everything else structural.
pub fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => compare(a, b) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(l, r)| equals(l, r))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, l)| y.get(k).is_some_and(|r| equals(l, r)))
        }
        _ => a == b,
    }
}

/// A value as the apiserver prints it in paths and conflict messages (Go's `%v` for numbers,
/// `%q` for strings).
pub fn to_text(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => match number(v) {
            Some(Num::Int(i)) => i.to_string(),
            Some(Num::Float(f)) => go_print::format_float(f),
            None => "0".into(),
        },
        Value::String(s) => go_print::quote(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(to_text).collect::<Vec<_>>().join(",")
        ),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", to_text(v)))
            .collect::<String>(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_sort_before_strings_and_compare_across_int_and_float() {
        let mut values = vec![
            json!(null),
            json!({"a": 1}),
            json!([1]),
            json!(true),
            json!("b"),
            json!(2.5),
            json!(2),
        ];
        values.sort_by(compare);
        assert_eq!(
            values,
            vec![
                json!(2),
                json!(2.5),
                json!("b"),
                json!(true),
                json!([1]),
                json!({"a": 1}),
                json!(null)
            ]
        );
        assert!(equals(&json!(1), &json!(1.0)));
        assert!(!equals(&json!(1), &json!("1")));
    }

    #[test]
    fn go_json_escapes_html_and_sorts_keys() {
        assert_eq!(
            go_print::marshal(&json!({"b": "<x>", "a": 1.5e-7, "c": 1e21})),
            r#"{"a":1.5e-7,"b":"\u003cx\u003e","c":1e+21}"#
        );
        assert_eq!(to_text(&json!("a\"b")), r#""a\"b""#);
        assert_eq!(to_text(&json!(1e6)), "1e+06");
        assert_eq!(to_text(&json!(123456.5)), "123456.5");
        assert_eq!(to_text(&json!(1e-5)), "1e-05");
    }
}
