//! The Deployment controller (`pkg/controller/deployment`): a Deployment's ReplicaSets —
//! the new one, whose template is the Deployment's, made when missing, and the old ones —
//! scaled by its strategy (rolling with `maxSurge` and `maxUnavailable`, or recreate),
//! scaled proportionally when the Deployment is scaled mid-rollout, paused, rolled back by
//! the deprecated annotation, pruned to `revisionHistoryLimit`; and its status, with the
//! `Available` and `Progressing` conditions and the progress deadline on the cluster's clock.
//!
//! A sync works on a copy of the Deployment as it was read and changes it as Go's does, so
//! its writes carry the resourceVersion that was read: a second write in one sync conflicts,
//! and the retry finishes the work, as in kube-controller-manager. ReplicaSets are named
//! `<deployment>-<pod-template-hash>`, the hash being this module's own (see
//! [`template::pod_template_hash`]), not Go's.

mod history;
mod progress;
mod recreate;
mod rolling;
mod status;
mod strategy;
mod sync;
mod template;

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;
use serde_json::Value;

use super::api::{DEPLOYMENTS, PODS, REPLICA_SETS};
use super::ownership::{Claimer, controller_of, resolve};
use super::podutil::{is_terminating, labels, meta};
use super::queue::split_key;
use super::replicaset::namespace_terminating;
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Refused, Run, SyncError};
use crate::builtin::validate::LabelSelector;

/// The ReplicaSets' apiVersion and the Deployment's kind, as controller references name them.
const API_VERSION: &str = "apps/v1";
const KIND: &str = "Deployment";

/// Why a sync failed.
#[derive(Debug)]
enum Failure {
    /// A request the apiserver refused.
    Api(Refused),
    /// Anything else (an unreadable selector, a failed claim).
    Other(String),
}

impl From<Refused> for Failure {
    fn from(r: Refused) -> Self {
        Failure::Api(r)
    }
}

impl Failure {
    /// Whether the namespace is terminating (`NamespaceTerminatingCause`): not retried.
    fn namespace_terminating(&self) -> bool {
        matches!(self, Failure::Api(r) if namespace_terminating(r))
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Api(r) => r.fmt(f),
            Failure::Other(s) => f.write_str(s),
        }
    }
}

type Result<T> = std::result::Result<T, Failure>;

/// The Deployment controller.
pub(super) struct Deployments;

impl Run for Deployments {
    fn name(&self) -> &'static str {
        "deployment-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        let namespace = change.namespace();
        if change.is("apps", "deployments") {
            queue.add(change.key());
        } else if change.is("apps", "replicasets") {
            for d in deployments_for_replica_set(change, api) {
                queue.add(super::queue::key(namespace, meta(&d, "name")));
            }
        } else if change.is("", "pods") && change.change == ChangeType::Deleted {
            // A Recreate Deployment waits for its old Pods to be gone.
            let Some(d) = deployment_for_pod(api, &change.object) else {
                return;
            };
            if d["spec"]["strategy"]["type"] == "Recreate" && pod_count(api, &d) == 0 {
                queue.add(super::queue::key(namespace, meta(&d, "name")));
            }
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> std::result::Result<Outcome, SyncError> {
        let (namespace, name) = split_key(key);
        let Some(d) = cx.api.get(DEPLOYMENTS, namespace, name) else {
            return Ok(Outcome::Done);
        };
        let mut rollout = Rollout {
            cx,
            d,
            requeue: None,
        };
        match rollout.sync_deployment() {
            Ok(()) => Ok(rollout.requeue.map_or(Outcome::Done, Outcome::At)),
            Err(e) if e.namespace_terminating() => Ok(Outcome::Done),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The Deployments a ReplicaSet's change concerns (`addReplicaSet`, `updateReplicaSet`,
/// `deleteReplicaSet`): its controller's, before and after; for an orphan that was added or
/// whose labels or controller changed, every Deployment selecting it.
fn deployments_for_replica_set(change: &Change, api: &Api) -> Vec<Arc<Value>> {
    let namespace = change.namespace();
    let rs = &change.object;
    let resolve_ref = |r: &Value| resolve(api, DEPLOYMENTS, KIND, namespace, r);
    let current = controller_of(rs);
    match change.change {
        ChangeType::Deleted => current.and_then(resolve_ref).into_iter().collect(),
        ChangeType::Added if is_terminating(rs) => {
            current.and_then(resolve_ref).into_iter().collect()
        }
        ChangeType::Added => match current {
            Some(r) => resolve_ref(r).into_iter().collect(),
            None => selecting(api, rs),
        },
        ChangeType::Modified => {
            let old = change.old.as_deref().and_then(controller_of);
            let mut out = Vec::new();
            if old != current
                && let Some(d) = old.and_then(resolve_ref)
            {
                out.push(d);
            }
            match current {
                Some(r) => out.extend(resolve_ref(r)),
                None => {
                    let old_labels = change.old.as_deref().map(labels);
                    if old != current || old_labels != Some(labels(rs)) {
                        out.extend(selecting(api, rs));
                    }
                }
            }
            out
        }
    }
}

/// `GetDeploymentsForReplicaSet`: the Deployments whose (non-empty) selector matches a
/// ReplicaSet with labels.
fn selecting(api: &Api, rs: &Value) -> Vec<Arc<Value>> {
    if labels(rs).as_object().is_none_or(|l| l.is_empty()) {
        return Vec::new();
    }
    super::ownership::selecting(api, DEPLOYMENTS, meta(rs, "namespace"), rs)
}

/// `getDeploymentForPod`: the Deployment controlling the ReplicaSet controlling `pod`.
fn deployment_for_pod(api: &Api, pod: &Value) -> Option<Arc<Value>> {
    let namespace = meta(pod, "namespace");
    let reference = controller_of(pod)?;
    let rs = resolve(api, REPLICA_SETS, "ReplicaSet", namespace, reference)?;
    resolve(api, DEPLOYMENTS, KIND, namespace, controller_of(&rs)?)
}

/// How many Pods the Deployment's ReplicaSets (those it selects and controls) control.
fn pod_count(api: &Api, d: &Value) -> usize {
    let Some(selector) = LabelSelector::parse(&d["spec"]["selector"]) else {
        return 0;
    };
    let namespace = meta(d, "namespace");
    let owned: Vec<Arc<Value>> = api
        .list(REPLICA_SETS, Some(namespace))
        .into_iter()
        .filter(|rs| selector.matches(labels(rs)) && controlled_by(rs, d))
        .collect();
    pods_by_replica_set(api, namespace, owned.iter().map(|rs| &**rs))
        .values()
        .map(Vec::len)
        .sum()
}

/// Whether `owner` is `object`'s controller (`metav1.IsControlledBy`).
fn controlled_by(object: &Value, owner: &Value) -> bool {
    controller_of(object).is_some_and(|r| r["uid"] == owner["metadata"]["uid"])
}

/// `getPodMapForDeployment`: the Pods each ReplicaSet controls, by its uid (the Pod
/// indexer's key: namespace, kind, name and uid of the controller reference), shared with
/// the store.
fn pods_by_replica_set<'r>(
    api: &Api,
    namespace: &str,
    rss: impl IntoIterator<Item = &'r Value>,
) -> HashMap<String, Vec<Arc<Value>>> {
    let pods = api.list(PODS, Some(namespace));
    rss.into_iter()
        .map(|rs| {
            let owned = pods
                .iter()
                .filter(|p| {
                    controller_of(p).is_some_and(|r| {
                        r["kind"] == "ReplicaSet"
                            && r["name"] == rs["metadata"]["name"]
                            && r["uid"] == rs["metadata"]["uid"]
                    })
                })
                .cloned()
                .collect();
            (meta(rs, "uid").to_owned(), owned)
        })
        .collect()
}

/// One sync of one Deployment: the controller's view (`cx`) and the Deployment as Go's copy
/// of it is along the sync (`d`: annotations and status changed in place, the
/// resourceVersion it was read with).
struct Rollout<'c, 'x> {
    cx: &'c mut Cx<'x>,
    /// The Deployment, shared with the store until the sync changes it.
    d: Arc<Value>,
    /// When the progress deadline is to be checked again (`requeueStuckDeployment`).
    requeue: Option<Timestamp>,
}

impl Rollout<'_, '_> {
    /// `syncDeployment`.
    fn sync_deployment(&mut self) -> Result<()> {
        let rs_list = self.claim_replica_sets()?;
        let pod_map = pods_by_replica_set(self.cx.api, self.namespace(), &rs_list);
        if is_terminating(&self.d) {
            return self.sync_status_only(rs_list);
        }
        self.check_paused_conditions()?;
        if self.d["spec"]["paused"] == true {
            return self.sync(rs_list);
        }
        if history::rollback_to(&self.d).is_some() {
            return self.rollback(rs_list);
        }
        if self.is_scaling_event(&rs_list)? {
            return self.sync(rs_list);
        }
        match self.d["spec"]["strategy"]["type"].as_str() {
            Some("Recreate") => self.rollout_recreate(rs_list, &pod_map),
            Some("RollingUpdate") => self.rollout_rolling(rs_list),
            other => Err(Failure::Other(format!(
                "unexpected deployment strategy type: {}",
                other.unwrap_or("")
            ))),
        }
    }

    fn namespace(&self) -> &str {
        meta(&self.d, "namespace")
    }

    fn name(&self) -> &str {
        meta(&self.d, "name")
    }

    /// `getReplicaSetsForDeployment`: the ReplicaSets the Deployment controls after adopting
    /// the orphans its selector matches and releasing its own it no longer matches.
    fn claim_replica_sets(&mut self) -> Result<Vec<Value>> {
        let Some(selector) = LabelSelector::parse(&self.d["spec"]["selector"]) else {
            return Err(Failure::Other(format!(
                "deployment {}/{} has invalid label selector",
                self.namespace(),
                self.name()
            )));
        };
        let all = self.cx.api.list(REPLICA_SETS, Some(self.namespace()));
        let mut claimer = Claimer::new(self.cx.api, &self.d, DEPLOYMENTS, API_VERSION, KIND);
        let (claimed, result) = claimer.claim(REPLICA_SETS, all, |rs| selector.matches(labels(rs)));
        result.map_err(Failure::Other)?;
        Ok(claimed.into_iter().map(Arc::unwrap_or_clone).collect())
    }
}

/// A number field of an object (`spec.replicas`, `status.availableReplicas`), 0 when
/// missing.
fn int(object: &Value, section: &str, field: &str) -> i64 {
    object[section][field].as_i64().unwrap_or(0)
}

/// A ReplicaSet's or Deployment's `spec.replicas` (defaulted to 1 by the apiserver).
fn replicas(object: &Value) -> i64 {
    object["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// `FilterActiveReplicaSets`: the ReplicaSets that (ought to) have Pods.
fn active(rss: &[Value]) -> Vec<Value> {
    rss.iter().filter(|rs| replicas(rs) > 0).cloned().collect()
}

/// `ReplicaSetsByCreationTimestamp`: oldest first, names breaking ties.
fn by_creation(a: &Value, b: &Value) -> std::cmp::Ordering {
    let created = |rs: &Value| meta(rs, "creationTimestamp").parse::<Timestamp>().ok();
    created(a)
        .cmp(&created(b))
        .then_with(|| meta(a, "name").cmp(meta(b, "name")))
}
