//! The recreate strategy (`recreate.go`): every old ReplicaSet scaled to 0, and once none of
//! their Pods runs any more, the new ReplicaSet made (or grown) to every replica.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::{Rollout, active, int, replicas};
use crate::controllers::podutil::{meta, phase};

impl Rollout<'_, '_> {
    /// `rolloutRecreate`.
    pub(super) fn rollout_recreate(
        &mut self,
        rs_list: Vec<Value>,
        pod_map: &HashMap<String, Vec<Arc<Value>>>,
    ) -> super::Result<()> {
        let (mut new_rs, mut old) =
            self.all_replica_sets_and_sync_revision(rs_list.clone(), false)?;
        let mut all: Vec<Value> = old.iter().cloned().chain(new_rs.clone()).collect();
        // scaleDownOldReplicaSetsForRecreate
        let mut scaled_down = false;
        for rs in active(&old) {
            if self.scale_replica_set(&rs, 0, false)?.0 {
                scaled_down = true;
            }
        }
        if scaled_down {
            return self.sync_rollout_status(&all, new_rs.as_ref());
        }
        if old_pods_running(new_rs.as_ref(), &old, pod_map) {
            return self.sync_rollout_status(&all, new_rs.as_ref());
        }
        if new_rs.is_none() {
            (new_rs, old) = self.all_replica_sets_and_sync_revision(rs_list, true)?;
            all = old.iter().cloned().chain(new_rs.clone()).collect();
        }
        if let Some(rs) = &new_rs {
            let desired = replicas(&self.d);
            self.scale_replica_set(rs, desired, false)?;
        }
        let status = self.status();
        if self.complete(&status) {
            self.cleanup_deployment(&old)?;
        }
        self.sync_rollout_status(&all, new_rs.as_ref())
    }
}

/// `oldPodsRunning`: an old ReplicaSet still has replicas, or one of their Pods has not
/// finished.
fn old_pods_running(
    new_rs: Option<&Value>,
    old: &[Value],
    pod_map: &HashMap<String, Vec<Arc<Value>>>,
) -> bool {
    if old
        .iter()
        .map(|rs| int(rs, "status", "replicas"))
        .sum::<i64>()
        > 0
    {
        return true;
    }
    let new_uid = new_rs.map(|rs| meta(rs, "uid"));
    pod_map
        .iter()
        .filter(|(uid, _)| Some(uid.as_str()) != new_uid)
        .flat_map(|(_, pods)| pods)
        .any(|pod| !matches!(phase(pod), "Failed" | "Succeeded"))
}
