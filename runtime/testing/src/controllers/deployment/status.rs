//! A Deployment's status as the controller computes it (`calculateStatus`) and its
//! conditions (`NewDeploymentCondition`, `SetDeploymentCondition`, ...): Go's
//! `DeploymentStatus`, read from and written as the JSON Go writes (zero counts left out,
//! `terminatingReplicas` kept at 0).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::strategy::max_unavailable;
use super::{Rollout, int, replicas};
use crate::controllers::EventType;

pub(super) const AVAILABLE: &str = "Available";
pub(super) const PROGRESSING: &str = "Progressing";
pub(super) const REPLICA_FAILURE: &str = "ReplicaFailure";

/// `apps.DeploymentCondition`; times as the apiserver stores them (RFC 3339, seconds).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Condition {
    pub kind: String,
    pub status: String,
    pub last_update_time: Option<String>,
    pub last_transition_time: Option<String>,
    pub reason: String,
    pub message: String,
}

/// `apps.DeploymentStatus`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Status {
    pub observed_generation: i64,
    pub replicas: i64,
    pub updated_replicas: i64,
    pub ready_replicas: i64,
    pub available_replicas: i64,
    pub unavailable_replicas: i64,
    pub terminating_replicas: Option<i64>,
    pub conditions: Vec<Condition>,
    pub collision_count: Option<i64>,
}

impl Status {
    /// A Deployment's status.
    pub(super) fn of(d: &Value) -> Status {
        let s = &d["status"];
        let int = |f: &str| s[f].as_i64().unwrap_or(0);
        let text = |c: &Value, f: &str| c[f].as_str().unwrap_or("").to_owned();
        let time = |c: &Value, f: &str| c[f].as_str().map(str::to_owned);
        Status {
            observed_generation: int("observedGeneration"),
            replicas: int("replicas"),
            updated_replicas: int("updatedReplicas"),
            ready_replicas: int("readyReplicas"),
            available_replicas: int("availableReplicas"),
            unavailable_replicas: int("unavailableReplicas"),
            terminating_replicas: s["terminatingReplicas"].as_i64(),
            conditions: s["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| Condition {
                    kind: text(c, "type"),
                    status: text(c, "status"),
                    last_update_time: time(c, "lastUpdateTime"),
                    last_transition_time: time(c, "lastTransitionTime"),
                    reason: text(c, "reason"),
                    message: text(c, "message"),
                })
                .collect(),
            collision_count: s["collisionCount"].as_i64(),
        }
    }

    /// The JSON Go writes for it.
    pub(super) fn to_json(&self) -> Value {
        let mut out = Map::new();
        let mut count = |field: &str, n: i64| {
            if n != 0 {
                out.insert(field.into(), json!(n));
            }
        };
        count("observedGeneration", self.observed_generation);
        count("replicas", self.replicas);
        count("updatedReplicas", self.updated_replicas);
        count("readyReplicas", self.ready_replicas);
        count("availableReplicas", self.available_replicas);
        count("unavailableReplicas", self.unavailable_replicas);
        if let Some(n) = self.terminating_replicas {
            out.insert("terminatingReplicas".into(), json!(n));
        }
        if !self.conditions.is_empty() {
            let conditions: Vec<Value> = self
                .conditions
                .iter()
                .map(|c| {
                    let mut v = json!({
                        "type": c.kind,
                        "status": c.status,
                        "lastUpdateTime": c.last_update_time,
                        "lastTransitionTime": c.last_transition_time,
                    });
                    if !c.reason.is_empty() {
                        v["reason"] = json!(c.reason);
                    }
                    if !c.message.is_empty() {
                        v["message"] = json!(c.message);
                    }
                    v
                })
                .collect();
            out.insert("conditions".into(), Value::Array(conditions));
        }
        if let Some(n) = self.collision_count {
            out.insert("collisionCount".into(), json!(n));
        }
        Value::Object(out)
    }

    /// `GetDeploymentCondition`.
    pub(super) fn condition(&self, kind: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.kind == kind)
    }

    /// `SetDeploymentCondition`: nothing when the condition has this status and reason
    /// already; its transition time kept when only the reason changes; moved last.
    pub(super) fn set_condition(&mut self, mut condition: Condition) {
        if let Some(current) = self.condition(&condition.kind) {
            if current.status == condition.status && current.reason == condition.reason {
                return;
            }
            if current.status == condition.status {
                condition
                    .last_transition_time
                    .clone_from(&current.last_transition_time);
            }
        }
        self.remove_condition(&condition.kind.clone());
        self.conditions.push(condition);
    }

    /// `RemoveDeploymentCondition`.
    pub(super) fn remove_condition(&mut self, kind: &str) {
        self.conditions.retain(|c| c.kind != kind);
    }
}

impl Rollout<'_, '_> {
    /// `NewDeploymentCondition`, at the cluster's time.
    pub(super) fn condition(
        &self,
        kind: &str,
        status: &str,
        reason: &str,
        message: String,
    ) -> Condition {
        let now = self.cx.clock.rfc3339();
        Condition {
            kind: kind.to_owned(),
            status: status.to_owned(),
            last_update_time: Some(now.clone()),
            last_transition_time: Some(now),
            reason: reason.to_owned(),
            message,
        }
    }

    /// Sets a `Progressing` condition in the sync's copy of the status.
    pub(super) fn set_progressing(&mut self, status: &str, reason: &str, message: String) {
        let condition = self.condition(PROGRESSING, status, reason, message);
        let mut current = self.status();
        current.set_condition(condition);
        self.set_status(&current);
    }

    /// Records an event about the Deployment.
    pub(super) fn event(&mut self, kind: EventType, reason: &str, message: &str) {
        let d = self.d.clone();
        self.cx.event(&d, kind, reason, message);
    }

    /// The Deployment's status as the sync has it so far.
    pub(super) fn status(&self) -> Status {
        Status::of(&self.d)
    }

    /// Replaces the Deployment's status in the sync's copy.
    pub(super) fn set_status(&mut self, status: &Status) {
        Arc::make_mut(&mut self.d)["status"] = status.to_json();
    }

    /// `calculateStatus`: the counts of the ReplicaSets (`new_rs` the updated ones), the
    /// conditions kept, `Available` set by the minimum availability.
    pub(super) fn calculate_status(&self, all: &[Value], new_rs: Option<&Value>) -> Status {
        let sum = |rss: &mut dyn Iterator<Item = &Value>, field: &str| -> i64 {
            rss.map(|rs| int(rs, "status", field)).sum()
        };
        let available = sum(&mut all.iter(), "availableReplicas");
        let total: i64 = all.iter().map(replicas).sum();
        let d = &self.d;
        let current = Status::of(d);
        let mut status = Status {
            observed_generation: d["metadata"]["generation"].as_i64().unwrap_or(0),
            replicas: sum(&mut all.iter(), "replicas"),
            updated_replicas: sum(&mut new_rs.into_iter(), "replicas"),
            ready_replicas: sum(&mut all.iter(), "readyReplicas"),
            available_replicas: available,
            unavailable_replicas: (total - available).max(0),
            terminating_replicas: terminating_replicas(all),
            conditions: current.conditions,
            collision_count: current.collision_count,
        };
        let condition = if available >= replicas(d) - max_unavailable(d) {
            self.condition(
                AVAILABLE,
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".into(),
            )
        } else {
            self.condition(
                AVAILABLE,
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".into(),
            )
        };
        status.set_condition(condition);
        status
    }

    /// `syncDeploymentStatus`: writes the calculated status if it changed.
    pub(super) fn sync_deployment_status(
        &mut self,
        all: &[Value],
        new_rs: Option<&Value>,
    ) -> super::Result<()> {
        let status = self.calculate_status(all, new_rs);
        if self.status() == status {
            return Ok(());
        }
        self.set_status(&status);
        self.update_status()
    }

    /// `UpdateStatus` of the sync's copy (its resourceVersion the one read).
    pub(super) fn update_status(&mut self) -> super::Result<()> {
        let (namespace, name) = (self.namespace().to_owned(), self.name().to_owned());
        self.cx
            .api
            .update_status(super::DEPLOYMENTS, &namespace, &name, &self.d)?;
        Ok(())
    }
}

/// `GetTerminatingReplicaCountForReplicaSets`: the sum, unless a ReplicaSet that was synced
/// does not say.
fn terminating_replicas(rss: &[Value]) -> Option<i64> {
    let mut sum = 0;
    for rs in rss {
        let observed = int(rs, "status", "observedGeneration");
        match rs["status"]["terminatingReplicas"].as_i64() {
            None if observed == 0 => {}
            None => return None,
            Some(n) => sum += n,
        }
    }
    Some(sum)
}
