//! A DaemonSet's Pods (`manage`, `podsShouldBeOnNode`, `syncNodes`): one per eligible Node,
//! pinned to it by node affinity (never bound: there is no scheduler); failed ones killed
//! (with a per-Node backoff), extra ones and those on Nodes they may not stay on deleted;
//! the Pods of deleted Nodes deleted too.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use serde_json::{Value, json};

use super::nodes::{add_daemon_tolerations, pin_to_node, should_run, target_node};
use super::revisions::{GENERATION_LABEL, HASH_LABEL, template_generation};
use super::{API_VERSION, KIND};
use crate::builtin::validate::LabelSelector;
use crate::controllers::api::{Api, DAEMON_SETS, PODS};
use crate::controllers::ownership::{Claimer, aggregate, candidates, controller_ref};
use crate::controllers::podutil::{
    is_available, is_ready, is_terminal, is_terminating, key_of, label, labels, meta, phase,
    pod_from_template,
};
use crate::controllers::{Cx, EventType};

/// The most Pods one sync creates or deletes (`BurstReplicas`).
const BURST: usize = 250;
/// The failed-Pod backoff's first and longest delay.
const BACKOFF_INITIAL: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(15 * 60);

/// `getDaemonPods`: the set's Pods and the orphans it adopts.
pub(super) fn claim(api: &Api, ds: &Value, selector: &LabelSelector) -> Result<Vec<Value>, String> {
    let mut claimer = Claimer::new(api, ds, DAEMON_SETS, API_VERSION, KIND);
    let (pods, result) = claimer.claim(PODS, candidates(api, PODS, ds), |p| {
        selector.matches(labels(p))
    });
    result.map(|()| pods.into_iter().map(Arc::unwrap_or_clone).collect())
}

/// `getNodesToDaemonPods`: the claimed Pods by the Node they are for (Pods both terminal
/// and deleted left out unless asked for).
pub(super) fn by_node(
    api: &Api,
    ds: &Value,
    selector: &LabelSelector,
    with_deleted_terminal: bool,
) -> Result<BTreeMap<String, Vec<Value>>, String> {
    let mut map: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for pod in claim(api, ds, selector)? {
        if !with_deleted_terminal && is_terminal(&pod) && is_terminating(&pod) {
            continue;
        }
        if let Some(node) = target_node(&pod) {
            map.entry(node).or_default().push(pod);
        }
    }
    Ok(map)
}

/// `podByCreationTimestampAndPhase`: bound Pods first, then the oldest, then by name.
pub(super) fn oldest_first(pods: &mut [Value]) {
    let bound = |p: &Value| {
        p["spec"]["nodeName"]
            .as_str()
            .is_some_and(|n| !n.is_empty())
    };
    let created = |p: &Value| -> Option<Timestamp> {
        p["metadata"]["creationTimestamp"].as_str()?.parse().ok()
    };
    pods.sort_by(|a, b| {
        bound(b)
            .cmp(&bound(a))
            .then_with(|| created(a).cmp(&created(b)))
            .then_with(|| meta(a, "name").cmp(meta(b, "name")))
    });
}

/// The failed-Pod backoff (`failedPodsBackoff`), per DaemonSet, generation and Node, on the
/// cluster's clock.
#[derive(Default)]
pub(super) struct Backoff {
    entries: HashMap<String, (Duration, Timestamp)>,
}

impl Backoff {
    /// `IsInBackOffSinceUpdate`: the delay still to wait, if any.
    fn waiting(&self, key: &str, now: Timestamp) -> Option<Duration> {
        let (delay, at) = self.entries.get(key)?;
        let since = Duration::try_from(at.duration_until(now)).unwrap_or_default();
        (since < *delay).then_some(*delay)
    }

    /// `Next`: the delay doubled (or started, or restarted when it expired long ago).
    fn next(&mut self, key: &str, now: Timestamp) {
        let entry = self.entries.entry(key.to_owned());
        let (delay, at) = entry.or_insert((Duration::ZERO, now));
        let idle = Duration::try_from(at.duration_until(now)).unwrap_or_default();
        *delay = if delay.is_zero() || idle > 2 * BACKOFF_MAX {
            BACKOFF_INITIAL
        } else {
            (*delay * 2).min(BACKOFF_MAX)
        };
        *at = now;
    }
}

/// What `manage` decided for the Nodes.
#[derive(Default)]
pub(super) struct Plan {
    pub create_on: Vec<String>,
    pub delete: Vec<String>,
}

/// `podsShouldBeOnNode` for every Node, and the unbound Pods of Nodes that are gone.
pub(super) fn plan(
    cx: &mut Cx<'_>,
    ds: &Value,
    nodes: &[Arc<Value>],
    pods: &BTreeMap<String, Vec<Value>>,
    hash: &str,
    backoff: &mut Backoff,
) -> Plan {
    let mut plan = Plan::default();
    let now = cx.clock.now();
    let surge = super::update::allows_surge(ds);
    let min_ready_seconds = ds["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
    for node in nodes {
        let node_name = meta(node, "name");
        let (run, keep) = should_run(node, ds);
        let daemon_pods = pods.get(node_name);
        match daemon_pods {
            None if run => plan.create_on.push(node_name.to_owned()),
            Some(daemon_pods) if keep => {
                let mut running = Vec::new();
                let found = |pod: &Value, what: &str, verb: &str| {
                    let (namespace, name) = (meta(pod, "namespace"), meta(pod, "name"));
                    format!(
                        "Found {what} daemon pod {namespace}/{name} on node {node_name}, will try to {verb} it"
                    )
                };
                for pod in daemon_pods.iter().filter(|p| !is_terminating(p)) {
                    match phase(pod) {
                        "Failed" => {
                            let key = format!(
                                "{}/{}/{node_name}",
                                meta(ds, "uid"),
                                ds["status"]["observedGeneration"].as_i64().unwrap_or(0)
                            );
                            if let Some(delay) = backoff.waiting(&key, now) {
                                cx.queue.add_after(key_of(ds), now, delay);
                                continue;
                            }
                            backoff.next(&key, now);
                            let message = found(pod, "failed", "kill");
                            cx.event(ds, EventType::Warning, "FailedDaemonPod", &message);
                            plan.delete.push(meta(pod, "name").to_owned());
                        }
                        "Succeeded" => {
                            let message = found(pod, "succeeded", "delete");
                            cx.event(ds, EventType::Normal, "SucceededDaemonPod", &message);
                            plan.delete.push(meta(pod, "name").to_owned());
                        }
                        _ => running.push(pod.clone()),
                    }
                }
                oldest_first(&mut running);
                if !surge {
                    plan.delete
                        .extend(running.iter().skip(1).map(|p| meta(p, "name").to_owned()));
                    continue;
                }
                if running.len() <= 1 {
                    if running.is_empty() && run {
                        plan.create_on.push(node_name.to_owned());
                    }
                    continue;
                }
                let (mut newest, mut oldest_old): (Option<&Value>, Option<&Value>) = (None, None);
                for pod in &running {
                    let slot = if label(pod, HASH_LABEL) == Some(hash) {
                        &mut newest
                    } else {
                        &mut oldest_old
                    };
                    match slot {
                        None => *slot = Some(pod),
                        Some(_) => plan.delete.push(meta(pod, "name").to_owned()),
                    }
                }
                if let (Some(new), Some(old)) = (newest, oldest_old)
                    && (!is_ready(old) || is_available(new, min_ready_seconds, now))
                {
                    plan.delete.push(meta(old, "name").to_owned());
                }
            }
            Some(daemon_pods) if !keep => plan.delete.extend(
                daemon_pods
                    .iter()
                    .filter(|p| !is_terminating(p))
                    .map(|p| meta(p, "name").to_owned()),
            ),
            _ => {}
        }
    }
    // getUnscheduledPodsWithoutNode: unbound Pods of Nodes that no longer exist.
    for (node, daemon_pods) in pods {
        if nodes.iter().any(|n| meta(n, "name") == node) {
            continue;
        }
        plan.delete.extend(
            daemon_pods
                .iter()
                .filter(|p| p["spec"]["nodeName"].as_str().unwrap_or("").is_empty())
                .map(|p| meta(p, "name").to_owned()),
        );
    }
    plan
}

/// `CreatePodTemplate`: the template with the daemon tolerations and the generation and
/// hash labels.
fn pod_template(ds: &Value, hash: &str) -> Value {
    let mut template = ds["spec"]["template"].clone();
    add_daemon_tolerations(&mut template["spec"]);
    if !template["metadata"]["labels"].is_object() {
        template["metadata"]["labels"] = json!({});
    }
    if let Some(generation) = template_generation(ds) {
        template["metadata"]["labels"][GENERATION_LABEL] = json!(generation.to_string());
    }
    if !hash.is_empty() {
        template["metadata"]["labels"][HASH_LABEL] = json!(hash);
    }
    template
}

/// Whether a refusal is the namespace terminating (no event then).
fn namespace_terminating(status: &Value) -> bool {
    status["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["reason"] == "NamespaceTerminating" || c["type"] == "NamespaceTerminating")
}

/// `syncNodes`: Pods created on `create_on` in slow-start batches (a failed batch skips the
/// rest), `delete` deleted; at most [`BURST`] of each. Returns whether anything was tried
/// (expectations set), and the errors.
pub(super) fn sync_nodes(
    cx: &mut Cx<'_>,
    ds: &Value,
    plan: &Plan,
    hash: &str,
) -> (bool, Result<(), String>) {
    let namespace = meta(ds, "namespace");
    let creates = &plan.create_on[..plan.create_on.len().min(BURST)];
    let deletes = &plan.delete[..plan.delete.len().min(BURST)];
    let template = pod_template(ds, hash);
    let mut errors = Vec::new();
    let (mut next, mut batch) = (0, creates.len().min(1));
    while batch > 0 {
        let before = errors.len();
        for node in &creates[next..next + batch] {
            let mut pod_template = template.clone();
            pin_to_node(&mut pod_template["spec"], node);
            if let Err(e) = create_pod(cx, ds, &pod_template, namespace) {
                errors.push(e);
            }
        }
        next += batch;
        if errors.len() > before {
            break;
        }
        batch = (2 * batch).min(creates.len() - next);
    }
    for name in deletes {
        match cx.api.delete(PODS, namespace, name, &Value::Null) {
            Ok(_) => cx.event(
                ds,
                EventType::Normal,
                "SuccessfulDelete",
                &format!("Deleted pod: {name}"),
            ),
            Err(e) if e.is_not_found() => {}
            Err(e) => {
                cx.event(
                    ds,
                    EventType::Warning,
                    "FailedDelete",
                    &format!("Error deleting: {}", e.message),
                );
                errors.push(format!("unable to delete pods: {}", e.message));
            }
        }
    }
    (
        !creates.is_empty() || !deletes.is_empty(),
        aggregate(&errors),
    )
}

/// `RealPodControl.CreatePods` of one daemon Pod.
fn create_pod(
    cx: &mut Cx<'_>,
    ds: &Value,
    template: &Value,
    namespace: &str,
) -> Result<(), String> {
    let pod = pod_from_template(template, ds, controller_ref(ds, API_VERSION, KIND));
    if pod["metadata"]["labels"]
        .as_object()
        .is_none_or(|l| l.is_empty())
    {
        return Err("unable to create pods, no labels".into());
    }
    match cx.api.create(PODS, namespace, &pod) {
        Ok(created) => {
            let message = format!("Created pod: {}", meta(&created, "name"));
            cx.event(ds, EventType::Normal, "SuccessfulCreate", &message);
            Ok(())
        }
        // A namespace being deleted: nothing to report, nothing to retry.
        Err(e) if namespace_terminating(&e.status) => Ok(()),
        Err(e) => {
            cx.event(
                ds,
                EventType::Warning,
                "FailedCreate",
                &format!("Error creating: {}", e.message),
            );
            Err(e.message)
        }
    }
}
