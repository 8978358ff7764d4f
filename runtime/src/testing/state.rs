//! The object store and the apiserver semantics operators depend on.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::fields::{self, FieldPath};
use super::schema_ops::admit;
use super::selectors::{FieldSelector, LabelSelector};
use super::status::ApiError;
use crate::resource::{ResourceInfo, ScaleInfo, Scope};

/// One served version of a kind.
pub struct VersionEntry {
    pub name: &'static str,
    pub served: bool,
    pub schema: Value,
    pub status: bool,
    pub scale: Option<ScaleInfo>,
    /// Field-selector paths without the leading dot.
    pub selectable: Vec<String>,
}

/// One kind (one CRD), all its versions.
pub struct KindEntry {
    pub group: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub scope: Scope,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub versions: Vec<VersionEntry>,
    pub storage: &'static str,
    pub crd: Value,
}

impl KindEntry {
    pub fn from_versions(infos: &[&'static ResourceInfo], crd: Value) -> Self {
        let first = infos[0];
        let storage = infos.iter().find(|i| i.storage).unwrap_or(&first).version;
        let versions = infos
            .iter()
            .map(|i| VersionEntry {
                name: i.version,
                served: i.served,
                schema: (i.schema)().to_value(),
                status: i.status,
                scale: i.scale,
                selectable: i
                    .selectable_fields
                    .iter()
                    .map(|p| p.trim_start_matches('.').to_owned())
                    .collect(),
            })
            .collect();
        KindEntry {
            group: first.group,
            plural: first.plural,
            singular: first.singular,
            kind: first.kind,
            scope: first.scope,
            short_names: first.short_names,
            categories: first.categories,
            versions,
            storage,
            crd,
        }
    }

    pub fn version(&self, name: &str) -> Option<&VersionEntry> {
        self.versions.iter().find(|v| v.name == name && v.served)
    }

    pub fn api_version(&self, version: &str) -> String {
        format!("{}/{}", self.group, version)
    }
}

/// What a request addresses.
#[derive(Clone, Debug)]
pub struct Target {
    pub kind: usize,
    pub version: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// Query options of a list, delete-collection or watch.
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
}

/// Query options of a write.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_manager: Option<String>,
    pub force: bool,
}

/// How a write changes the object.
pub enum Change {
    /// PUT with the whole object.
    Replace(Value),
    /// `application/merge-patch+json`.
    MergePatch(Value),
    /// `application/json-patch+json`.
    JsonPatch(json_patch::Patch),
    /// `application/apply-patch+yaml`.
    Apply(Value),
}

struct Event {
    rv: u64,
    kind: usize,
    namespace: String,
    event_type: &'static str,
    old: Option<Value>,
    new: Value,
}

/// An open watch.
pub struct Watcher {
    pub kind: usize,
    pub version: String,
    pub namespace: Option<String>,
    pub options: ListOptions,
    pub bookmarks: bool,
    pub tx: mpsc::Sender<Bytes>,
}

type Key = (usize, String, String);

/// Everything the server holds.
pub struct State {
    pub kinds: Vec<KindEntry>,
    rv: u64,
    objects: BTreeMap<Key, Value>,
    events: VecDeque<Event>,
    /// How many events are kept for watches that resume from a resourceVersion.
    pub window: usize,
    /// The newest resourceVersion no longer in the window: older watches get 410 Gone.
    compacted: u64,
    pub watchers: Vec<Watcher>,
    /// Capacity of a watch's queue: a watcher that falls this far behind is dropped.
    pub watch_queue: usize,
    sequence: u64,
}

fn now() -> String {
    k8s_openapi::jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

fn meta(object: &Value) -> &Value {
    &object["metadata"]
}

fn meta_str<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object["metadata"][key].as_str()
}

fn labels(object: &Value) -> BTreeMap<String, String> {
    serde_json::from_value(meta(object)["labels"].clone()).unwrap_or_default()
}

fn without(object: &Value, keys: &[&str]) -> Value {
    let mut o = object.clone();
    if let Value::Object(m) = &mut o {
        for k in keys {
            m.remove(*k);
        }
    }
    o
}

fn pointer(json_path: &str) -> String {
    json_path.replace('.', "/")
}

impl State {
    pub fn new(kinds: Vec<KindEntry>) -> Self {
        State {
            kinds,
            rv: 1,
            objects: BTreeMap::new(),
            events: VecDeque::new(),
            window: 1000,
            compacted: 0,
            watchers: Vec::new(),
            watch_queue: 1024,
            sequence: 0,
        }
    }

    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    fn entry(&self, t: &Target) -> &KindEntry {
        &self.kinds[t.kind]
    }

    fn version(&self, t: &Target) -> &VersionEntry {
        // The router only builds targets for served versions.
        self.entry(t)
            .version(&t.version)
            .unwrap_or(&self.entry(t).versions[0])
    }

    fn key(&self, t: &Target, name: &str) -> Key {
        (
            t.kind,
            t.namespace.clone().unwrap_or_default(),
            name.to_owned(),
        )
    }

    fn name<'t>(&self, t: &'t Target) -> Result<&'t str, ApiError> {
        t.name
            .as_deref()
            .ok_or_else(|| ApiError::bad_request("a name is required"))
    }

    fn not_found(&self, t: &Target, name: &str) -> ApiError {
        let e = self.entry(t);
        ApiError::not_found(e.group, e.plural, name)
    }

    /// The stored object as the requested version.
    fn present(&self, t: &Target, object: &Value) -> Value {
        let mut o = object.clone();
        o["apiVersion"] = json!(self.entry(t).api_version(&t.version));
        o
    }

    fn allowed_fields(&self, t: &Target) -> Vec<String> {
        let mut allowed = vec![
            "metadata.name".to_string(),
            "metadata.namespace".to_string(),
        ];
        allowed.extend(self.version(t).selectable.iter().cloned());
        allowed
    }

    /// Parses selectors for the target's kind.
    pub fn list_options(
        &self,
        t: &Target,
        labels: Option<&str>,
        fields: Option<&str>,
        limit: Option<&str>,
        continue_token: Option<&str>,
    ) -> Result<ListOptions, ApiError> {
        let labels = LabelSelector::parse(labels.unwrap_or("")).map_err(ApiError::bad_request)?;
        let fields = FieldSelector::parse(fields.unwrap_or(""), &self.allowed_fields(t))
            .map_err(ApiError::bad_request)?;
        let limit = match limit {
            None | Some("") => None,
            Some(l) => Some(
                l.parse::<usize>()
                    .map_err(|_| ApiError::bad_request(format!("invalid limit `{l}`")))?,
            ),
        };
        Ok(ListOptions {
            labels,
            fields,
            limit: limit.filter(|l| *l > 0),
            continue_token: continue_token.filter(|c| !c.is_empty()).map(str::to_owned),
        })
    }

    fn matches(namespace: &Option<String>, o: &ListOptions, object: &Value) -> bool {
        let ns = meta_str(object, "namespace").unwrap_or("");
        namespace.as_deref().is_none_or(|n| n == ns)
            && (o.labels.0.is_empty() || o.labels.matches(&labels(object)))
            && o.fields.matches(object)
    }

    /// The objects a list or watch selects, in key order. A namespaced request scans only
    /// its namespace's key range, so its cost follows the namespace, not the store.
    fn selected(&self, t: &Target, o: &ListOptions) -> Vec<(&Key, &Value)> {
        let ns = t.namespace.clone().unwrap_or_default();
        self.objects
            .range((t.kind, ns, String::new())..)
            .take_while(|((k, n, _), _)| {
                *k == t.kind && t.namespace.as_ref().is_none_or(|want| want == n)
            })
            .filter(|(_, obj)| Self::matches(&t.namespace, o, obj))
            .collect()
    }

    pub fn list(&self, t: &Target, o: &ListOptions) -> Result<Value, ApiError> {
        let all = self.selected(t, o);
        let start = match &o.continue_token {
            Some(token) => {
                let (ns, name) = token
                    .split_once('/')
                    .ok_or_else(|| ApiError::bad_request("invalid continue token"))?;
                all.iter()
                    .position(|((_, n, m), _)| (n.as_str(), m.as_str()) > (ns, name))
                    .unwrap_or(all.len())
            }
            None => 0,
        };
        let rest = &all[start..];
        let page = match o.limit {
            Some(l) if l < rest.len() => &rest[..l],
            _ => rest,
        };
        let mut metadata = json!({"resourceVersion": self.rv.to_string()});
        if page.len() < rest.len()
            && let Some(((_, ns, name), _)) = page.last()
        {
            metadata["continue"] = json!(format!("{ns}/{name}"));
            metadata["remainingItemCount"] = json!(rest.len() - page.len());
        }
        let e = self.entry(t);
        Ok(json!({
            "apiVersion": e.api_version(&t.version),
            "kind": format!("{}List", e.kind),
            "metadata": metadata,
            "items": page.iter().map(|(_, obj)| self.present(t, obj)).collect::<Vec<_>>(),
        }))
    }

    pub fn get(&self, t: &Target) -> Result<Value, ApiError> {
        let name = self.name(t)?;
        let object = self
            .objects
            .get(&self.key(t, name))
            .ok_or_else(|| self.not_found(t, name))?;
        match t.subresource.as_deref() {
            Some("scale") => self.scale_of(t, object),
            _ => Ok(self.present(t, object)),
        }
    }

    fn check_type(&self, t: &Target, body: &Value) -> Result<(), ApiError> {
        let e = self.entry(t);
        if let Some(kind) = body["kind"].as_str()
            && kind != e.kind
        {
            return Err(ApiError::bad_request(format!(
                "the kind `{kind}` does not match the resource's kind `{}`",
                e.kind
            )));
        }
        if let Some(v) = body["apiVersion"].as_str()
            && v != e.api_version(&t.version)
        {
            return Err(ApiError::bad_request(format!(
                "the apiVersion `{v}` does not match the request's `{}`",
                e.api_version(&t.version)
            )));
        }
        Ok(())
    }

    fn admit(&self, t: &Target, object: &mut Value) -> Result<(), ApiError> {
        let errors = admit(&self.version(t).schema, object);
        if errors.is_empty() {
            Ok(())
        } else {
            let e = self.entry(t);
            Err(ApiError::invalid(
                e.group,
                e.kind,
                meta_str(object, "name").unwrap_or(""),
                &errors,
            ))
        }
    }

    pub fn create(
        &mut self,
        t: &Target,
        mut body: Value,
        w: &WriteOptions,
    ) -> Result<Value, ApiError> {
        if !body.is_object() {
            return Err(ApiError::bad_request("the body must be a JSON object"));
        }
        self.check_type(t, &body)?;
        if !body["metadata"].is_object() {
            body["metadata"] = json!({});
        }
        let e = self.entry(t);
        let (group, plural, kind) = (e.group, e.plural, e.kind);
        match (&t.namespace, meta_str(&body, "namespace")) {
            (Some(path), Some(b)) if path != b => {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            (Some(path), _) => body["metadata"]["namespace"] = json!(path),
            (None, _) => {
                if let Value::Object(m) = &mut body["metadata"] {
                    m.remove("namespace");
                }
            }
        }
        let name = match (meta_str(&body, "name"), meta_str(&body, "generateName")) {
            (Some(n), _) if !n.is_empty() => n.to_owned(),
            (_, Some(prefix)) if !prefix.is_empty() => {
                self.sequence += 1;
                format!("{prefix}{}", suffix(self.sequence))
            }
            _ => {
                let errors = [crate::schema::validate::FieldError {
                    path: ".metadata.name".into(),
                    kind: crate::schema::validate::FieldErrorType::Required,
                    message: "name or generateName is required".into(),
                }];
                return Err(ApiError::invalid(group, kind, "", &errors));
            }
        };
        let key = self.key(t, &name);
        if self.objects.contains_key(&key) {
            return Err(ApiError::already_exists(group, plural, &name));
        }
        if self.version(t).status
            && let Value::Object(m) = &mut body
        {
            m.remove("status");
        }
        body["apiVersion"] = json!(self.entry(t).api_version(&t.version));
        body["kind"] = json!(kind);
        self.sequence += 1;
        let m = &mut body["metadata"];
        m["name"] = json!(name);
        m["uid"] = json!(format!("00000000-0000-4000-8000-{:012x}", self.sequence));
        m["creationTimestamp"] = json!(now());
        m["generation"] = json!(1);
        if let Value::Object(m) = m {
            for k in [
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "resourceVersion",
                "selfLink",
                "managedFields",
            ] {
                m.remove(k);
            }
        }
        self.admit(t, &mut body)?;
        let manager = w.field_manager.clone().unwrap_or_else(|| "unknown".into());
        record_update(
            &mut body,
            &Value::Null,
            &manager,
            &self.entry(t).api_version(&t.version),
            None,
        );
        if w.dry_run {
            return Ok(self.present(t, &body));
        }
        let stored = self.commit(key, body, None);
        Ok(self.present(t, &stored))
    }

    /// Stores a new version of an object under a new resourceVersion and tells watchers.
    fn commit(&mut self, key: Key, mut object: Value, old: Option<Value>) -> Value {
        self.rv += 1;
        object["metadata"]["resourceVersion"] = json!(self.rv.to_string());
        object["apiVersion"] = json!(self.kinds[key.0].api_version(self.kinds[key.0].storage));
        let event_type = if old.is_some() { "MODIFIED" } else { "ADDED" };
        self.objects.insert(key.clone(), object.clone());
        self.publish(Event {
            rv: self.rv,
            kind: key.0,
            namespace: key.1,
            event_type,
            old,
            new: object.clone(),
        });
        object
    }

    fn remove(&mut self, key: Key) -> Option<Value> {
        let mut object = self.objects.remove(&key)?;
        self.rv += 1;
        object["metadata"]["resourceVersion"] = json!(self.rv.to_string());
        self.publish(Event {
            rv: self.rv,
            kind: key.0,
            namespace: key.1,
            event_type: "DELETED",
            old: Some(object.clone()),
            new: object.clone(),
        });
        Some(object)
    }

    /// Applies a write to an existing object (or creates it, for apply).
    pub fn write(
        &mut self,
        t: &Target,
        change: Change,
        w: &WriteOptions,
    ) -> Result<(u16, Value), ApiError> {
        let name = self.name(t)?.to_owned();
        let key = self.key(t, &name);
        let existing = match self.objects.get(&key) {
            Some(o) => self.present(t, o),
            None => {
                return match change {
                    Change::Apply(applied) if t.subresource.is_none() => {
                        let mut body = applied.clone();
                        if !body["metadata"].is_object() {
                            body["metadata"] = json!({});
                        }
                        body["metadata"]["name"] = json!(name);
                        let created = self.create(
                            t,
                            body,
                            &WriteOptions {
                                field_manager: None,
                                ..w.clone()
                            },
                        )?;
                        let manager = w.field_manager.clone().unwrap_or_default();
                        let mut with_owner = created;
                        // The applier owns what it applied; create's own Update entry goes.
                        if let Value::Object(m) = &mut with_owner["metadata"] {
                            m.remove("managedFields");
                        }
                        set_entry(
                            &mut with_owner,
                            &manager,
                            "Apply",
                            None,
                            &fields::leaves(&applied),
                            &self.entry(t).api_version(&t.version),
                        );
                        if !w.dry_run
                            && let Some(stored) = self.objects.get_mut(&key)
                        {
                            stored["metadata"]["managedFields"] =
                                with_owner["metadata"]["managedFields"].clone();
                        }
                        Ok((201, with_owner))
                    }
                    _ => Err(self.not_found(t, &name)),
                };
            }
        };
        if t.subresource.as_deref() == Some("scale") {
            return self.write_scale(t, existing, change, w).map(|v| (200, v));
        }
        let status_only = t.subresource.as_deref() == Some("status");
        let api_version = self.entry(t).api_version(&t.version);
        let manager = w.field_manager.clone().unwrap_or_else(|| "unknown".into());
        let (mut new, applied) = match change {
            Change::Replace(body) => {
                self.check_type(t, &body)?;
                match meta_str(&body, "resourceVersion") {
                    None | Some("") => {
                        let e = self.entry(t);
                        let errors = [crate::schema::validate::FieldError {
                            path: ".metadata.resourceVersion".into(),
                            kind: crate::schema::validate::FieldErrorType::Invalid,
                            message: "must be specified for an update".into(),
                        }];
                        return Err(ApiError::invalid(e.group, e.kind, &name, &errors));
                    }
                    _ => {}
                }
                (body, None)
            }
            Change::MergePatch(patch) => {
                let mut doc = existing.clone();
                json_patch::merge(&mut doc, &patch);
                (doc, None)
            }
            Change::JsonPatch(patch) => {
                let mut doc = existing.clone();
                json_patch::patch(&mut doc, &patch).map_err(|e| {
                    let mut err =
                        ApiError::bad_request(format!("the JSON patch could not be applied: {e}"));
                    err.code = 422;
                    err.reason = "Invalid";
                    err
                })?;
                (doc, None)
            }
            Change::Apply(applied) => {
                self.check_type(t, &applied)?;
                let doc = self.apply(t, &existing, &applied, &manager, w.force)?;
                (doc, Some(applied))
            }
        };
        if meta_str(&new, "name").is_some_and(|n| n != name) {
            return Err(ApiError::bad_request(
                "the name of the object does not match the name on the URL",
            ));
        }
        let current_rv = meta_str(&existing, "resourceVersion")
            .unwrap_or("")
            .to_owned();
        if let Some(rv) = meta_str(&new, "resourceVersion")
            && !rv.is_empty()
            && rv != current_rv
        {
            let e = self.entry(t);
            return Err(ApiError::conflict(
                e.group,
                e.plural,
                &name,
                "the object has been modified; please apply your changes to the latest version and try again",
            ));
        }
        // Server-owned metadata comes from the stored object.
        let mut result = if status_only {
            let mut r = existing.clone();
            r["status"] = new.get("status").cloned().unwrap_or(Value::Null);
            if r["status"].is_null()
                && let Value::Object(m) = &mut r
            {
                m.remove("status");
            }
            r
        } else {
            for k in [
                "uid",
                "creationTimestamp",
                "generation",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "namespace",
                "managedFields",
            ] {
                match existing["metadata"].get(k) {
                    Some(v) => new["metadata"][k] = v.clone(),
                    None => {
                        if let Value::Object(m) = &mut new["metadata"] {
                            m.remove(k);
                        }
                    }
                }
            }
            if self.version(t).status {
                match existing.get("status") {
                    Some(s) => new["status"] = s.clone(),
                    None => {
                        if let Value::Object(m) = &mut new {
                            m.remove("status");
                        }
                    }
                }
            }
            new
        };
        result["apiVersion"] = json!(api_version);
        result["kind"] = json!(self.entry(t).kind);
        result["metadata"]["resourceVersion"] = json!(current_rv);
        self.admit(t, &mut result)?;
        let spec_changed = without(&result, &["metadata", "status"])
            != without(&existing, &["metadata", "status"]);
        if spec_changed && !status_only {
            let generation = existing["metadata"]["generation"].as_i64().unwrap_or(1);
            result["metadata"]["generation"] = json!(generation + 1);
        }
        let subresource = status_only.then_some("status");
        match &applied {
            Some(applied) => {
                let owned = fields::leaves(&strip_for_apply(
                    applied,
                    status_only,
                    self.version(t).status,
                ));
                set_entry(
                    &mut result,
                    &manager,
                    "Apply",
                    subresource,
                    &owned,
                    &api_version,
                );
            }
            None => record_update(&mut result, &existing, &manager, &api_version, subresource),
        }
        if without(&result, &["metadata"]) == without(&existing, &["metadata"])
            && result["metadata"] == existing["metadata"]
        {
            return Ok((200, existing));
        }
        let finalizers_done = result["metadata"]["deletionTimestamp"].is_string()
            && result["metadata"]["finalizers"]
                .as_array()
                .is_none_or(|f| f.is_empty());
        if w.dry_run {
            return Ok((200, result));
        }
        if finalizers_done {
            self.objects.insert(key.clone(), result);
            let removed = self.remove(key).unwrap_or_default();
            return Ok((200, self.present(t, &removed)));
        }
        let old = self.objects.get(&key).cloned();
        let stored = self.commit(key, result, old);
        Ok((200, self.present(t, &stored)))
    }

    /// Server-side apply: conflicts with other managers, removal of fields this manager
    /// stopped applying, then the merge.
    fn apply(
        &self,
        t: &Target,
        existing: &Value,
        applied: &Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApiError> {
        if manager.is_empty() {
            return Err(ApiError::bad_request(
                "PATCH with apply requires a fieldManager",
            ));
        }
        let status_only = t.subresource.as_deref() == Some("status");
        let applied = strip_for_apply(applied, status_only, self.version(t).status);
        let applied_fields = fields::leaves(&applied);
        let subresource = status_only.then_some("status");
        let mut entries = entries(existing);
        let mut causes = Vec::new();
        for entry in entries
            .iter()
            .filter(|e| e.manager != manager && e.subresource.as_deref() == subresource)
        {
            for path in &entry.fields {
                let conflict = applied_fields.iter().any(|a| {
                    fields::overlaps(a, path)
                        && fields::get(existing, a) != fields::get(&applied, a)
                });
                if conflict {
                    causes.push(json!({
                        "reason": "FieldManagerConflict",
                        "message": format!("conflict with \"{}\"", entry.manager),
                        "field": format!(".{}", path.join(".")),
                    }));
                }
            }
        }
        if !causes.is_empty() && !force {
            let e = self.entry(t);
            return Err(ApiError::apply_conflict(
                e.group,
                e.plural,
                meta_str(existing, "name").unwrap_or(""),
                causes,
            ));
        }
        if force {
            for entry in entries.iter_mut().filter(|e| e.manager != manager) {
                entry
                    .fields
                    .retain(|p| !applied_fields.iter().any(|a| fields::overlaps(a, p)));
            }
        }
        let mut result = existing.clone();
        if let Some(previous) = entries.iter().find(|e| {
            e.manager == manager
                && e.operation == "Apply"
                && e.subresource.as_deref() == subresource
        }) {
            for path in previous.fields.difference(&applied_fields) {
                let owned_by_other = entries
                    .iter()
                    .any(|e| e.manager != manager && e.fields.contains(path));
                if !owned_by_other {
                    fields::remove(&mut result, path);
                }
            }
        }
        write_entries(&mut result, &entries);
        fields::merge(&mut result, &applied);
        Ok(result)
    }

    pub fn delete(
        &mut self,
        t: &Target,
        options: &Value,
        w: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let name = self.name(t)?.to_owned();
        let key = self.key(t, &name);
        let existing = self
            .objects
            .get(&key)
            .cloned()
            .ok_or_else(|| self.not_found(t, &name))?;
        let e = self.entry(t);
        let (group, plural) = (e.group, e.plural);
        if let Some(uid) = options["preconditions"]["uid"].as_str()
            && meta_str(&existing, "uid") != Some(uid)
        {
            return Err(ApiError::conflict(
                group,
                plural,
                &name,
                &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    meta_str(&existing, "uid").unwrap_or("")
                ),
            ));
        }
        if let Some(rv) = options["preconditions"]["resourceVersion"].as_str()
            && meta_str(&existing, "resourceVersion") != Some(rv)
        {
            return Err(ApiError::conflict(
                group,
                plural,
                &name,
                "the object has been modified; please apply your changes to the latest version and try again",
            ));
        }
        // propagationPolicy is accepted; with no garbage collector there are no dependents.
        let finalizers: Vec<Value> = existing["metadata"]["finalizers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if w.dry_run {
            return Ok(self.present(t, &existing));
        }
        if !finalizers.is_empty() {
            if existing["metadata"]["deletionTimestamp"].is_string() {
                return Ok(self.present(t, &existing));
            }
            let mut marked = existing.clone();
            marked["metadata"]["deletionTimestamp"] = json!(now());
            marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
            let stored = self.commit(key, marked, Some(existing));
            return Ok(self.present(t, &stored));
        }
        let removed = self.remove(key).unwrap_or(existing);
        Ok(self.present(t, &removed))
    }

    pub fn delete_collection(
        &mut self,
        t: &Target,
        o: &ListOptions,
        options: &Value,
        w: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let names: Vec<(String, String)> = self
            .selected(t, o)
            .into_iter()
            .map(|((_, ns, n), _)| (ns.clone(), n.clone()))
            .collect();
        let mut items = Vec::new();
        for (ns, name) in names {
            let target = Target {
                name: Some(name),
                namespace: (!ns.is_empty()).then_some(ns),
                ..t.clone()
            };
            items.push(self.delete(&target, options, w)?);
        }
        let e = self.entry(t);
        Ok(
            json!({"apiVersion": e.api_version(&t.version), "kind": format!("{}List", e.kind), "metadata": {"resourceVersion": self.rv.to_string()}, "items": items}),
        )
    }

    fn scale_of(&self, t: &Target, object: &Value) -> Result<Value, ApiError> {
        let scale = self
            .version(t)
            .scale
            .ok_or_else(|| ApiError::no_route("scale"))?;
        let spec = object
            .pointer(&pointer(scale.spec_replicas_path))
            .cloned()
            .unwrap_or(json!(0));
        let status = object
            .pointer(&pointer(scale.status_replicas_path))
            .cloned()
            .unwrap_or(json!(0));
        let mut s = json!({
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {
                "name": meta(object)["name"], "namespace": meta(object)["namespace"], "uid": meta(object)["uid"],
                "resourceVersion": meta(object)["resourceVersion"], "creationTimestamp": meta(object)["creationTimestamp"],
            },
            "spec": {"replicas": spec},
            "status": {"replicas": status},
        });
        if let Some(path) = scale.label_selector_path
            && let Some(sel) = object.pointer(&pointer(path))
        {
            s["status"]["selector"] = sel.clone();
        }
        if s["metadata"]["namespace"].is_null()
            && let Value::Object(m) = &mut s["metadata"]
        {
            m.remove("namespace");
        }
        Ok(s)
    }

    fn write_scale(
        &mut self,
        t: &Target,
        existing: Value,
        change: Change,
        w: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let scale_info = self
            .version(t)
            .scale
            .ok_or_else(|| ApiError::no_route("scale"))?;
        let mut scale = self.scale_of(t, &existing)?;
        match change {
            Change::Replace(body) => scale = body,
            Change::MergePatch(p) => json_patch::merge(&mut scale, &p),
            Change::JsonPatch(p) => json_patch::patch(&mut scale, &p)
                .map_err(|e| ApiError::bad_request(e.to_string()))?,
            Change::Apply(a) => fields::merge(&mut scale, &a),
        }
        let replicas = scale["spec"]["replicas"].clone();
        if !replicas.is_i64() {
            return Err(ApiError::bad_request("spec.replicas must be an integer"));
        }
        let mut object = existing;
        let path = pointer(scale_info.spec_replicas_path);
        set_pointer(&mut object, &path, replicas);
        if let Some(rv) = meta_str(&scale, "resourceVersion") {
            object["metadata"]["resourceVersion"] = json!(rv);
        }
        let main = Target {
            subresource: None,
            ..t.clone()
        };
        let (_, updated) = self.write(&main, Change::Replace(object), w)?;
        let stored = self
            .objects
            .get(&self.key(t, meta_str(&updated, "name").unwrap_or("")))
            .cloned()
            .unwrap_or(updated);
        self.scale_of(t, &stored)
    }

    /// Opens a watch. Events since `resource_version` are replayed (or, without one, the
    /// current objects as ADDED); a resourceVersion older than the window yields one ERROR
    /// event with a 410 `Status`, as the apiserver does.
    pub fn watch(
        &mut self,
        t: &Target,
        o: ListOptions,
        resource_version: Option<&str>,
        bookmarks: bool,
    ) -> Result<mpsc::Receiver<Bytes>, ApiError> {
        let (tx, rx) = mpsc::channel(self.watch_queue.max(self.objects.len() + 16));
        let watcher = Watcher {
            kind: t.kind,
            version: t.version.clone(),
            namespace: t.namespace.clone(),
            options: o,
            bookmarks,
            tx,
        };
        let start =
            match resource_version {
                None | Some("") | Some("0") => None,
                Some(rv) => Some(rv.parse::<u64>().map_err(|_| {
                    ApiError::bad_request(format!("invalid resourceVersion `{rv}`"))
                })?),
            };
        match start {
            None => {
                let initial: Vec<Value> = self
                    .selected(t, &watcher.options)
                    .into_iter()
                    .map(|(_, v)| v.clone())
                    .collect();
                for object in initial {
                    let _ = watcher.tx.try_send(self.frame(&watcher, "ADDED", &object));
                }
            }
            Some(rv) if rv < self.compacted => {
                let status = ApiError::gone(format!(
                    "too old resource version: {rv} ({})",
                    self.compacted + 1
                ))
                .to_status();
                let _ = watcher
                    .tx
                    .try_send(line(&json!({"type": "ERROR", "object": status})));
                return Ok(rx);
            }
            Some(rv) => {
                let replay: Vec<Bytes> = self
                    .events
                    .iter()
                    .filter(|e| e.rv > rv)
                    .filter_map(|e| self.render(&watcher, e))
                    .collect();
                for frame in replay {
                    if watcher.tx.try_send(frame).is_err() {
                        return Ok(rx);
                    }
                }
            }
        }
        if bookmarks {
            let _ = watcher.tx.try_send(self.bookmark(&watcher));
        }
        self.watchers.push(watcher);
        Ok(rx)
    }

    fn frame(&self, w: &Watcher, event_type: &str, object: &Value) -> Bytes {
        let mut o = object.clone();
        o["apiVersion"] = json!(self.kinds[w.kind].api_version(&w.version));
        line(&json!({"type": event_type, "object": o}))
    }

    pub fn bookmark(&self, w: &Watcher) -> Bytes {
        let e = &self.kinds[w.kind];
        line(&json!({
            "type": "BOOKMARK",
            "object": {"apiVersion": e.api_version(&w.version), "kind": e.kind, "metadata": {"resourceVersion": self.rv.to_string()}},
        }))
    }

    /// What a watcher sees of an event: objects moving into or out of its selection show up
    /// as ADDED or DELETED.
    fn render(&self, w: &Watcher, e: &Event) -> Option<Bytes> {
        if e.kind != w.kind || w.namespace.as_ref().is_some_and(|n| *n != e.namespace) {
            return None;
        }
        let now = Self::matches(&w.namespace, &w.options, &e.new);
        let before = e
            .old
            .as_ref()
            .is_some_and(|o| Self::matches(&w.namespace, &w.options, o));
        let event_type = match (e.event_type, before, now) {
            ("DELETED", true, _) => "DELETED",
            ("DELETED", false, _) => return None,
            (_, true, true) => "MODIFIED",
            (_, false, true) => "ADDED",
            (_, true, false) => "DELETED",
            (_, false, false) => return None,
        };
        Some(self.frame(w, event_type, &e.new))
    }

    fn publish(&mut self, event: Event) {
        let mut closed = Vec::new();
        for (i, w) in self.watchers.iter().enumerate() {
            if let Some(frame) = self.render(w, &event) {
                // A watcher that stopped reading is dropped, keeping memory bounded; its
                // client sees the stream end and re-watches, as with a real apiserver.
                if w.tx.try_send(frame).is_err() {
                    closed.push(i);
                }
            }
        }
        for i in closed.into_iter().rev() {
            self.watchers.swap_remove(i);
        }
        self.events.push_back(event);
        while self.events.len() > self.window {
            if let Some(old) = self.events.pop_front() {
                self.compacted = old.rv;
            }
        }
    }

    /// Forgets the event history: watches resuming from any earlier resourceVersion get 410.
    pub fn compact(&mut self) {
        self.compacted = self.rv;
        self.events.clear();
    }

    /// Sends a bookmark to every watcher that asked for them; drops closed ones.
    pub fn send_bookmarks(&mut self) {
        let frames: Vec<Option<Bytes>> = self
            .watchers
            .iter()
            .map(|w| w.bookmarks.then(|| self.bookmark(w)))
            .collect();
        let mut keep = Vec::with_capacity(self.watchers.len());
        for (w, frame) in self.watchers.drain(..).zip(frames) {
            let alive = match frame {
                Some(f) => w.tx.try_send(f).is_ok() || !w.tx.is_closed(),
                None => !w.tx.is_closed(),
            };
            if alive {
                keep.push(w);
            }
        }
        self.watchers = keep;
    }
}

fn line(v: &Value) -> Bytes {
    let mut s = serde_json::to_vec(v).unwrap_or_default();
    s.push(b'\n');
    Bytes::from(s)
}

/// A generateName suffix: five characters from the apiserver's alphabet.
fn suffix(n: u64) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..5)
        .map(|_| {
            let c = ALPHABET[(x % ALPHABET.len() as u64) as usize] as char;
            x /= ALPHABET.len() as u64;
            c
        })
        .collect()
}

fn set_pointer(object: &mut Value, pointer: &str, value: Value) {
    let mut node = object;
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        if !node.is_object() {
            *node = json!({});
        }
        if i == parts.len() - 1 {
            node[*part] = value;
            return;
        }
        node = &mut node[*part];
    }
}

/// An applied configuration without what apply does not own: server metadata, and status
/// (or everything but status, for the status subresource).
fn strip_for_apply(applied: &Value, status_only: bool, has_status: bool) -> Value {
    let mut a = applied.clone();
    if let Value::Object(m) = &mut a {
        if status_only {
            m.retain(|k, _| k == "status" || k == "apiVersion" || k == "kind");
        } else if has_status {
            m.remove("status");
        }
        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
            meta.retain(|k, _| {
                matches!(
                    k.as_str(),
                    "labels"
                        | "annotations"
                        | "finalizers"
                        | "ownerReferences"
                        | "name"
                        | "namespace"
                )
            });
        }
    }
    a
}

struct Entry {
    manager: String,
    operation: String,
    subresource: Option<String>,
    api_version: String,
    fields: BTreeSet<FieldPath>,
}

fn entries(object: &Value) -> Vec<Entry> {
    object["metadata"]["managedFields"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|e| Entry {
                    manager: e["manager"].as_str().unwrap_or("").to_owned(),
                    operation: e["operation"].as_str().unwrap_or("Update").to_owned(),
                    subresource: e["subresource"].as_str().map(str::to_owned),
                    api_version: e["apiVersion"].as_str().unwrap_or("").to_owned(),
                    fields: fields::from_fields_v1(&e["fieldsV1"]),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn write_entries(object: &mut Value, entries: &[Entry]) {
    let list: Vec<Value> = entries
        .iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut v = json!({
                "manager": e.manager, "operation": e.operation, "apiVersion": e.api_version, "time": now(),
                "fieldsType": "FieldsV1", "fieldsV1": fields::to_fields_v1(&e.fields),
            });
            if let Some(s) = &e.subresource {
                v["subresource"] = json!(s);
            }
            v
        })
        .collect();
    if let Value::Object(m) = &mut object["metadata"] {
        if list.is_empty() {
            m.remove("managedFields");
        } else {
            m.insert("managedFields".into(), Value::Array(list));
        }
    }
}

fn set_entry(
    object: &mut Value,
    manager: &str,
    operation: &str,
    subresource: Option<&str>,
    owned: &BTreeSet<FieldPath>,
    api_version: &str,
) {
    let mut list = entries(object);
    list.retain(|e| {
        !(e.manager == manager
            && e.operation == operation
            && e.subresource.as_deref() == subresource)
    });
    list.push(Entry {
        manager: manager.into(),
        operation: operation.into(),
        subresource: subresource.map(Into::into),
        api_version: api_version.into(),
        fields: owned.clone(),
    });
    write_entries(object, &list);
}

/// An Update by `manager`: it takes ownership of every field it changed.
fn record_update(
    object: &mut Value,
    old: &Value,
    manager: &str,
    api_version: &str,
    subresource: Option<&str>,
) {
    let new_leaves = fields::leaves(object);
    let old_leaves = fields::leaves(old);
    let changed: BTreeSet<FieldPath> = new_leaves
        .iter()
        .filter(|p| fields::get(object, p) != fields::get(old, p))
        .cloned()
        .collect();
    let removed: BTreeSet<FieldPath> = old_leaves.difference(&new_leaves).cloned().collect();
    if changed.is_empty() && removed.is_empty() {
        return;
    }
    let mut list = entries(object);
    for e in list.iter_mut() {
        e.fields.retain(|p| {
            !changed
                .iter()
                .chain(&removed)
                .any(|c| fields::overlaps(c, p))
        });
    }
    match list.iter_mut().find(|e| {
        e.manager == manager && e.operation == "Update" && e.subresource.as_deref() == subresource
    }) {
        Some(e) => e.fields.extend(changed),
        None => list.push(Entry {
            manager: manager.into(),
            operation: "Update".into(),
            subresource: subresource.map(Into::into),
            api_version: api_version.into(),
            fields: changed,
        }),
    }
    write_entries(object, &list);
}
