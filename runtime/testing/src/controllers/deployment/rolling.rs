//! The rolling update (`rolling.go`): the new ReplicaSet grown within `maxSurge`, the old
//! ones shrunk within `maxUnavailable` — their unhealthy replicas first —, one of the two
//! per sync.

use serde_json::Value;

use super::strategy::{max_unavailable, new_rs_new_replicas};
use super::{Failure, Rollout, active, by_creation, int, replicas};
use crate::controllers::podutil::meta;

type Result<T> = super::Result<T>;

impl Rollout<'_, '_> {
    /// `rolloutRolling`.
    pub(super) fn rollout_rolling(&mut self, rs_list: Vec<Value>) -> Result<()> {
        let (new_rs, old) = self.all_replica_sets_and_sync_revision(rs_list, true)?;
        let Some(new_rs) = new_rs else {
            return Err(Failure::Other("the new replica set was not made".into()));
        };
        // All of them, the new one last.
        let olds = old.len();
        let mut all = old;
        all.push(new_rs);
        let (old, new_rs) = (&all[..olds], &all[olds]);
        if self.reconcile_new_replica_set(&all, new_rs)? {
            return self.sync_rollout_status(&all, Some(new_rs));
        }
        if self.reconcile_old_replica_sets(&all, active(old), new_rs)? {
            return self.sync_rollout_status(&all, Some(new_rs));
        }
        let status = self.status();
        if self.complete(&status) {
            self.cleanup_deployment(old)?;
        }
        self.sync_rollout_status(&all, Some(new_rs))
    }

    /// `reconcileNewReplicaSet`: whether the new ReplicaSet was resized.
    fn reconcile_new_replica_set(&mut self, all: &[Value], new_rs: &Value) -> Result<bool> {
        let desired = replicas(&self.d);
        if replicas(new_rs) == desired {
            return Ok(false);
        }
        let target = if replicas(new_rs) > desired {
            desired
        } else {
            new_rs_new_replicas(&self.d, all, new_rs)
        };
        Ok(self.scale_replica_set(new_rs, target, false)?.0)
    }

    /// `reconcileOldReplicaSets`: whether old ReplicaSets were shrunk. Their failures are
    /// not the sync's (Go drops them too).
    fn reconcile_old_replica_sets(
        &mut self,
        all: &[Value],
        old: Vec<Value>,
        new_rs: &Value,
    ) -> Result<bool> {
        let old_pods: i64 = old.iter().map(replicas).sum();
        if old_pods == 0 {
            return Ok(false);
        }
        let all_pods: i64 = all.iter().map(replicas).sum();
        let min_available = replicas(&self.d) - max_unavailable(&self.d);
        let new_unavailable = replicas(new_rs) - int(new_rs, "status", "availableReplicas");
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return Ok(false);
        }
        let Ok((old, cleaned)) = self.cleanup_unhealthy_replicas(old, max_scaled_down) else {
            return Ok(false);
        };
        let all: Vec<Value> = old.iter().cloned().chain([new_rs.clone()]).collect();
        let Ok(scaled) = self.scale_down_old_replica_sets(&all, old) else {
            return Ok(false);
        };
        Ok(cleaned + scaled > 0)
    }

    /// `cleanupUnhealthyReplicas`: the old ReplicaSets' unavailable replicas removed first,
    /// oldest ReplicaSet first, at most `max_cleanup`.
    fn cleanup_unhealthy_replicas(
        &mut self,
        mut old: Vec<Value>,
        max_cleanup: i64,
    ) -> Result<(Vec<Value>, i64)> {
        old.sort_by(by_creation);
        let mut total = 0;
        for rs in &mut old {
            if total >= max_cleanup {
                break;
            }
            let (size, available) = (replicas(rs), int(rs, "status", "availableReplicas"));
            if size == 0 || size == available {
                continue;
            }
            let count = (max_cleanup - total).min(size - available);
            let target = size - count;
            if target > size {
                return Err(Failure::Other(format!(
                    "when cleaning up unhealthy replicas, got invalid request to scale down {}/{} {size} -> {target}",
                    meta(rs, "namespace"),
                    meta(rs, "name")
                )));
            }
            let (_, written) = self.scale_replica_set(rs, target, false)?;
            total += count;
            *rs = written;
        }
        Ok((old, total))
    }

    /// `scaleDownOldReplicaSetsForRollingUpdate`: the old ReplicaSets shrunk, oldest first,
    /// as far as the available replicas exceed the minimum.
    fn scale_down_old_replica_sets(&mut self, all: &[Value], mut old: Vec<Value>) -> Result<i64> {
        let min_available = replicas(&self.d) - max_unavailable(&self.d);
        let available: i64 = all
            .iter()
            .map(|rs| int(rs, "status", "availableReplicas"))
            .sum();
        if available <= min_available {
            return Ok(0);
        }
        old.sort_by(by_creation);
        let to_scale_down = available - min_available;
        let mut total = 0;
        for rs in &old {
            if total >= to_scale_down {
                break;
            }
            let size = replicas(rs);
            if size == 0 {
                continue;
            }
            let count = size.min(to_scale_down - total);
            self.scale_replica_set(rs, size - count, false)?;
            total += count;
        }
        Ok(total)
    }
}
