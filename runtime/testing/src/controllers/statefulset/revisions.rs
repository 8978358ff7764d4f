//! A StatefulSet's revisions (`getStatefulSetRevisions`, `newRevision`, `truncateHistory`):
//! the update revision is the template's (made, or an earlier one renumbered as a rollback),
//! the current revision the one `status.currentRevision` names; revisions no Pod uses are
//! deleted past `revisionHistoryLimit`.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::identity::revision_of;
use super::{API_VERSION, KIND};
use crate::controllers::Cx;
use crate::controllers::api::CONTROLLER_REVISIONS;
use crate::controllers::history::{
    self, data_bytes, number, revision_hash, revision_name, template_patch,
};
use crate::controllers::ownership::controller_ref;
use crate::controllers::podutil::meta;

/// The label carrying a StatefulSet revision's hash.
const HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// The revisions a sync works with.
pub(super) struct Revisions {
    pub current: Value,
    pub update: Value,
    pub collision_count: i64,
}

/// `newRevision`: the set's template as revision `revision`, named by its hash with
/// `collision_count`.
fn new_revision(set: &Value, revision: i64, collision_count: i64) -> Value {
    let hash = revision_hash(&template_patch(set), Some(collision_count));
    let name = revision_name(meta(set, "name"), &hash);
    let owner_ref = controller_ref(set, API_VERSION, KIND);
    history::new_revision(set, owner_ref, &name, (HASH_LABEL, &hash), revision)
}

/// `CreateControllerRevision`: a name taken by a revision with other data is a collision,
/// counted and tried again under the next name.
fn create(
    cx: &mut Cx<'_>,
    set: &Value,
    revision: &Value,
    collision_count: &mut i64,
) -> Result<Value, String> {
    let namespace = meta(set, "namespace");
    let data = data_bytes(revision);
    let mut candidate = revision.clone();
    loop {
        let name = revision_name(
            meta(set, "name"),
            &revision_hash(&data, Some(*collision_count)),
        );
        candidate["metadata"]["name"] = json!(name);
        match cx.api.create(CONTROLLER_REVISIONS, namespace, &candidate) {
            Ok(created) => return Ok(Arc::unwrap_or_clone(created)),
            Err(e) if e.is_already_exists() => {
                let Some(existing) = cx.api.get_owned(CONTROLLER_REVISIONS, namespace, &name)
                else {
                    return Err(format!("controllerrevisions.apps \"{name}\" not found"));
                };
                if data_bytes(&existing) == data {
                    return Ok(existing);
                }
                *collision_count += 1;
            }
            Err(e) => return Err(e.message),
        }
    }
}

/// `getStatefulSetRevisions` over `revisions` (sorted). The semantic comparison with the
/// latest revision (`StatefulSetSemanticRevisionComparison`) guards against bytes an older
/// apiserver wrote differently; revisions written here are always compared byte for byte.
pub(super) fn revisions(
    cx: &mut Cx<'_>,
    set: &Value,
    revisions: &[Value],
) -> Result<Revisions, String> {
    let mut collision_count = set["status"]["collisionCount"].as_i64().unwrap_or(0);
    let next = revisions.last().map_or(1, |r| number(r) + 1);
    let candidate = new_revision(set, next, collision_count);
    let data = data_bytes(&candidate);
    let equal: Vec<&Value> = revisions.iter().filter(|r| data_bytes(r) == data).collect();
    let update = match (equal.last(), revisions.last()) {
        (Some(_), Some(latest)) if data_bytes(latest) == data => latest.clone(),
        (Some(earlier), _) => history::renumber(cx.api, earlier, next)?,
        _ => create(cx, set, &candidate, &mut collision_count)?,
    };
    let current = revisions
        .iter()
        .find(|r| meta(r, "name") == set["status"]["currentRevision"].as_str().unwrap_or(""))
        .cloned()
        .unwrap_or_else(|| update.clone());
    Ok(Revisions {
        current,
        update,
        collision_count,
    })
}

/// `truncateHistory`: the revisions (as listed before the sync) that are neither current,
/// nor the update revision, nor a Pod's, deleted oldest first down to the limit.
pub(super) fn truncate(
    cx: &mut Cx<'_>,
    set: &Value,
    pods: &[Value],
    revisions: &[Value],
    kept: &Option<Revisions>,
) -> Result<(), String> {
    let mut live: BTreeSet<&str> = pods.iter().map(revision_of).collect();
    if let Some(kept) = kept {
        live.insert(meta(&kept.current, "name"));
        live.insert(meta(&kept.update, "name"));
    }
    let history: Vec<&Value> = revisions
        .iter()
        .filter(|r| !live.contains(meta(r, "name")))
        .collect();
    let limit = set["spec"]["revisionHistoryLimit"].as_i64().unwrap_or(10);
    if limit < 0 || history.len() as i64 <= limit {
        return Ok(());
    }
    let excess = history.len() - limit as usize;
    for revision in &history[..excess] {
        history::delete(cx.api, revision)?;
    }
    Ok(())
}
