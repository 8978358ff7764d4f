//! The DaemonSet controller (`pkg/controller/daemon`): a Pod on every Node the DaemonSet's
//! template fits (see [`nodes`]), revisions of the template, rolling updates, the status.
//!
//! Syncs follow the controller's informers: a DaemonSet's own changes, its Pods' and
//! revisions' (and orphans its selector matches), and a Node added or changing its labels
//! or taints — which syncs only the DaemonSets that should run there and have no Pod bound
//! to it, or may no longer keep one. Without a scheduler Pods are never bound, so a Node
//! becoming ineligible or deleted changes nothing until something else syncs the
//! DaemonSet, as on a cluster without one. Expectations are not needed (the controller
//! reads what it wrote), but a sync that created or deleted Pods leaves the rolling update
//! to the next one, as unmet expectations do.

mod nodes;
mod pods;
mod revisions;
mod status;
mod update;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use self::pods::Backoff;
use super::api::{DAEMON_SETS, NODES, PODS};
use super::ownership::{controller_of, resolve, selecting};
use super::podutil::{is_ready, is_terminating, key_of, labels, meta};
use super::queue::split_key;
use super::{Api, Change, ChangeType, Cx, EventType, Outcome, Queue, Run, SyncError};
use crate::builtin::validate::LabelSelector;

/// The owner reference's apiVersion and kind.
const API_VERSION: &str = "apps/v1";
const KIND: &str = "DaemonSet";

#[derive(Default)]
pub(super) struct DaemonSets {
    backoff: Backoff,
}

impl Run for DaemonSets {
    fn name(&self) -> &'static str {
        "daemonset-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        if change.is("apps", "daemonsets") {
            queue.add(change.key());
        } else if change.is("", "pods") {
            for (key, after) in owners_to_sync(change, api) {
                match after {
                    None => queue.add(key),
                    Some(delay) => queue.add_after(key, api.clock().now(), delay),
                }
            }
        } else if change.is("apps", "controllerrevisions") {
            for (key, _) in owners_to_sync(change, api) {
                queue.add(key);
            }
        } else if change.is("", "nodes") {
            observe_node(change, queue, api);
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let (namespace, name) = split_key(key);
        let Some(ds) = cx.api.get(DAEMON_SETS, namespace, name) else {
            return Ok(Outcome::Done);
        };
        let nodes = cx.api.list(NODES, None);
        let selector_value = &ds["spec"]["selector"];
        let selects_all = selector_value.as_object().is_some_and(|s| s.is_empty());
        if selects_all {
            let message =
                "This daemon set is selecting all pods. A non-empty selector is required.";
            cx.event(&ds, EventType::Warning, "SelectingAll", message);
            return Ok(Outcome::Done);
        }
        if is_terminating(&ds) {
            return Ok(Outcome::Done);
        }
        let selector = LabelSelector::parse(selector_value)
            .ok_or_else(|| format!("invalid selector of daemon set {key}"))?;
        let history = revisions::construct(cx, &ds, &selector)
            .map_err(|e| format!("failed to construct revisions of DaemonSet: {e}"))?;
        let hash = history.hash();
        let result = self.update(cx, &ds, &nodes, &selector, &hash, history.old);
        let by_node = pods::by_node(cx.api, &ds, &selector, false)?;
        let requeue = status::update(cx, &ds, &nodes, by_node, &hash, true)?;
        result?;
        Ok(requeue.map_or(Outcome::Done, Outcome::After))
    }
}

impl DaemonSets {
    /// `updateDaemonSet`: the Pods per Node, then (once nothing is in flight) the rolling
    /// update, then the history cleaned up.
    fn update(
        &mut self,
        cx: &mut Cx<'_>,
        ds: &Value,
        nodes: &[Arc<Value>],
        selector: &LabelSelector,
        hash: &str,
        old: Vec<Value>,
    ) -> Result<(), String> {
        let by_node = pods::by_node(cx.api, ds, selector, false).map_err(|e| {
            format!(
                "couldn't get node to daemon pod mapping for daemon set {:?}: {e}",
                meta(ds, "name")
            )
        })?;
        let plan = pods::plan(cx, ds, nodes, &by_node, hash, &mut self.backoff);
        let (in_flight, managed) = pods::sync_nodes(cx, ds, &plan, hash);
        managed?;
        if !in_flight && ds["spec"]["updateStrategy"]["type"] == "RollingUpdate" {
            let by_node = pods::by_node(cx.api, ds, selector, false)?;
            update::rolling_update(cx, ds, nodes, by_node, hash)?;
        }
        let all: Vec<Value> = pods::by_node(cx.api, ds, selector, true)?
            .into_values()
            .flatten()
            .collect();
        revisions::cleanup(cx, ds, &all, old)
            .map_err(|e| format!("failed to clean up revisions of DaemonSet: {e}"))
    }
}

/// The DaemonSets a Pod's or a revision's change concerns (`addPod`, `updatePod`,
/// `deletePod` and their revision counterparts), with a delay for a Pod turning Ready under
/// `minReadySeconds`.
fn owners_to_sync(change: &Change, api: &Api) -> Vec<(String, Option<Duration>)> {
    let object = &change.object;
    let namespace = change.namespace();
    let pod = change.is("", "pods");
    let owner = |reference: &Value| resolve(api, DAEMON_SETS, KIND, namespace, reference);
    let mut keys = Vec::new();
    let deleting = is_terminating(object);
    match change.change {
        ChangeType::Deleted => {
            keys.extend(controller_of(object).and_then(owner).map(|d| key_of(&d)))
        }
        ChangeType::Added if deleting => {
            keys.extend(controller_of(object).and_then(owner).map(|d| key_of(&d)));
        }
        ChangeType::Added => match controller_of(object) {
            // A revision's own DaemonSet is not synced for it.
            Some(reference) => {
                if pod {
                    keys.extend(owner(reference).map(|d| key_of(&d)));
                }
            }
            None => keys.extend(
                selecting(api, DAEMON_SETS, namespace, object)
                    .iter()
                    .map(|d| key_of(d)),
            ),
        },
        ChangeType::Modified if pod && deleting => {
            keys.extend(controller_of(object).and_then(owner).map(|d| key_of(&d)));
        }
        ChangeType::Modified => {
            let old = change.old.as_deref().unwrap_or(&Value::Null);
            let (reference, old_reference) = (controller_of(object), controller_of(old));
            let reference_changed = reference != old_reference;
            if reference_changed {
                keys.extend(old_reference.and_then(owner).map(|d| key_of(&d)));
            }
            if let Some(reference) = reference {
                let Some(ds) = owner(reference) else {
                    return to_now(keys);
                };
                keys.push(key_of(&ds));
                let min_ready = ds["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
                let mut keys = to_now(keys);
                if pod && !is_ready(old) && is_ready(object) && min_ready > 0 {
                    keys.push((key_of(&ds), Some(Duration::from_secs(min_ready as u64 + 1))));
                }
                return keys;
            }
            if labels(object) != labels(old) || reference_changed {
                keys.extend(
                    selecting(api, DAEMON_SETS, namespace, object)
                        .iter()
                        .map(|d| key_of(d)),
                );
            }
        }
    }
    to_now(keys)
}

fn to_now(keys: Vec<String>) -> Vec<(String, Option<Duration>)> {
    keys.into_iter().map(|k| (k, None)).collect()
}

/// The node handlers and `syncNodeUpdate`: a Node added, or whose labels or taints
/// changed, syncs each DaemonSet that should run there but has no Pod bound to it, or has
/// one it may not keep, or has one while it counts misscheduled Pods. A deleted Node syncs
/// nothing.
fn observe_node(change: &Change, queue: &mut Queue, api: &Api) {
    let node = &change.object;
    match change.change {
        ChangeType::Added => {}
        ChangeType::Modified => {
            let old = change.old.as_deref().unwrap_or(&Value::Null);
            if labels(old) == labels(node) && old["spec"]["taints"] == node["spec"]["taints"] {
                return;
            }
        }
        ChangeType::Deleted => return,
    }
    // The change may be stale by now: the Node as it is decides.
    let Some(node) = api.get(NODES, "", change.name()) else {
        return;
    };
    let bound: Vec<Arc<Value>> = api
        .list(PODS, None)
        .into_iter()
        .filter(|p| p["spec"]["nodeName"] == node["metadata"]["name"])
        .collect();
    for ds in api.list(DAEMON_SETS, None) {
        let (run, keep) = nodes::should_run(&node, &ds);
        let scheduled = bound.iter().any(|p| {
            meta(p, "namespace") == meta(&ds, "namespace")
                && controller_of(p)
                    .is_some_and(|r| r["kind"] == KIND && r["name"] == ds["metadata"]["name"])
        });
        let misscheduled = ds["status"]["numberMisscheduled"].as_i64().unwrap_or(0) > 0;
        // A Pod to make, one to delete, or misscheduled ones to count again.
        let sync = match scheduled {
            false => run,
            true => !keep || misscheduled,
        };
        if sync {
            queue.add(key_of(&ds));
        }
    }
}
