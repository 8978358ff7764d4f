//! The built-in kinds in the server's store: one [`KindEntry`] per kind of the built-in API
//! (`crate::builtin`), built once per process and shared by every server.
//!
//! They go through the same store as custom resources, with what makes a built-in kind
//! different: no CustomResourceDefinition (they are not listed under apiextensions), the
//! OpenAPI schema's shape without its checks (Go code validates them), Go's zero values and
//! defaulters on decode, the registry strategies and the apiserver's own admission plugins,
//! and `MicroTime` fields, which Go reads only in the `2006-01-02T15:04:05.000000Z07:00`
//! layout and writes back in UTC.

use std::sync::{Arc, LazyLock};

use serde_json::Value;

use super::{Admission, KindEntry, VersionEntry};
use crate::builtin::validate::{self, Write};
use crate::builtin::{self, Resource, admission, defaults, strategy};
use kubegen_runtime::resource::{ScaleInfo, Scope};
use kubegen_runtime::validation::decode::gotime;
use kubegen_runtime::validation::names::NameRule;
use kubegen_runtime::validation::{FieldError, ResourceValidator, objectmeta};

/// A built-in kind: the resource of the built-in API serving it (its preferred version's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Builtin(&'static Resource);

impl PartialEq for Builtin {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Builtin {}

/// The kinds every server serves, built once per process: their schemas are large (a Pod
/// template's is a few thousand nodes) and the same for every server.
static ENTRIES: LazyLock<Vec<Arc<KindEntry>>> = LazyLock::new(|| {
    let mut kinds: Vec<Vec<&'static Resource>> = Vec::new();
    for r in builtin::resources().iter().filter(|r| served(r)) {
        match kinds
            .iter_mut()
            .find(|k| k[0].group == r.group && k[0].kind == r.kind && k[0].resource == r.resource)
        {
            Some(versions) => versions.push(r),
            None => kinds.push(vec![r]),
        }
    }
    kinds
        .into_iter()
        .map(|versions| Arc::new(entry(&versions)))
        .collect()
});

/// Whether the in-memory server stores `r`: a resource that can be listed, except the CRDs
/// (served by their own handler) and componentstatuses (a view of the control plane's
/// health, with nothing to store).
fn served(r: &Resource) -> bool {
    r.stored() && !(r.group == "apiextensions.k8s.io" || r.resource == "componentstatuses")
}

fn entry(versions: &[&'static Resource]) -> KindEntry {
    let preferred = versions
        .iter()
        .find(|r| r.preferred)
        .unwrap_or(&versions[0]);
    let namespaced = preferred.namespaced;
    let version_entries: Arc<[VersionEntry]> = versions
        .iter()
        .map(|r| {
            let mut schema = structural(r.schema());
            for path in null_fields(&r.group, &r.kind) {
                if let Some(field) = property_mut(&mut schema, path) {
                    field["nullable"] = Value::Bool(true);
                }
            }
            let scale = r.subresource("scale").map(|_| ScaleInfo {
                spec_replicas_path: ".spec.replicas",
                status_replicas_path: ".status.replicas",
                label_selector_path: None,
            });
            let validator =
                ResourceValidator::new(&r.group, &r.version, &r.kind, namespaced, &schema, scale);
            VersionEntry {
                name: &r.version,
                served: true,
                types: kubegen_runtime::fieldpath::schema::KindTypes::from_openapi_or_deduced(
                    &schema,
                ),
                schema,
                status: r.subresource("status").is_some(),
                scale,
                selectable: r
                    .field_selectors
                    .iter()
                    .flatten()
                    .filter(|f| !f.starts_with("metadata."))
                    .cloned()
                    .collect(),
                validator,
            }
        })
        .collect();
    let strs = |v: &'static [String]| -> &'static [&'static str] {
        Box::leak(
            v.iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        )
    };
    KindEntry {
        group: &preferred.group,
        plural: &preferred.resource,
        singular: &preferred.singular,
        kind: &preferred.kind,
        scope: if namespaced {
            Scope::Namespaced
        } else {
            Scope::Cluster
        },
        short_names: strs(&preferred.short_names),
        categories: strs(&preferred.categories),
        versions: version_entries,
        storage: &preferred.version,
        crd: Value::Null,
        converted: false,
        builtin: Some(Builtin(preferred)),
    }
}

/// The kind's schema as the server's tracking and pruning read it: the Go types' shape
/// (types, properties, items, maps, list and map types, defaults), without the checks the
/// OpenAPI documents (`required`, `enum`, formats) — Go code validates a built-in kind. An
/// int-or-string is marked as such, a time is nullable (Go writes an unset one as `null`); a
/// Quantity (a string or a number) has no type.
fn structural(schema: Value) -> Value {
    match schema {
        Value::Object(mut m) => {
            match m.get("format").and_then(Value::as_str) {
                Some("int-or-string") => {
                    m.insert("x-kubernetes-int-or-string".into(), Value::Bool(true));
                }
                // A time Go writes as `null` when unset stays `null`.
                Some("date-time") => {
                    m.insert("nullable".into(), Value::Bool(true));
                }
                _ => {}
            }
            // Go writes a required field even unset (see `Builtin::zero_object`); the
            // schema's own `required` would make it a check.
            if let Some(required) = m.remove("required") {
                m.insert(GO_REQUIRED.into(), required);
            }
            for key in ["enum", "format", "oneOf", "pattern", "minimum", "maximum"] {
                m.remove(key);
            }
            let m = m
                .into_iter()
                .map(|(k, v)| match k.as_str() {
                    "properties" => {
                        let v = match v {
                            Value::Object(p) => Value::Object(
                                p.into_iter()
                                    .map(|(name, s)| (name, structural(s)))
                                    .collect(),
                            ),
                            other => other,
                        };
                        (k, v)
                    }
                    "items" | "additionalProperties" => (k, structural(v)),
                    _ => (k, v),
                })
                .collect();
            Value::Object(m)
        }
        other => other,
    }
}

/// Slices of a kind that Go writes as `null` when unset (no `omitempty`), which the OpenAPI
/// does not tell from optional ones: the ones the apiserver's answers show.
fn null_fields(group: &str, kind: &str) -> &'static [&'static [&'static str]] {
    match (group, kind) {
        ("rbac.authorization.k8s.io", "ClusterRole") => &[&["rules"]],
        ("autoscaling", "HorizontalPodAutoscaler") => &[&["status", "currentMetrics"]],
        _ => &[],
    }
}

/// The schema of the property at `path`.
fn property<'s>(schema: &'s Value, path: &[&str]) -> Option<&'s Value> {
    path.iter()
        .try_fold(schema, |s, name| s.get("properties")?.get(*name))
}

/// The schema of the property at `path`, to change.
fn property_mut<'s>(schema: &'s mut Value, path: &[&str]) -> Option<&'s mut Value> {
    path.iter()
        .try_fold(schema, |s, name| s.get_mut("properties")?.get_mut(*name))
}

/// Where a built-in schema keeps the OpenAPI's `required`: the fields Go writes unset.
const GO_REQUIRED: &str = "x-kubegen-go-required";

/// `null` for each required property of `schema` that `object` lacks, through the objects
/// it holds.
fn required_nulls(schema: &Value, object: &mut Value) {
    let Value::Object(fields) = object else {
        return;
    };
    for name in schema[GO_REQUIRED].as_array().into_iter().flatten() {
        if let Some(name) = name.as_str() {
            fields.entry(name).or_insert(Value::Null);
        }
    }
    if let Some(properties) = schema["properties"].as_object() {
        for (name, value) in fields.iter_mut() {
            if let Some(property) = properties.get(name) {
                required_nulls(property, value);
            }
        }
    }
}

impl Builtin {
    /// Every built-in kind the server stores, as the server's entries.
    pub(crate) fn entries() -> Vec<Arc<KindEntry>> {
        ENTRIES.clone()
    }

    /// The resource of the built-in API serving this kind.
    pub(crate) fn resource(self) -> &'static Resource {
        self.0
    }

    fn is(self, group: &str, kind: &str) -> bool {
        self.0.group == group && self.0.kind == kind
    }

    /// The group `Invalid` errors name (an events.k8s.io Event is validated as the core
    /// Event, with no group).
    pub(crate) fn error_group(self) -> &'static str {
        validate::error_group(&self.0.group, &self.0.kind)
    }

    /// The `MicroTime` fields, as paths of keys.
    fn micro_times(self) -> &'static [&'static [&'static str]] {
        match (self.0.group.as_str(), self.0.kind.as_str()) {
            ("coordination.k8s.io", "Lease") => &[&["spec", "acquireTime"], &["spec", "renewTime"]],
            ("events.k8s.io", "Event") => &[&["eventTime"], &["series", "lastObservedTime"]],
            ("", "Event") => &[&["eventTime"], &["series", "lastObservedTime"]],
            _ => &[],
        }
    }

    /// The object as Go's decoder leaves it: struct fields Go always writes present (see
    /// [`Builtin::add_zero_fields`]), the kind's defaulters run (`version` is the request's),
    /// and `MicroTime` fields read as Go reads them and written back in UTC with six
    /// fractional digits. The error is Go's parse error.
    pub(crate) fn decode(
        self,
        version: &str,
        schema: &Value,
        object: &mut Value,
    ) -> Result<(), String> {
        self.add_zero_fields(schema, object);
        defaults::apply(&self.0.group, version, &self.0.kind, object);
        for path in self.micro_times() {
            let pointer: String = path.iter().map(|key| format!("/{key}")).collect();
            if let Some(Value::String(s)) = object.pointer_mut(&pointer) {
                *s = gotime::parse_rfc3339_micro(s)?;
            }
        }
        Ok(())
    }

    /// The object a create is compared with to track its fields: Go's zero object of the
    /// kind as its converter writes it — the zero values, and `null` for each required field
    /// without one (a slice or pointer Go writes although it is unset: a PodSpec's
    /// `containers`, a DeploymentSpec's `selector`).
    pub(crate) fn zero_object(self, schema: &Value, object: &mut Value) {
        self.add_zero_fields(schema, object);
        required_nulls(schema, object);
        for path in null_fields(&self.0.group, &self.0.kind) {
            if let Some((field, parents)) = path.split_last()
                && property(schema, path).is_some()
                && let Some(Value::Object(parent)) = parents
                    .iter()
                    .try_fold(&mut *object, |o, name| o.get_mut(*name))
            {
                parent.entry(*field).or_insert(Value::Null);
            }
        }
    }

    /// The registry strategy's `PrepareForCreate` (the object has its name and uid).
    pub(crate) fn prepare_for_create(self, version: &str, object: &mut Value) {
        strategy::prepare_for_create(&self.0.group, version, &self.0.kind, object);
    }

    /// The registry strategy's `PrepareForUpdate` of the main resource.
    pub(crate) fn prepare_for_update(self, version: &str, object: &mut Value, old: &Value) {
        strategy::prepare_for_update(&self.0.group, version, &self.0.kind, object, old);
    }

    /// The metadata fields a status update takes from its body.
    pub(crate) fn status_update_metadata(self) -> &'static [&'static str] {
        strategy::status_update_metadata(&self.0.group, &self.0.kind)
    }

    /// The field labels a list or watch of this kind may select on.
    pub(crate) fn field_selectors(self) -> &'static [String] {
        self.0.field_selectors.as_deref().unwrap_or_default()
    }

    /// The apiserver's refusal of field label `label`.
    pub(crate) fn field_selector_refusal(self, label: &str) -> String {
        match &self.0.field_selector_refusal {
            Some(text) => text.replace("{label}", label),
            None => format!("field label not supported: {label}"),
        }
    }

    /// The apiserver's mutating admission plugins on a create (see `builtin::admission`).
    pub(crate) fn admit_create(
        self,
        object: &mut Value,
        service_account_exists: impl Fn(&str) -> bool,
        suffix: impl FnOnce() -> String,
    ) -> Result<(), admission::Refusal> {
        admission::admit_create(
            &self.0.group,
            &self.0.kind,
            object,
            service_account_exists,
            suffix,
        )
    }

    /// The strategy's `WarningsOnCreate`: a workload or Pod name that is no DNS label.
    pub(crate) fn warnings_on_create(self, object: &Value) -> Vec<String> {
        let name = object["metadata"]["name"].as_str().unwrap_or("");
        let used_in = match (self.0.group.as_str(), self.0.kind.as_str()) {
            ("", "Pod") => "the Pod's hostname",
            ("", "ReplicationController")
            | ("apps", "Deployment" | "ReplicaSet" | "DaemonSet")
            | ("batch", "Job" | "CronJob") => "Pod names and hostnames",
            _ => return Vec::new(),
        };
        let problems = kubegen_runtime::validation::names::dns1123_label(name);
        if problems.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "metadata.name: this is used in {used_in}, which can result in surprising behavior; a DNS label is recommended: [{}]",
            problems.join(" ")
        )]
    }

    /// The strategy's `AllowUnconditionalUpdate`: every kind served here but Lease.
    pub(crate) fn allows_unconditional_update(self) -> bool {
        !self.is("coordination.k8s.io", "Lease")
    }

    /// Whether this is the core Service, whose addresses and ports are allocated.
    pub(crate) fn is_service(self) -> bool {
        self.is("", "Service")
    }

    /// Adds the fields a Go object of this kind always has, as Go writes them when unset (see
    /// [`builtin::zero_values`]), and the `metav1.Time` fields of its top level that are
    /// structs in Go, not pointers (`null` when unset; the OpenAPI cannot tell them from
    /// pointers). The field manager compares a new object with such a zero object, so they
    /// are not "added" by a create.
    pub(crate) fn add_zero_fields(self, schema: &Value, object: &mut Value) {
        builtin::zero_values(schema, object);
        let times: &[&str] = match (self.0.group.as_str(), self.0.kind.as_str()) {
            ("events.k8s.io", "Event") => &["deprecatedFirstTimestamp", "deprecatedLastTimestamp"],
            ("", "Event") => &["eventTime", "firstTimestamp", "lastTimestamp"],
            _ => &[],
        };
        if let Value::Object(m) = object {
            for field in times {
                m.entry(*field).or_insert(Value::Null);
            }
        }
    }

    /// The checks of a write, as the registry runs them: on create the strategy's
    /// `Validate`, then (when it passed) the generic object-metadata checks; on an update
    /// the generic metadata checks, then the strategy's.
    pub(crate) fn validate(
        self,
        version: &str,
        object: &Value,
        write: Admission<'_>,
    ) -> Vec<FieldError> {
        let r = self.0;
        let meta = &object["metadata"];
        let common = || objectmeta::validate(meta, r.namespaced, NameRule::PathSegment, "metadata");
        let strategy =
            |write| validate::validate(&r.group, version, &r.kind, r.namespaced, object, write);
        match write {
            Admission::Create => {
                let errors = strategy(Write::Create);
                if errors.is_empty() { common() } else { errors }
            }
            Admission::Update(old) | Admission::Status(old) => {
                let mut errors = common();
                errors.extend(objectmeta::validate_update(
                    meta,
                    &old["metadata"],
                    "metadata",
                ));
                errors.extend(strategy(match write {
                    Admission::Status(_) => Write::Status(old),
                    _ => Write::Update(old),
                }));
                errors
            }
        }
    }
}
