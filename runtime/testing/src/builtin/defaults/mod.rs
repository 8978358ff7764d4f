//! Go's defaulting functions of the built-in kinds (`SetObjectDefaults_*` in each group's
//! `zz_generated.defaults.go` and the `SetDefaults_*` they call, from
//! `pkg/apis/<group>/<version>/defaults.go`), ported to JSON objects.
//!
//! The apiserver runs them when it decodes a request body, so on every write (create,
//! update, patch), and once more when it reads the object back from storage. Before them
//! the server fills in the OpenAPI zero values ([`zero_values`]): Go writes every struct
//! field without `omitempty` even when the client left it out, and the OpenAPI schema
//! names those fields with a `default` keyword.
//!
//! Per group: [`core`] (Pod and everything inside a PodSpec, Service, Secret, Namespace,
//! PersistentVolumeClaim, Event), [`apps`], [`batch`] and [`others`] (networking, policy,
//! autoscaling, rbac, events.k8s.io).

mod apps;
pub(super) mod batch;
pub(super) mod core;
mod others;

#[cfg(test)]
mod observed;

use serde_json::{Map, Value};

use kubegen_runtime::validation::decode::coerce::is_container;

/// Defaults `object`, a `group/version` `kind` as the request sent it, as the apiserver's
/// decoder does before anything else sees it. The OpenAPI zero values (struct fields Go
/// always writes) are already in place.
pub(crate) fn apply(group: &str, version: &str, kind: &str, object: &mut Value) {
    match (group, version, kind) {
        ("", "v1", "Pod") => core::pod(object),
        ("", "v1", "PodTemplate") => core::pod_template_in(object, "template"),
        ("", "v1", "ReplicationController") => core::replication_controller(object),
        ("", "v1", "Service") => core::service(object),
        ("", "v1", "Secret") => core::secret(object),
        ("", "v1", "Namespace") => core::namespace(object),
        ("", "v1", "PersistentVolumeClaim") => core::persistent_volume_claim(object),
        ("", "v1", "PersistentVolume") => core::persistent_volume(object),
        ("", "v1", "Endpoints") => core::endpoints(object),
        ("", "v1", "LimitRange") => core::limit_range(object),
        ("", "v1", "Event") => core::event(object),
        ("apps", "v1", "Deployment") => apps::deployment(object),
        ("apps", "v1", "ReplicaSet") => apps::replica_set(object),
        ("apps", "v1", "StatefulSet") => apps::stateful_set(object),
        ("apps", "v1", "DaemonSet") => apps::daemon_set(object),
        ("apps", "v1", "ControllerRevision") => {}
        ("batch", "v1", "Job") => batch::job(object),
        ("batch", "v1", "CronJob") => batch::cron_job(object),
        ("networking.k8s.io", "v1", "NetworkPolicy") => others::network_policy(object),
        ("autoscaling", "v1", "HorizontalPodAutoscaler") => others::hpa_v1(object),
        ("autoscaling", "v2", "HorizontalPodAutoscaler") => others::hpa_v2(object),
        ("rbac.authorization.k8s.io", "v1", "RoleBinding" | "ClusterRoleBinding") => {
            others::role_binding(object)
        }
        ("rbac.authorization.k8s.io", "v1", "Role" | "ClusterRole") => others::role(object),
        ("events.k8s.io", "v1", "Event") => others::event(object),
        _ => {}
    }
}

/// Fills in the `default` of every property `schema` (a resolved OpenAPI v3 schema, as
/// [`super::resolve`] gives) names that `object` lacks or holds as `null`, recursively
/// through properties, array items and map values, and inside the defaults it inserts.
///
/// These are the zero values of Go struct fields without `omitempty`: the decoder leaves
/// them zero and the encoder writes them, so the apiserver answers `status: {}` for a
/// Deployment created without a status and `resources: {}` for a container without one.
///
/// ```ignore
/// let schema = builtin::resolve("io.k8s.api.apps.v1.Deployment");
/// zero_values(&schema, &mut deployment);
/// ```
pub(crate) fn zero_values(schema: &Value, object: &mut Value) {
    match object {
        Value::Object(fields) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            if let Some(properties) = properties {
                for (name, property) in properties {
                    let Some(default) = property.get("default") else {
                        continue;
                    };
                    match fields.get_mut(name) {
                        Some(slot) if !slot.is_null() => {}
                        Some(slot) => *slot = default.clone(),
                        None => {
                            fields.insert(name.clone(), default.clone());
                        }
                    }
                }
                for (name, value) in fields.iter_mut() {
                    if is_container(value)
                        && let Some(property) = properties.get(name)
                    {
                        zero_values(property, value);
                    }
                }
            }
            if let Some(values) = schema.get("additionalProperties").filter(|s| s.is_object()) {
                for (name, value) in fields.iter_mut() {
                    if is_container(value) && properties.is_none_or(|p| !p.contains_key(name)) {
                        zero_values(values, value);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for value in items.iter_mut().filter(|v| is_container(v)) {
                    zero_values(item, value);
                }
            }
        }
        _ => {}
    }
}

/// The object at `key` in `object`, if `object` is an object and holds one there.
pub(super) fn child<'a>(object: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    object.get_mut(key).filter(|v| v.is_object())
}

/// The object at `key` in `object`, created (replacing a `null`) when missing. `None` when
/// `object` is not an object or `key` holds something else than an object.
pub(super) fn child_or_insert<'a>(object: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    let fields = object.as_object_mut()?;
    let slot = fields.entry(key).or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    Some(slot).filter(|s| s.is_object())
}

/// Calls `f` on every element of the array at `key` in `object`.
pub(super) fn each(object: &mut Value, key: &str, mut f: impl FnMut(&mut Value)) {
    if let Some(Value::Array(items)) = object.get_mut(key) {
        items.iter_mut().for_each(&mut f);
    }
}

/// Sets `key` to `value` where Go sees a nil pointer: the field is missing or `null`.
pub(super) fn set_if_unset(object: &mut Value, key: &str, value: impl Into<Value>) {
    if let Some(fields) = object.as_object_mut() {
        let slot = fields.entry(key).or_insert(Value::Null);
        if slot.is_null() {
            *slot = value.into();
        }
    }
}

/// Sets `key` to `value` where Go sees a zero value: the field is missing, `null`, `""`,
/// `0` or `false`.
pub(super) fn set_if_zero(object: &mut Value, key: &str, value: impl Into<Value>) {
    if let Some(fields) = object.as_object_mut() {
        let slot = fields.entry(key).or_insert(Value::Null);
        if is_zero(slot) {
            *slot = value.into();
        }
    }
}

/// Whether Go reads `value` as its type's zero value.
pub(super) fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Array(_) | Value::Object(_) => false,
    }
}

/// Whether the field `key` is missing or Go's zero value.
pub(super) fn unset_or_zero(object: &Value, key: &str) -> bool {
    object.get(key).is_none_or(is_zero)
}

/// Whether the map or list at `key` is missing or empty (Go's `len(x) == 0`).
pub(super) fn empty(object: &Value, key: &str) -> bool {
    match object.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::String(s)) => s.is_empty(),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn zero_values_fill_struct_fields_go_always_writes() {
        let schema = super::super::resolve("io.k8s.api.apps.v1.Deployment");
        let mut deployment = json!({
            "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}}},
        });
        zero_values(&schema, &mut deployment);
        assert_eq!(deployment["status"], json!({}));
        assert_eq!(deployment["spec"]["strategy"], json!({}));
        assert_eq!(deployment["spec"]["template"]["metadata"], json!({}));
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["resources"], json!({}));
        assert_eq!(container["ports"][0]["protocol"], "TCP");
        // An omitempty pointer stays out.
        assert!(deployment["spec"].get("replicas").is_none());
        assert!(
            deployment["spec"]["template"]["spec"]
                .get("securityContext")
                .is_none()
        );
    }

    #[test]
    fn zero_values_go_inside_inserted_defaults_and_replace_null() {
        let schema = super::super::resolve("io.k8s.api.apps.v1.Deployment");
        let mut deployment = json!({"metadata": {"name": "d"}, "spec": null});
        zero_values(&schema, &mut deployment);
        assert_eq!(
            deployment["spec"],
            json!({"strategy": {}, "template": {"metadata": {}, "spec": {}}})
        );
    }

    #[test]
    fn zero_values_go_through_map_values() {
        let schema = json!({
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"n": {"type": "integer", "default": 0}},
            },
        });
        let mut object = json!({"a": {}, "b": {"n": 2}});
        zero_values(&schema, &mut object);
        assert_eq!(object, json!({"a": {"n": 0}, "b": {"n": 2}}));
    }

    #[test]
    fn zero_is_what_go_cannot_tell_from_missing() {
        let mut object = json!({"a": "", "b": 0, "c": false, "d": "x", "e": null});
        for key in ["a", "b", "c", "d", "e", "f"] {
            set_if_zero(&mut object, key, "set");
        }
        assert_eq!(
            object,
            json!({"a": "set", "b": "set", "c": "set", "d": "x", "e": "set", "f": "set"})
        );
        let mut object = json!({"a": "", "b": null});
        set_if_unset(&mut object, "a", 1);
        set_if_unset(&mut object, "b", 1);
        set_if_unset(&mut object, "c", 1);
        assert_eq!(object, json!({"a": "", "b": 1, "c": 1}));
    }
}
