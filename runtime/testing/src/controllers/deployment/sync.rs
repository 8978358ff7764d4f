//! What every kind of sync shares (`sync.go`): finding (and making) the new ReplicaSet and
//! syncing revisions, scaling ReplicaSets — proportionally when a rolling Deployment is
//! scaled mid-rollout — pruning old ones, the paused conditions, and the sync of a paused,
//! scaled or deleted Deployment.

use serde_json::{Value, json};
use std::sync::Arc;

use super::history::{
    REVISION, desired_replicas, max_revision, replicas_annotations_need_update,
    set_deployment_revision, set_new_replica_set_annotations, set_replicas_annotations,
};
use super::status::PROGRESSING;
use super::strategy::{is_rolling, is_saturated, max_surge, new_rs_new_replicas};
use super::template::{HASH_LABEL, equal_ignore_hash, pod_template_hash, replica_set_name};
use super::{
    API_VERSION, Failure, KIND, REPLICA_SETS, Rollout, active, by_creation, controlled_by, int,
    replicas,
};
use crate::controllers::EventType;
use crate::controllers::ownership::controller_ref;
use crate::controllers::podutil::{is_terminating, meta};
use crate::controllers::replicaset::namespace_terminating;

type Result<T> = super::Result<T>;

impl Rollout<'_, '_> {
    /// `syncStatusOnly`: a Deployment being deleted only has its status written.
    pub(super) fn sync_status_only(&mut self, rs_list: Vec<Value>) -> Result<()> {
        let (new_rs, old) = self.all_replica_sets_and_sync_revision(rs_list, false)?;
        let has_new = new_rs.is_some();
        let all: Vec<Value> = old.into_iter().chain(new_rs).collect();
        self.sync_deployment_status(&all, all.last().filter(|_| has_new))
    }

    /// `sync`: a paused Deployment, or one being scaled: its ReplicaSets scaled, the old ones
    /// pruned when paused, the status written.
    pub(super) fn sync(&mut self, rs_list: Vec<Value>) -> Result<()> {
        let (new_rs, mut old) = self.all_replica_sets_and_sync_revision(rs_list, false)?;
        self.scale(new_rs.as_ref(), &mut old)?;
        if self.d["spec"]["paused"] == true && super::history::rollback_to(&self.d).is_none() {
            self.cleanup_deployment(&old)?;
        }
        let has_new = new_rs.is_some();
        let all: Vec<Value> = old.into_iter().chain(new_rs).collect();
        self.sync_deployment_status(&all, all.last().filter(|_| has_new))
    }

    /// `checkPausedConditions`: `Progressing` made `Unknown` when the Deployment is paused or
    /// resumed (unless it timed out), so that a pause does not count against the deadline.
    pub(super) fn check_paused_conditions(&mut self) -> Result<()> {
        if !self.has_progress_deadline() {
            return Ok(());
        }
        let status = self.status();
        let reason = status.condition(PROGRESSING).map(|c| c.reason.clone());
        if reason.as_deref() == Some(super::progress::TIMED_OUT) {
            return Ok(());
        }
        let paused_condition = reason.as_deref() == Some("DeploymentPaused");
        let paused = self.d["spec"]["paused"] == true;
        match (paused, paused_condition) {
            (true, false) => {
                self.set_progressing("Unknown", "DeploymentPaused", "Deployment is paused".into())
            }
            (false, true) => self.set_progressing(
                "Unknown",
                "DeploymentResumed",
                "Deployment is resumed".into(),
            ),
            _ => return Ok(()),
        }
        self.update_status()
    }

    /// `HasProgressDeadline`.
    pub(super) fn has_progress_deadline(&self) -> bool {
        self.d["spec"]["progressDeadlineSeconds"]
            .as_i64()
            .is_some_and(|s| s != i64::from(i32::MAX))
    }

    /// `getAllReplicaSetsAndSyncRevision`: the new ReplicaSet (made when `create` and
    /// missing; its revision raised past the old ones) and every old one.
    pub(super) fn all_replica_sets_and_sync_revision(
        &mut self,
        mut rs_list: Vec<Value>,
        create: bool,
    ) -> Result<(Option<Value>, Vec<Value>)> {
        rs_list.sort_by(by_creation);
        let existing = self
            .find_new_replica_set(&rs_list)
            .map(|at| rs_list.remove(at));
        let old: Vec<Value> = rs_list
            .into_iter()
            .filter(|rs| {
                existing
                    .as_ref()
                    .is_none_or(|n| n["metadata"]["uid"] != rs["metadata"]["uid"])
            })
            .collect();
        let new_rs = self.new_replica_set(existing, &old, create)?;
        Ok((new_rs, old))
    }

    /// `FindNewReplicaSet`: the index in `rs_list` (sorted by creation) of the oldest
    /// ReplicaSet whose template is the Deployment's.
    fn find_new_replica_set(&self, rs_list: &[Value]) -> Option<usize> {
        let template = &self.d["spec"]["template"];
        rs_list
            .iter()
            .position(|rs| equal_ignore_hash(&rs["spec"]["template"], template))
    }

    /// `getNewReplicaSet`.
    fn new_replica_set(
        &mut self,
        existing: Option<Value>,
        old: &[Value],
        create: bool,
    ) -> Result<Option<Value>> {
        let new_revision = max_revision(old) + 1;
        if let Some(rs) = existing {
            return self.sync_new_replica_set(rs, new_revision).map(Some);
        }
        if !create {
            return Ok(None);
        }
        self.create_new_replica_set(old, new_revision)
    }

    /// The existing new ReplicaSet's annotations and `minReadySeconds` brought up to date,
    /// or else the Deployment's revision and a first `Progressing` condition.
    fn sync_new_replica_set(&mut self, mut rs: Value, new_revision: i64) -> Result<Value> {
        let annotations_updated =
            set_new_replica_set_annotations(&self.d, &mut rs, new_revision, true);
        let min_ready = self.d["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
        if annotations_updated || int(&rs, "spec", "minReadySeconds") != min_ready {
            set_or_remove(&mut rs["spec"], "minReadySeconds", min_ready);
            let (namespace, name) = (
                meta(&rs, "namespace").to_owned(),
                meta(&rs, "name").to_owned(),
            );
            let updated = self.cx.api.update(REPLICA_SETS, &namespace, &name, rs)?;
            return Ok(Arc::unwrap_or_clone(updated));
        }
        let revision = rs["metadata"]["annotations"][REVISION]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let mut needs_update = set_deployment_revision(Arc::make_mut(&mut self.d), &revision);
        if self.has_progress_deadline() && self.status().condition(PROGRESSING).is_none() {
            let message = format!("Found new replica set {:?}", meta(&rs, "name"));
            self.set_progressing("True", "FoundNewReplicaSet", message);
            needs_update = true;
        }
        if needs_update {
            self.update_status()?;
        }
        Ok(rs)
    }

    /// Makes the new ReplicaSet: the template labelled with its hash, sized by the strategy,
    /// the `ScalingReplicaSet` event and the `NewReplicaSetCreated` condition; a name taken
    /// by another template raises the collision count.
    fn create_new_replica_set(
        &mut self,
        old: &[Value],
        new_revision: i64,
    ) -> Result<Option<Value>> {
        let d = &self.d;
        let collision_count = d["status"]["collisionCount"].as_i64();
        let hash = pod_template_hash(&d["spec"]["template"], collision_count);
        let mut template = d["spec"]["template"].clone();
        template["metadata"]["labels"][HASH_LABEL] = json!(hash);
        let mut selector = d["spec"]["selector"].clone();
        selector["matchLabels"][HASH_LABEL] = json!(hash);
        let name = replica_set_name(meta(d, "name"), &hash);
        let mut rs = json!({
            "apiVersion": API_VERSION,
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": meta(d, "namespace"),
                "ownerReferences": [controller_ref(d, API_VERSION, KIND)],
                "labels": template["metadata"]["labels"],
            },
            "spec": {"replicas": 0, "selector": selector, "template": template},
        });
        set_or_remove(
            &mut rs["spec"],
            "minReadySeconds",
            int(d, "spec", "minReadySeconds"),
        );
        let new_replicas = new_rs_new_replicas(d, old.iter().chain([&rs]), &rs);
        rs["spec"]["replicas"] = json!(new_replicas);
        set_new_replica_set_annotations(d, &mut rs, new_revision, false);
        let namespace = self.namespace().to_owned();
        let created = match self.cx.api.create(REPLICA_SETS, &namespace, rs) {
            Ok(created) => created,
            Err(e) if e.is_already_exists() => {
                return self.name_taken(&name, new_revision, Failure::Api(e));
            }
            Err(e) if namespace_terminating(&e) => return Err(e.into()),
            Err(e) => {
                let message = format!("Failed to create new replica set {name:?}: {}", e.message);
                if self.has_progress_deadline() {
                    self.set_progressing("False", "ReplicaSetCreateError", message.clone());
                    let _ = self.update_status();
                }
                self.event(EventType::Warning, "ReplicaSetCreateError", &message);
                return Err(e.into());
            }
        };
        if new_replicas > 0 {
            let message = format!("Scaled up replica set {name} from 0 to {new_replicas}");
            self.event(EventType::Normal, "ScalingReplicaSet", &message);
        }
        let mut needs_update =
            set_deployment_revision(Arc::make_mut(&mut self.d), &new_revision.to_string());
        if self.has_progress_deadline() {
            let message = format!("Created new replica set {name:?}");
            self.set_progressing("True", "NewReplicaSetCreated", message);
            needs_update = true;
        }
        if needs_update {
            self.update_status()?;
        }
        Ok(Some(Arc::unwrap_or_clone(created)))
    }

    /// The new ReplicaSet's name is taken: it is the new ReplicaSet if the Deployment
    /// controls it and its template is the Deployment's, else a hash collision, counted in
    /// the status for the next sync to pick another name.
    fn name_taken(
        &mut self,
        name: &str,
        new_revision: i64,
        error: Failure,
    ) -> Result<Option<Value>> {
        let namespace = self.namespace().to_owned();
        let Some(rs) = self.cx.api.get(REPLICA_SETS, &namespace, name) else {
            return Err(error);
        };
        if controlled_by(&rs, &self.d)
            && equal_ignore_hash(&self.d["spec"]["template"], &rs["spec"]["template"])
        {
            // Already made: Go goes on without the event and the condition.
            if set_deployment_revision(Arc::make_mut(&mut self.d), &new_revision.to_string()) {
                self.update_status()?;
            }
            return Ok(Some(Arc::unwrap_or_clone(rs)));
        }
        let mut status = self.status();
        status.collision_count = Some(status.collision_count.unwrap_or(0) + 1);
        self.set_status(&status);
        let _ = self.update_status();
        Err(error)
    }

    /// `scale`: a scaling event or a paused Deployment.
    pub(super) fn scale(&mut self, new_rs: Option<&Value>, old: &mut [Value]) -> Result<()> {
        let desired = replicas(&self.d);
        if let Some(target) = find_active_or_latest(new_rs, old) {
            if replicas(&target) == desired {
                return Ok(());
            }
            self.scale_replica_set(&target, desired, false)?;
            return Ok(());
        }
        if is_saturated(&self.d, new_rs) {
            for rs in active(old) {
                self.scale_replica_set(&rs, 0, false)?;
            }
            return Ok(());
        }
        if !is_rolling(&self.d) {
            return Ok(());
        }
        let all_list: Vec<Value> = old.iter().cloned().chain(new_rs.cloned()).collect();
        let mut all = active(&all_list);
        let current: i64 = all.iter().map(replicas).sum();
        let allowed = if desired > 0 {
            desired + max_surge(&self.d)
        } else {
            0
        };
        let to_add = allowed - current;
        // The larger first; on a tie, newer first when growing, older first when shrinking.
        if to_add > 0 {
            all.sort_by(|a, b| {
                replicas(b)
                    .cmp(&replicas(a))
                    .then_with(|| by_creation(b, a))
            });
        } else if to_add < 0 {
            all.sort_by(|a, b| {
                replicas(b)
                    .cmp(&replicas(a))
                    .then_with(|| by_creation(a, b))
            });
        }
        let mut added = 0;
        let mut sizes: Vec<i64> = Vec::with_capacity(all.len());
        for rs in &all {
            if to_add != 0 {
                let proportion = self.proportion(rs, to_add, added);
                sizes.push(replicas(rs) + proportion);
                added += proportion;
            } else {
                sizes.push(replicas(rs));
            }
        }
        for (i, rs) in all.iter().enumerate() {
            if i == 0 && to_add != 0 {
                sizes[0] = (sizes[0] + to_add - added).max(0);
            }
            self.scale_replica_set(rs, sizes[i], true)?;
        }
        Ok(())
    }

    /// `GetReplicaSetProportion`: the share of `to_add` a ReplicaSet gets, by its fraction of
    /// the Deployment it was sized for.
    fn proportion(&self, rs: &Value, to_add: i64, added: i64) -> i64 {
        if replicas(rs) == 0 || to_add == 0 || to_add == added {
            return 0;
        }
        let fraction = self.fraction(rs);
        let allowed = to_add - added;
        if to_add > 0 {
            fraction.min(allowed)
        } else {
            fraction.max(allowed)
        }
    }

    /// `getReplicaSetFraction`.
    fn fraction(&self, rs: &Value) -> i64 {
        let d = &self.d;
        if replicas(d) == 0 {
            return -replicas(rs);
        }
        let max_replicas = replicas(d) + max_surge(d);
        let before = match rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"]
            .as_str()
            .and_then(|s| s.parse::<u32>().ok())
            .filter(|v| *v > 0 && i32::try_from(*v).is_ok())
        {
            Some(v) => i64::from(v),
            None => match int(d, "status", "replicas") {
                0 => return 0,
                n => n,
            },
        };
        let size = (replicas(rs) * max_replicas) as f64 / before as f64;
        size.round() as i64 - replicas(rs)
    }

    /// `scaleReplicaSet`: resizes a ReplicaSet (or with `force` refreshes its replicas
    /// annotations) by an update, with the `ScalingReplicaSet` event; whether it was
    /// resized, and the ReplicaSet as written.
    pub(super) fn scale_replica_set(
        &mut self,
        rs: &Value,
        new_scale: i64,
        force: bool,
    ) -> Result<(bool, Value)> {
        let old_scale = replicas(rs);
        if !force && old_scale == new_scale {
            return Ok((false, rs.clone()));
        }
        let desired = replicas(&self.d);
        let max = desired + max_surge(&self.d);
        let resize = old_scale != new_scale;
        if !resize && !replicas_annotations_need_update(rs, desired, max) {
            return Ok((false, rs.clone()));
        }
        let mut copy = rs.clone();
        copy["spec"]["replicas"] = json!(new_scale);
        set_replicas_annotations(&mut copy, desired, max);
        let (namespace, name) = (
            meta(rs, "namespace").to_owned(),
            meta(rs, "name").to_owned(),
        );
        let written = self.cx.api.update(REPLICA_SETS, &namespace, &name, copy)?;
        if resize {
            let direction = if old_scale < new_scale { "up" } else { "down" };
            let message = format!(
                "Scaled {direction} replica set {} from {old_scale} to {new_scale}",
                meta(&written, "name")
            );
            self.event(EventType::Normal, "ScalingReplicaSet", &message);
        }
        Ok((resize, Arc::unwrap_or_clone(written)))
    }

    /// `cleanupDeployment`: the oldest old ReplicaSets past `revisionHistoryLimit` deleted,
    /// those that are empty and synced.
    pub(super) fn cleanup_deployment(&mut self, old: &[Value]) -> Result<()> {
        let Some(limit) = self.d["spec"]["revisionHistoryLimit"]
            .as_i64()
            .filter(|l| *l != i64::from(i32::MAX))
        else {
            return Ok(());
        };
        let mut cleanable: Vec<&Value> = old.iter().filter(|rs| !is_terminating(rs)).collect();
        let excess = cleanable.len() as i64 - limit;
        if excess <= 0 {
            return Ok(());
        }
        cleanable.sort_by(|a, b| super::history::by_revision(a, b));
        for rs in cleanable.into_iter().take(excess as usize) {
            let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
            if int(rs, "status", "replicas") != 0
                || replicas(rs) != 0
                || generation > int(rs, "status", "observedGeneration")
            {
                continue;
            }
            match self.cx.api.delete(
                REPLICA_SETS,
                meta(rs, "namespace"),
                meta(rs, "name"),
                &Value::Null,
            ) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// `isScalingEvent`: an active ReplicaSet was sized for other replicas than the
    /// Deployment now has.
    pub(super) fn is_scaling_event(&mut self, rs_list: &[Value]) -> Result<bool> {
        let (new_rs, old) = self.all_replica_sets_and_sync_revision(rs_list.to_vec(), false)?;
        let all: Vec<Value> = old.into_iter().chain(new_rs).collect();
        let desired = replicas(&self.d);
        Ok(active(&all)
            .iter()
            .filter_map(desired_replicas)
            .any(|d| d != desired))
    }
}

/// `FindActiveOrLatest`: the only active ReplicaSet; with none, the new one or else the
/// newest old one; with several, none. Sorts `old` newest first, as Go does.
fn find_active_or_latest(new_rs: Option<&Value>, old: &mut [Value]) -> Option<Value> {
    if new_rs.is_none() && old.is_empty() {
        return None;
    }
    old.sort_by(|a, b| by_creation(b, a));
    let all: Vec<Value> = old.iter().cloned().chain(new_rs.cloned()).collect();
    let mut live = active(&all);
    match live.len() {
        0 => new_rs.cloned().or_else(|| old.first().cloned()),
        1 => live.pop(),
        _ => None,
    }
}

/// An `omitempty` number: set, or left out when 0.
fn set_or_remove(object: &mut Value, field: &str, value: i64) {
    match object.as_object_mut() {
        Some(m) if value == 0 => {
            m.remove(field);
        }
        _ => object[field] = json!(value),
    }
}
