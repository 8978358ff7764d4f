//! Go values printed as Go prints them in the messages go-yaml and sigs.k8s.io/yaml put in
//! errors: `%#v` (`"s"`, `1.5`, `[]interface {}{"a"}`) and `strconv.FormatFloat(f, 'g', -1, …)`.

use serde_json::Value;

use super::resolve;
use super::tree::{Id, Kind, Node};

/// `strconv.FormatFloat(f, 'g', -1, 64)` (or 32 bits): the shortest digits, with an exponent
/// of at least two digits when it is below -4 or at least 6 (`1e+06`, `1e-05`, `123456`).
pub(super) fn format_g(f: f64, float32: bool) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    let (scientific, plain) = match float32 {
        true => (format!("{:e}", f as f32), format!("{}", f as f32)),
        false => (format!("{f:e}"), format!("{f}")),
    };
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if f != 0.0 && !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    plain
}

/// Go's `strconv.Quote`, for the text go-yaml shows: `"`, `\` and control characters escaped.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::from('"');
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
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{feff}') =>
            {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `%#v` of a decoded YAML node (go-yaml's `invalid map key: %#v`); `top` is whether the
/// node is the value printed (inside a composite, `nil` is `interface {}(nil)`).
pub(super) fn go_syntax(nodes: &[Node], id: Id, top: bool) -> String {
    let mut id = id;
    while let Kind::Alias { target, .. } = &nodes[id].kind {
        id = *target;
    }
    match &nodes[id].kind {
        Kind::Scalar {
            tag,
            value,
            implicit,
        } => match resolve::scalar(tag, value, *implicit) {
            Ok(resolve::Scalar::Null) if top => "<nil>".to_owned(),
            Ok(resolve::Scalar::Null) => "interface {}(nil)".to_owned(),
            Ok(resolve::Scalar::Bool(b)) => b.to_string(),
            Ok(resolve::Scalar::Int(i)) => i.to_string(),
            Ok(resolve::Scalar::Uint(u)) => format!("{u:#x}"),
            Ok(resolve::Scalar::Float(f)) => format_g(f, false),
            Ok(resolve::Scalar::Str(s)) => quote(&crate::json::lossy(&s)),
            Err(_) => quote(value),
        },
        Kind::Sequence(items) => {
            let shown: Vec<String> = items.iter().map(|&i| go_syntax(nodes, i, false)).collect();
            format!("[]interface {{}}{{{}}}", shown.join(", "))
        }
        Kind::Mapping(pairs) => {
            let shown: Vec<String> = pairs
                .chunks(2)
                .map(|kv| {
                    let value = kv
                        .get(1)
                        .map_or(String::new(), |&v| go_syntax(nodes, v, false));
                    format!("{}:{value}", go_syntax(nodes, kv[0], false))
                })
                .collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", shown.join(", "))
        }
        Kind::Alias { .. } => String::new(),
    }
}

/// `%+#v` of a converted value (sigs.k8s.io/yaml's `unsupported map key` message).
pub(super) fn value_syntax(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => format_g(f, false),
            _ => n.to_string(),
        },
        Value::String(s) => quote(s),
        Value::Array(_) => "[]interface {}{…}".to_owned(),
        Value::Object(_) => "map[interface {}]interface {}{…}".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go_prints_them() {
        let cases = [
            (1.0, false, "1"),
            (1e6, false, "1e+06"),
            (123456.0, false, "123456"),
            (1e21, false, "1e+21"),
            (1e-5, false, "1e-05"),
            (0.0001, false, "0.0001"),
            (1.2345678901, true, "1.2345679"),
            (123456789.0, true, "1.2345679e+08"),
            (16777217.0, true, "1.6777216e+07"),
            (1000.0, true, "1000"),
            (f64::INFINITY, false, "+Inf"),
        ];
        for (f, float32, want) in cases {
            assert_eq!(format_g(f, float32), want, "{f}");
        }
    }
}
