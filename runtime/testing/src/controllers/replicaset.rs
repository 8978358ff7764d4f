//! The ReplicaSet controller (`pkg/controller/replicaset`) and the ReplicationController
//! manager built on it (`pkg/controller/replication`): the Pods a ReplicaSet selects claimed
//! (orphans adopted, its own that stopped matching released), created from its template in
//! slow-start batches of 1, 2, 4, ... or deleted, those that matter least first, until it
//! has `spec.replicas` active ones; and its status — replicas, fully labelled, ready,
//! available (Ready for `minReadySeconds` on the cluster's clock), terminating — with the
//! `ReplicaFailure` condition while creating or deleting fails.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::api::{PODS, REPLICA_SETS, Resource};
use super::ownership::{Claimer, controller_of, controller_ref, resolve};
use super::podrank::{is_active, pods_to_delete};
use super::podutil::{
    is_available, is_ready, is_terminal, is_terminating, labels, meta, next_availability_check,
    pod_from_template,
};
use super::queue::{key, split_key};
use super::{Api, Change, ChangeType, Cx, EventType, Outcome, Queue, Refused, Run, SyncError};
use crate::builtin::validate::LabelSelector;

/// At most this many Pods are created or deleted in one sync (`BurstReplicas`).
const BURST: usize = 500;
/// The first slow-start batch (`SlowStartInitialBatchSize`).
const INITIAL_BATCH: usize = 1;

pub(crate) const REPLICATION_CONTROLLERS: Resource =
    Resource::new("", "v1", "replicationcontrollers");

/// The kind a controller of this module manages.
#[derive(Clone, Copy, Debug)]
pub(super) struct Managed {
    resource: Resource,
    kind: &'static str,
    /// The component of its events (and its user agent).
    component: &'static str,
    /// Whether its status counts terminating Pods (a ReplicaSet's does, a
    /// ReplicationController's not).
    terminating_replicas: bool,
}

/// ReplicaSets.
pub(super) const REPLICA_SET: Managed = Managed {
    resource: REPLICA_SETS,
    kind: "ReplicaSet",
    component: "replicaset-controller",
    terminating_replicas: true,
};

/// ReplicationControllers: a ReplicaSet whose selector is a map of labels.
pub(super) const REPLICATION_CONTROLLER: Managed = Managed {
    resource: REPLICATION_CONTROLLERS,
    kind: "ReplicationController",
    component: "replication-controller",
    terminating_replicas: false,
};

/// The ReplicaSet controller, or the ReplicationController manager.
pub(super) struct ReplicaSets(pub(super) Managed);

impl Managed {
    /// The owner's label selector: a ReplicaSet's, or a ReplicationController's map as one.
    fn selector(&self, owner: &Value) -> Option<LabelSelector> {
        let selector = &owner["spec"]["selector"];
        match self.kind {
            "ReplicationController" => {
                LabelSelector::parse(&json!({"matchLabels": selector.clone()}))
            }
            _ => LabelSelector::parse(selector),
        }
    }

    /// The owners whose non-empty selector matches `pod` (`GetPodReplicaSets`).
    fn selecting(&self, api: &Api, pod: &Value) -> Vec<Arc<Value>> {
        api.list(self.resource, Some(meta(pod, "namespace")))
            .into_iter()
            .filter(|o| {
                self.selector(o)
                    .is_some_and(|s| !s.is_empty() && s.matches(labels(pod)))
            })
            .collect()
    }

    /// The owner a Pod's controller reference names, if it is one of ours.
    fn resolve(&self, api: &Api, pod: &Value, reference: &Value) -> Option<Arc<Value>> {
        resolve(
            api,
            self.resource,
            self.kind,
            meta(pod, "namespace"),
            reference,
        )
    }
}

impl Run for ReplicaSets {
    fn name(&self) -> &'static str {
        self.0.component
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        let managed = self.0;
        if change.is(managed.resource.group, managed.resource.plural) {
            queue.add(change.key());
        } else if change.is("", "pods") {
            let now = api.clock().now();
            for (owner, delay) in owners_to_sync(managed, change, api) {
                let k = key(meta(&owner, "namespace"), meta(&owner, "name"));
                match delay {
                    Some(seconds) => queue.add_after(k, now, Duration::from_secs(seconds)),
                    None => queue.add(k),
                }
            }
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let managed = self.0;
        let (namespace, name) = split_key(key);
        let Some(rs) = cx.api.get(managed.resource, namespace, name) else {
            return Ok(Outcome::Done);
        };
        let Some(selector) = managed.selector(&rs) else {
            return Ok(Outcome::Done);
        };
        // FilterPodsByOwner with the orphans: the Pods it controls and those nobody does.
        let uid = meta(&rs, "uid");
        let pods: Vec<Arc<Value>> = cx
            .api
            .list(PODS, Some(namespace))
            .into_iter()
            .filter(|p| match controller_of(p) {
                None => true,
                Some(r) => r["kind"] == managed.kind && r["name"] == name && r["uid"] == uid,
            })
            .collect();
        let active: Vec<Arc<Value>> = pods.iter().filter(|p| is_active(p)).cloned().collect();
        let mut claimer = Claimer::new(
            cx.api,
            &rs,
            managed.resource,
            api_version(managed),
            managed.kind,
        );
        let (active, claimed) = claimer.claim(PODS, active, |p| selector.matches(labels(p)));
        claimed?;
        let terminating: usize = pods
            .iter()
            .filter(|p| !is_terminal(p) && is_terminating(p))
            .filter(|p| {
                controller_of(p).is_some_and(|r| r["uid"] == uid) && selector.matches(labels(p))
            })
            .count();
        let managed_result = match is_terminating(&rs) {
            true => Ok(()),
            false => manage_replicas(managed, &active, &rs, cx),
        };
        let now = cx.clock.now();
        let status = calculate_status(
            managed,
            &rs,
            &active,
            terminating,
            managed_result.as_ref().err(),
            cx,
        );
        let updated = update_status(cx.api, managed.resource, &rs, status)?;
        managed_result?;
        let min_ready = updated["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
        let count = |f: &str| updated["status"][f].as_i64().unwrap_or(0);
        if min_ready > 0 && count("readyReplicas") != count("availableReplicas") {
            let next = next_availability_check(&active, min_ready, now)
                .unwrap_or(Duration::from_secs(min_ready as u64));
            return Ok(Outcome::After(next));
        }
        Ok(Outcome::Done)
    }
}

/// The owners a Pod's change concerns (`addPod`, `updatePod`, `deletePod`): its controller
/// before and after; for an orphan that was added or whose labels or controller changed,
/// every owner selecting it. A Pod that just became Ready has its controller synced again
/// once `minReadySeconds` passed (the delay, in seconds).
fn owners_to_sync(managed: Managed, change: &Change, api: &Api) -> Vec<(Arc<Value>, Option<u64>)> {
    let pod = &change.object;
    let controller = |p: &Value| controller_of(p).and_then(|r| managed.resolve(api, p, r));
    let now = |owners: Vec<Arc<Value>>| owners.into_iter().map(|o| (o, None)).collect();
    let old = match (change.change, change.old.as_deref()) {
        (ChangeType::Modified, Some(old)) => old,
        (ChangeType::Added, _) if !is_terminating(pod) && controller_of(pod).is_none() => {
            return now(managed.selecting(api, pod));
        }
        _ => return now(controller(pod).into_iter().collect()),
    };
    let label_changed = labels(old) != labels(pod);
    if is_terminating(pod) {
        let mut owners: Vec<Arc<Value>> = controller(pod).into_iter().collect();
        if label_changed {
            owners.extend(controller(old));
        }
        return now(owners);
    }
    let (current, before) = (controller_of(pod), controller_of(old));
    let mut owners = Vec::new();
    if current != before {
        owners.extend(controller(old).map(|o| (o, None)));
    }
    if current.is_some() {
        if let Some(owner) = controller(pod) {
            let min_ready = owner["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
            let became_ready = !is_ready(old) && is_ready(pod) && min_ready > 0;
            if became_ready {
                owners.push((owner.clone(), Some(min_ready as u64)));
            }
            owners.push((owner, None));
        }
        return owners;
    }
    if label_changed || current != before {
        owners.extend(managed.selecting(api, pod).into_iter().map(|o| (o, None)));
    }
    owners
}

/// The managed kind's apiVersion, for controller references.
fn api_version(managed: Managed) -> &'static str {
    match managed.kind {
        "ReplicationController" => "v1",
        _ => "apps/v1",
    }
}

/// `manageReplicas`: Pods created or deleted until `spec.replicas` are active.
fn manage_replicas(
    managed: Managed,
    active: &[Arc<Value>],
    rs: &Value,
    cx: &mut Cx<'_>,
) -> Result<(), String> {
    let want = rs["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
    if active.len() < want {
        let count = (want - active.len()).min(BURST);
        return slow_start(count, || create_pod(managed, rs, cx));
    }
    if active.len() == want {
        return Ok(());
    }
    let count = (active.len() - want).min(BURST);
    let related = related_pods(managed, cx.api, rs);
    let mut first_error = None;
    for pod in pods_to_delete(active.to_vec(), &related, count, cx.clock.now()) {
        if let Err(e) = delete_pod(rs, &pod, cx) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// `slowStartBatch`: `count` calls of `create` in batches of 1, 2, 4, ..., stopping after a
/// batch where one failed (that error).
fn slow_start(count: usize, mut create: impl FnMut() -> Result<(), String>) -> Result<(), String> {
    let mut remaining = count;
    let mut batch = remaining.min(INITIAL_BATCH);
    while batch > 0 {
        let mut failure = None;
        for _ in 0..batch {
            if let Err(e) = create() {
                failure.get_or_insert(e);
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        remaining -= batch;
        batch = (2 * batch).min(remaining);
    }
    Ok(())
}

/// `CreatePods`: a Pod of the template, with the `SuccessfulCreate` or `FailedCreate` event.
/// A namespace being deleted is no failure.
fn create_pod(managed: Managed, rs: &Value, cx: &mut Cx<'_>) -> Result<(), String> {
    let reference = controller_ref(rs, api_version(managed), managed.kind);
    let pod = pod_from_template(&rs["spec"]["template"], rs, reference);
    if labels(&pod).as_object().is_none_or(|l| l.is_empty()) {
        return Err("unable to create pods, no labels".into());
    }
    match cx.api.create(PODS, meta(rs, "namespace"), pod) {
        Ok(created) => {
            let message = format!("Created pod: {}", meta(&created, "name"));
            cx.event(rs, EventType::Normal, "SuccessfulCreate", &message);
            Ok(())
        }
        Err(e) if namespace_terminating(&e) => Ok(()),
        Err(e) => {
            cx.event(
                rs,
                EventType::Warning,
                "FailedCreate",
                &format!("Error creating: {}", e.message),
            );
            Err(e.message)
        }
    }
}

/// `DeletePod`, with the `SuccessfulDelete` or `FailedDelete` event; a Pod gone already is
/// no failure.
fn delete_pod(rs: &Value, pod: &Value, cx: &mut Cx<'_>) -> Result<(), String> {
    let name = meta(pod, "name");
    match cx
        .api
        .delete(PODS, meta(rs, "namespace"), name, &Value::Null)
    {
        Ok(_) => {
            cx.event(
                rs,
                EventType::Normal,
                "SuccessfulDelete",
                &format!("Deleted pod: {name}"),
            );
            Ok(())
        }
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => {
            cx.event(
                rs,
                EventType::Warning,
                "FailedDelete",
                &format!("Error deleting: {}", e.message),
            );
            Err(format!("unable to delete pods: {}", e.message))
        }
    }
}

/// Whether the apiserver refused a write because the namespace is being deleted
/// (`NamespaceTerminatingCause`).
pub(super) fn namespace_terminating(e: &Refused) -> bool {
    e.status["details"]["causes"]
        .as_array()
        .is_some_and(|causes| causes.iter().any(|c| c["type"] == "NamespaceTerminating"))
}

/// `getIndirectlyRelatedPods`: the Pods the selectors of the ReplicaSets sharing this one's
/// controller match (none without a controller).
fn related_pods(managed: Managed, api: &Api, rs: &Value) -> Vec<Arc<Value>> {
    let Some(controller) = controller_of(rs) else {
        return Vec::new();
    };
    let namespace = meta(rs, "namespace");
    let pods = api.list(PODS, Some(namespace));
    let mut seen = std::collections::HashSet::new();
    let mut related = Vec::new();
    for sibling in api.list(managed.resource, Some(namespace)) {
        if controller_of(&sibling).is_none_or(|r| r["uid"] != controller["uid"]) {
            continue;
        }
        let Some(selector) = managed.selector(&sibling) else {
            continue;
        };
        for pod in pods.iter().filter(|p| selector.matches(labels(p))) {
            if seen.insert(meta(pod, "uid").to_owned()) {
                related.push(pod.clone());
            }
        }
    }
    related
}

/// `calculateStatus`: the counts of the active Pods, the terminating ones, and the
/// `ReplicaFailure` condition while managing the replicas fails.
fn calculate_status(
    managed: Managed,
    rs: &Value,
    active: &[Arc<Value>],
    terminating: usize,
    failure: Option<&String>,
    cx: &Cx<'_>,
) -> Value {
    let now = cx.clock.now();
    let template_labels = rs["spec"]["template"]["metadata"]["labels"].clone();
    let fully_labeled = active
        .iter()
        .filter(|p| {
            template_labels
                .as_object()
                .into_iter()
                .flatten()
                .all(|(k, v)| labels(p)[k] == *v)
        })
        .count();
    let min_ready = rs["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
    let ready = active.iter().filter(|p| is_ready(p)).count();
    let available = active
        .iter()
        .filter(|p| is_available(p, min_ready, now))
        .count();
    let mut conditions: Vec<Value> = rs["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let has_failure = conditions.iter().any(|c| c["type"] == "ReplicaFailure");
    match failure {
        Some(message) if !has_failure => {
            let want = rs["spec"]["replicas"].as_i64().unwrap_or(1);
            let reason = match (active.len() as i64).cmp(&want) {
                std::cmp::Ordering::Less => "FailedCreate",
                std::cmp::Ordering::Greater => "FailedDelete",
                std::cmp::Ordering::Equal => "",
            };
            let mut condition = json!({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": cx.clock.rfc3339()});
            if !reason.is_empty() {
                condition["reason"] = json!(reason);
            }
            if !message.is_empty() {
                condition["message"] = json!(message);
            }
            conditions.push(condition);
        }
        None if has_failure => conditions.retain(|c| c["type"] != "ReplicaFailure"),
        _ => {}
    }
    let mut status = json!({"replicas": active.len()});
    for (field, n) in [
        ("fullyLabeledReplicas", fully_labeled),
        ("readyReplicas", ready),
        ("availableReplicas", available),
    ] {
        if n > 0 {
            status[field] = json!(n);
        }
    }
    if managed.terminating_replicas {
        status["terminatingReplicas"] = json!(terminating);
    }
    if let Some(observed) = rs["status"]["observedGeneration"]
        .as_i64()
        .filter(|g| *g != 0)
    {
        status["observedGeneration"] = json!(observed);
    }
    if !conditions.is_empty() {
        status["conditions"] = Value::Array(conditions);
    }
    status
}

/// `updateReplicaSetStatus`: the status written (with the generation observed) unless it
/// is unchanged, retried once on a fresh read.
fn update_status(
    api: &Api,
    resource: Resource,
    rs: &Arc<Value>,
    mut status: Value,
) -> Result<Arc<Value>, Refused> {
    let old = &rs["status"];
    let count = |s: &Value, f: &str| s[f].as_i64().unwrap_or(0);
    let conditions = |s: &Value| s["conditions"].as_array().cloned().unwrap_or_default();
    let unchanged = [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
    ]
    .iter()
    .all(|f| count(old, f) == count(&status, f))
        && old["terminatingReplicas"].as_i64() == status["terminatingReplicas"].as_i64()
        && conditions(old) == conditions(&status);
    let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
    if unchanged && generation == count(old, "observedGeneration") {
        return Ok(rs.clone());
    }
    if generation != 0 {
        status["observedGeneration"] = json!(generation);
    }
    let (namespace, name) = (meta(rs, "namespace"), meta(rs, "name"));
    let mut object = Value::clone(rs);
    object["status"] = status.clone();
    match api.update_status(resource, namespace, name, object) {
        Ok(written) => Ok(written),
        Err(e) => {
            let Some(mut fresh) = api.get_owned(resource, namespace, name) else {
                return Err(e);
            };
            fresh["status"] = status;
            api.update_status(resource, namespace, name, fresh)
        }
    }
}
