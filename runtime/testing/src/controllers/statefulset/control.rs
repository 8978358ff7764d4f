//! One sync of a StatefulSet's Pods (`defaultStatefulSetControl.UpdateStatefulSet`): the
//! replicas made in ordinal order — with `OrderedReady` each waiting for the ones before it
//! to be Running and Ready, with `Parallel` all at once in slow-start batches — the Pods
//! past the replicas deleted from the highest ordinal down, then a rolling update deleting
//! one outdated Pod at a time from the highest ordinal down to the partition (the
//! `MaxUnavailableStatefulSet` gate being off), and the status.

use jiff::Timestamp;
use serde_json::Value;

use super::claims::{match_retention_policy, pod_claim_is_stale};
use super::identity::{
    end_ordinal, identity_matches, in_ordinal_range, new_versioned_pod, ordinal, replicas,
    revision_of, start_ordinal, storage_matches, with_template,
};
use super::podcontrol::{
    create_claims, create_pod, delete_pod, record_pod_event, update_claims_for_policy, update_pod,
};
use super::revisions::{self, Revisions};
use super::status::{self, Status};
use crate::builtin::validate::LabelSelector;
use crate::controllers::Cx;
use crate::controllers::history::{self, template_of};
use crate::controllers::ownership::aggregate;
use crate::controllers::podutil::{is_available, is_ready, is_terminating, meta, phase};

/// The largest slow-start batch (`MaxBatchSize`).
const MAX_BATCH: usize = 500;

/// `UpdateStatefulSet`: the sync's work and status, then the history truncated.
pub(super) fn update(
    cx: &mut Cx<'_>,
    set: &Value,
    selector: &LabelSelector,
    pods: &[Value],
    now: Timestamp,
) -> Result<Status, String> {
    let mut listed = history::list(cx.api, set, selector);
    history::sort(&mut listed);
    let (kept, result) = perform(cx, set, pods, &listed, now);
    let truncated = revisions::truncate(cx, set, pods, &listed, &kept);
    match result {
        Ok(status) => truncated.map(|()| status),
        Err(e) => {
            let errors: Vec<String> = [Err(e), truncated]
                .into_iter()
                .filter_map(Result::err)
                .collect();
            aggregate(&errors).map(|()| Status::default())
        }
    }
}

/// `performUpdate`: revisions, Pods, status.
fn perform(
    cx: &mut Cx<'_>,
    set: &Value,
    pods: &[Value],
    listed: &[Value],
    now: Timestamp,
) -> (Option<Revisions>, Result<Status, String>) {
    let revisions = match revisions::revisions(cx, set, listed) {
        Ok(r) => r,
        Err(e) => return (None, Err(e)),
    };
    let (mut status, result) = pods_of(cx, set, &revisions, pods, now);
    let written = status::write(cx, set, &mut status);
    let result = result.and(written).map(|()| status);
    (Some(revisions), result)
}

/// Whether a Pod is Running and Ready.
fn running_and_ready(pod: &Value) -> bool {
    phase(pod) == "Running" && is_ready(pod)
}

/// `isUnavailable`.
fn unavailable(pod: &Value, min_ready_seconds: i64, now: Timestamp) -> bool {
    !is_available(pod, min_ready_seconds, now) || is_terminating(pod)
}

/// What one sync works on.
struct Work<'s> {
    set: &'s Value,
    update_set: Value,
    monotonic: bool,
    min_ready_seconds: i64,
    now: Timestamp,
}

/// `updateStatefulSet`: the status, and the first error.
fn pods_of(
    cx: &mut Cx<'_>,
    set: &Value,
    revisions: &Revisions,
    pods: &[Value],
    now: Timestamp,
) -> (Status, Result<(), String>) {
    let current_set = with_template(set, template_of(&revisions.current));
    let update_set = with_template(set, template_of(&revisions.update));
    let (current_name, update_name) = (
        meta(&revisions.current, "name"),
        meta(&revisions.update, "name"),
    );
    let min_ready_seconds = set["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
    let mut status = Status {
        observed_generation: set["metadata"]["generation"].as_i64().unwrap_or(0),
        current_revision: current_name.to_owned(),
        update_revision: update_name.to_owned(),
        collision_count: revisions.collision_count,
        ..Status::default()
    };
    status.count(&[pods], min_ready_seconds, now);

    let start = start_ordinal(set);
    let mut replicas: Vec<Option<Value>> = vec![None; usize::try_from(replicas(set)).unwrap_or(0)];
    let mut condemned = Vec::new();
    for pod in pods {
        if in_ordinal_range(pod, set) {
            replicas[(ordinal(pod) - start) as usize] = Some(pod.clone());
        } else if ordinal(pod) >= 0 {
            condemned.push(pod.clone());
        }
    }
    let replicas: Vec<Value> = (start..=end_ordinal(set))
        .zip(replicas)
        .map(|(ord, pod)| {
            pod.unwrap_or_else(|| {
                new_versioned_pod(&current_set, &update_set, current_name, update_name, ord)
            })
        })
        .collect();
    condemned.sort_by_key(|p| std::cmp::Reverse(ordinal(p)));

    let first_unavailable = replicas
        .iter()
        .chain(condemned.iter().rev())
        .find(|p| unavailable(p, min_ready_seconds, now))
        .map(|p| meta(p, "name").to_owned());

    if is_terminating(set) {
        return (status, Ok(()));
    }
    let work = Work {
        set,
        update_set,
        monotonic: set["spec"]["podManagementPolicy"] != "Parallel",
        min_ready_seconds,
        now,
    };
    let recount = |status: &mut Status, replicas: &[Value], condemned: &[Value]| {
        status.count(&[replicas, condemned], min_ready_seconds, now);
    };

    let result = run_for_all(replicas.len(), work.monotonic, |i| {
        process_replica(cx, &work, &replicas[i])
    });
    if !matches!(result, Ok(false)) {
        recount(&mut status, &replicas, &condemned);
        return (status, result.map(drop));
    }
    let result = run_for_all(condemned.len(), work.monotonic, |i| {
        if match_retention_policy(cx.api, &work.update_set, &condemned[i]) {
            return Ok(false);
        }
        update_claims_for_policy(cx, &work.update_set, &condemned[i]).map(|()| false)
    });
    if !matches!(result, Ok(false)) {
        recount(&mut status, &replicas, &condemned);
        return (status, result.map(drop));
    }
    let result = run_for_all(condemned.len(), work.monotonic, |i| {
        process_condemned(cx, &work, first_unavailable.as_deref(), &condemned[i])
    });
    recount(&mut status, &replicas, &condemned);
    if !matches!(result, Ok(false)) {
        return (status, result.map(drop));
    }
    if set["spec"]["updateStrategy"]["type"] == "OnDelete" {
        return (status, Ok(()));
    }
    let result = rolling_update(cx, &work, &replicas, update_name, &mut status);
    (status, result)
}

/// The rolling update with `MaxUnavailableStatefulSet` off: from the highest ordinal down
/// to the partition, the first Pod of another revision is deleted; an unavailable Pod on
/// the way waits.
fn rolling_update(
    cx: &mut Cx<'_>,
    work: &Work<'_>,
    replicas: &[Value],
    update_revision: &str,
    status: &mut Status,
) -> Result<(), String> {
    let strategy = &work.set["spec"]["updateStrategy"];
    let minimum = strategy["rollingUpdate"]["partition"]
        .as_i64()
        .unwrap_or(0)
        .max(0) as usize;
    for pod in replicas.iter().skip(minimum).rev() {
        if revision_of(pod) != update_revision && !is_terminating(pod) {
            delete_pod(cx, work.set, pod)?;
            status.current -= 1;
            return Ok(());
        }
        if unavailable(pod, work.min_ready_seconds, work.now) {
            return Ok(());
        }
    }
    Ok(())
}

/// `processReplica`: whether the ordered sync stops here.
fn process_replica(cx: &mut Cx<'_>, work: &Work<'_>, pod: &Value) -> Result<bool, String> {
    let set = work.set;
    if matches!(phase(pod), "Failed" | "Succeeded") {
        if !is_terminating(pod) {
            delete_pod(cx, set, pod)?;
        }
        // Made again by a later sync, once it is gone.
        return Ok(true);
    }
    if phase(pod).is_empty() {
        if pod_claim_is_stale(cx.api, set, pod) {
            return Ok(true);
        }
        create_pod(cx, set, pod)?;
        if work.monotonic {
            return Ok(true);
        }
    }
    if phase(pod) == "Pending" {
        create_claims(cx, set, pod)?;
        if let Err(e) = update_claims_for_policy(cx, set, pod) {
            record_pod_event(cx, "update", set, pod, Some(&e));
            return Err(e);
        }
    }
    if work.monotonic
        && (is_terminating(pod)
            || !running_and_ready(pod)
            || !is_available(pod, work.min_ready_seconds, work.now))
    {
        return Ok(true);
    }
    let retention = match_retention_policy(cx.api, &work.update_set, pod);
    if identity_matches(set, pod) && storage_matches(set, pod) && retention {
        return Ok(false);
    }
    update_pod(cx, &work.update_set, pod).map(|()| false)
}

/// `processCondemned`: a Pod past the replicas deleted, in order once every one before it
/// is healthy.
fn process_condemned(
    cx: &mut Cx<'_>,
    work: &Work<'_>,
    first_unavailable: Option<&str>,
    pod: &Value,
) -> Result<bool, String> {
    if is_terminating(pod) {
        return Ok(work.monotonic);
    }
    let first = first_unavailable == Some(meta(pod, "name"));
    if work.monotonic
        && !first
        && (!running_and_ready(pod) || !is_available(pod, work.min_ready_seconds, work.now))
    {
        return Ok(true);
    }
    delete_pod(cx, work.set, pod)?;
    Ok(true)
}

/// `runForAll`: in order, stopping at the first that says so or fails (`OrderedReady`), or
/// all of them in slow-start batches of 1, 2, 4, ... that stop after a batch with an error
/// (`Parallel`). Whether to stop.
fn run_for_all(
    n: usize,
    monotonic: bool,
    mut f: impl FnMut(usize) -> Result<bool, String>,
) -> Result<bool, String> {
    if monotonic {
        for i in 0..n {
            if f(i)? {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    let mut next = 0;
    let mut batch = 1.min(n);
    while batch > 0 {
        let errors: Vec<String> = (next..next + batch).filter_map(|i| f(i).err()).collect();
        aggregate(&errors)?;
        next += batch;
        batch = (2 * batch).min(n - next).min(MAX_BATCH);
    }
    Ok(false)
}
