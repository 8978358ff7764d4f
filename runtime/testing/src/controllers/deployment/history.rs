//! A Deployment's revisions (`deployment/util` and `rollback.go`): the revision annotations
//! of its ReplicaSets and of itself, the annotations a new ReplicaSet copies from it, and the
//! rollback the deprecated `deprecated.deployment.rollback.to` annotation asks for.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::strategy::max_surge;
use super::template::HASH_LABEL;
use super::{Rollout, replicas};
use crate::controllers::EventType;

pub(super) const REVISION: &str = "deployment.kubernetes.io/revision";
const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
pub(super) const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
const ROLLBACK_TO: &str = "deprecated.deployment.rollback.to";
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// How long the revision history annotation may grow.
const MAX_HISTORY_CHARS: usize = 2000;

/// Annotations a ReplicaSet does not copy from its Deployment (`annotationsToSkip`).
fn skipped(key: &str) -> bool {
    matches!(
        key,
        LAST_APPLIED | REVISION | REVISION_HISTORY | DESIRED_REPLICAS | MAX_REPLICAS | ROLLBACK_TO
    )
}

/// An object's annotations, made an (empty) map if they were none.
fn annotations(object: &mut Value) -> &mut Map<String, Value> {
    let meta = &mut object["metadata"];
    if !meta["annotations"].is_object() {
        meta["annotations"] = json!({});
    }
    meta["annotations"]
        .as_object_mut()
        .expect("annotations were just made a map")
}

fn annotation<'v>(object: &'v Value, key: &str) -> Option<&'v str> {
    object["metadata"]["annotations"][key].as_str()
}

/// `Revision`: the revision annotation (0 without one), or `None` when it is no number.
pub(super) fn revision(rs: &Value) -> Option<i64> {
    match annotation(rs, REVISION) {
        None => Some(0),
        Some(v) => v.parse().ok(),
    }
}

/// `MaxRevision`: the highest revision among `rss`.
pub(super) fn max_revision(rss: &[Value]) -> i64 {
    rss.iter().filter_map(revision).max().unwrap_or(0).max(0)
}

/// `LastRevision`: the second highest revision (the one before the current).
fn last_revision(rss: &[Value]) -> i64 {
    let (mut max, mut second) = (0, 0);
    for v in rss.iter().filter_map(revision) {
        if v >= max {
            second = max;
            max = v;
        } else if v > second {
            second = v;
        }
    }
    second
}

/// `ReplicaSetsByRevision`: by revision, then as by creation.
pub(super) fn by_revision(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (revision(a), revision(b)) {
        (Some(x), Some(y)) if x != y => x.cmp(&y),
        _ => super::by_creation(a, b),
    }
}

/// `SetDeploymentRevision`: whether the Deployment's revision annotation changed.
pub(super) fn set_deployment_revision(d: &mut Value, revision: &str) -> bool {
    let annotations = annotations(d);
    if annotations.get(REVISION).and_then(Value::as_str) == Some(revision) {
        return false;
    }
    annotations.insert(REVISION.into(), json!(revision));
    true
}

/// `SetReplicasAnnotations`: the desired and max replicas a ReplicaSet was sized for;
/// whether they changed.
pub(super) fn set_replicas_annotations(rs: &mut Value, desired: i64, max: i64) -> bool {
    let annotations = annotations(rs);
    let mut updated = false;
    for (key, value) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        let value = value.to_string();
        if annotations.get(key).and_then(Value::as_str) != Some(value.as_str()) {
            annotations.insert(key.into(), json!(value));
            updated = true;
        }
    }
    updated
}

/// `ReplicasAnnotationsNeedUpdate`.
pub(super) fn replicas_annotations_need_update(rs: &Value, desired: i64, max: i64) -> bool {
    if !rs["metadata"]["annotations"].is_object() {
        return true;
    }
    annotation(rs, DESIRED_REPLICAS) != Some(desired.to_string().as_str())
        || annotation(rs, MAX_REPLICAS) != Some(max.to_string().as_str())
}

/// `GetDesiredReplicasAnnotation`: a non-negative int32, if the annotation holds one.
pub(super) fn desired_replicas(rs: &Value) -> Option<i64> {
    let value: u64 = annotation(rs, DESIRED_REPLICAS)?.parse().ok()?;
    i32::try_from(value).ok().map(i64::from)
}

/// `SetNewReplicaSetAnnotations`: the Deployment's annotations copied, the revision raised
/// to `new_revision` (the old one appended to the history), and for a ReplicaSet being made
/// its replicas annotations; whether anything changed.
pub(super) fn set_new_replica_set_annotations(
    d: &Value,
    rs: &mut Value,
    new_revision: i64,
    exists: bool,
) -> bool {
    let mut changed = copy_deployment_annotations(d, rs);
    let annotations = annotations(rs);
    let old = annotations
        .get(REVISION)
        .and_then(Value::as_str)
        .map(str::to_owned);
    let old_revision = match old.as_deref() {
        None | Some("") => 0,
        Some(v) => match v.parse::<i64>() {
            Ok(n) => n,
            Err(_) => return false,
        },
    };
    if old_revision < new_revision {
        annotations.insert(REVISION.into(), json!(new_revision.to_string()));
        changed = true;
    }
    if let Some(old) = old
        && old_revision < new_revision
    {
        let history = annotations
            .get(REVISION_HISTORY)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if history.is_empty() {
            annotations.insert(REVISION_HISTORY.into(), json!(old));
        } else {
            let revisions: Vec<&str> = history.split(',').collect();
            let mut total = history.len() + old.len() + 1;
            let mut start = 0;
            while total > MAX_HISTORY_CHARS && start < revisions.len() {
                total -= revisions[start].len() + 1;
                start += 1;
            }
            if total <= MAX_HISTORY_CHARS {
                let mut kept = revisions[start..].to_vec();
                kept.push(&old);
                annotations.insert(REVISION_HISTORY.into(), json!(kept.join(",")));
            }
        }
    }
    if !exists {
        let desired = replicas(d);
        changed |= set_replicas_annotations(rs, desired, desired + max_surge(d));
    }
    changed
}

/// `copyDeploymentAnnotationsToReplicaSet`: the Deployment's annotations but the skipped
/// ones, where the ReplicaSet's differ; whether any did.
fn copy_deployment_annotations(d: &Value, rs: &mut Value) -> bool {
    let annotations = annotations(rs);
    let mut changed = false;
    for (k, v) in d["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if skipped(k) || annotations.get(k) == Some(v) {
            continue;
        }
        annotations.insert(k.clone(), v.clone());
        changed = true;
    }
    changed
}

/// `getRollbackTo`: the revision the deprecated annotation asks for.
pub(super) fn rollback_to(d: &Value) -> Option<i64> {
    match annotation(d, ROLLBACK_TO) {
        None | Some("") => None,
        Some(v) => v.parse().ok(),
    }
}

impl Rollout<'_, '_> {
    /// `rollback`: the Deployment's template set back to the revision's (the last one for
    /// 0), the annotation cleared.
    pub(super) fn rollback(&mut self, rs_list: Vec<Value>) -> super::Result<()> {
        let (new_rs, old) = self.all_replica_sets_and_sync_revision(rs_list, true)?;
        let all: Vec<Value> = old.into_iter().chain(new_rs).collect();
        let mut to = rollback_to(&self.d).unwrap_or(0);
        if to == 0 {
            to = last_revision(&all);
            if to == 0 {
                self.rollback_warning(
                    "DeploymentRollbackRevisionNotFound",
                    "Unable to find last revision.",
                );
                return self.update_and_clear_rollback_to();
            }
        }
        if let Some(rs) = all.iter().find(|rs| revision(rs) == Some(to)) {
            let rolled_back = self.rollback_to_template(rs)?;
            if rolled_back {
                let message = format!("Rolled back deployment {:?} to revision {to}", self.name());
                self.event(EventType::Normal, "DeploymentRollback", &message);
            }
            return Ok(());
        }
        self.rollback_warning(
            "DeploymentRollbackRevisionNotFound",
            "Unable to find the revision to rollback to.",
        );
        self.update_and_clear_rollback_to()
    }

    /// `rollbackToTemplate`: whether the template changed.
    fn rollback_to_template(&mut self, rs: &Value) -> super::Result<bool> {
        let template = &rs["spec"]["template"];
        let rolled_back =
            !super::template::equal_ignore_hash(&self.d["spec"]["template"], template);
        if rolled_back {
            let mut template = template.clone();
            if let Some(labels) = template["metadata"]["labels"].as_object_mut() {
                labels.remove(HASH_LABEL);
            }
            Arc::make_mut(&mut self.d)["spec"]["template"] = template;
            // SetDeploymentAnnotationsTo: the skipped annotations kept, the others the
            // ReplicaSet's.
            let annotations = annotations(Arc::make_mut(&mut self.d));
            annotations.retain(|k, _| skipped(k));
            for (k, v) in rs["metadata"]["annotations"]
                .as_object()
                .into_iter()
                .flatten()
            {
                if !skipped(k) {
                    annotations.insert(k.clone(), v.clone());
                }
            }
        } else {
            let message = format!(
                "The rollback revision contains the same template as current deployment {:?}",
                self.name()
            );
            self.rollback_warning("DeploymentRollbackTemplateUnchanged", &message);
        }
        self.update_and_clear_rollback_to()?;
        Ok(rolled_back)
    }

    fn rollback_warning(&mut self, reason: &str, message: &str) {
        self.event(EventType::Warning, reason, message);
    }

    /// `updateDeploymentAndClearRollbackTo`: an update of the whole Deployment without the
    /// annotation.
    fn update_and_clear_rollback_to(&mut self) -> super::Result<()> {
        annotations(Arc::make_mut(&mut self.d)).remove(ROLLBACK_TO);
        let (namespace, name) = (self.namespace().to_owned(), self.name().to_owned());
        self.cx
            .api
            .update(super::DEPLOYMENTS, &namespace, &name, &self.d)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_revision_goes_to_the_history() {
        let d = json!({"metadata": {"annotations": {"team": "a", REVISION: "3"}}, "spec": {"replicas": 2, "strategy": {"type": "Recreate"}}});
        let mut rs = json!({"metadata": {"annotations": {REVISION: "1"}}});
        assert!(set_new_replica_set_annotations(&d, &mut rs, 4, true));
        assert_eq!(
            rs["metadata"]["annotations"],
            json!({"team": "a", REVISION: "4", REVISION_HISTORY: "1"})
        );
        assert!(!set_new_replica_set_annotations(&d, &mut rs, 4, true));
        let mut fresh = json!({"metadata": {}});
        assert!(set_new_replica_set_annotations(&d, &mut fresh, 1, false));
        assert_eq!(
            fresh["metadata"]["annotations"],
            json!({"team": "a", REVISION: "1", DESIRED_REPLICAS: "2", MAX_REPLICAS: "2"})
        );
        assert_eq!(last_revision(&[rs, fresh]), 1);
    }
}
