//! The registry strategies of the built-in kinds (`pkg/registry/<group>/<resource>/strategy.go`):
//! what `PrepareForCreate` and `PrepareForUpdate` change before validation — generation,
//! status resets, generated selectors and labels, the Namespace finalizer.
//!
//! The server itself already drops `status` from a create body and keeps the stored status
//! on an update of the main resource (and the stored spec and metadata on a status update)
//! for every kind with a `/status` subresource; these functions do what is particular to a
//! kind. A status reset here writes the status as Go encodes its zero value (`replicas: 0`
//! where the field has no `omitempty`), so it does not depend on when the zero values are
//! filled in.
//!
//! A Service's cluster IPs and node ports come from [`service::ServiceAllocator`], which
//! holds the state the apiserver keeps in its allocators.

mod pod;
pub(crate) mod service;

use serde_json::{Map, Value, json};

use super::defaults::{self, child_or_insert};

/// Whether `group` `kind` objects carry a `metadata.generation` the strategy sets to 1 on
/// create and bumps when the spec changes.
pub(crate) fn has_generation(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("", "Pod" | "ReplicationController")
            | (
                "apps",
                "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
            )
            | ("batch", "Job" | "CronJob")
            | (
                "networking.k8s.io",
                "Ingress" | "NetworkPolicy" | "IngressClass"
            )
            | ("policy", "PodDisruptionBudget")
            | ("apiextensions.k8s.io", "CustomResourceDefinition")
            | (
                "admissionregistration.k8s.io",
                "ValidatingWebhookConfiguration"
                    | "MutatingWebhookConfiguration"
                    | "ValidatingAdmissionPolicy"
                    | "ValidatingAdmissionPolicyBinding"
            )
            | (
                "flowcontrol.apiserver.k8s.io",
                "FlowSchema" | "PriorityLevelConfiguration"
            )
            | ("resource.k8s.io", "DeviceClass" | "ResourceSlice")
    )
}

/// `PrepareForCreate`. `object` has its final name, namespace and `metadata.uid`.
pub(crate) fn prepare_for_create(group: &str, version: &str, kind: &str, object: &mut Value) {
    if has_generation(group, kind)
        && let Some(metadata) = child_or_insert(object, "metadata")
    {
        metadata["generation"] = 1.into();
    }
    let status = match (group, version, kind) {
        ("", _, "Pod") => Some(pod::status_on_create(object)),
        ("", _, "ReplicationController") | ("apps", _, "ReplicaSet") => {
            Some(json!({"replicas": 0}))
        }
        ("", _, "Service") => Some(json!({"loadBalancer": {}})),
        ("", _, "Namespace") => {
            namespace_finalizer(object);
            defaults::core::metadata_name_label(object);
            Some(json!({"phase": "Active"}))
        }
        ("", _, "PersistentVolumeClaim") => Some(json!({"phase": "Pending"})),
        ("apps", _, "Deployment") | ("batch", _, "CronJob") => Some(json!({})),
        ("apps", _, "StatefulSet") => Some(json!({"replicas": 0, "availableReplicas": 0})),
        ("apps", _, "DaemonSet") => {
            set_annotation(object, TEMPLATE_GENERATION, "1".into());
            Some(json!({
                "currentNumberScheduled": 0, "numberMisscheduled": 0,
                "desiredNumberScheduled": 0, "numberReady": 0,
            }))
        }
        ("batch", _, "Job") => {
            job_selector(object);
            defaults::batch::copy_template_labels(object);
            Some(json!({}))
        }
        ("networking.k8s.io", _, "Ingress") => Some(json!({"loadBalancer": {}})),
        ("policy", _, "PodDisruptionBudget") => Some(json!({
            "disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
        })),
        ("autoscaling", "v1", "HorizontalPodAutoscaler") => {
            Some(json!({"currentReplicas": 0, "desiredReplicas": 0}))
        }
        ("autoscaling", _, "HorizontalPodAutoscaler") => {
            Some(json!({"desiredReplicas": 0, "currentMetrics": null}))
        }
        _ => None,
    };
    if let (Some(status), Some(fields)) = (status, object.as_object_mut()) {
        fields.insert("status".into(), status);
    }
}

/// The metadata a status update takes from its body (the server keeps the stored
/// metadata otherwise): the workload kinds' status strategies reset only the spec (and a
/// Deployment's its labels), so a controller's annotation written through `/status` — a
/// Deployment's revision — is stored as on kube-apiserver.
pub(crate) fn status_update_metadata(group: &str, kind: &str) -> &'static [&'static str] {
    match (group, kind) {
        ("apps", "Deployment") => &["annotations", "ownerReferences", "finalizers"],
        ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet") => {
            &["labels", "annotations", "ownerReferences", "finalizers"]
        }
        _ => &[],
    }
}

/// `PrepareForUpdate` of the main resource (`old` is the stored object): the generation
/// is the stored one, bumped when the spec changed (a Deployment's also when its
/// annotations did), and what a kind keeps from the stored object. Call it after the
/// stored status is copied in (a Service's may change here), and for a Service before
/// [`service::ServiceAllocator::update`].
pub(crate) fn prepare_for_update(
    group: &str,
    version: &str,
    kind: &str,
    object: &mut Value,
    old: &Value,
) {
    let _ = version;
    if has_generation(group, kind) {
        let mut generation = old
            .pointer("/metadata/generation")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let changed = match (group, kind) {
            ("apps", "Deployment") => {
                spec_changed(object, old)
                    || !semantic_eq(
                        object.pointer("/metadata/annotations"),
                        old.pointer("/metadata/annotations"),
                    )
            }
            // A DaemonSet's template change also bumps its template generation.
            ("apps", "DaemonSet") => {
                let template_changed = !semantic_eq(
                    object.pointer("/spec/template"),
                    old.pointer("/spec/template"),
                );
                let template_generation = if template_changed {
                    template_generation(old) + 1
                } else {
                    template_generation(object)
                };
                set_annotation(
                    object,
                    TEMPLATE_GENERATION,
                    template_generation.to_string().into(),
                );
                spec_changed(object, old)
            }
            _ => spec_changed(object, old),
        };
        if changed {
            generation += 1;
        }
        if let Some(metadata) = child_or_insert(object, "metadata").and_then(Value::as_object_mut) {
            if generation == 0 {
                metadata.remove("generation");
            } else {
                metadata.insert("generation".into(), generation.into());
            }
        }
    }
    match (group, kind) {
        // Finalizers of a namespace change only through `/finalize`.
        ("", "Namespace") => {
            let finalizers = old.pointer("/spec/finalizers").cloned();
            if let Some(spec) = child_or_insert(object, "spec")
                && let Some(fields) = spec.as_object_mut()
            {
                match finalizers {
                    Some(f) => fields.insert("finalizers".into(), f),
                    None => fields.remove("finalizers"),
                };
            }
            defaults::core::metadata_name_label(object);
        }
        ("batch", "Job") => defaults::batch::copy_template_labels(object),
        ("", "Service") => service::drop_type_dependent_fields(object, old),
        _ => {}
    }
}

/// The annotation that carries a DaemonSet's template generation in apps/v1.
const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// A DaemonSet's template generation; 0 (Go's zero value) when the annotation is missing
/// or not a number.
fn template_generation(daemon_set: &Value) -> i64 {
    daemon_set
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(TEMPLATE_GENERATION))
        .and_then(Value::as_str)
        .and_then(|g| g.parse().ok())
        .unwrap_or(0)
}

fn set_annotation(object: &mut Value, key: &str, value: Value) {
    if let Some(metadata) = child_or_insert(object, "metadata")
        && let Some(annotations) = child_or_insert(metadata, "annotations")
        && let Some(annotations) = annotations.as_object_mut()
    {
        annotations.insert(key.into(), value);
    }
}

/// Whether anything but metadata and status changed: the spec, or for kinds without one
/// (webhook configurations) their top-level fields.
fn spec_changed(object: &Value, old: &Value) -> bool {
    let payload = |v: &Value| -> Map<String, Value> {
        v.as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !matches!(k.as_str(), "metadata" | "status" | "apiVersion" | "kind"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    !semantic_eq(
        Some(&Value::Object(payload(object))),
        Some(&Value::Object(payload(old))),
    )
}

/// Go's `equality.Semantic.DeepEqual` on JSON: a missing field, `null` and an empty list
/// or map are alike (Go reads all of them as nil or empty).
fn semantic_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    let nothing = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        Some(_) => false,
    };
    if nothing(a) && nothing(b) {
        return true;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => x
            .keys()
            .chain(y.keys())
            .all(|k| semantic_eq(x.get(k), y.get(k))),
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| semantic_eq(Some(x), Some(y)))
        }
        (a, b) => a == b,
    }
}

/// The Namespace strategy's finalizer: `kubernetes` is appended to `spec.finalizers`
/// unless present.
fn namespace_finalizer(namespace: &mut Value) {
    let Some(spec) = child_or_insert(namespace, "spec") else {
        return;
    };
    let finalizers = spec
        .as_object_mut()
        .map(|s| s.entry("finalizers").or_insert(Value::Null));
    let Some(finalizers) = finalizers else {
        return;
    };
    if !finalizers.is_array() {
        *finalizers = json!([]);
    }
    if let Some(list) = finalizers.as_array_mut()
        && !list.iter().any(|f| f == "kubernetes")
    {
        list.push("kubernetes".into());
    }
}

/// The Job strategy's `generateSelector` (unless `manualSelector` is true): the template
/// gets the `job-name` and `controller-uid` labels (legacy and `batch.kubernetes.io/`
/// ones) it lacks, and the selector matches `batch.kubernetes.io/controller-uid`.
fn job_selector(job: &mut Value) {
    if job.pointer("/spec/manualSelector") != Some(&Value::Bool(true)) {
        super::validate::generate_job_selector(job);
    }
}

#[cfg(test)]
mod tests;
