//! A rollout's progress (`progress.go`): the `Progressing` condition — the new ReplicaSet
//! progressing, available, or past `progressDeadlineSeconds` without progress —, the
//! `ReplicaFailure` condition taken from the ReplicaSets, and the time the deadline is to
//! be checked again.

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use super::status::{Condition, PROGRESSING, REPLICA_FAILURE, Status};
use super::{Rollout, replicas};
use crate::controllers::podutil::meta;

pub(super) const TIMED_OUT: &str = "ProgressDeadlineExceeded";
const NEW_RS_AVAILABLE: &str = "NewReplicaSetAvailable";
/// The steady rate of the controller's rate limiter (10 per second).
const POLL: SignedDuration = SignedDuration::from_millis(100);

impl Rollout<'_, '_> {
    /// `syncRolloutStatus`: the status with the progress conditions, written if it changed;
    /// if not, the deadline's next check is noted.
    pub(super) fn sync_rollout_status(
        &mut self,
        all: &[Value],
        new_rs: Option<&Value>,
    ) -> super::Result<()> {
        let mut status = self.calculate_status(all, new_rs);
        let deadline = self.has_progress_deadline();
        if !deadline {
            status.remove_condition(PROGRESSING);
        }
        let current_status = self.status();
        let current = current_status.condition(PROGRESSING).cloned();
        let complete_before = status.replicas == status.updated_replicas
            && current
                .as_ref()
                .is_some_and(|c| c.reason == NEW_RS_AVAILABLE);
        if deadline && !complete_before {
            let (d_name, rs_name) = (
                self.name().to_owned(),
                new_rs.map(|rs| meta(rs, "name").to_owned()),
            );
            let subject = match &rs_name {
                Some(rs) => format!("ReplicaSet {rs:?}"),
                None => format!("Deployment {d_name:?}"),
            };
            if self.complete(&status) {
                let message = format!("{subject} has successfully progressed.");
                let condition = self.condition(PROGRESSING, "True", NEW_RS_AVAILABLE, message);
                status.set_condition(condition);
            } else if progressing(&current_status, &status) {
                let message = format!("{subject} is progressing.");
                let mut condition =
                    self.condition(PROGRESSING, "True", "ReplicaSetUpdated", message);
                if let Some(current) = &current {
                    if current.status == "True" {
                        condition
                            .last_transition_time
                            .clone_from(&current.last_transition_time);
                    }
                    status.remove_condition(PROGRESSING);
                }
                status.set_condition(condition);
            } else if self.timed_out(&status) {
                let message = format!("{subject} has timed out progressing.");
                let condition = self.condition(PROGRESSING, "False", TIMED_OUT, message);
                status.set_condition(condition);
            }
        }
        match replica_failure(all, new_rs) {
            Some(failure) => status.set_condition(failure),
            None => status.remove_condition(REPLICA_FAILURE),
        }
        if current_status == status {
            self.requeue = self.stuck_deployment_check(&status);
            return Ok(());
        }
        self.set_status(&status);
        self.update_status()
    }

    /// `DeploymentComplete`: every replica updated and available, the generation observed.
    pub(super) fn complete(&self, status: &Status) -> bool {
        let desired = replicas(&self.d);
        status.updated_replicas == desired
            && status.replicas == desired
            && status.available_replicas == desired
            && status.observed_generation >= self.d["metadata"]["generation"].as_i64().unwrap_or(0)
    }

    /// The progress deadline of a `Progressing` condition: its last update plus
    /// `progressDeadlineSeconds`.
    fn deadline(&self, condition: &Condition) -> Option<Timestamp> {
        let seconds = self.d["spec"]["progressDeadlineSeconds"].as_i64()?;
        let from: Timestamp = condition.last_update_time.as_deref()?.parse().ok()?;
        from.checked_add(SignedDuration::from_secs(seconds)).ok()
    }

    /// `DeploymentTimedOut`: the `Progressing` condition was last updated longer ago than the
    /// deadline (and the rollout did not complete).
    fn timed_out(&self, status: &Status) -> bool {
        let Some(condition) = status.condition(PROGRESSING) else {
            return false;
        };
        match condition.reason.as_str() {
            NEW_RS_AVAILABLE => false,
            TIMED_OUT => true,
            _ => self
                .deadline(condition)
                .is_some_and(|deadline| deadline < self.cx.clock.now()),
        }
    }

    /// `requeueStuckDeployment`: when a rollout still under way is to be looked at again —
    /// a second after its deadline, as Go queues it. Within the deadline's last second Go
    /// polls with its rate limiter: here, once just past the deadline, and past it (a
    /// completed rollout scaled up keeps its `NewReplicaSetAvailable` reason and Go keeps
    /// polling) at the limiter's steady rate, so a frozen clock does not spin.
    fn stuck_deployment_check(&self, status: &Status) -> Option<Timestamp> {
        let current = self.status();
        let condition = current.condition(PROGRESSING)?;
        if !self.has_progress_deadline() || self.complete(status) || condition.reason == TIMED_OUT {
            return None;
        }
        let deadline = self.deadline(condition)?;
        let now = self.cx.clock.now();
        let after = now.duration_until(deadline);
        if after < SignedDuration::from_secs(1) {
            let next = match deadline >= now {
                true => deadline.checked_add(SignedDuration::from_millis(1)),
                false => now.checked_add(POLL),
            };
            return next.ok();
        }
        deadline.checked_add(SignedDuration::from_secs(1)).ok()
    }
}

/// `DeploymentProgressing`: more updated, ready or available replicas, or fewer old ones,
/// than the status had.
fn progressing(old: &Status, new: &Status) -> bool {
    let old_replicas = old.replicas - old.updated_replicas;
    let new_old_replicas = new.replicas - new.updated_replicas;
    new.updated_replicas > old.updated_replicas
        || new_old_replicas < old_replicas
        || new.ready_replicas > old.ready_replicas
        || new.available_replicas > old.available_replicas
}

/// `getReplicaFailures`: the new ReplicaSet's `ReplicaFailure` condition, else the first an
/// old one has, as a Deployment condition.
fn replica_failure(all: &[Value], new_rs: Option<&Value>) -> Option<Condition> {
    let failure = |rs: &Value| {
        rs["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == REPLICA_FAILURE)
            .map(|c| {
                let text = |f: &str| c[f].as_str().unwrap_or("").to_owned();
                let time = c["lastTransitionTime"].as_str().map(str::to_owned);
                Condition {
                    kind: text("type"),
                    status: text("status"),
                    last_update_time: time.clone(),
                    last_transition_time: time,
                    reason: text("reason"),
                    message: text("message"),
                }
            })
    };
    new_rs
        .and_then(failure)
        .or_else(|| all.iter().find_map(failure))
}
