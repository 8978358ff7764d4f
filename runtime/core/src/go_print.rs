//! How Go prints values, for messages that must read byte for byte like the apiserver's:
//! `%v` of a float64, `%q` of a string, and `encoding/json`'s `Marshal` of a JSON value
//! (kubegen-go's `strconv` and `json` hold Go's rules; this names them for the runtime).

use std::fmt::Write;

use serde_json::Value;

#[doc(hidden)]
pub use kubegen_go::strconv::{is_print, quote, quote_bytes};

/// Go's `fmt.Sprintf("%v", f)` for a float64: shortest digits, exponent form when the
/// exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`, `0.5`, `3`).
pub fn format_float(f: f64) -> String {
    kubegen_go::strconv::format_g(f, 64)
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: shortest digits, never an exponent.
pub fn plain_decimal(f: f64) -> String {
    match f.is_finite() {
        // Rust's `Display` prints the shortest round-tripping digits without an exponent.
        true => format!("{f}"),
        false => format_float(f),
    }
}

/// `encoding/json`'s rendering of a float64: plain decimals between 1e-6 and 1e21,
/// exponent form (`1e+21`, `1e-7`) outside.
pub fn json_float(f: f64) -> String {
    match f.is_finite() {
        true => kubegen_go::json::format_float(f),
        false => format_float(f),
    }
}

/// `encoding/json`'s string encoding, with its HTML escaping (`<`, `>`, `&`) and
/// escaped line and paragraph separators.
pub fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as Go's unstructured JSON holds it: integers that fit an int64 are int64,
/// everything else float64.
pub enum GoNumber {
    /// An `int64`.
    Int(i64),
    /// A `float64`.
    Float(f64),
}

/// The Go type a decoded JSON number has in an unstructured object.
pub fn go_number(n: &serde_json::Number) -> GoNumber {
    match n.as_i64() {
        Some(i) => GoNumber::Int(i),
        None => GoNumber::Float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// `json.Marshal` of an unstructured value: object keys sorted (Go sorts map keys), Go's
/// number and string encodings.
pub fn marshal(value: &Value) -> String {
    String::from_utf8(kubegen_go::json::to_vec(value)).unwrap_or_default()
}

/// `fmt.Sprintf("%v", v)` of an unstructured value: maps as `map[k:v]` (sorted keys),
/// slices as `[a b]`, nil as `<nil>`.
pub fn print(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match go_number(n) {
            GoNumber::Int(i) => i.to_string(),
            GoNumber::Float(f) => format_float(f),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(print).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", print(&members[k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// `fmt.Sprintf("%T", v)` of an unstructured value.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) => match go_number(n) {
            GoNumber::Int(_) => "int64",
            GoNumber::Float(_) => "float64",
        },
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_marshal_like_encoding_json() {
        for (f, want) in [
            (3.0, "3"),
            (0.5, "0.5"),
            (1e6, "1000000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (0.000001, "0.000001"),
        ] {
            assert_eq!(json_float(f), want, "{f}");
        }
    }

    #[test]
    fn values_marshal_like_encoding_json() {
        // `{"a":2}` and `{"name":"a","proto":"TCP"}` are as kube-apiserver v1.36.2 printed
        // them in Unsupported and Duplicate causes.
        assert_eq!(marshal(&json!({"a": 2})), r#"{"a":2}"#);
        assert_eq!(
            marshal(&json!({"proto": "TCP", "name": "a"})),
            r#"{"name":"a","proto":"TCP"}"#
        );
        assert_eq!(
            marshal(&json!(["<b>&", 1.5, 3.0, null, true])),
            r#"["\u003cb\u003e\u0026",1.5,3,null,true]"#
        );
        assert_eq!(marshal(&json!("\u{2028}\u{1}")), r#""\u2028\u0001""#);
        assert_eq!(
            marshal(&json!(18446744073709551615u64)),
            "18446744073709552000"
        );
    }
}
