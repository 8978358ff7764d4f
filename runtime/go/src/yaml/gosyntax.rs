//! Go values printed as Go prints them in the messages go-yaml and sigs.k8s.io/yaml put in
//! errors: `%#v` (`"s"`, `1.5`, `[]interface {}{"a"}`) and `strconv.FormatFloat(f, 'g', -1, …)`.

use serde_json::Value;

use super::resolve;
use super::tree::{Id, Kind, Node};

/// `strconv.FormatFloat(f, 'g', -1, 64)`, or with 32 bits.
pub(super) fn format_g(f: f64, float32: bool) -> String {
    crate::strconv::format_g(f, if float32 { 32 } else { 64 })
}

pub(super) use crate::strconv::quote;

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
