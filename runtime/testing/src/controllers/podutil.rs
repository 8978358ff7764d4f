//! What the workload controllers read off a Pod (`pkg/api/v1/pod/util.go` and the Pod
//! helpers of `pkg/controller/controller_utils.go`): its phase, whether it is Ready and for
//! how long, whether it is terminating; and the Pod a controller makes from its template.

use std::borrow::Borrow;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Map, Value, json};

/// A Pod's `status.phase` (`""` before anything wrote one).
pub(crate) fn phase(pod: &Value) -> &str {
    pod["status"]["phase"].as_str().unwrap_or("")
}

/// The Pod's `Ready` condition, if it has one.
fn ready_condition(pod: &Value) -> Option<&Value> {
    pod["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Ready")
}

/// `IsPodReady`: the `Ready` condition is `True`.
pub(crate) fn is_ready(pod: &Value) -> bool {
    ready_condition(pod).is_some_and(|c| c["status"] == "True")
}

/// When the Pod's `Ready` condition last changed, if it says.
fn ready_since(pod: &Value) -> Option<Timestamp> {
    ready_condition(pod)?["lastTransitionTime"]
        .as_str()?
        .parse()
        .ok()
}

/// `IsPodAvailable`: Ready, and for at least `min_ready_seconds` by `now`.
pub(crate) fn is_available(pod: &Value, min_ready_seconds: i64, now: Timestamp) -> bool {
    if !is_ready(pod) {
        return false;
    }
    if min_ready_seconds == 0 {
        return true;
    }
    ready_since(pod).is_some_and(|since| {
        since
            .saturating_add(SignedDuration::from_secs(min_ready_seconds))
            .is_ok_and(|t| t <= now)
    })
}

/// `FindMinNextPodAvailabilityCheck`: how long until the first of `pods` that is Ready but
/// not yet available becomes available; `None` when none is waiting.
pub(crate) fn next_availability_check(
    pods: &[impl Borrow<Value>],
    min_ready_seconds: i64,
    now: Timestamp,
) -> Option<Duration> {
    if min_ready_seconds <= 0 {
        return None;
    }
    pods.iter()
        .map(Borrow::borrow)
        .filter(|p| is_ready(p))
        .filter_map(ready_since)
        .filter_map(|since| {
            let due = since
                .saturating_add(SignedDuration::from_secs(min_ready_seconds))
                .ok()?;
            let wait = now.duration_until(due);
            (wait > SignedDuration::ZERO).then(|| Duration::try_from(wait).ok())?
        })
        .min()
}

/// Whether an object is being deleted (`deletionTimestamp` set).
pub(crate) fn is_terminating(object: &Value) -> bool {
    object["metadata"]["deletionTimestamp"].is_string()
}

/// `IsPodTerminal`: `Succeeded` or `Failed`.
pub(crate) fn is_terminal(pod: &Value) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// An object's labels (an object, or null).
pub(crate) fn labels(object: &Value) -> &Value {
    &object["metadata"]["labels"]
}

/// One of an object's labels.
pub(crate) fn label<'v>(object: &'v Value, key: &str) -> Option<&'v str> {
    labels(object)[key].as_str()
}

/// An object's `metadata` string field (`name`, `namespace`, `uid`, ...), or `""`.
pub(crate) fn meta<'v>(object: &'v Value, field: &str) -> &'v str {
    object["metadata"][field].as_str().unwrap_or("")
}

/// An object's queue key (`namespace/name`).
pub(crate) fn key_of(object: &Value) -> String {
    super::queue::key(meta(object, "namespace"), meta(object, "name"))
}

/// `GetPodFromTemplate`: a Pod of `template` (a `PodTemplateSpec`) for `owner`, controlled
/// by `controller_ref`: the template's labels, annotations and finalizers, `generateName`
/// `<owner>-` (the bare name where that is no valid prefix), the template's spec.
pub(crate) fn pod_from_template(template: &Value, owner: &Value, controller_ref: Value) -> Value {
    let mut metadata = Map::new();
    let template_meta = &template["metadata"];
    for field in ["labels", "annotations"] {
        if template_meta[field]
            .as_object()
            .is_some_and(|m| !m.is_empty())
        {
            metadata.insert(field.into(), template_meta[field].clone());
        }
    }
    metadata.insert(
        "generateName".into(),
        json!(pods_prefix(meta(owner, "name"))),
    );
    if template_meta["finalizers"]
        .as_array()
        .is_some_and(|f| !f.is_empty())
    {
        metadata.insert("finalizers".into(), template_meta["finalizers"].clone());
    }
    metadata.insert("ownerReferences".into(), json!([controller_ref]));
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": template["spec"].clone(),
    })
}

/// `getPodsPrefix`: `<name>-` if that is a valid Pod name prefix (a DNS subdomain once a
/// suffix is added), else the name itself.
fn pods_prefix(name: &str) -> String {
    let prefix = format!("{name}-");
    // ValidatePodName with prefix=true: the dash is dropped before checking, and a
    // generated name is at most 253 characters.
    if name.len() < 253 && !name.is_empty() {
        prefix
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(ready: &str, since: &str) -> Value {
        json!({"status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": ready, "lastTransitionTime": since}
        ]}})
    }

    #[test]
    fn availability_waits_min_ready_seconds_after_ready() {
        let now: Timestamp = "2026-01-01T00:00:10Z".parse().unwrap();
        let p = pod("True", "2026-01-01T00:00:05Z");
        assert!(is_ready(&p));
        assert!(is_available(&p, 0, now));
        assert!(is_available(&p, 5, now));
        assert!(!is_available(&p, 6, now));
        assert!(!is_available(&pod("False", "2026-01-01T00:00:00Z"), 0, now));
        assert_eq!(
            next_availability_check(std::slice::from_ref(&p), 8, now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(next_availability_check(&[p], 5, now), None);
    }
}
