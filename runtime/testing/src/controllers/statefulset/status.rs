//! A StatefulSet's status (`computeReplicaStatus`, `completeRollingUpdate`,
//! `inconsistentStatus`, the status updater): counted over the Pods a sync ends with — the
//! ones it created are not counted until their own event syncs the set again, so each step
//! writes the status twice, as kube-controller-manager does.

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::identity::{replicas, revision_of};
use crate::controllers::Cx;
use crate::controllers::api::STATEFUL_SETS;
use crate::controllers::podutil::{is_available, is_ready, is_terminating, meta, phase};

/// The status a sync computes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Status {
    pub observed_generation: i64,
    pub replicas: i64,
    pub ready: i64,
    pub available: i64,
    pub current: i64,
    pub updated: i64,
    pub current_revision: String,
    pub update_revision: String,
    pub collision_count: i64,
}

impl Status {
    /// `updateStatus`: the counts over `lists` of Pods (made or still to be made).
    pub(super) fn count(&mut self, lists: &[&[Value]], min_ready_seconds: i64, now: Timestamp) {
        self.replicas = 0;
        self.ready = 0;
        self.available = 0;
        self.current = 0;
        self.updated = 0;
        for pod in lists.iter().flat_map(|l| l.iter()) {
            let created = !phase(pod).is_empty();
            if created {
                self.replicas += 1;
            }
            if phase(pod) == "Running" && is_ready(pod) {
                self.ready += 1;
                if is_available(pod, min_ready_seconds, now) {
                    self.available += 1;
                }
            }
            if created && !is_terminating(pod) {
                let revision = revision_of(pod);
                if revision == self.current_revision {
                    self.current += 1;
                }
                if revision == self.update_revision {
                    self.updated += 1;
                }
            }
        }
    }

    /// The status as Go marshals `StatefulSetStatus` (zero counts but `replicas` and
    /// `availableReplicas` left out; no conditions).
    fn to_json(&self) -> Value {
        let mut status = Map::new();
        let mut put = |key: &str, value: Value| {
            status.insert(key.to_owned(), value);
        };
        if self.observed_generation != 0 {
            put("observedGeneration", json!(self.observed_generation));
        }
        put("replicas", json!(self.replicas));
        for (key, n) in [
            ("readyReplicas", self.ready),
            ("currentReplicas", self.current),
            ("updatedReplicas", self.updated),
        ] {
            if n != 0 {
                put(key, json!(n));
            }
        }
        if !self.current_revision.is_empty() {
            put("currentRevision", json!(self.current_revision));
        }
        if !self.update_revision.is_empty() {
            put("updateRevision", json!(self.update_revision));
        }
        put("collisionCount", json!(self.collision_count));
        put("availableReplicas", json!(self.available));
        Value::Object(status)
    }

    /// The status the set records now.
    fn recorded(set: &Value) -> Status {
        let s = &set["status"];
        let int = |key: &str| s[key].as_i64().unwrap_or(0);
        let text = |key: &str| s[key].as_str().unwrap_or("").to_owned();
        Status {
            observed_generation: int("observedGeneration"),
            replicas: int("replicas"),
            ready: int("readyReplicas"),
            available: int("availableReplicas"),
            current: int("currentReplicas"),
            updated: int("updatedReplicas"),
            current_revision: text("currentRevision"),
            update_revision: text("updateRevision"),
            collision_count: int("collisionCount"),
        }
    }
}

/// `completeRollingUpdate`: a RollingUpdate whose every replica is updated and ready makes
/// the update revision current.
fn complete_rolling_update(set: &Value, status: &mut Status) {
    let wanted = replicas(set);
    if set["spec"]["updateStrategy"]["type"] == "RollingUpdate"
        && status.updated == wanted
        && status.ready == wanted
        && status.replicas == wanted
    {
        status.current = status.updated;
        status.current_revision = status.update_revision.clone();
    }
}

/// `inconsistentStatus`: anything but the collision count differs (or the generation
/// observed is newer).
fn inconsistent(set: &Value, status: &Status) -> bool {
    let recorded = Status::recorded(set);
    status.observed_generation > recorded.observed_generation
        || Status {
            observed_generation: 0,
            collision_count: 0,
            ..status.clone()
        } != Status {
            observed_generation: 0,
            collision_count: 0,
            ..recorded
        }
}

/// `updateStatefulSetStatus`: completes a finished rolling update and writes the status
/// when it changed, retrying a conflict on the current set.
pub(super) fn write(cx: &mut Cx<'_>, set: &Value, status: &mut Status) -> Result<(), String> {
    complete_rolling_update(set, status);
    if !inconsistent(set, status) {
        return Ok(());
    }
    let (namespace, name) = (meta(set, "namespace"), meta(set, "name"));
    let mut body = set.clone();
    let mut last = String::new();
    // retry.DefaultRetry: five attempts.
    for _ in 0..5 {
        body["status"] = status.to_json();
        match cx.api.update_status(STATEFUL_SETS, namespace, name, &body) {
            Ok(_) => return Ok(()),
            Err(e) => {
                last = e.message.clone();
                if !e.is_conflict() {
                    return Err(last);
                }
                match cx.api.get_owned(STATEFUL_SETS, namespace, name) {
                    Some(current) => body = current,
                    None => return Err(last),
                }
            }
        }
    }
    Err(last)
}
