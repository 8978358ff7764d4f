//! One step of a field path: a field of an object, an item of a `map` list by its key, an item
//! of a `set` list by its value, or a list item by index.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{Map, Value};

use super::value;

/// One step of a path, ordered as the apiserver orders them: field names, then keys, then
/// values, then indexes.
#[derive(Clone, Debug)]
pub enum PathElement {
    /// A field of an object (`f:name`).
    Field(String),
    /// An item of a `map` list, by its key fields sorted by name (`k:{"name":"a"}`).
    Key(Vec<(String, Value)>),
    /// An item of a `set` list, by its value (`v:"x"`).
    Value(Value),
    /// An item of an atomic list by position (`i:0`); never part of a managed field set, but
    /// readable in `FieldsV1`.
    Index(usize),
}

impl PathElement {
    /// A field element.
    pub fn field(name: impl Into<String>) -> Self {
        PathElement::Field(name.into())
    }

    /// A key element; the fields are sorted by name.
    pub fn key(fields: impl IntoIterator<Item = (String, Value)>) -> Self {
        let mut fields: Vec<(String, Value)> = fields.into_iter().collect();
        fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        PathElement::Key(fields)
    }

    /// The field name, for a field element.
    pub fn as_field(&self) -> Option<&str> {
        match self {
            PathElement::Field(name) => Some(name),
            _ => None,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            PathElement::Field(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }

    /// The `FieldsV1` key for this element: `f:name`, `k:{...}`, `v:...` or `i:N`.
    pub fn to_fields_v1_key(&self) -> String {
        match self {
            PathElement::Field(name) => {
                let mut out = String::with_capacity(name.len() + 2);
                out.push_str("f:");
                out.push_str(name);
                out
            }
            PathElement::Key(fields) => {
                let mut out = String::from("k:{");
                for (i, (name, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::go_print::json_string(name, &mut out);
                    out.push(':');
                    out.push_str(&crate::go_print::marshal(v));
                }
                out.push('}');
                out
            }
            PathElement::Value(v) => format!("v:{}", crate::go_print::marshal(v)),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    /// Parses a `FieldsV1` key. `Ok(None)` for a key of an unknown kind, which the apiserver
    /// skips.
    pub fn from_fields_v1_key(key: &str) -> Result<Option<Self>, String> {
        let Some((kind, rest)) = key.split_at_checked(2) else {
            return Err(format!("key must be 2 characters long: {key}"));
        };
        if !kind.ends_with(':') {
            return Err(format!("missing colon: {key}"));
        }
        Ok(Some(match kind {
            "f:" => PathElement::Field(rest.to_owned()),
            "v:" => {
                PathElement::Value(serde_json::from_str(rest).map_err(|e| format!("{key}: {e}"))?)
            }
            "k:" => {
                let fields: Map<String, Value> =
                    serde_json::from_str(rest).map_err(|e| format!("{key}: {e}"))?;
                PathElement::key(fields)
            }
            "i:" => PathElement::Index(rest.parse().map_err(|e| format!("{key}: {e}"))?),
            _ => return Ok(None),
        }))
    }
}

impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (PathElement::Field(a), PathElement::Field(b)) => a.as_bytes().cmp(b.as_bytes()),
            (PathElement::Key(a), PathElement::Key(b)) => {
                for ((an, av), (bn, bv)) in a.iter().zip(b) {
                    let c = an
                        .as_bytes()
                        .cmp(bn.as_bytes())
                        .then_with(|| value::compare(av, bv));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (PathElement::Value(a), PathElement::Value(b)) => value::compare(a, b),
            (PathElement::Index(a), PathElement::Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PathElement {}

/// As the apiserver prints paths: `.name`, `[name="a",port=80]`, `[="x"]`, `[0]`.
impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(n, v)| format!("{n}={}", value::to_text(v)))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={}]", value::to_text(v)),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_v1_keys_round_trip_in_the_apiservers_form() {
        let key = PathElement::key([
            ("protocol".into(), json!("TCP")),
            ("port".into(), json!(80)),
        ]);
        assert_eq!(key.to_fields_v1_key(), r#"k:{"port":80,"protocol":"TCP"}"#);
        assert_eq!(key.to_string(), r#"[port=80,protocol="TCP"]"#);
        for element in [
            key,
            PathElement::field("a.b"),
            PathElement::Value(json!("x")),
            PathElement::Index(3),
        ] {
            let parsed = PathElement::from_fields_v1_key(&element.to_fields_v1_key());
            assert_eq!(parsed, Ok(Some(element)));
        }
        assert_eq!(PathElement::from_fields_v1_key("z:1"), Ok(None));
        assert!(PathElement::from_fields_v1_key("f").is_err());
        assert!(PathElement::from_fields_v1_key("k:{bad").is_err());
    }

    #[test]
    fn elements_order_fields_keys_values_indexes() {
        let mut elements = [
            PathElement::Index(0),
            PathElement::Value(json!("x")),
            PathElement::key([("port".into(), json!(443))]),
            PathElement::key([("port".into(), json!(80))]),
            PathElement::field("b"),
            PathElement::field("a"),
        ];
        elements.sort();
        let keys: Vec<String> = elements.iter().map(PathElement::to_fields_v1_key).collect();
        assert_eq!(
            keys,
            [
                "f:a",
                "f:b",
                r#"k:{"port":80}"#,
                r#"k:{"port":443}"#,
                r#"v:"x""#,
                "i:0"
            ]
        );
    }
}
