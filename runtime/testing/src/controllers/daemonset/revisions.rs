//! A DaemonSet's revisions (`constructHistory`, `snapshot`, `dedupCurHistories`,
//! `cleanupHistory`): the revision whose data is the template's is current (made if there
//! is none, renumbered past the others on a rollback); old ones no Pod uses are deleted past
//! `revisionHistoryLimit`. A revision and its Pods carry the template's hash as
//! `controller-revision-hash`, computed here by [`template_hash`] in place of Go's.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{API_VERSION, KIND};
use crate::builtin::validate::LabelSelector;
use crate::controllers::Cx;
use crate::controllers::api::{CONTROLLER_REVISIONS, DAEMON_SETS, PODS, Patch};
use crate::controllers::history::{
    self, by_number, data_bytes, number, template_hash, template_patch,
};
use crate::controllers::ownership::{Claimer, candidates, controller_ref};
use crate::controllers::podutil::{label, labels, meta};

/// The label carrying the template hash on revisions and Pods.
pub(super) const HASH_LABEL: &str = "controller-revision-hash";
/// The annotation carrying the template generation, and the Pods' label of it.
pub(super) const GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";
pub(super) const GENERATION_LABEL: &str = "pod-template-generation";

/// The current revision and the old ones.
pub(super) struct History {
    pub current: Value,
    pub old: Vec<Value>,
}

impl History {
    /// The current template's hash.
    pub(super) fn hash(&self) -> String {
        label(&self.current, HASH_LABEL).unwrap_or("").to_owned()
    }
}

/// `GetTemplateGeneration`: the annotation's number (none when absent or unreadable).
pub(super) fn template_generation(daemon_set: &Value) -> Option<i64> {
    daemon_set["metadata"]["annotations"][GENERATION_ANNOTATION]
        .as_str()?
        .parse()
        .ok()
}

/// `IsPodUpdated`: the Pod carries the current hash or the current template generation.
pub(super) fn is_pod_updated(pod: &Value, hash: &str, generation: Option<i64>) -> bool {
    let generation_matches =
        generation.is_some_and(|g| label(pod, GENERATION_LABEL) == Some(g.to_string().as_str()));
    let hash_matches = !hash.is_empty() && label(pod, HASH_LABEL) == Some(hash);
    hash_matches || generation_matches
}

/// `constructHistory`.
pub(super) fn construct(
    cx: &mut Cx<'_>,
    ds: &Value,
    selector: &LabelSelector,
) -> Result<History, String> {
    let namespace = meta(ds, "namespace");
    let mut claimer = Claimer::new(cx.api, ds, DAEMON_SETS, API_VERSION, KIND);
    let (histories, claimed) = claimer.claim(
        CONTROLLER_REVISIONS,
        candidates(cx.api, CONTROLLER_REVISIONS, ds),
        |r| selector.matches(labels(r)),
    );
    let histories = histories.into_iter().map(Arc::unwrap_or_clone);
    claimed?;
    let patch = template_patch(ds);
    let (mut current, mut old) = (Vec::new(), Vec::new());
    for mut revision in histories {
        if label(&revision, HASH_LABEL).is_none() {
            let name = meta(&revision, "name").to_owned();
            revision["metadata"]["labels"][HASH_LABEL] = json!(name);
            revision = cx
                .api
                .update(CONTROLLER_REVISIONS, namespace, &name, &revision)
                .map(Arc::unwrap_or_clone)
                .map_err(|e| e.message)?;
        }
        if data_bytes(&revision) == patch {
            current.push(revision);
        } else {
            old.push(revision);
        }
    }
    let next = old.iter().map(number).max().unwrap_or(0) + 1;
    let current = if current.is_empty() {
        snapshot(cx, ds, next)?
    } else {
        let kept = dedup(cx, ds, selector, current)?;
        if number(&kept) < next {
            history::renumber(cx.api, &kept, next)?;
        }
        kept
    };
    Ok(History { current, old })
}

/// `snapshot`: the template as a new revision. A name taken by other data bumps the set's
/// `collisionCount` and fails the sync, which the retry then names anew.
fn snapshot(cx: &mut Cx<'_>, ds: &Value, revision: i64) -> Result<Value, String> {
    let namespace = meta(ds, "namespace");
    let collision_count = ds["status"]["collisionCount"].as_i64();
    let hash = template_hash(&ds["spec"]["template"], collision_count);
    let name = format!("{}-{hash}", meta(ds, "name"));
    let owner_ref = controller_ref(ds, API_VERSION, KIND);
    let body = history::new_revision(ds, owner_ref, &name, (HASH_LABEL, &hash), revision);
    let refused = match cx.api.create(CONTROLLER_REVISIONS, namespace, &body) {
        Ok(created) => return Ok(Arc::unwrap_or_clone(created)),
        Err(e) if e.is_already_exists() => e,
        Err(e) => return Err(e.message),
    };
    let existing = cx
        .api
        .get(CONTROLLER_REVISIONS, namespace, &name)
        .ok_or_else(|| format!("controllerrevisions.apps \"{name}\" not found"))?;
    if data_bytes(&existing) == template_patch(ds) {
        return Ok(Arc::unwrap_or_clone(existing));
    }
    let mut current = cx
        .api
        .get_owned(DAEMON_SETS, namespace, meta(ds, "name"))
        .ok_or_else(|| format!("daemonsets.apps \"{}\" not found", meta(ds, "name")))?;
    if current["status"]["collisionCount"].as_i64() != collision_count {
        return Err(format!(
            "found a stale collision count of DaemonSet {:?} while processing; will retry until it is updated",
            meta(ds, "name")
        ));
    }
    current["status"]["collisionCount"] = json!(collision_count.unwrap_or(0) + 1);
    cx.api
        .update_status(DAEMON_SETS, namespace, meta(ds, "name"), &current)
        .map_err(|e| e.message)?;
    Err(refused.message)
}

/// `dedupCurHistories`: of several revisions of the current template, the highest kept,
/// the Pods relabelled with its hash, the others deleted.
fn dedup(
    cx: &mut Cx<'_>,
    ds: &Value,
    selector: &LabelSelector,
    current: Vec<Value>,
) -> Result<Value, String> {
    if current.len() == 1 {
        return Ok(current.into_iter().next().expect("one revision"));
    }
    let mut keep = &current[0];
    for revision in &current {
        if number(revision) >= number(keep) {
            keep = revision;
        }
    }
    let keep = keep.clone();
    let hash = label(&keep, HASH_LABEL).unwrap_or("").to_owned();
    for pod in super::pods::claim(cx.api, ds, selector)? {
        if label(&pod, HASH_LABEL) != Some(hash.as_str()) {
            let patch = json!({"metadata": {"labels": {HASH_LABEL: hash}}});
            cx.api
                .patch(
                    PODS,
                    meta(&pod, "namespace"),
                    meta(&pod, "name"),
                    None,
                    Patch::Merge,
                    &patch,
                )
                .map_err(|e| e.message)?;
        }
    }
    for revision in &current {
        if meta(revision, "name") != meta(&keep, "name") {
            history::delete(cx.api, revision)?;
        }
    }
    Ok(keep)
}

/// `cleanupHistory`: old revisions past the limit deleted, oldest first, except those a
/// Pod still carries (terminal and deleted Pods too).
pub(super) fn cleanup(
    cx: &mut Cx<'_>,
    ds: &Value,
    pods: &[Value],
    mut old: Vec<Value>,
) -> Result<(), String> {
    let limit = ds["spec"]["revisionHistoryLimit"].as_i64().unwrap_or(10);
    let mut excess = old.len() as i64 - limit;
    if excess <= 0 {
        return Ok(());
    }
    let live: BTreeSet<&str> = pods.iter().filter_map(|p| label(p, HASH_LABEL)).collect();
    old.sort_by(by_number);
    for revision in &old {
        if excess <= 0 {
            break;
        }
        if label(revision, HASH_LABEL).is_some_and(|h| live.contains(h)) {
            continue;
        }
        history::delete(cx.api, revision)?;
        excess -= 1;
    }
    Ok(())
}
