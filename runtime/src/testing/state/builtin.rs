//! Built-in kinds the in-memory server serves beside the CRDs: `coordination.k8s.io/v1`
//! Lease (leader election) and `events.k8s.io/v1` Event (what kube-runtime's
//! `events::Recorder` writes).
//!
//! They go through the same store as custom resources, with what makes a built-in kind
//! different: no CustomResourceDefinition (they are not listed under apiextensions), no
//! `metadata.generation`, the registry strategy's validation (Go code, not a schema: its
//! messages are the apiserver's) and `MicroTime` fields, which Go reads only in the
//! `2006-01-02T15:04:05.000000Z07:00` layout and writes back in UTC.

use serde_json::{Value, json};

use super::{KindEntry, VersionEntry};
use crate::resource::Scope;
use crate::validation::decode::gotime;
use crate::validation::names::{dns1123_subdomain, qualified_name};
use crate::validation::{BadValue, FieldError, ResourceValidator};

/// A built-in kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `coordination.k8s.io/v1` Lease.
    Lease,
    /// `events.k8s.io/v1` Event.
    Event,
}

impl Builtin {
    /// Every built-in kind, as the server's entries.
    pub fn entries() -> Vec<KindEntry> {
        [Builtin::Lease, Builtin::Event]
            .into_iter()
            .map(Builtin::entry)
            .collect()
    }

    fn entry(self) -> KindEntry {
        let (group, kind, plural, singular, short_names): (_, _, _, _, &'static [&'static str]) =
            match self {
                Builtin::Lease => ("coordination.k8s.io", "Lease", "leases", "lease", &[]),
                Builtin::Event => ("events.k8s.io", "Event", "events", "event", &["ev"]),
            };
        let schema = self.schema();
        let validator = ResourceValidator::new(group, "v1", kind, true, &schema, None);
        KindEntry {
            group,
            plural,
            singular,
            kind,
            scope: Scope::Namespaced,
            short_names,
            categories: &[],
            versions: vec![VersionEntry {
                name: "v1",
                served: true,
                types: crate::fieldpath::schema::Schema::from_openapi_or_deduced(&schema),
                schema,
                status: false,
                scale: None,
                selectable: Vec::new(),
                validator,
            }],
            storage: "v1",
            crd: Value::Null,
            converted: false,
            builtin: Some(self),
        }
    }

    /// A structural schema of the kind's fields: types only, as the Go struct decodes them
    /// (its checks are in [`Builtin::validate`]).
    fn schema(self) -> Value {
        let string = || json!({"type": "string"});
        let int32 = || json!({"type": "integer", "format": "int32"});
        let time = || json!({"type": "string", "format": "date-time"});
        let reference = || {
            let fields = [
                "apiVersion",
                "fieldPath",
                "kind",
                "name",
                "namespace",
                "resourceVersion",
                "uid",
            ];
            let properties: serde_json::Map<String, Value> =
                fields.iter().map(|f| (f.to_string(), string())).collect();
            json!({"type": "object", "properties": properties, "x-kubernetes-map-type": "atomic"})
        };
        let top = |properties: Value| {
            let mut schema = json!({"type": "object", "properties": properties});
            schema["properties"]["apiVersion"] = string();
            schema["properties"]["kind"] = string();
            schema["properties"]["metadata"] = json!({"type": "object"});
            schema
        };
        match self {
            Builtin::Lease => top(json!({"spec": {"type": "object", "properties": {
                "acquireTime": time(),
                "holderIdentity": string(),
                "leaseDurationSeconds": int32(),
                "leaseTransitions": int32(),
                "preferredHolder": string(),
                "renewTime": time(),
                "strategy": string(),
            }}})),
            Builtin::Event => top(json!({
                "action": string(),
                "deprecatedCount": int32(),
                // Go writes an unset metav1.Time as null.
                "deprecatedFirstTimestamp": {"type": "string", "format": "date-time", "nullable": true},
                "deprecatedLastTimestamp": {"type": "string", "format": "date-time", "nullable": true},
                "deprecatedSource": {"type": "object", "properties": {"component": string(), "host": string()}},
                "eventTime": time(),
                "note": string(),
                "reason": string(),
                "regarding": reference(),
                "related": reference(),
                "reportingController": string(),
                "reportingInstance": string(),
                "series": {"type": "object", "properties": {"count": int32(), "lastObservedTime": time()}},
                "type": string(),
            })),
        }
    }

    /// The group `Invalid` errors name: the apiserver validates an events.k8s.io Event as
    /// the internal core Event (`Event "x" is invalid`, no group).
    pub fn error_group(self) -> &'static str {
        match self {
            Builtin::Lease => "coordination.k8s.io",
            Builtin::Event => "",
        }
    }

    /// The `MicroTime` fields, as paths of keys.
    fn micro_times(self) -> &'static [&'static [&'static str]] {
        match self {
            Builtin::Lease => &[&["spec", "acquireTime"], &["spec", "renewTime"]],
            Builtin::Event => &[&["eventTime"], &["series", "lastObservedTime"]],
        }
    }

    /// The object as Go's decoder and encoder leave it: struct fields that are not pointers
    /// (a Lease's `spec`, an Event's `regarding`, `deprecatedSource` and deprecated
    /// timestamps) always present, and
    /// `MicroTime` fields read as Go reads them and written back in UTC with six fractional
    /// digits. The error is Go's parse error.
    pub fn decode(self, object: &mut Value) -> Result<(), String> {
        self.add_zero_fields(object);
        for path in self.micro_times() {
            let pointer: String = path.iter().map(|key| format!("/{key}")).collect();
            if let Some(Value::String(s)) = object.pointer_mut(&pointer) {
                *s = gotime::parse_rfc3339_micro(s)?;
            }
        }
        Ok(())
    }

    /// Adds the struct fields a Go object of this kind always has, as Go writes them when
    /// unset (`{}`, or `null` for a `metav1.Time`): the field manager compares a new object
    /// with such a zero object, so they are not "added" by a create.
    pub fn add_zero_fields(self, object: &mut Value) {
        // Each field, and whether Go writes it as `{}` (a struct) or `null` (a time).
        let fields: &[(&str, bool)] = match self {
            Builtin::Lease => &[("spec", true)],
            Builtin::Event => &[
                ("deprecatedFirstTimestamp", false),
                ("deprecatedLastTimestamp", false),
                ("deprecatedSource", true),
                ("regarding", true),
            ],
        };
        if let Value::Object(m) = object {
            for (field, is_struct) in fields {
                let value = m.entry(*field).or_insert(Value::Null);
                if value.is_null() && *is_struct {
                    *value = json!({});
                }
            }
        }
    }

    /// The registry strategy's validation beyond object metadata: on create (`old` is
    /// `None`) and update.
    pub fn validate(self, object: &Value, old: Option<&Value>) -> Vec<FieldError> {
        match self {
            Builtin::Lease => lease(&object["spec"]),
            Builtin::Event => match old {
                None => event_create(object),
                Some(old) => event_update(object, old),
            },
        }
    }
}

/// `ValidateLeaseSpec`, without the coordinated-election fields (their feature gate is off
/// by default, and the apiserver drops them).
fn lease(spec: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(d) = spec["leaseDurationSeconds"].as_i64().filter(|d| *d <= 0) {
        errors.push(FieldError::invalid(
            "spec.leaseDurationSeconds",
            BadValue::Int(d),
            "must be greater than 0",
        ));
    }
    if let Some(t) = spec["leaseTransitions"].as_i64().filter(|t| *t < 0) {
        errors.push(FieldError::invalid(
            "spec.leaseTransitions",
            BadValue::Int(t),
            "must be greater than or equal to 0",
        ));
    }
    errors
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object[key].as_str().unwrap_or("")
}

/// `ValidateEventCreate` for an events.k8s.io/v1 request. The apiserver validates the
/// internal (core) Event, so some paths name its fields: `message` for `note`,
/// `involvedObject` for `regarding`.
fn event_create(event: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let namespace = event["metadata"]["namespace"].as_str().unwrap_or("");
    let has_time = event["eventTime"].is_string();
    let regarding_ns = event["regarding"]["namespace"].as_str().unwrap_or("");
    // legacyValidateEvent, for an event with an eventTime (one without is refused below).
    if has_time {
        if regarding_ns.is_empty() && namespace != "default" && namespace != "kube-system" {
            errors.push(FieldError::invalid(
                "involvedObject.namespace",
                BadValue::str(regarding_ns),
                "does not match event.namespace",
            ));
        }
        let controller = text(event, "reportingController");
        if controller.is_empty() {
            errors.push(FieldError::required("reportingController", ""));
        }
        for msg in qualified_name(controller) {
            errors.push(FieldError::invalid(
                "reportingController",
                BadValue::str(controller),
                msg,
            ));
        }
        for (key, path, limit) in [
            ("reportingInstance", "reportingInstance", 128),
            ("action", "action", 128),
            ("reason", "reason", 128),
        ] {
            let value = text(event, key);
            if value.is_empty() {
                errors.push(FieldError::required(path, ""));
            }
            if value.len() > limit {
                errors.push(too_long(path, limit));
            }
        }
        if text(event, "note").len() > 1024 {
            errors.push(too_long("message", 1024));
        }
    } else if regarding_ns.is_empty() {
        if !namespace.is_empty() && namespace != "default" {
            errors.push(mismatched_namespace(regarding_ns));
        }
    } else if namespace != regarding_ns {
        errors.push(mismatched_namespace(regarding_ns));
    }
    for msg in dns1123_subdomain(namespace) {
        errors.push(FieldError::invalid(
            "namespace",
            BadValue::str(namespace),
            msg,
        ));
    }
    errors.extend(series(event));
    if !has_time {
        errors.push(FieldError::required("eventTime", ""));
    }
    let kind = text(event, "type");
    if kind != "Normal" && kind != "Warning" {
        errors.push(FieldError::invalid(
            "type",
            BadValue::str(""),
            format!("has invalid value: {kind}"),
        ));
    }
    errors
}

fn mismatched_namespace(regarding_ns: &str) -> FieldError {
    FieldError::invalid(
        "involvedObject.namespace",
        BadValue::str(regarding_ns),
        "does not match event.namespace",
    )
}

fn too_long(path: &str, limit: usize) -> FieldError {
    FieldError::invalid(
        path,
        BadValue::str(""),
        format!("can have at most {limit} characters"),
    )
}

/// `validateV1EventSeries`.
fn series(event: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let series = &event["series"];
    if series.is_object() {
        if series["count"].as_i64().unwrap_or(0) < 2 {
            errors.push(FieldError::invalid(
                "series.count",
                BadValue::str(""),
                "should be at least 2",
            ));
        }
        if !series["lastObservedTime"].is_string() {
            errors.push(FieldError::required("series.lastObservedTime", ""));
        }
    }
    errors
}

/// `ValidateEventUpdate` for an events.k8s.io/v1 request: the series, if it changed, and the
/// fields an event may not change (the string ones; see the README for what is not checked).
fn event_update(event: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if event["series"] != old["series"] {
        errors.extend(series(event));
    }
    // The apiserver checks `reason` twice.
    for (key, path) in [
        ("reason", "reason"),
        ("note", "message"),
        ("reason", "reason"),
        ("type", "type"),
        ("action", "action"),
        ("reportingController", "reportingController"),
        ("reportingInstance", "reportingInstance"),
    ] {
        if event[key] != old[key] {
            errors.push(FieldError::invalid(
                path,
                BadValue::str(text(event, key)),
                "field is immutable",
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::Builtin;

    #[test]
    fn schemas_type_their_fields() {
        for b in [Builtin::Lease, Builtin::Event] {
            let r = crate::fieldpath::schema::Schema::from_openapi(&b.schema());
            assert!(r.is_ok(), "{:?}", r.err());
        }
    }
}
