//! The object store and the apiserver semantics operators depend on.

use std::collections::{BTreeMap, VecDeque};

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::schema_ops::admit;
use super::status::ApiError;
use crate::resource::{ResourceInfo, ScaleInfo, Scope};
use crate::selector::{FieldSelector, LabelSelector};

mod apply;
mod scale;
mod watch;
mod write;

use watch::Event;
pub use watch::Watcher;

/// One served version of a kind.
pub struct VersionEntry {
    pub name: &'static str,
    pub served: bool,
    pub schema: Value,
    pub status: bool,
    pub scale: Option<ScaleInfo>,
    /// The field types managed fields are tracked with.
    pub types: crate::fieldpath::schema::Schema,
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
        // The built CRD already holds every version's schema; generate one only when the CRD
        // could not be built.
        let built = |version: &str| -> Option<Value> {
            let versions = crd["spec"]["versions"].as_array()?;
            let v = versions.iter().find(|v| v["name"] == version)?;
            Some(v["schema"]["openAPIV3Schema"].clone()).filter(Value::is_object)
        };
        let versions = infos
            .iter()
            .map(|i| {
                let schema = built(i.version).unwrap_or_else(|| (i.schema)().to_value());
                VersionEntry {
                    name: i.version,
                    served: i.served,
                    types: apply::field_types(&schema),
                    schema,
                    status: i.status,
                    scale: i.scale,
                    selectable: i
                        .selectable_fields
                        .iter()
                        .map(|p| p.trim_start_matches('.').to_owned())
                        .collect(),
                }
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

pub(super) type Key = (usize, String, String);

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
}
