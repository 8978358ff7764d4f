//! The namespace controller: what is left of a namespace once it is deleted
//! (`pkg/controller/namespace` and its `deletion` package, kube-controller-manager v1.36.2).
//!
//! A DELETE only marks a namespace `Terminating` (the apiserver does that). Five seconds
//! after it sees a namespace being deleted, the controller deletes what the namespace holds:
//! its Pods first, and only once none is left every other namespaced kind the server serves
//! (custom resources included), each by a DELETE of the collection with background
//! propagation. It then writes what remains as five status conditions and, when nothing
//! does, takes its `kubernetes` finalizer off `spec.finalizers` through `/finalize` — the
//! apiserver deletes the namespace in that request when no other finalizer holds it. Content
//! held by finalizers brings it back after `estimate/2 + 1` seconds (8 s, or 16 s for Pods
//! still in their grace period), on the cluster's clock. It records no events.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use http::Method;
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::api::{NAMESPACES, PODS, Resource};
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Run, SyncError};

/// The finalizer in `spec.finalizers` this controller is responsible for.
const FINALIZER: &str = "kubernetes";
/// How long after a namespace is seen deleted (or changed while deleted) it is worked on
/// (`namespaceDeletionGracePeriod`).
const DELETION_GRACE: Duration = Duration::from_secs(5);
/// The estimate for content that finalizers hold (`finalizerEstimateSeconds`).
const FINALIZER_ESTIMATE: i64 = 15;
/// How often a write that conflicts is tried again with the namespace read anew.
const CONFLICT_RETRIES: usize = 5;

/// The condition types, in the order they appear in `status.conditions`, with their
/// reason and message while all is well.
const CONDITIONS: [(&str, &str, &str); 5] = [
    (
        "NamespaceDeletionDiscoveryFailure",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    ),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    (
        "NamespaceContentRemaining",
        "ContentRemoved",
        "All content successfully removed",
    ),
    (
        "NamespaceFinalizersRemaining",
        "ContentHasNoFinalizers",
        "All content-preserving finalizers finished",
    ),
];

pub(super) struct Namespaces;

impl Run for Namespaces {
    fn name(&self) -> &'static str {
        "namespace-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        if change.is("", "namespaces")
            && change.change != ChangeType::Deleted
            && change.object["metadata"]["deletionTimestamp"].is_string()
        {
            queue.add_after(change.name(), api.clock().now(), DELETION_GRACE);
        }
    }

    fn sync(&mut self, name: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let Some(mut namespace) = cx.api.get_owned(NAMESPACES, "", name) else {
            return Ok(Outcome::Done);
        };
        let Some(deleted_at) = deletion_time(&namespace) else {
            return Ok(Outcome::Done);
        };
        if namespace["status"]["phase"] != "Terminating" {
            match mark_terminating(cx.api, namespace)? {
                Some(marked) => namespace = marked,
                None => return Ok(Outcome::Done),
            }
        }
        if spec_finalizers(&namespace).is_empty() {
            return Ok(Outcome::Done);
        }
        let (estimate, errors) = delete_all_content(cx, &mut namespace, deleted_at);
        if !errors.is_empty() {
            return Err(aggregate(&errors));
        }
        if estimate > 0 {
            let seconds = u64::try_from(estimate / 2 + 1).unwrap_or(1);
            return Ok(Outcome::After(Duration::from_secs(seconds)));
        }
        finalize(cx.api, name)?;
        Ok(Outcome::Done)
    }
}

/// The namespace's deletion time, if it is being deleted.
fn deletion_time(namespace: &Value) -> Option<Timestamp> {
    namespace["metadata"]["deletionTimestamp"]
        .as_str()
        .and_then(|t| t.parse().ok())
}

fn spec_finalizers(namespace: &Value) -> Vec<String> {
    namespace["spec"]["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect()
}

/// Sets a deleted namespace's phase to `Terminating` (the apiserver normally has): the
/// namespace as written, or `None` when it is gone or no longer being deleted.
fn mark_terminating(api: &Api, mut namespace: Value) -> Result<Option<Value>, SyncError> {
    let name = namespace["metadata"]["name"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    for _ in 0..CONFLICT_RETRIES {
        namespace["status"]["phase"] = json!("Terminating");
        match api.update_status(NAMESPACES, "", &name, &namespace) {
            Ok(written) => return Ok(Some(Arc::unwrap_or_clone(written))),
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) if e.is_conflict() => {
                let Some(latest) = latest(api, &name, &namespace)? else {
                    return Ok(None);
                };
                if latest["status"]["phase"] == "Terminating" || deletion_time(&latest).is_none() {
                    return Ok(deletion_time(&latest).map(|_| latest));
                }
                namespace = latest;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(format!("namespace {name} kept changing"))
}

/// The namespace as stored now, if it is the same namespace as `seen`.
fn latest(api: &Api, name: &str, seen: &Value) -> Result<Option<Value>, SyncError> {
    let Some(latest) = api.get_owned(NAMESPACES, "", name) else {
        return Ok(None);
    };
    if latest["metadata"]["uid"] != seen["metadata"]["uid"] {
        return Err("namespace uid has changed across retries".into());
    }
    Ok(Some(latest))
}

/// Takes `kubernetes` off the namespace's `spec.finalizers` (which are written sorted,
/// each once) through `/finalize`.
fn finalize(api: &Api, name: &str) -> Result<(), SyncError> {
    let path = NAMESPACES.path("", Some(name), Some("finalize"));
    for _ in 0..CONFLICT_RETRIES {
        let Some(namespace) = api.get(NAMESPACES, "", name) else {
            return Ok(());
        };
        let mut finalizers: Vec<String> = spec_finalizers(&namespace)
            .into_iter()
            .filter(|f| f != FINALIZER)
            .collect();
        finalizers.sort();
        finalizers.dedup();
        let body = json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": namespace["metadata"],
            "spec": {"finalizers": finalizers},
        });
        match api.send(Method::PUT, path.clone(), "application/json", Some(body)) {
            Ok(_) => return Ok(()),
            Err(e) if e.is_not_found() => return Ok(()),
            Err(e) if e.is_conflict() => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(format!("namespace {name} kept changing"))
}

/// What is left of one resource's objects after their deletion.
#[derive(Default)]
struct Remaining {
    /// Seconds until they should be gone.
    estimate: i64,
    /// How many are left.
    count: usize,
    /// How many of them each finalizer holds.
    finalizers: BTreeMap<String, usize>,
}

/// Deletes the namespace's content, Pods first, and writes the conditions: the estimate
/// of seconds until what is left goes, and the errors met.
fn delete_all_content(
    cx: &mut Cx<'_>,
    namespace: &mut Value,
    deleted_at: Timestamp,
) -> (i64, Vec<String>) {
    let name = namespace["metadata"]["name"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let resources: Vec<Resource> = cx
        .api
        .served()
        .into_iter()
        .filter(|s| s.namespaced)
        .map(|s| s.resource)
        .collect();
    let mut conditions = Conditions::default();
    let mut errors = Vec::new();
    let mut estimate = 0;
    if let Some(&pods) = resources.iter().find(|r| is_pods(r)) {
        let (left, error) = delete_resource(cx, pods, &name, deleted_at);
        if let Some(e) = error {
            errors.push(format!(
                "failed to delete pods for namespace: {name}, err: {e}"
            ));
            conditions.content_errors.push(e);
        }
        estimate = estimate.max(left.estimate);
        if left.count > 0 {
            // The other kinds wait for the Pods; what remains is not counted yet.
            conditions.write(cx, namespace);
            return (estimate, errors);
        }
    }
    for &resource in resources.iter().filter(|r| !is_pods(r)) {
        let (left, error) = delete_resource(cx, resource, &name, deleted_at);
        if let Some(e) = error {
            errors.push(e.clone());
            conditions.content_errors.push(e);
        }
        estimate = estimate.max(left.estimate);
        if left.count > 0 {
            conditions.remaining.push(format!(
                "{}.{} has {} resource instances",
                resource.plural, resource.group, left.count
            ));
            for (finalizer, n) in left.finalizers {
                *conditions.finalizers.entry(finalizer).or_default() += n;
            }
        }
    }
    conditions.write(cx, namespace);
    (estimate, errors)
}

fn is_pods(r: &Resource) -> bool {
    r.group == PODS.group && r.plural == PODS.plural
}

/// Deletes one resource's objects in the namespace and reads what is left
/// (`deleteAllContentForGroupVersionResource`).
fn delete_resource(
    cx: &mut Cx<'_>,
    resource: Resource,
    namespace: &str,
    deleted_at: Timestamp,
) -> (Remaining, Option<String>) {
    let mut estimate = match is_pods(&resource) {
        true => pods_grace(cx.api, namespace),
        false => 0,
    };
    let since = cx.clock.now().duration_since(deleted_at);
    if since >= SignedDuration::from_secs(estimate) {
        estimate = 0;
    }
    let waiting = |estimate| Remaining {
        estimate,
        ..Remaining::default()
    };
    if let Err(e) = delete_collection(cx.api, resource, namespace) {
        return (waiting(estimate), Some(e));
    }
    let left = cx.api.list(resource, Some(namespace));
    if left.is_empty() {
        return (Remaining::default(), None);
    }
    let mut finalizers: BTreeMap<String, usize> = BTreeMap::new();
    for object in &left {
        for f in object["metadata"]["finalizers"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(f) = f.as_str() {
                *finalizers.entry(f.to_owned()).or_default() += 1;
            }
        }
    }
    let count = left.len();
    // Pods within their grace period keep its estimate; objects held by finalizers get
    // `finalizerEstimateSeconds`.
    if estimate != 0 || !finalizers.is_empty() {
        let estimate = match estimate {
            0 => FINALIZER_ESTIMATE,
            pods => pods,
        };
        return (
            Remaining {
                estimate,
                count,
                finalizers,
            },
            None,
        );
    }
    let error = format!(
        "unexpected items still remain in namespace: {namespace} for gvr: {}/{}, Resource={}",
        resource.group, resource.version, resource.plural
    );
    (
        Remaining {
            count,
            ..Remaining::default()
        },
        Some(error),
    )
}

/// The longest grace period of the namespace's Pods that have not finished
/// (`estimateGracefulTerminationForPods`).
fn pods_grace(api: &Api, namespace: &str) -> i64 {
    api.list(PODS, Some(namespace))
        .iter()
        .filter(|p| !matches!(p["status"]["phase"].as_str(), Some("Succeeded" | "Failed")))
        .filter_map(|p| p["spec"]["terminationGracePeriodSeconds"].as_i64())
        .max()
        .unwrap_or(0)
        .max(0)
}

/// A DELETE of the resource's collection in the namespace, dependents in the background;
/// where the collection cannot be deleted, each object.
fn delete_collection(api: &Api, resource: Resource, namespace: &str) -> Result<(), String> {
    let options =
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
    let path = resource.path(namespace, None, None);
    match api.send(
        Method::DELETE,
        path,
        "application/json",
        Some(options.clone()),
    ) {
        Ok(_) => Ok(()),
        Err(e) if e.code == 404 || e.code == 405 => {
            for object in api.list(resource, Some(namespace)) {
                let name = object["metadata"]["name"].as_str().unwrap_or("");
                match api.delete(resource, namespace, name, &options) {
                    Err(e) if e.code != 404 && e.code != 405 => return Err(e.message),
                    _ => {}
                }
            }
            Ok(())
        }
        Err(e) => Err(e.message),
    }
}

/// What the controller found, as status conditions (`namespaceConditionUpdater`).
#[derive(Default)]
struct Conditions {
    /// Errors deleting content.
    content_errors: Vec<String>,
    /// `<resource>.<group> has <n> resource instances` for each resource with objects left.
    remaining: Vec<String>,
    /// How many objects left each finalizer holds.
    finalizers: BTreeMap<String, usize>,
}

impl Conditions {
    /// Each condition type's status, reason and message: a problem's, or all well.
    fn computed(&self) -> Vec<(&'static str, &'static str, String, String)> {
        CONDITIONS
            .iter()
            .map(|&(kind, ok_reason, ok_message)| {
                let problem = match kind {
                    "NamespaceDeletionContentFailure" if !self.content_errors.is_empty() => {
                        let mut messages = self.content_errors.clone();
                        messages.sort();
                        messages.dedup();
                        Some((
                            "ContentDeletionFailed",
                            format!(
                                "Failed to delete all resource types, {} remaining: {}",
                                self.content_errors.len(),
                                messages.join(", ")
                            ),
                        ))
                    }
                    "NamespaceContentRemaining" if !self.remaining.is_empty() => {
                        let mut items = self.remaining.clone();
                        items.sort();
                        Some((
                            "SomeResourcesRemain",
                            format!("Some resources are remaining: {}", items.join(", ")),
                        ))
                    }
                    "NamespaceFinalizersRemaining" if !self.finalizers.is_empty() => {
                        let mut items: Vec<String> = self
                            .finalizers
                            .iter()
                            .map(|(f, n)| format!("{f} in {n} resource instances"))
                            .collect();
                        items.sort();
                        Some((
                            "SomeFinalizersRemain",
                            format!(
                                "Some content in the namespace has finalizers remaining: {}",
                                items.join(", ")
                            ),
                        ))
                    }
                    _ => None,
                };
                match problem {
                    Some((reason, message)) => (kind, "True", reason.to_owned(), message),
                    None => (kind, "False", ok_reason.to_owned(), ok_message.to_owned()),
                }
            })
            .collect()
    }

    /// Brings the namespace's conditions up to date, and writes its status when they
    /// changed (a failure to write is let go, as the controller only logs it).
    fn write(&self, cx: &mut Cx<'_>, namespace: &mut Value) {
        let now = cx.clock.rfc3339();
        let mut conditions: Vec<Value> = namespace["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut changed = false;
        for (kind, status, reason, message) in self.computed() {
            let Some(old) = conditions.iter_mut().find(|c| c["type"] == kind) else {
                conditions.push(json!({
                    "type": kind,
                    "status": status,
                    "lastTransitionTime": now,
                    "reason": reason,
                    "message": message,
                }));
                changed = true;
                continue;
            };
            if old["status"] == status && old["reason"] == *reason && old["message"] == *message {
                continue;
            }
            if old["status"] != status {
                old["lastTransitionTime"] = json!(now);
            }
            old["status"] = json!(status);
            old["reason"] = json!(reason);
            old["message"] = json!(message);
            changed = true;
        }
        if !changed {
            return;
        }
        namespace["status"]["conditions"] = Value::Array(conditions);
        let name = namespace["metadata"]["name"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if let Err(e) = cx.api.update_status(NAMESPACES, "", &name, &*namespace) {
            tracing::debug!(namespace = %name, error = %e, "couldn't update status condition");
        }
    }
}

/// Errors as client-go's aggregate prints them: one as it is, several in brackets.
fn aggregate(errors: &[String]) -> String {
    let mut unique: Vec<&String> = Vec::new();
    for e in errors {
        if !unique.contains(&e) {
            unique.push(e);
        }
    }
    match unique.as_slice() {
        [one] => (*one).clone(),
        all => format!(
            "[{}]",
            all.iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
