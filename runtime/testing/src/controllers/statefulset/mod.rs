//! The StatefulSet controller (`pkg/controller/statefulset`): Pods named `<set>-<ordinal>`
//! made from the template at the current or update revision, one claim per template and
//! ordinal, ControllerRevisions of the template, rolling updates, and the status.
//!
//! It syncs a set when the set changes and when one of its Pods does (an orphan Pod its
//! selector matches included), as the controller's informers do; PersistentVolumeClaims
//! and ControllerRevisions are read, never watched. Its Pods are claimed as
//! `ClaimPods` claims them, with the extra rule that a Pod must be named after the set.

mod claims;
mod control;
mod identity;
mod podcontrol;
mod revisions;
mod status;

use serde_json::Value;
use std::sync::Arc;

use self::identity::is_member_of;
use super::api::{CONTROLLER_REVISIONS, PODS, STATEFUL_SETS};
use super::ownership::{Claimer, candidates, controller_of, resolve, selecting};
use super::podutil::{is_ready, is_terminating, key_of, labels, next_availability_check};
use super::queue::split_key;
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Run, SyncError};
use crate::builtin::validate::LabelSelector;

/// The owner reference's apiVersion and kind.
const API_VERSION: &str = "apps/v1";
const KIND: &str = "StatefulSet";

pub(super) struct StatefulSets;

impl Run for StatefulSets {
    fn name(&self) -> &'static str {
        "statefulset-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        if change.is("apps", "statefulsets") {
            queue.add(change.key());
        } else if change.is("", "pods") {
            observe_pod(change, queue, api);
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let (namespace, name) = split_key(key);
        let Some(set) = cx.api.get(STATEFUL_SETS, namespace, name) else {
            return Ok(Outcome::Done);
        };
        // A selector that does not parse is not retried.
        let Some(selector) = LabelSelector::parse(&set["spec"]["selector"]) else {
            return Ok(Outcome::Done);
        };
        adopt_orphan_revisions(cx.api, &set, &selector)?;
        let pods = claim_pods(cx.api, &set, &selector)?;
        let now = cx.clock.now();
        let status = control::update(cx, &set, &selector, &pods, now)?;
        let min_ready_seconds = set["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
        if min_ready_seconds > 0 && status.ready != status.available {
            let wait = next_availability_check(&pods, min_ready_seconds, now)
                .unwrap_or(std::time::Duration::from_secs(min_ready_seconds as u64));
            return Ok(Outcome::After(wait));
        }
        Ok(Outcome::Done)
    }
}

/// The pod event handlers: a Pod's controller is synced, an orphan's candidate owners when
/// its labels change; a Pod turning Ready syncs its set again once `minReadySeconds` passed.
fn observe_pod(change: &Change, queue: &mut Queue, api: &Api) {
    let pod = &change.object;
    let namespace = change.namespace();
    let owner = |reference: &Value| resolve(api, STATEFUL_SETS, KIND, namespace, reference);
    let mut add = |set: &Value| queue.add(key_of(set));
    match change.change {
        ChangeType::Deleted => {
            if let Some(set) = controller_of(pod).and_then(owner) {
                add(&set);
            }
        }
        ChangeType::Added if is_terminating(pod) => {
            if let Some(set) = controller_of(pod).and_then(owner) {
                add(&set);
            }
        }
        ChangeType::Added => match controller_of(pod) {
            Some(reference) => {
                if let Some(set) = owner(reference) {
                    add(&set);
                }
            }
            None => selecting(api, STATEFUL_SETS, namespace, pod)
                .iter()
                .for_each(|s| add(s)),
        },
        ChangeType::Modified => {
            let old = change.old.as_deref().unwrap_or(&Value::Null);
            let (reference, old_reference) = (controller_of(pod), controller_of(old));
            let reference_changed = reference != old_reference;
            if reference_changed && let Some(set) = old_reference.and_then(owner) {
                add(&set);
            }
            if let Some(reference) = reference {
                let Some(set) = owner(reference) else { return };
                add(&set);
                let min_ready_seconds = set["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
                if !is_ready(old) && is_ready(pod) && min_ready_seconds > 0 {
                    queue.add_after(
                        key_of(&set),
                        api.clock().now(),
                        std::time::Duration::from_secs(min_ready_seconds as u64),
                    );
                }
                return;
            }
            if labels(pod) != labels(old) || reference_changed {
                selecting(api, STATEFUL_SETS, namespace, pod)
                    .iter()
                    .for_each(|s| add(s));
            }
        }
    }
}

/// `adoptOrphanRevisions`: the selector's orphan revisions get the set as controller.
fn adopt_orphan_revisions(api: &Api, set: &Value, selector: &LabelSelector) -> Result<(), String> {
    let orphans: Vec<Value> = super::history::list(api, set, selector)
        .into_iter()
        .filter(|r| controller_of(r).is_none())
        .collect();
    if orphans.is_empty() {
        return Ok(());
    }
    let mut claimer = Claimer::new(api, set, STATEFUL_SETS, API_VERSION, KIND);
    claimer.claim(CONTROLLER_REVISIONS, orphans, |_| true).1
}

/// `getPodsForStatefulSet`: the set's Pods and the orphans it adopts, named after it and
/// matching its selector.
fn claim_pods(api: &Api, set: &Value, selector: &LabelSelector) -> Result<Vec<Value>, String> {
    let mut claimer = Claimer::new(api, set, STATEFUL_SETS, API_VERSION, KIND);
    let (pods, result) = claimer.claim(PODS, candidates(api, PODS, set), |pod| {
        selector.matches(labels(pod)) && is_member_of(set, pod)
    });
    result.map(|()| pods.into_iter().map(Arc::unwrap_or_clone).collect())
}
