//! `FieldsV1`: the JSON form of a field set in `metadata.managedFields`.
//!
//! Each level is an object whose keys are path elements (`f:spec`, `k:{"name":"a"}`,
//! `v:"x"`); a member with nothing below it is `{}`, and a member that also has children
//! carries a `"."` key. The apiserver writes `"."` first, then the elements in their order
//! (fields by name, then keys, values, indexes); [`Set::to_fields_v1_string`] writes exactly
//! those bytes.

use serde_json::{Map, Value};

use super::{PathElement, Set};

/// A `FieldsV1` value the apiserver would refuse to decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid FieldsV1: {0}")]
pub struct FieldsV1Error(pub String);

impl Set {
    /// The `FieldsV1` JSON value of this set.
    pub fn to_fields_v1(&self) -> Value {
        Value::Object(self.level(false))
    }

    fn level(&self, include_self: bool) -> Map<String, Value> {
        let mut out = Map::new();
        if include_self && !self.is_node_empty() {
            out.insert(".".into(), Value::Object(Map::new()));
        }
        self.walk_level(|element, member, child| {
            let body = match child {
                Some(c) => c.level(member),
                None => Map::new(),
            };
            out.insert(element.to_fields_v1_key(), Value::Object(body));
        });
        out
    }

    /// The `FieldsV1` bytes the apiserver writes for this set, key order included.
    pub fn to_fields_v1_string(&self) -> String {
        let mut out = String::new();
        self.write_level(false, &mut out);
        out
    }

    fn write_level(&self, include_self: bool, out: &mut String) {
        out.push('{');
        let mut first = true;
        if include_self && !self.is_node_empty() {
            out.push_str(r#"".":{}"#);
            first = false;
        }
        self.walk_level(|element, member, child| {
            if !first {
                out.push(',');
            }
            first = false;
            crate::go_print::json_string(&element.to_fields_v1_key(), out);
            out.push(':');
            match child {
                Some(c) => c.write_level(member, out),
                None => out.push_str("{}"),
            }
        });
        out.push('}');
    }

    fn is_node_empty(&self) -> bool {
        self.members().len() == 0 && self.children().len() == 0
    }

    /// Visits this level's elements in order: each with whether it is a member and its
    /// children, if it has a child node.
    fn walk_level(&self, mut f: impl FnMut(&PathElement, bool, Option<&Set>)) {
        let (mut members, mut children) = (self.members().peekable(), self.children().peekable());
        loop {
            let order = match (members.peek(), children.peek()) {
                (Some(m), Some((c, _))) => m.cmp(c),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => break,
            };
            match order {
                std::cmp::Ordering::Less => {
                    if let Some(m) = members.next() {
                        f(m, true, None);
                    }
                }
                std::cmp::Ordering::Greater => {
                    if let Some((c, set)) = children.next() {
                        f(c, false, Some(set));
                    }
                }
                std::cmp::Ordering::Equal => {
                    members.next();
                    if let Some((c, set)) = children.next() {
                        f(c, true, Some(set));
                    }
                }
            }
        }
    }

    /// Decodes a `FieldsV1` value. Keys of unknown kinds are skipped, as the apiserver does.
    pub fn from_fields_v1(fields: &Value) -> Result<Set, FieldsV1Error> {
        let Value::Object(map) = fields else {
            return Err(FieldsV1Error(format!("expected an object, got {fields}")));
        };
        Ok(read_level(map)?.0.unwrap_or_default())
    }

    /// Decodes `FieldsV1` bytes.
    pub fn from_fields_v1_str(text: &str) -> Result<Set, FieldsV1Error> {
        let v: Value = serde_json::from_str(text).map_err(|e| FieldsV1Error(e.to_string()))?;
        Set::from_fields_v1(&v)
    }
}

/// One level: the children it holds (if any), and whether the node itself is a member.
fn read_level(map: &Map<String, Value>) -> Result<(Option<Set>, bool), FieldsV1Error> {
    let mut children: Option<Set> = None;
    let mut is_member = false;
    for (key, v) in map {
        if key == "." {
            is_member = true;
            continue;
        }
        let element = match PathElement::from_fields_v1_key(key) {
            Ok(Some(e)) => e,
            Ok(None) => continue,
            Err(e) => return Err(FieldsV1Error(e)),
        };
        let Value::Object(inner) = v else {
            return Err(FieldsV1Error(format!("{key}: expected an object, got {v}")));
        };
        let (grandchildren, child_is_member) = read_level(inner)?;
        if child_is_member {
            children
                .get_or_insert_default()
                .insert(std::slice::from_ref(&element));
        }
        if let Some(g) = grandchildren {
            *children.get_or_insert_default().descend(&element) = g;
        }
    }
    if children.is_none() {
        is_member = true;
    }
    Ok((children, is_member))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fieldpath::Path;

    fn p(elements: Vec<PathElement>) -> Path {
        Path(elements)
    }

    #[test]
    fn members_with_children_carry_a_dot_written_first() {
        let f = PathElement::field;
        let set = Set::from_paths([
            p(vec![f("spec")]),
            p(vec![f("spec"), f("replicas")]),
            p(vec![
                f("spec"),
                f("ports"),
                PathElement::key([("name".into(), json!("b"))]),
            ]),
            p(vec![
                f("spec"),
                f("ports"),
                PathElement::key([("name".into(), json!("b"))]),
                f("port"),
            ]),
            p(vec![f("spec"), f("tags"), PathElement::Value(json!("x"))]),
            p(vec![f("metadata"), f("labels"), f("a")]),
        ]);
        assert_eq!(
            set.to_fields_v1_string(),
            r#"{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{".":{},"f:ports":{"k:{\"name\":\"b\"}":{".":{},"f:port":{}}},"f:replicas":{},"f:tags":{"v:\"x\"":{}}}}"#
        );
        assert_eq!(
            set.to_fields_v1(),
            serde_json::from_str::<Value>(&set.to_fields_v1_string()).unwrap()
        );
        assert_eq!(Set::from_fields_v1(&set.to_fields_v1()), Ok(set.clone()));
        assert_eq!(Set::from_fields_v1_str(&set.to_fields_v1_string()), Ok(set));
    }

    #[test]
    fn decoding_skips_unknown_kinds_and_rejects_malformed_keys() {
        let set = Set::from_fields_v1(&json!({"f:a": {}, "x:b": {}, "f:c": {".": {}}})).unwrap();
        assert_eq!(set.paths(), vec![Path::fields(["a"]), Path::fields(["c"])]);
        assert!(Set::from_fields_v1(&json!({"k:{": {}})).is_err());
        assert!(Set::from_fields_v1(&json!({"f:a": 1})).is_err());
        assert!(Set::from_fields_v1(&json!([])).is_err());
        assert_eq!(Set::from_fields_v1(&json!({})), Ok(Set::new()));
    }
}
