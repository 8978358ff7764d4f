//! How Go prints values, for messages that must read byte for byte like the apiserver's:
//! `%v` of a float64, `%q` of a string, and `encoding/json`'s `Marshal` of a JSON value.

use std::fmt::Write;

use serde_json::Value;

/// The shortest decimal digits that round-trip `f` (no sign, no leading or trailing zeros)
/// and the position of the decimal point relative to them (`0.0123` is `("123", -1)`).
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-tripping mantissa, as Go's shortest mode does.
    let e = format!("{:e}", f.abs());
    let (mantissa, exponent) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    (digits.to_owned(), exponent + 1)
}

/// The values every Go float format prints the same way: NaN, infinities and zeros.
fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.into())
    } else if f == 0.0 {
        Some(if f.is_sign_negative() { "-0" } else { "0" }.into())
    } else {
        None
    }
}

/// `d.ddde±XX`: Go's exponent has a sign and at least two digits.
fn exponent_form(digits: &str, point: i32, negative: bool) -> String {
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    s.push_str(&digits[..1]);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(&digits[1..]);
    }
    let exp = point - 1;
    let _ = write!(s, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    s
}

fn decimal_form(digits: &str, point: i32, negative: bool) -> String {
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    let n = digits.len() as i32;
    if point <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-point) as usize));
        s.push_str(digits);
    } else if point >= n {
        s.push_str(digits);
        s.extend(std::iter::repeat_n('0', (point - n) as usize));
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    s
}

/// Go's `fmt.Sprintf("%v", f)` for a float64: shortest digits, exponent form when the
/// exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`, `0.5`, `3`).
pub fn format_float(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let (digits, point) = shortest_digits(f);
    let exp = point - 1;
    if !(-4..6).contains(&exp) {
        exponent_form(&digits, point, f < 0.0)
    } else {
        decimal_form(&digits, point, f < 0.0)
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: shortest digits, never an exponent.
pub fn plain_decimal(f: f64) -> String {
    special(f).unwrap_or_else(|| {
        let (digits, point) = shortest_digits(f);
        decimal_form(&digits, point, f < 0.0)
    })
}

/// `encoding/json`'s rendering of a float64: plain decimals between 1e-6 and 1e21,
/// exponent form (`1e+21`, `1e-7`) outside.
pub fn json_float(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let (digits, point) = shortest_digits(f);
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        let s = exponent_form(&digits, point, f < 0.0);
        // encoding/json trims a leading zero from negative exponents: e-07 becomes e-7.
        match s.rsplit_once("e-0") {
            Some((head, tail)) if tail.len() == 1 => format!("{head}e-{tail}"),
            _ => s,
        }
    } else {
        decimal_form(&digits, point, f < 0.0)
    }
}

/// Whether Go's `unicode.IsPrint` holds: letters, marks, numbers, punctuation, symbols and
/// the ASCII space, from Go's own Unicode tables.
pub fn is_print(c: char) -> bool {
    kubegen_go::unicode::is_print(c)
}

/// Go's `strconv.Quote` (`%q`): a double-quoted string with Go escapes.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
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
    let mut out = String::new();
    marshal_into(value, &mut out);
    out
}

fn marshal_into(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match go_number(n) {
            GoNumber::Int(i) => {
                let _ = write!(out, "{i}");
            }
            GoNumber::Float(f) => out.push_str(&json_float(f)),
        },
        Value::String(s) => json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                marshal_into(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(key, out);
                out.push(':');
                marshal_into(&members[key], out);
            }
            out.push('}');
        }
    }
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
    fn floats_print_like_go_percent_v() {
        // Reference values are what Go's fmt.Sprintf("%v", float64) prints; 1.0000005e+06
        // and 1e+06 were also observed in kube-apiserver v1.36.2 messages.
        for (f, want) in [
            (1_000_000.5, "1.0000005e+06"),
            (1e6, "1e+06"),
            (100_000.0, "100000"),
            (123_456.0, "123456"),
            (0.5, "0.5"),
            (3.0, "3"),
            (-2.25, "-2.25"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
        ] {
            assert_eq!(format_float(f), want, "{f}");
        }
    }

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
    fn strings_quote_like_go() {
        assert_eq!(quote("Slow"), "\"Slow\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("tab\there\n"), "\"tab\\there\\n\"");
        assert_eq!(quote("\u{1}\u{7f}"), "\"\\x01\\x7f\"");
        assert_eq!(quote("é日本"), "\"é日本\"");
        assert_eq!(quote("\u{a0}\u{200b}"), "\"\\u00a0\\u200b\"");
        assert_eq!(quote("\u{f0000}"), "\"\\U000f0000\"");
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
