//! Numbers as the apiserver reads and writes them: sigs.k8s.io/json's `PreserveInts` (an
//! integer literal that fits int64 stays one, anything else is a correctly rounded float64,
//! and a float64 overflow is an error), and Go's float formatting in `encoding/json` output.

use serde_json::{Number, Value};

/// The value of a JSON number literal (already checked by the scanner) decoded into
/// `interface{}` with `PreserveInts`, or `None` when float64 cannot hold it (`1e309`: Go's
/// `strconv.ParseFloat` reports a range error; an underflow such as `1e-400` is 0).
pub(crate) fn convert(literal: &str) -> Option<Number> {
    if !literal.contains('.')
        && let Ok(i) = literal.parse::<i64>()
    {
        return Some(Number::from(i));
    }
    // Rust's float parsing is correctly rounded, as Go's is.
    let f: f64 = literal.parse().ok()?;
    Number::from_f64(f)
}

/// A float64 as Go's `encoding/json` writes it: the shortest digits that read back the same
/// value, in plain notation when 1e-6 ≤ |x| < 1e21 (`100000000000000000000`, `0.000001`)
/// and as an exponent otherwise (`1e+21`, `1.5e+300`, `5e-324`, `1e-7`).
pub fn format_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        // Rust's `Display` writes the shortest round-trip digits without an exponent.
        return format!("{f}");
    }
    let text = format!("{f:e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) if !exponent.starts_with('-') => {
            format!("{mantissa}e+{exponent}")
        }
        _ => text,
    }
}

/// What a value becomes when the apiserver writes it to storage and reads it back: Go's
/// encoder writes a float64 with an integral value below 1e21 without a fraction, and
/// `PreserveInts` reads that back as an int64 when it fits (`1.0` → `1`, `-0.0` → `0`,
/// `1e3` → `1000`; `1e20` stays a float). Applied to every number in `value`.
pub fn through_storage(value: &mut Value) {
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            Value::Number(n) => {
                if let Some(i) = integral(n) {
                    *n = Number::from(i);
                }
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(fields) => pending.extend(fields.values_mut()),
            _ => {}
        }
    }
}

/// The int64 a float number reads back as after Go writes it, if any: Go writes the
/// shortest digits, so an integral float near ±2^63 may be written as a literal past int64
/// (`-9223372036854776000` for -2^63) and stays a float.
fn integral(n: &Number) -> Option<i64> {
    if n.is_i64() || n.is_u64() {
        return None;
    }
    let f = n.as_f64()?;
    if f.fract() != 0.0 || f.abs() >= 1e21 {
        return None;
    }
    format_float(f).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_decode_as_preserve_ints_does() {
        assert_eq!(convert("1"), Some(Number::from(1)));
        assert_eq!(convert("-0"), Some(Number::from(0)));
        assert_eq!(convert("9223372036854775807"), Some(Number::from(i64::MAX)));
        assert_eq!(
            convert("9223372036854775808").and_then(|n| n.as_f64()),
            Some(9223372036854775808.0)
        );
        assert_eq!(convert("1e3").and_then(|n| n.as_f64()), Some(1000.0));
        assert_eq!(
            convert("10.000000000000001").and_then(|n| n.as_f64()),
            Some(10.000000000000002)
        );
        assert_eq!(convert("1e-400").and_then(|n| n.as_f64()), Some(0.0));
        assert_eq!(convert("1e309"), None);
        assert_eq!(convert("-1e309"), None);
    }

    #[test]
    fn floats_are_written_as_go_writes_them() {
        let cases = [
            (1.0, "1"),
            (-0.0, "-0"),
            (0.5, "0.5"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (18446744073709551615.0, "18446744073709552000"),
            (-9223372036854775809.0, "-9223372036854776000"),
            (1.2345678901234568e29, "1.2345678901234568e+29"),
            (1e308, "1e+308"),
            (5e-324, "5e-324"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (10.000000000000002, "10.000000000000002"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float(f), want, "{f:?}");
        }
    }

    #[test]
    fn storage_turns_integral_floats_into_integers() {
        // Observed on kube-apiserver v1.36.2: -2^63 as a float is written
        // `-9223372036854776000`, which is past int64.
        let mut v = json!({"a": 1.0, "b": [-0.0, 1e3, 0.5, 1e20, 9223372036854775808.0, -9223372036854775808.0, 9223372036854774784.0], "c": "1.0"});
        through_storage(&mut v);
        assert_eq!(
            v,
            json!({"a": 1, "b": [0, 1000, 0.5, 1e20, 9223372036854775808.0, -9223372036854775808.0, 9223372036854775000_i64], "c": "1.0"})
        );
        assert!(v["b"][3].is_f64() && v["b"][5].is_f64());
    }
}
