//! The `managedFields` list decoded into field sets per manager, and written back in the
//! apiserver's order.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::fieldpath::{FieldsV1Error, Set};

/// Apply (server-side apply) or Update (every other write).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    /// A server-side apply.
    Apply,
    /// A create, update or patch.
    Update,
}

impl Operation {
    /// `Apply` or `Update`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// Who a managed-fields entry belongs to. Apply entries are one per manager and subresource
/// whatever the apiVersion; Update entries one per apiVersion too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManagerId {
    /// The field manager's name.
    pub manager: String,
    /// Apply or Update.
    pub operation: Operation,
    /// The apiVersion (Update entries only).
    pub api_version: Option<String>,
    /// `status`, `scale`, or empty for the main resource.
    pub subresource: String,
}

impl ManagerId {
    /// A manager identifier for `operation` at `api_version` on `subresource`.
    pub fn new(manager: &str, operation: Operation, api_version: &str, subresource: &str) -> Self {
        ManagerId {
            manager: manager.to_owned(),
            operation,
            api_version: (operation == Operation::Update).then(|| api_version.to_owned()),
            subresource: subresource.to_owned(),
        }
    }

    /// The identifier the apiserver keys managers by: the entry without fields and time, as
    /// JSON (`{"manager":"x","operation":"Update","apiVersion":"g/v"}`).
    pub fn identifier(&self) -> String {
        let mut out = String::from("{");
        let field = |out: &mut String, name: &str, v: &str| {
            if v.is_empty() {
                return;
            }
            if out.len() > 1 {
                out.push(',');
            }
            crate::go_print::json_string(name, out);
            out.push(':');
            crate::go_print::json_string(v, out);
        };
        field(&mut out, "manager", &self.manager);
        field(&mut out, "operation", self.operation.as_str());
        field(
            &mut out,
            "apiVersion",
            self.api_version.as_deref().unwrap_or(""),
        );
        field(&mut out, "subresource", &self.subresource);
        out.push('}');
        out
    }

    /// Reads an identifier back; `None` for names that are not identifiers.
    pub fn parse(identifier: &str) -> Option<ManagerId> {
        let v: Map<String, Value> = serde_json::from_str(identifier).ok()?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let operation = match s("operation").as_str() {
            "Apply" => Operation::Apply,
            _ => Operation::Update,
        };
        Some(ManagerId {
            manager: s("manager"),
            operation,
            api_version: Some(s("apiVersion")).filter(|a| !a.is_empty()),
            subresource: s("subresource"),
        })
    }

    /// How conflict messages name a manager: `"alice"`, `"bob" with subresource "status"`,
    /// `"unknown" using group/v1`.
    pub fn describe(identifier: &str) -> String {
        let Some(id) = ManagerId::parse(identifier) else {
            return crate::go_print::quote(identifier);
        };
        let mut out = crate::go_print::quote(&id.manager);
        if !id.subresource.is_empty() {
            out.push_str(&format!(
                " with subresource {}",
                crate::go_print::quote(&id.subresource)
            ));
        }
        if ManagerId::parse_operation(identifier) == Some(Operation::Update) {
            out.push_str(&format!(" using {}", id.api_version.unwrap_or_default()));
        }
        out
    }

    fn parse_operation(identifier: &str) -> Option<Operation> {
        let v: Map<String, Value> = serde_json::from_str(identifier).ok()?;
        match v.get("operation").and_then(Value::as_str) {
            Some("Apply") => Some(Operation::Apply),
            Some("Update") => Some(Operation::Update),
            _ => None,
        }
    }
}

/// A manager's fields, at the apiVersion it wrote them in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionedSet {
    /// The fields.
    pub set: Set,
    /// The apiVersion the paths are in.
    pub api_version: String,
    /// Whether they come from an apply.
    pub applied: bool,
}

/// A `managedFields` list the apiserver would not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ManagedFieldsError {
    /// The list or an entry is not the right JSON shape.
    #[error("managedFields must be a list of entries: {0}")]
    Shape(String),
    /// `operation` is neither Apply nor Update.
    #[error("operation must be `Apply` or `Update`")]
    Operation,
    /// `apiVersion` is empty.
    #[error("apiVersion must not be empty")]
    ApiVersion,
    /// `fieldsType` is missing.
    #[error("missing fieldsType in managed fields entry {0}")]
    MissingFieldsType(usize),
    /// `fieldsType` is not `FieldsV1`.
    #[error("invalid fieldsType {0:?} in managed fields entry {1}")]
    FieldsType(String, usize),
    /// `fieldsV1` does not decode.
    #[error("error decoding versioned set: {0}")]
    Fields(#[from] FieldsV1Error),
}

/// Decoded managed fields: each manager's set and the time of its last change, keyed by
/// manager identifier ([`ManagerId::identifier`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManagedFields {
    /// Field sets by manager identifier.
    pub fields: BTreeMap<String, VersionedSet>,
    /// Times by manager identifier (`None`: the entry has no time).
    pub times: BTreeMap<String, Option<String>>,
}

impl ManagedFields {
    /// Whether no manager owns anything.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Decodes an object's `metadata.managedFields` (absent: empty).
    pub fn decode(list: Option<&Value>) -> Result<ManagedFields, ManagedFieldsError> {
        let mut out = ManagedFields::default();
        let entries = match list {
            None | Some(Value::Null) => return Ok(out),
            Some(Value::Array(entries)) => entries,
            Some(other) => return Err(ManagedFieldsError::Shape(other.to_string())),
        };
        for (i, entry) in entries.iter().enumerate() {
            let Value::Object(e) = entry else {
                return Err(ManagedFieldsError::Shape(entry.to_string()));
            };
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
            let operation = match s("operation") {
                "Apply" => Operation::Apply,
                "Update" => Operation::Update,
                _ => return Err(ManagedFieldsError::Operation),
            };
            if s("apiVersion").is_empty() {
                return Err(ManagedFieldsError::ApiVersion);
            }
            match s("fieldsType") {
                "FieldsV1" => {}
                "" => return Err(ManagedFieldsError::MissingFieldsType(i)),
                other => return Err(ManagedFieldsError::FieldsType(other.to_owned(), i)),
            }
            let id = ManagerId {
                manager: s("manager").to_owned(),
                operation,
                api_version: (operation == Operation::Update).then(|| s("apiVersion").to_owned()),
                subresource: s("subresource").to_owned(),
            };
            let set = match e.get("fieldsV1") {
                None | Some(Value::Null) => Set::new(),
                Some(fields) => Set::from_fields_v1(fields)?,
            };
            let key = id.identifier();
            out.fields.insert(
                key.clone(),
                VersionedSet {
                    set,
                    api_version: s("apiVersion").to_owned(),
                    applied: operation == Operation::Apply,
                },
            );
            out.times.insert(
                key,
                e.get("time").and_then(Value::as_str).map(normalize_time),
            );
        }
        Ok(out)
    }

    /// The `managedFields` list: one entry per manager, Apply entries first, then by time,
    /// manager, apiVersion and subresource. Empty when nobody owns anything.
    pub fn encode(&self) -> Vec<Value> {
        let mut entries: Vec<(EntrySortKey, Value)> = self
            .fields
            .iter()
            .map(|(identifier, vs)| {
                let id = ManagerId::parse(identifier).unwrap_or(ManagerId {
                    manager: String::new(),
                    operation: Operation::Update,
                    api_version: None,
                    subresource: String::new(),
                });
                let operation = if vs.applied {
                    Operation::Apply
                } else {
                    id.operation
                };
                let time = self.times.get(identifier).cloned().flatten();
                let mut entry = Map::new();
                if !id.manager.is_empty() {
                    entry.insert("manager".into(), json!(id.manager));
                }
                entry.insert("operation".into(), json!(operation.as_str()));
                entry.insert("apiVersion".into(), json!(vs.api_version));
                if let Some(t) = &time {
                    entry.insert("time".into(), json!(t));
                }
                entry.insert("fieldsType".into(), json!("FieldsV1"));
                entry.insert("fieldsV1".into(), vs.set.to_fields_v1());
                if !id.subresource.is_empty() {
                    entry.insert("subresource".into(), json!(id.subresource));
                }
                let key = EntrySortKey {
                    operation,
                    seconds: time.as_deref().map_or(0, seconds),
                    manager: id.manager,
                    api_version: vs.api_version.clone(),
                    subresource: id.subresource,
                };
                (key, Value::Object(entry))
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.into_iter().map(|(_, e)| e).collect()
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct EntrySortKey {
    operation: Operation,
    seconds: i64,
    manager: String,
    api_version: String,
    subresource: String,
}

/// Seconds since the epoch of an RFC 3339 time (0 when it does not parse).
pub(crate) fn seconds(time: &str) -> i64 {
    time.parse::<k8s_openapi::jiff::Timestamp>()
        .map_or(0, |t| t.as_second())
}

/// A time as the apiserver writes it back: UTC, whole seconds.
fn normalize_time(time: &str) -> String {
    match time.parse::<k8s_openapi::jiff::Timestamp>() {
        Ok(t) => t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Err(_) => time.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_the_apiservers_json() {
        let update = ManagerId::new("unknown", Operation::Update, "g/v1", "");
        assert_eq!(
            update.identifier(),
            r#"{"manager":"unknown","operation":"Update","apiVersion":"g/v1"}"#
        );
        let apply = ManagerId::new("ctl<1>", Operation::Apply, "g/v1", "status");
        assert_eq!(
            apply.identifier(),
            r#"{"manager":"ctl\u003c1\u003e","operation":"Apply","subresource":"status"}"#
        );
        assert_eq!(ManagerId::parse(&apply.identifier()), Some(apply.clone()));
        assert_eq!(
            ManagerId::describe(&update.identifier()),
            r#""unknown" using g/v1"#
        );
        assert_eq!(
            ManagerId::describe(&apply.identifier()),
            r#""ctl<1>" with subresource "status""#
        );
        assert_eq!(
            ManagerId::describe("current-operation"),
            r#""current-operation""#
        );
    }

    #[test]
    fn entries_round_trip_and_sort_apply_first_then_by_time() {
        let list = json!([
            {"manager": "b", "operation": "Update", "apiVersion": "g/v1", "time": "2024-01-01T00:00:02Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:b": {}}}},
            {"manager": "a", "operation": "Update", "apiVersion": "g/v1", "time": "2024-01-01T00:00:01+00:00", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:a": {}}}},
            {"manager": "z", "operation": "Apply", "apiVersion": "g/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:z": {}}}, "subresource": "status"},
        ]);
        let decoded = ManagedFields::decode(Some(&list)).unwrap();
        let encoded = decoded.encode();
        let managers: Vec<&str> = encoded
            .iter()
            .map(|e| e["manager"].as_str().unwrap())
            .collect();
        assert_eq!(managers, ["z", "a", "b"]);
        assert_eq!(encoded[1]["time"], "2024-01-01T00:00:01Z");
        assert!(encoded[0].get("time").is_none());
        assert_eq!(
            ManagedFields::decode(Some(&json!(encoded))).unwrap(),
            decoded
        );
    }

    #[test]
    fn malformed_entries_are_refused() {
        let entry = |e: Value| ManagedFields::decode(Some(&json!([e])));
        assert_eq!(
            entry(json!({"operation": "Delete", "apiVersion": "v"})),
            Err(ManagedFieldsError::Operation)
        );
        assert_eq!(
            entry(json!({"operation": "Apply"})),
            Err(ManagedFieldsError::ApiVersion)
        );
        assert_eq!(
            entry(json!({"operation": "Apply", "apiVersion": "v"})),
            Err(ManagedFieldsError::MissingFieldsType(0))
        );
        assert!(matches!(
            entry(json!({"operation": "Apply", "apiVersion": "v", "fieldsType": "FieldsV2"})),
            Err(ManagedFieldsError::FieldsType(..))
        ));
        assert!(matches!(
            entry(
                json!({"operation": "Apply", "apiVersion": "v", "fieldsType": "FieldsV1", "fieldsV1": {"k:{": {}}})
            ),
            Err(ManagedFieldsError::Fields(_))
        ));
    }
}
