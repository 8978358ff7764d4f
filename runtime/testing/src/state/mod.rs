//! The object store and the apiserver semantics operators depend on.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::decode::FieldValidation;
use super::status::ApiError;
use kubegen_runtime::resource::{ResourceInfo, ScaleInfo, Scope};
// Defaulting a webhook's mutation again (admission.rs).
use crate::builtin::strategy::service::{AllocationError, ServiceAllocator};
use kubegen_runtime::selector::{FieldSelector, FieldSelectorError, LabelSelector};
#[cfg(feature = "webhook")]
use kubegen_runtime::validation::defaulting::apply_defaults;
use kubegen_runtime::validation::defaulting::drop_nulls;
use kubegen_runtime::validation::{BadValue, FieldError, ResourceValidator};

mod access;
mod admission;
mod apply;
mod builtin;
mod continue_token;
mod convert;
mod delete;
mod namespace;
mod scale;
mod storage;
mod tokens;
mod watch;
mod write;

pub(super) use builtin::Builtin;
use watch::Event;
pub(super) use watch::Watcher;
pub(crate) use watch::event_line;

/// One served version of a kind.
pub(super) struct VersionEntry {
    pub name: &'static str,
    pub served: bool,
    pub schema: Value,
    pub status: bool,
    pub scale: Option<ScaleInfo>,
    /// The field types managed fields are tracked with.
    pub types: kubegen_runtime::fieldpath::schema::KindTypes,
    /// Field-selector paths without the leading dot.
    pub selectable: Vec<String>,
    /// The apiserver's checks for this version, with the schema compiled once.
    pub validator: ResourceValidator,
}

/// One kind (one CRD), all its versions. A clone shares the versions, with their compiled
/// schemas and validators.
#[derive(Clone)]
pub(super) struct KindEntry {
    pub group: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub scope: Scope,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub versions: Arc<[VersionEntry]>,
    pub storage: &'static str,
    /// The kind's CustomResourceDefinition (`Null` for a built-in kind).
    pub crd: Value,
    /// Whether the kind's versions convert through registered conversions (otherwise
    /// they are relabelled, the `None` strategy).
    pub converted: bool,
    /// Which built-in kind this is; `None` for a custom resource.
    pub builtin: Option<Builtin>,
}

impl KindEntry {
    pub(super) fn from_versions(infos: &[&'static ResourceInfo], crd: Value) -> Self {
        let first = infos[0];
        let storage = infos.iter().find(|i| i.storage).unwrap_or(&first).version;
        // The built CRD already holds every version's schema; generate one only when the CRD
        // could not be built.
        let built = |version: &str| -> Option<Value> {
            let versions = crd["spec"]["versions"].as_array()?;
            let v = versions.iter().find(|v| v["name"] == version)?;
            Some(v["schema"]["openAPIV3Schema"].clone()).filter(Value::is_object)
        };
        let versions: Arc<[VersionEntry]> = infos
            .iter()
            .map(|i| {
                let schema = built(i.version).unwrap_or_else(|| (i.schema)().to_value());
                let validator = ResourceValidator::new(
                    i.group,
                    i.version,
                    i.kind,
                    i.scope == Scope::Namespaced,
                    &schema,
                    i.scale,
                );
                VersionEntry {
                    name: i.version,
                    served: i.served,
                    types: kubegen_runtime::fieldpath::schema::KindTypes::from_openapi_or_deduced(
                        &schema,
                    ),
                    schema,
                    status: i.status,
                    scale: i.scale,
                    selectable: i
                        .selectable_fields
                        .iter()
                        .map(|p| p.trim_start_matches('.').to_owned())
                        .collect(),
                    validator,
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
            converted: kubegen_runtime::convert::registered_versions()
                .iter()
                .any(|(group, kind, ..)| *group == first.group && *kind == first.kind),
            builtin: None,
        }
    }

    pub(super) fn version(&self, name: &str) -> Option<&VersionEntry> {
        self.versions.iter().find(|v| v.name == name && v.served)
    }

    /// `group/version`; the core group's is the version alone.
    pub(super) fn api_version(&self, version: &str) -> String {
        match self.group {
            "" => version.to_owned(),
            group => format!("{group}/{version}"),
        }
    }
}

/// What a request addresses.
#[derive(Clone, Debug)]
pub(super) struct Target {
    pub kind: usize,
    pub version: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// Query options of a list, delete-collection or watch.
#[derive(Clone, Debug, Default)]
pub(super) struct ListOptions {
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
}

/// `ValidateListOptions`: what the apiserver refuses in a list's or watch's options.
fn list_options_errors(
    resource_version: &str,
    resource_version_match: &str,
    continue_token: &str,
    watch: bool,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if resource_version_match.is_empty() {
        return errors;
    }
    let path = "resourceVersionMatch";
    if watch {
        errors.push(FieldError::forbidden(
            path,
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
        return errors;
    }
    if resource_version.is_empty() {
        errors.push(FieldError::forbidden(
            path,
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ));
    }
    if !continue_token.is_empty() {
        errors.push(FieldError::forbidden(
            path,
            "resourceVersionMatch is forbidden when continue is provided",
        ));
    }
    if !matches!(resource_version_match, "Exact" | "NotOlderThan") {
        let supported = ["Exact", "NotOlderThan", ""].map(String::from);
        errors.push(FieldError::not_supported(
            path,
            BadValue::str(resource_version_match),
            &supported,
        ));
    }
    if resource_version_match == "Exact" && resource_version == "0" {
        errors.push(FieldError::forbidden(
            path,
            "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
        ));
    }
    errors
}

/// Which checks a write gets.
#[derive(Clone, Copy)]
pub(super) enum Admission<'a> {
    /// A new object.
    Create,
    /// A change of the main resource from the stored object.
    Update(&'a Value),
    /// A status subresource write from the stored object.
    Status(&'a Value),
}

/// Query options of a write.
#[derive(Clone, Debug, Default)]
pub(super) struct WriteOptions {
    pub dry_run: bool,
    pub field_manager: Option<String>,
    pub force: bool,
    /// What to do with unknown and duplicate fields.
    pub field_validation: FieldValidation,
}

/// How a write changes the object.
pub(super) enum Change {
    /// PUT with the whole object.
    Replace(Value),
    /// `application/merge-patch+json`, and the strict decoder's complaints about it.
    MergePatch(Value, Vec<String>),
    /// `application/json-patch+json`, and the strict decoder's complaints about it.
    JsonPatch(super::jsonpatch::Patch, Vec<String>),
    /// `application/apply-patch+yaml`, and the keys it sets twice (strict decoding's lines).
    Apply(Value, Vec<String>),
    /// `application/strategic-merge-patch+json` (built-in kinds).
    Strategic(Value),
}

pub(super) type Key = (usize, String, String);

/// Everything the server holds.
pub(super) struct State {
    pub kinds: Vec<Arc<KindEntry>>,
    rv: u64,
    /// Shared with the watch history and the controllers' feed: a write stores one tree.
    objects: BTreeMap<Key, Arc<Value>>,
    events: VecDeque<Event>,
    /// How many events are kept for watches that resume from a resourceVersion.
    pub window: usize,
    /// The Services' cluster IPs and node ports.
    services: ServiceAllocator,
    /// The newest resourceVersion no longer in the window: older watches get 410 Gone.
    compacted: u64,
    pub watchers: Vec<Watcher>,
    /// Capacity of a watch's queue: a watcher that falls this far behind is dropped.
    pub watch_queue: usize,
    sequence: u64,
    /// The ServiceAccount tokens issued, by token.
    tokens: BTreeMap<String, tokens::IssuedToken>,
    /// The cluster's clock: every time the server writes reads it.
    pub clock: crate::Clock,
    /// Where committed changes go for the in-memory controllers, once they run.
    pub feed: Option<Arc<crate::feed::Feed>>,
    /// The admission webhooks run in process.
    #[cfg(feature = "webhook")]
    pub webhooks: Option<kubegen_runtime::webhook::Webhooks>,
    /// Webhooks that cannot be reached, and what their failure policy makes of that.
    #[cfg(feature = "webhook")]
    pub unavailable: Vec<(
        kubegen_runtime::webhook::AdmissionType,
        kubegen_runtime::webhook::WebhookKind,
        super::FailurePolicy,
    )>,
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

/// Whether `a` and `b` are equal but for their top-level fields `keys`.
fn equal_but_for(a: &Value, b: &Value, keys: &[&str]) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let kept = |(k, _): &(&String, &Value)| !keys.contains(&k.as_str());
            a.iter().filter(kept).eq(b.iter().filter(kept))
        }
        _ => a == b,
    }
}

impl Drop for State {
    /// Stored objects may nest 10,000 deep and the server may be dropped on any thread, so
    /// they are taken apart without recursion.
    fn drop(&mut self) {
        let events = std::mem::take(&mut self.events);
        let objects = std::mem::take(&mut self.objects).into_values();
        let trees = events
            .into_iter()
            .flat_map(|e| [Some(e.new), e.old])
            .flatten()
            .chain(objects);
        // A tree shared with a change the controllers have not taken yet is theirs to drop.
        for tree in trees {
            if let Ok(object) = Arc::try_unwrap(tree) {
                kubegen_go::json::dismantle(object);
            }
        }
    }
}

impl State {
    pub(super) fn new(kinds: Vec<Arc<KindEntry>>, clock: crate::Clock) -> Self {
        let mut state = State {
            clock,
            feed: None,
            kinds,
            rv: 1,
            objects: BTreeMap::new(),
            events: VecDeque::new(),
            window: 1000,
            services: ServiceAllocator::default(),
            compacted: 0,
            watchers: Vec::new(),
            watch_queue: 1024,
            sequence: 0,
            tokens: BTreeMap::new(),
            #[cfg(feature = "webhook")]
            webhooks: None,
            #[cfg(feature = "webhook")]
            unavailable: Vec::new(),
        };
        state.seed_namespaces();
        state
    }

    pub(super) fn resource_version(&self) -> u64 {
        self.rv
    }

    /// Sends every later change to `feed`, after every object that exists now as added (an
    /// informer's first list).
    pub(crate) fn start_feed(&mut self, feed: &Arc<crate::feed::Feed>) {
        for ((kind, ..), object) in &self.objects {
            let e = &self.kinds[*kind];
            feed.push(crate::feed::Change {
                seq: 0,
                group: e.group,
                resource: e.plural,
                kind: e.kind,
                change: crate::feed::ChangeType::Added,
                old: None,
                object: object.clone(),
            });
        }
        self.feed = Some(feed.clone());
    }

    /// The index of the kind serving `group`/`plural`.
    pub(crate) fn kind_index(&self, group: &str, plural: &str) -> Option<usize> {
        self.kinds
            .iter()
            .position(|k| k.plural == plural && k.group == group)
    }

    /// A stored object as storage holds it (the in-memory controllers' reads).
    pub(super) fn stored_object(
        &self,
        group: &str,
        plural: &str,
        namespace: &str,
        name: &str,
    ) -> Option<Arc<Value>> {
        let kind = self.kind_index(group, plural)?;
        self.objects
            .get(&(kind, namespace.to_owned(), name.to_owned()))
            .cloned()
    }

    /// The stored objects of a kind, of one namespace or all, in key order.
    pub(super) fn stored_objects(
        &self,
        group: &str,
        plural: &str,
        namespace: Option<&str>,
    ) -> Vec<Arc<Value>> {
        let Some(kind) = self.kind_index(group, plural) else {
            return Vec::new();
        };
        let start = (kind, namespace.unwrap_or("").to_owned(), String::new());
        self.objects
            .range(start..)
            .take_while(|((k, ns, _), _)| *k == kind && namespace.is_none_or(|n| n == ns))
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Where etcd keeps the object at `key`: a custom resource under its group, a built-in
    /// one under its resource's (legacy) prefix.
    fn etcd_key(&self, key: &Key) -> String {
        let e = &self.kinds[key.0];
        match e.builtin {
            Some(_) => storage::key("", storage::builtin_prefix(e.plural), &key.1, &key.2),
            None => storage::key(e.group, e.plural, &key.1, &key.2),
        }
    }

    /// The index of the core group's kind served at `plural`.
    fn core_kind(&self, plural: &str) -> Option<usize> {
        self.kinds
            .iter()
            .position(|k| k.group.is_empty() && k.plural == plural)
    }

    /// The object `t` names, with its name and key, as stored (shared); the kind's 404
    /// otherwise.
    fn stored(&self, t: &Target) -> Result<(String, Key, Arc<Value>), ApiError> {
        let name = self.name(t)?.to_owned();
        let key = self.key(t, &name);
        match self.objects.get(&key) {
            Some(object) => Ok((name, key, object.clone())),
            None => Err(self.not_found(t, &name)),
        }
    }

    /// Whether `t` addresses the core Service kind.
    fn is_service(&self, t: &Target) -> bool {
        self.entry(t).builtin.is_some_and(Builtin::is_service)
    }

    /// A Service allocator's refusal, as the apiserver answers it.
    fn allocation_error(&self, t: &Target, object: &Value, e: AllocationError) -> ApiError {
        match e {
            AllocationError::Invalid(errors) => self.invalid(t, object, &errors),
            AllocationError::Internal(message) => ApiError::internal_error(message),
        }
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

    /// The field labels a kind's field selectors may name: as for the apiserver, the name,
    /// the namespace of namespaced kinds, and the version's selectable fields.
    fn allowed_fields(&self, t: &Target) -> Vec<String> {
        if let Some(builtin) = self.entry(t).builtin {
            return builtin.field_selectors().to_vec();
        }
        let mut allowed = vec!["metadata.name".to_string()];
        if self.entry(t).scope == Scope::Namespaced {
            allowed.push("metadata.namespace".to_string());
        }
        allowed.extend(self.version(t).selectable.iter().cloned());
        allowed
    }

    /// The query of a list or watch, read and checked in the apiserver's order: decoding
    /// (`limit`, then the selectors; 400), `ListOptions` validation (422), then the
    /// resourceVersion the storage parses (a 400 for a list, a 500 for a watch).
    pub(super) fn list_options<'q>(
        &self,
        t: &Target,
        param: impl Fn(&str) -> Option<&'q str>,
        watch: bool,
    ) -> Result<ListOptions, ApiError> {
        let limit = match param("limit") {
            None | Some("") => None,
            Some(l) => Some(l.parse::<i64>().map_err(|e| {
                let why = match e.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        "value out of range"
                    }
                    _ => "invalid syntax",
                };
                ApiError::bad_request(format!("strconv.ParseInt: parsing {l:?}: {why}"))
            })?),
        };
        let labels = LabelSelector::parse(param("labelSelector").unwrap_or(""))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let fields = FieldSelector::parse(
            param("fieldSelector").unwrap_or(""),
            &self.allowed_fields(t),
        )
        .map_err(|e| match (e, self.entry(t).builtin) {
            // A built-in kind's field-label conversion words its refusal its own way.
            (FieldSelectorError::UnsupportedField(label), Some(builtin)) => {
                ApiError::bad_request(builtin.field_selector_refusal(&label))
            }
            (e, _) => ApiError::bad_request(e.to_string()),
        })?;
        let resource_version = param("resourceVersion").unwrap_or("");
        let continue_token = param("continue").unwrap_or("");
        let errors = list_options_errors(
            resource_version,
            param("resourceVersionMatch").unwrap_or(""),
            continue_token,
            watch,
        );
        if !errors.is_empty() {
            return Err(ApiError::invalid("meta.k8s.io", "ListOptions", "", &errors));
        }
        if !resource_version.is_empty()
            && let Err(e) = resource_version.parse::<u64>()
        {
            let why = match e.kind() {
                std::num::IntErrorKind::PosOverflow => "value out of range",
                _ => "invalid syntax",
            };
            let error = FieldError::invalid(
                "resourceVersion",
                BadValue::str(resource_version),
                format!("strconv.ParseUint: parsing {resource_version:?}: {why}"),
            );
            return Err(match watch {
                true => ApiError::internal(error.to_string()),
                false => ApiError::bad_request(format!("invalid resource version: {error}")),
            });
        }
        Ok(ListOptions {
            labels,
            fields,
            // Zero or negative: no limit, as the apiserver reads it. At resourceVersion 0
            // the watch cache answers whole lists, ignoring the limit.
            limit: limit
                .and_then(|l| usize::try_from(l).ok())
                .filter(|l| *l > 0 && resource_version != "0"),
            continue_token: Some(continue_token)
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
        })
    }

    fn matches(namespace: &Option<String>, o: &ListOptions, object: &Value) -> bool {
        let ns = meta_str(object, "namespace").unwrap_or("");
        namespace.as_deref().is_none_or(|n| n == ns)
            && (o.labels.is_empty() || o.labels.matches(&labels(object)))
            && o.fields.matches(object)
    }

    /// The objects a list or watch selects, in key order. A namespaced request scans only
    /// its namespace's key range, so its cost follows the namespace, not the store.
    fn selected(&self, t: &Target, o: &ListOptions) -> Vec<(&Key, &Arc<Value>)> {
        let ns = t.namespace.clone().unwrap_or_default();
        self.objects
            .range((t.kind, ns, String::new())..)
            .take_while(|((k, n, _), _)| {
                *k == t.kind && t.namespace.as_ref().is_none_or(|want| want == n)
            })
            .filter(|(_, obj)| Self::matches(&t.namespace, o, obj))
            .collect()
    }

    pub(super) fn list(&self, t: &Target, o: &ListOptions) -> Result<Value, ApiError> {
        let all = self.selected(t, o);
        let start = match &o.continue_token {
            Some(token) => {
                let start = continue_token::decode(token)
                    .map_err(|e| ApiError::bad_request(format!("invalid continue token: {e}")))?;
                all.iter()
                    .position(|(key, _)| self.list_key(t, key) >= start)
                    .unwrap_or(all.len())
            }
            None => 0,
        };
        let rest = &all[start..];
        let page = match o.limit {
            Some(l) if l < rest.len() => &rest[..l],
            _ => rest,
        };
        let mut metadata = json!({"continue": "", "resourceVersion": self.rv.to_string()});
        if page.len() < rest.len()
            && let Some((key, _)) = page.last()
        {
            // The next page starts just after the last key, as the apiserver's tokens say.
            let next = format!("{}\u{0}", self.list_key(t, key));
            metadata["continue"] = json!(continue_token::encode(self.rv, &next));
            // The apiserver cannot count what a selector would keep.
            if o.labels.is_empty() && o.fields.is_empty() {
                metadata["remainingItemCount"] = json!(rest.len() - page.len());
            }
        }
        let e = self.entry(t);
        let mut items = page
            .iter()
            .map(|(_, obj)| self.present(t, obj))
            .collect::<Result<Vec<_>, _>>()?;
        if e.builtin.is_some() {
            // A typed list's items carry no type of their own, and an empty continue token
            // is omitted (a custom resource list is unstructured: it keeps both).
            for item in &mut items {
                if let Value::Object(m) = item {
                    m.remove("apiVersion");
                    m.remove("kind");
                }
            }
            if metadata["continue"] == "" {
                metadata.as_object_mut().map(|m| m.remove("continue"));
            }
        }
        Ok(json!({
            "apiVersion": e.api_version(&t.version),
            "kind": format!("{}List", e.kind),
            "metadata": metadata,
            "items": items,
        }))
    }

    /// An object's key relative to a list's scope: `name` in a namespace, `namespace/name`
    /// across namespaces (as etcd keys under the list's prefix).
    fn list_key(&self, t: &Target, (_, ns, name): &Key) -> String {
        match (&t.namespace, ns.is_empty()) {
            (Some(_), _) | (None, true) => name.clone(),
            (None, false) => format!("{ns}/{name}"),
        }
    }

    pub(super) fn get(&self, t: &Target) -> Result<Value, ApiError> {
        let name = self.name(t)?;
        let object = self
            .objects
            .get(&self.key(t, name))
            .ok_or_else(|| self.not_found(t, name))?;
        match t.subresource.as_deref() {
            Some("scale") => self.scale_of(t, &self.present(t, object)?),
            _ => self.present(t, object),
        }
    }

    /// The request layer's check: the body's apiVersion is the request's. (A wrong kind is
    /// the strategy's to report.)
    fn check_type(&self, t: &Target, body: &Value) -> Result<(), ApiError> {
        let expected = self.entry(t).api_version(&t.version);
        kubegen_runtime::validation::request::check_api_version(body, &expected)
            .map_err(ApiError::bad_request)
    }

    /// Schema work on a write as decoding does it: drop disallowed nulls, prune, default.
    /// An applied configuration keeps its nulls where the schema allows them (see
    /// [`State::prepare_applied`]).
    fn prepare(&self, t: &Target, object: &mut Value, applied: bool) -> Result<(), ApiError> {
        if applied {
            self.prepare_applied(t, object)?;
        }
        // Bodies were pruned when they were decoded; pruning again covers what server-side
        // apply merged in.
        kubegen_runtime::validation::request::prepare(&self.version(t).schema, object);
        if let Some(builtin) = self.entry(t).builtin {
            builtin
                .decode(&t.version, &self.version(t).schema, object)
                .map_err(|why| {
                    let kind = self.entry(t).kind;
                    ApiError::bad_request(format!(
                        "{kind} in version \"{}\" cannot be handled as a {kind}: {why}",
                        t.version
                    ))
                })?;
        }
        Ok(())
    }

    /// Validates a write as a create, an update of `old`, or a status update: the schema,
    /// then the CEL rules (compiled once per version, with the validator). It runs after
    /// field tracking, as the apiserver validates what its field manager produced. Errors of
    /// rules on values the update did not change become `warnings`, sent whatever the
    /// verdict, as the apiserver sends them.
    fn validate(
        &self,
        t: &Target,
        object: &Value,
        write: Admission<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ApiError> {
        let v = &self.version(t).validator;
        let checked = match (self.entry(t).builtin, write) {
            // A built-in kind is checked by its strategy's Go code, not by a schema.
            (Some(builtin), write) => kubegen_runtime::validation::Checked {
                errors: builtin.validate(&t.version, object, write),
                warnings: Vec::new(),
            },
            (None, Admission::Create) => v.check_create(object),
            (None, Admission::Update(old)) => v.check_update(object, old),
            (None, Admission::Status(old)) => v.check_status_update(object, old),
        };
        warnings.extend(checked.warnings);
        if checked.errors.is_empty() {
            return Ok(());
        }
        Err(self.invalid(t, object, &checked.errors))
    }

    /// `Invalid`, qualified by the object's own kind and group (as the apiserver reports a
    /// wrong kind or apiVersion).
    fn invalid(&self, t: &Target, object: &Value, errors: &[FieldError]) -> ApiError {
        let e = self.entry(t);
        let kind = object["kind"].as_str().unwrap_or(e.kind);
        let api_version = object["apiVersion"].as_str().unwrap_or("");
        let group = match api_version.rsplit_once('/') {
            _ if api_version == e.api_version(&t.version) => {
                e.builtin.map_or(e.group, Builtin::error_group)
            }
            Some((group, _)) => group,
            None => "",
        };
        ApiError::invalid(group, kind, meta_str(object, "name").unwrap_or(""), errors)
    }

    /// What the storage says to storing `object` at `key` (`current`: the stored object's
    /// resourceVersion, for an update). Unless `retry` is false (server-side apply), an object
    /// too large is tried once more without its managedFields, as the handlers do.
    fn fit_storage(
        &self,
        key: &Key,
        object: &mut Value,
        current: Option<&str>,
        retry: bool,
    ) -> Result<(), ApiError> {
        let etcd_key = self.etcd_key(key);
        let revision = current.and_then(|rv| rv.parse().ok()).unwrap_or(0);
        let check = |o: &Value| storage::check(&etcd_key, o, revision, current.is_some());
        match check(object) {
            Err(_) if retry && object["metadata"].get("managedFields").is_some() => {
                let managed = object["metadata"]
                    .as_object_mut()
                    .and_then(|m| m.remove("managedFields"));
                let second = check(object);
                if second.is_err()
                    && let Some(m) = managed
                {
                    object["metadata"]["managedFields"] = m;
                }
                second
            }
            other => other,
        }
    }

    /// Stores a new version of an object under a new resourceVersion and tells watchers.
    /// `old` is the stored object the write replaces.
    fn commit(&mut self, key: Key, mut object: Value, old: Option<Arc<Value>>) -> Arc<Value> {
        self.rv += 1;
        object["metadata"]["resourceVersion"] = json!(self.rv.to_string());
        object["apiVersion"] = json!(self.kinds[key.0].api_version(self.kinds[key.0].storage));
        let event_type = if old.is_some() { "MODIFIED" } else { "ADDED" };
        let object = Arc::new(object);
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

    fn remove(&mut self, key: Key) -> Option<Arc<Value>> {
        let before = self.objects.remove(&key)?;
        let mut object = Value::clone(&before);
        self.rv += 1;
        object["metadata"]["resourceVersion"] = json!(self.rv.to_string());
        let object = Arc::new(object);
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
}
