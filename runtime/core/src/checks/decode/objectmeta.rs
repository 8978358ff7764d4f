//! `metadata` as the apiserver reads it: decoded into Go's `ObjectMeta` by encoding/json's
//! rules (the first type error is reported in its words; unknown fields are reported by the
//! strict decoder), then written back as `ObjectMeta` serializes (empty fields dropped, times
//! in UTC seconds). Custom resources get this for their own metadata and for the metadata of
//! every embedded resource.

use serde_json::{Map, Value};

use super::coerce::join;
use super::gotime;
use kubegen_go::json as gojson;

/// What a Go field holds.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int64,
    Bool,
    Time,
    StrMap,
    StrList,
    Structs(&'static Struct),
    /// `FieldsV1`: any JSON, kept as it is.
    Raw,
}

/// How a field is written back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Emit {
    /// `omitempty`: dropped when zero or empty.
    NonEmpty,
    /// A pointer: written when it was set.
    WhenSet,
    /// Always written (a non-pointer struct or a field without `omitempty`).
    Always,
}

struct Struct {
    name: &'static str,
    fields: &'static [(&'static str, Ty, Emit)],
}

const OWNER_REFERENCE: Struct = Struct {
    name: "OwnerReference",
    fields: &[
        ("apiVersion", Ty::Str, Emit::Always),
        ("kind", Ty::Str, Emit::Always),
        ("name", Ty::Str, Emit::Always),
        ("uid", Ty::Str, Emit::Always),
        ("controller", Ty::Bool, Emit::WhenSet),
        ("blockOwnerDeletion", Ty::Bool, Emit::WhenSet),
    ],
};

const MANAGED_FIELDS_ENTRY: Struct = Struct {
    name: "ManagedFieldsEntry",
    fields: &[
        ("manager", Ty::Str, Emit::NonEmpty),
        ("operation", Ty::Str, Emit::NonEmpty),
        ("apiVersion", Ty::Str, Emit::NonEmpty),
        ("time", Ty::Time, Emit::WhenSet),
        ("fieldsType", Ty::Str, Emit::NonEmpty),
        ("fieldsV1", Ty::Raw, Emit::WhenSet),
        ("subresource", Ty::Str, Emit::NonEmpty),
    ],
};

const OBJECT_META: Struct = Struct {
    name: "ObjectMeta",
    fields: &[
        ("name", Ty::Str, Emit::NonEmpty),
        ("generateName", Ty::Str, Emit::NonEmpty),
        ("namespace", Ty::Str, Emit::NonEmpty),
        ("selfLink", Ty::Str, Emit::NonEmpty),
        ("uid", Ty::Str, Emit::NonEmpty),
        ("resourceVersion", Ty::Str, Emit::NonEmpty),
        ("generation", Ty::Int64, Emit::NonEmpty),
        ("creationTimestamp", Ty::Time, Emit::Always),
        ("deletionTimestamp", Ty::Time, Emit::WhenSet),
        ("deletionGracePeriodSeconds", Ty::Int64, Emit::WhenSet),
        ("labels", Ty::StrMap, Emit::NonEmpty),
        ("annotations", Ty::StrMap, Emit::NonEmpty),
        (
            "ownerReferences",
            Ty::Structs(&OWNER_REFERENCE),
            Emit::NonEmpty,
        ),
        ("finalizers", Ty::StrList, Emit::NonEmpty),
        (
            "managedFields",
            Ty::Structs(&MANAGED_FIELDS_ENTRY),
            Emit::NonEmpty,
        ),
    ],
};

/// `metadata` after the round trip, and the paths of the fields ObjectMeta does not have.
pub(super) struct Decoded {
    pub meta: Value,
    pub unknown: Vec<String>,
}

/// Decodes `value` as the `metadata` at `prefix` (`metadata`, `spec.template.metadata`),
/// taking its strings and values over instead of copying them. The error is Go's text for the
/// first problem that stops the apiserver.
pub(super) fn decode(value: Value, prefix: &str) -> Result<Decoded, String> {
    let mut d = Decoder {
        type_error: None,
        unknown: Vec::new(),
        prefix,
    };
    let meta = match value {
        Value::Null => Value::Object(Map::new()),
        Value::Object(fields) => d.object(&OBJECT_META, fields, "", "")?,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
                gojson::type_name(&other)
            ));
        }
    };
    match d.type_error {
        Some(e) => Err(e),
        None => Ok(Decoded {
            meta: with_zero_creation_time(meta),
            unknown: d.unknown,
        }),
    }
}

/// A zero `creationTimestamp` is written as `null`, as `ObjectMeta` serializes it.
fn with_zero_creation_time(mut meta: Value) -> Value {
    if let Value::Object(m) = &mut meta {
        m.entry("creationTimestamp").or_insert(Value::Null);
    }
    meta
}

struct Decoder<'p> {
    /// encoding/json keeps going after a type error and reports the first.
    type_error: Option<String>,
    unknown: Vec<String>,
    prefix: &'p str,
}

/// Where a field is: its struct's paths and its own name. The paths are joined only when a
/// problem or a nested struct needs them.
#[derive(Clone, Copy)]
struct At<'a> {
    /// The Go error's dotted path to the struct.
    field_path: &'a str,
    /// The strict decoder's path to the struct (with list indexes), for unknown fields.
    json_path: &'a str,
    key: &'a str,
}

impl At<'_> {
    fn field_path(&self) -> String {
        join(self.field_path, self.key)
    }

    fn json_path(&self) -> String {
        join(self.json_path, self.key)
    }
}

impl Decoder<'_> {
    /// Records encoding/json's `UnmarshalTypeError`: a number into an integer it does not
    /// fit is `number <literal>`, any other mismatch names the JSON type.
    fn type_error(&mut self, value: &Value, owner: &str, at: At<'_>, go_type: &str) {
        if self.type_error.is_none() {
            let what = match value {
                Value::Number(n) if go_type == "int64" => format!("number {n}"),
                other => gojson::type_name(other).to_owned(),
            };
            self.type_error = Some(format!(
                "json: cannot unmarshal {what} into Go struct field {owner}.{} of type {go_type}",
                at.field_path()
            ));
        }
    }

    /// The fields of a struct. `field_path` is the Go error's dotted path to it, `json_path`
    /// the strict decoder's path (with list indexes) for unknown fields.
    fn object(
        &mut self,
        ty: &Struct,
        fields: Map<String, Value>,
        field_path: &str,
        json_path: &str,
    ) -> Result<Value, String> {
        let mut out = Map::new();
        // Go marshals the map with sorted keys first, so that is the decoding order.
        for (key, value) in fields {
            let Some((_, field_ty, emit)) = ty.fields.iter().find(|(name, _, _)| *name == key)
            else {
                let path = join(json_path, &key);
                self.unknown.push(format!("{}.{path}", self.prefix));
                continue;
            };
            let at = At {
                field_path,
                json_path,
                key: &key,
            };
            let decoded = self.value(*field_ty, value, ty.name, at)?;
            let keep = match (emit, &decoded) {
                (_, None) => *emit == Emit::Always,
                (Emit::NonEmpty, Some(v)) => !is_empty(v),
                (_, Some(_)) => true,
            };
            if keep {
                out.insert(key, decoded.unwrap_or(Value::Null));
            }
        }
        for (name, field_ty, emit) in ty.fields {
            if *emit == Emit::Always && !out.contains_key(*name) {
                out.insert((*name).to_owned(), zero(*field_ty));
            }
        }
        Ok(Value::Object(out))
    }

    /// One field's value; `None` for JSON `null` (Go leaves the field as it was).
    fn value(
        &mut self,
        ty: Ty,
        value: Value,
        owner: &str,
        at: At<'_>,
    ) -> Result<Option<Value>, String> {
        if value.is_null() {
            return Ok(None);
        }
        let decoded = match (ty, value) {
            (Ty::Str, value @ Value::String(_))
            | (Ty::Bool, value @ Value::Bool(_))
            | (Ty::Raw, value) => value,
            (Ty::Int64, Value::Number(n)) if n.is_i64() => Value::Number(n),
            (Ty::Time, Value::String(s)) => Value::String(gotime::parse_rfc3339(&s)?),
            // metav1.Time's own UnmarshalJSON decodes a string; anything else stops decoding.
            (Ty::Time, other) => {
                return Err(format!(
                    "json: cannot unmarshal {} into Go value of type string",
                    gojson::type_name(&other)
                ));
            }
            (Ty::StrMap, Value::Object(entries)) => {
                let mut out = Map::new();
                for (k, v) in entries {
                    match v {
                        Value::String(_) => {
                            out.insert(k, v);
                        }
                        Value::Null => {
                            out.insert(k, Value::String(String::new()));
                        }
                        other => self.type_error(&other, owner, at, "string"),
                    }
                }
                Value::Object(out)
            }
            (Ty::StrList, Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::String(_) => out.push(item),
                        Value::Null => out.push(Value::String(String::new())),
                        other => self.type_error(&other, owner, at, "string"),
                    }
                }
                Value::Array(out)
            }
            (Ty::Structs(inner), Value::Array(items)) => {
                let (field_path, json_path) = (at.field_path(), at.json_path());
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    let item_path = format!("{json_path}[{i}]");
                    match item {
                        Value::Object(fields) => {
                            out.push(self.object(inner, fields, &field_path, &item_path)?)
                        }
                        Value::Null => {
                            out.push(self.object(inner, Map::new(), &field_path, &item_path)?)
                        }
                        other => self.type_error(&other, owner, at, &format!("v1.{}", inner.name)),
                    }
                }
                Value::Array(out)
            }
            (ty, other) => {
                let go_type = match ty {
                    Ty::Str => "string".to_owned(),
                    Ty::Int64 => "int64".to_owned(),
                    Ty::Bool => "bool".to_owned(),
                    Ty::StrMap => "map[string]string".to_owned(),
                    Ty::StrList => "[]string".to_owned(),
                    Ty::Structs(inner) => format!("[]v1.{}", inner.name),
                    Ty::Time | Ty::Raw => unreachable_type(),
                };
                self.type_error(&other, owner, at, &go_type);
                return Ok(None);
            }
        };
        Ok(Some(decoded))
    }
}

/// `Ty::Time` and `Ty::Raw` are matched above for every JSON value.
fn unreachable_type() -> String {
    String::new()
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_i64() == Some(0),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Bool(b) => !b,
        Value::Null => true,
    }
}

fn zero(ty: Ty) -> Value {
    match ty {
        Ty::Str => Value::String(String::new()),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_metadata_as_go_does() {
        let d = decode(
            json!({
                "name": "a", "labels": {}, "annotations": {"x": null}, "finalizers": [],
                "generation": 0, "deletionTimestamp": "2024-01-02T03:04:05.5+01:00",
                "ownerReferences": [{"kind": "K", "controller": true, "extra": 1}],
                "bogus": true,
            }),
            "metadata",
        )
        .unwrap();
        assert_eq!(
            d.meta,
            json!({
                "name": "a", "annotations": {"x": ""}, "creationTimestamp": null,
                "deletionTimestamp": "2024-01-02T02:04:05Z",
                "ownerReferences": [{"apiVersion": "", "kind": "K", "name": "", "uid": "", "controller": true}],
            })
        );
        assert_eq!(
            d.unknown,
            ["metadata.bogus", "metadata.ownerReferences[0].extra"]
        );
    }

    #[test]
    fn type_errors_are_worded_as_encoding_json_words_them() {
        // Observed on kube-apiserver v1.36.2.
        let error = |v: Value| decode(v, "metadata").err().unwrap_or_default();
        assert_eq!(
            error(json!({"labels": ["a"]})),
            "json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string"
        );
        assert_eq!(
            error(json!({"labels": "x"})),
            "json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string"
        );
        assert_eq!(
            error(json!({"ownerReferences": [{"apiVersion": 1}]})),
            "json: cannot unmarshal number into Go struct field OwnerReference.ownerReferences.apiVersion of type string"
        );
        assert_eq!(
            error(json!({"generation": 1.5})),
            "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64"
        );
        assert_eq!(
            error(json!("x")),
            "json: cannot unmarshal string into Go value of type v1.ObjectMeta"
        );
    }
}
