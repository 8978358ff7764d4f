//! The apiserver's field manager for one resource or subresource: the chain of steps around
//! the updater that every create, update, patch and apply goes through.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde_json::{Value, json};

use super::conflict::Conflicts;
use super::entries::{ManagedFields, ManagerId, Operation, VersionedSet, seconds};
use super::last_applied;
use super::updater::{Convert, TrackError, Updater};
use crate::fieldpath::schema::KindTypes;
use crate::fieldpath::typed::Duplicates;
use crate::fieldpath::{Path, Set};

/// How many Update entries an object keeps before the oldest merge into `ancient-changes`.
pub const MAX_UPDATE_MANAGERS: usize = 10;

/// Why an apply failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// Fields other managers own would change (409 Conflict).
    #[error(transparent)]
    Conflicts(#[from] Conflicts),
    /// The request is malformed (400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The configuration does not fit the schema, or tracking failed (500, no reason).
    #[error("{0}")]
    Internal(String),
}

/// The field manager of one endpoint of a kind.
pub struct FieldManager<'a> {
    /// The kind's schema per apiVersion (`None`: no such version).
    pub schemas: &'a dyn Fn(&str) -> Option<&'a KindTypes>,
    /// Converts objects between the kind's versions ([`relabel`](super::relabel) for a kind
    /// whose versions share one shape).
    pub convert: &'a Convert<'a>,
    /// The apiVersion of the request (`group/version`).
    pub api_version: &'a str,
    /// The kind.
    pub kind: &'a str,
    /// `""`, `"status"` or `"scale"`.
    pub subresource: &'a str,
    /// Fields the endpoint resets and nobody owns through it, per apiVersion.
    pub reset: &'a BTreeMap<String, Set>,
    /// The time to stamp changed entries with (RFC 3339, whole seconds).
    pub now: &'a str,
}

/// Fields nobody owns: type meta and the metadata the server sets.
static STRIP_SET: LazyLock<Set> = LazyLock::new(strip_set);

fn strip_set() -> Set {
    let mut paths = vec![
        Path::fields(["apiVersion"]),
        Path::fields(["kind"]),
        Path::fields(["metadata"]),
    ];
    for field in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        paths.push(Path::fields(["metadata", field]));
    }
    Set::from_paths(paths)
}

const CURRENT_OPERATION: &str = "current-operation";
const BEFORE_FIRST_APPLY: &str = "before-first-apply";
const ANCIENT_CHANGES: &str = "ancient-changes";

impl<'a> FieldManager<'a> {
    fn updater(&self) -> Updater<'a> {
        Updater {
            schemas: self.schemas,
            convert: self.convert,
            ignored: self.reset,
        }
    }

    fn schema(&self) -> Result<&'a KindTypes, String> {
        (self.schemas)(self.api_version)
            .ok_or_else(|| format!("no schema for {}", self.api_version))
    }

    fn identifier(&self, manager: &str, operation: Operation) -> String {
        let manager = if manager.is_empty() {
            "unknown"
        } else {
            manager
        };
        ManagerId::new(manager, operation, self.api_version, self.subresource).identifier()
    }

    /// Records an Update (create, update, patch) by `manager` in `new`'s
    /// `metadata.managedFields`. Managed fields the request sets are used when they decode
    /// (an empty list, or one empty entry, resets them); when tracking fails the field is
    /// dropped, as the apiserver does.
    pub fn update(&self, live: &Value, new: &mut Value, manager: &str) {
        let managed = self.live_or_new(live, new);
        remove_managed_fields(new);
        let managed = if managed.is_empty() && has_uid(live) {
            // Objects nobody tracked stay untracked until they are applied to.
            Ok(managed)
        } else {
            self.track_update(live, new, managed, manager)
        };
        match managed {
            Ok(managed) => set_managed_fields(new, &managed),
            Err(_) => remove_managed_fields(new),
        }
    }

    /// Whether `object` converts to the typed value an Update is tracked on: its kind and an
    /// `apiVersion` the kind serves, and values that fit that version's schema.
    pub fn types(&self, object: &Value) -> bool {
        let version = object["apiVersion"].as_str().unwrap_or(self.api_version);
        object["kind"].as_str().is_none_or(|k| k == self.kind)
            && (self.schemas)(version)
                .is_some_and(|schema| schema.validate(object, Duplicates::Allow).is_ok())
    }

    fn live_or_new(&self, live: &Value, new: &Value) -> ManagedFields {
        let from_live = || ManagedFields::decode(managed_fields(live)).unwrap_or_default();
        if !self.subresource.is_empty() {
            return from_live();
        }
        let requested = managed_fields(new);
        if is_reset(requested) {
            return ManagedFields::default();
        }
        match ManagedFields::decode(requested) {
            Ok(m) if !m.is_empty() => m,
            _ => from_live(),
        }
    }

    /// The Update chain below the untracked-object check: the change is tracked as
    /// `current-operation`, stripped of fields nobody owns, then merged into the manager's
    /// Update entry with a new time; Update entries are capped.
    fn track_update(
        &self,
        live: &Value,
        new: &Value,
        mut managed: ManagedFields,
        manager: &str,
    ) -> Result<ManagedFields, String> {
        let id = self.identifier(manager, Operation::Update);
        let schema = self.schema()?;
        schema
            .validate(new, Duplicates::Allow)
            .map_err(|e| format!("failed to convert new object to smd typed: {e}"))?;
        schema
            .validate(live, Duplicates::Allow)
            .map_err(|e| format!("failed to convert live object to smd typed: {e}"))?;
        managed.fields = self
            .updater()
            .update(
                live,
                new,
                self.api_version,
                std::mem::take(&mut managed.fields),
                CURRENT_OPERATION,
            )
            .map_err(|e| format!("failed to update ManagedFields: {e}"))?;
        strip(&mut managed, CURRENT_OPERATION);
        if let Some(vs) = managed.fields.remove(CURRENT_OPERATION) {
            let mut set = vs.set;
            if let Some(previous) = managed.fields.get(&id) {
                set.insert_all(&previous.set);
            }
            managed
                .fields
                .insert(id.clone(), VersionedSet { set, ..vs });
            managed.times.insert(id, Some(self.now.to_owned()));
        }
        cap_update_managers(&mut managed, MAX_UPDATE_MANAGERS);
        Ok(managed)
    }

    /// Applies `config` to `live` as `manager` (with `force`, taking conflicting fields):
    /// the object to store, with its managed fields, or why not.
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApplyError> {
        let managed = ManagedFields::decode(managed_fields(live))
            .map_err(|e| ApplyError::Internal(format!("failed to decode managed fields: {e}")))?;
        let config_version = config["apiVersion"].as_str().unwrap_or("");
        let config_kind = config["kind"].as_str().unwrap_or("");
        if config_version != self.api_version || config_kind != self.kind {
            return Err(ApplyError::BadRequest(format!(
                "invalid object type: {}",
                gvk_string(config_version, config_kind)
            )));
        }
        let mut object = match self.apply_tracked(live, config, managed.clone(), manager, force) {
            Err(ApplyError::Conflicts(conflicts)) if manager == last_applied::KUBECTL => {
                let schema = self.schema().map_err(ApplyError::Internal)?;
                match last_applied::allowed_conflicts(schema, self.api_version, live) {
                    None => return Err(ApplyError::Conflicts(conflicts)),
                    Some(allowed) => {
                        let remaining = last_applied::remaining(&conflicts, &allowed);
                        if !remaining.0.is_empty() {
                            return Err(ApplyError::Conflicts(remaining));
                        }
                        self.apply_tracked(live, config, managed, manager, true)?
                    }
                }
            }
            result => result?,
        };
        if manager == last_applied::KUBECTL {
            last_applied::record(&mut object, config);
        }
        Ok(object)
    }

    /// The apply below the kubectl-specific steps: `before-first-apply` for objects nobody
    /// tracked, the merge and its conflicts, fields nobody owns stripped, the time.
    fn apply_tracked(
        &self,
        live: &Value,
        config: &Value,
        mut managed: ManagedFields,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApplyError> {
        let config_version = config["apiVersion"].as_str().unwrap_or("");
        let config_kind = config["kind"].as_str().unwrap_or("");
        if managed.is_empty() {
            let empty = json!({"apiVersion": config_version, "kind": config_kind});
            managed = self
                .track_update(&empty, live, managed, BEFORE_FIRST_APPLY)
                .map_err(|e| {
                    ApplyError::Internal(format!(
                        "failed to create manager for existing fields: {e}"
                    ))
                })?;
        }
        let id = self.identifier(manager, Operation::Apply);
        // The unstructured accessor reads anything but a list as no managed fields; the
        // typed patch then refuses what is not one.
        if config["metadata"]["managedFields"].is_array() {
            return Err(ApplyError::BadRequest(
                "metadata.managedFields must be nil".into(),
            ));
        }
        let schema = self.schema().map_err(ApplyError::Internal)?;
        let described = format!(
            "{}/{}; {}",
            config["metadata"]["namespace"].as_str().unwrap_or(""),
            config["metadata"]["name"].as_str().unwrap_or(""),
            gvk_string(config_version, config_kind)
        );
        schema.validate(config, Duplicates::Reject).map_err(|e| {
            ApplyError::Internal(format!(
                "failed to create typed patch object ({described}): {e}"
            ))
        })?;
        schema.validate(live, Duplicates::Allow).map_err(|e| {
            ApplyError::Internal(format!(
                "failed to create typed live object ({described}): {e}"
            ))
        })?;
        let (merged, fields) = self
            .updater()
            .apply(
                live,
                config,
                self.api_version,
                std::mem::take(&mut managed.fields),
                &id,
                force,
            )
            .map_err(|e| match e {
                TrackError::Conflicts(c) => ApplyError::Conflicts(c),
                TrackError::Failed(m) => ApplyError::Internal(m),
            })?;
        managed.fields = fields;
        strip(&mut managed, &id);
        let mut object = match merged {
            Some(object) => {
                managed.times.insert(id, Some(self.now.to_owned()));
                object
            }
            None => live.clone(),
        };
        set_managed_fields(&mut object, &managed);
        Ok(object)
    }
}

/// The longest field manager name the apiserver accepts.
pub const MAX_MANAGER_LENGTH: usize = 128;

/// The manager name of a request without `fieldManager`: its User-Agent up to the first `/`
/// (`kubectl/v1.36.2 (linux/amd64)` → `kubectl`), printable characters only, at most 128
/// bytes. Empty (so `unknown`) without a User-Agent.
pub fn manager_from_user_agent(user_agent: &str) -> String {
    let prefix = user_agent.split('/').next().unwrap_or("");
    let mut out = String::new();
    for c in prefix.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > MAX_MANAGER_LENGTH {
            break;
        }
        out.push(c);
    }
    out
}

/// `group/version, Kind=kind`, as Go prints a GroupVersionKind.
fn gvk_string(api_version: &str, kind: &str) -> String {
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    format!("{group}/{version}, Kind={kind}")
}

fn managed_fields(object: &Value) -> Option<&Value> {
    object.get("metadata").and_then(|m| m.get("managedFields"))
}

fn has_uid(object: &Value) -> bool {
    object["metadata"]["uid"]
        .as_str()
        .is_some_and(|u| !u.is_empty())
}

/// An empty list, or a list of one empty entry: the client asks to reset managed fields.
fn is_reset(list: Option<&Value>) -> bool {
    match list {
        Some(Value::Array(entries)) => match entries.as_slice() {
            [] => true,
            [Value::Object(entry)] => entry
                .values()
                .all(|v| v.is_null() || v.as_str() == Some("")),
            _ => false,
        },
        _ => false,
    }
}

fn remove_managed_fields(object: &mut Value) {
    if let Some(Value::Object(m)) = object.get_mut("metadata") {
        m.remove("managedFields");
    }
}

fn set_managed_fields(object: &mut Value, managed: &ManagedFields) {
    let entries = managed.encode();
    if entries.is_empty() {
        remove_managed_fields(object);
    } else if let Some(Value::Object(m)) = object.get_mut("metadata") {
        m.insert("managedFields".into(), Value::Array(entries));
    } else if let Value::Object(o) = object {
        o.insert("metadata".into(), json!({"managedFields": entries}));
    }
}

/// Removes fields nobody owns from `manager`'s set, and the manager when nothing is left.
fn strip(managed: &mut ManagedFields, manager: &str) {
    if let Some(vs) = managed.fields.get_mut(manager) {
        vs.set.remove_all(&STRIP_SET);
        if vs.set.is_empty() {
            managed.fields.remove(manager);
        }
    }
}

/// Merges the oldest Update entries, per apiVersion, into `ancient-changes` until at most
/// `max` remain.
fn cap_update_managers(managed: &mut ManagedFields, max: usize) {
    let mut updaters: Vec<String> = managed
        .fields
        .iter()
        .filter(|(_, vs)| !vs.applied)
        .map(|(m, _)| m.clone())
        .collect();
    if updaters.len() <= max {
        return;
    }
    let time_of = |m: &str| -> i64 {
        managed
            .times
            .get(m)
            .and_then(|t| t.as_deref())
            .map_or(0, seconds)
    };
    updaters.sort_by(|a, b| time_of(a).cmp(&time_of(b)).then_with(|| a.cmp(b)));
    let mut first_of_version: BTreeMap<String, String> = BTreeMap::new();
    let mut length = updaters.len();
    for manager in updaters {
        if length <= max {
            break;
        }
        let Some(vs) = managed.fields.get(&manager).cloned() else {
            continue;
        };
        let time = managed.times.get(&manager).cloned().flatten();
        let bucket =
            ManagerId::new(ANCIENT_CHANGES, Operation::Update, &vs.api_version, "").identifier();
        match first_of_version.get(&vs.api_version) {
            Some(first) => {
                if !managed.fields.contains_key(&bucket)
                    && let Some(s) = managed.fields.remove(first)
                {
                    managed.fields.insert(bucket.clone(), s);
                }
                let merged = match managed.fields.get(&bucket) {
                    Some(b) => vs.set.union(&b.set),
                    None => vs.set.clone(),
                };
                managed
                    .fields
                    .insert(bucket.clone(), VersionedSet { set: merged, ..vs });
                managed.fields.remove(&manager);
                length -= 1;
                managed.times.insert(bucket, time);
            }
            None => {
                first_of_version.insert(vs.api_version.clone(), manager);
            }
        }
    }
}
