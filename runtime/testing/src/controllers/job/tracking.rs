//! Counting finished Pods and finishing the Job (`trackJobStatusAndRemoveFinalizers`):
//! a finished Pod's uid (or index) goes into the status first, its tracking finalizer is
//! removed next, and only then is it counted — so no Pod is counted twice or lost. A
//! finishing Job is marked in two steps the same way: the interim condition
//! (`SuccessCriteriaMet`, `FailureTarget`), the Pods' finalizers, then `Complete` or
//! `Failed`.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::pods::{self, Pod};
use super::{Condition, JOBS, Job, State};
use crate::controllers::{Cx, EventType, SyncError};

/// `MaxUncountedPods`: at most this many Pods are added to the uncounted lists per sync.
const MAX_UNCOUNTED_PODS: usize = 500;

/// Counts the finished Pods, removes their finalizers, writes the status (when
/// `needs_flush` or anything changed) and finishes the Job when it can.
pub(super) fn track_and_remove_finalizers(
    cx: &mut Cx<'_>,
    job: &mut Job,
    st: &mut State,
    mut needs_flush: bool,
) -> Result<(), SyncError> {
    let indexed = job.indexed();
    let completions = job.completions().unwrap_or(0);
    if indexed {
        // Completed indexes are introduced in order.
        st.pods.sort_by_key(|p| p.index().unwrap_or(-1));
    }
    let mut with_finalizer: HashSet<String> = st
        .pods
        .iter()
        .filter(|p| p.has_finalizer())
        .map(|p| p.uid().to_owned())
        .collect();
    if clean_uncounted(&mut job.0["status"], &with_finalizer) {
        needs_flush = true;
    }
    let mut to_remove: Vec<Pod> = Vec::new();
    let mut new_indexes: Vec<i64> = Vec::new();
    let mut reached_max = false;
    for pod in &st.pods {
        if !pod.has_finalizer() {
            continue;
        }
        let failed = pod.is_failed(job);
        if !can_remove_finalizer(job, st, pod, failed) {
            continue;
        }
        to_remove.push(pod.clone());
        let uid = pod.uid();
        if pod.succeeded() && !st.uncounted_failed.contains(uid) {
            if indexed {
                if let Some(ix) = pod.valid_index(completions)
                    && !st.prev_succeeded_indexes.has(ix)
                {
                    new_indexes.push(ix);
                    needs_flush = true;
                }
            } else if !st.uncounted_succeeded.contains(uid) {
                needs_flush = true;
                push_uncounted(&mut job.0["status"], "succeeded", uid);
            }
        } else if failed
            || st
                .finished
                .as_ref()
                .is_some_and(|c| !c.is_success_criteria_met())
        {
            let valid = !indexed || pod.valid_index(completions).is_some();
            if !st.uncounted_failed.contains(uid) && valid {
                let counts = job
                    .pod_failure_policy()
                    .is_none_or(|p| super::policies::match_pod_failure_policy(p, pod).counts);
                if counts {
                    needs_flush = true;
                    push_uncounted(&mut job.0["status"], "failed", uid);
                }
            }
        }
        if new_indexes.len() + uncounted_len(&job.0["status"]) >= MAX_UNCOUNTED_PODS {
            reached_max = true;
            break;
        }
    }
    if indexed {
        st.succeeded_indexes = st.succeeded_indexes.with(new_indexes);
        let text = st.succeeded_indexes.to_string();
        if text != job.status_str("completedIndexes") {
            needs_flush = true;
        }
        set_count(
            &mut job.0["status"],
            "succeeded",
            st.succeeded_indexes.total(),
        );
        set_text(&mut job.0["status"], "completedIndexes", &text);
        let failed_text = st.failed_indexes.as_ref().map(|f| json!(f.to_string()));
        let stored = job.0["status"].get("failedIndexes").cloned();
        if stored != failed_text {
            match failed_text {
                Some(t) => job.0["status"]["failedIndexes"] = t,
                None => remove(&mut job.0["status"], "failedIndexes"),
            }
            needs_flush = true;
        }
    }
    let now = cx.clock.now();
    match st.finished.take() {
        Some(c) if c.kind == "FailureTarget" => {
            // The interim condition goes first; Failed follows once the Pods are counted.
            job.push_condition(&c);
            needs_flush = true;
            st.finished = Some(Condition::new("Failed", "True", &c.reason, &c.message, now));
        }
        Some(c) if c.is_success_criteria_met() => {
            if job
                .condition("SuccessCriteriaMet")
                .is_none_or(|s| s["status"] != "True")
            {
                job.push_condition(&c);
                needs_flush = true;
            }
            st.finished = Some(Condition::new(
                "Complete", "True", &c.reason, &c.message, now,
            ));
        }
        other => st.finished = other,
    }
    // Flush: the status with the new uncounted Pods, then the finalizers, then the counts.
    if needs_flush {
        write_status(cx, job)?;
        st.record_saved = true;
        needs_flush = false;
    }
    let mut error = None;
    for pod in &to_remove {
        match pods::remove_finalizer(cx, pod) {
            Ok(()) => {
                with_finalizer.remove(pod.uid());
            }
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    if clean_uncounted(&mut job.0["status"], &with_finalizer) {
        needs_flush = true;
    }
    if let Some(e) = error {
        if needs_flush {
            write_status(cx, job)?;
        }
        return Err(e.into());
    }
    let finished = !reached_max && enact_finished(cx, job, st);
    if finished || needs_flush {
        write_status(cx, job)?;
        if finished && let Some(c) = &st.finished {
            record_finished(cx, job, c);
        }
    }
    Ok(())
}

/// `canRemoveFinalizer`: once the Job is deleted or finishing, or the Pod succeeded, or it
/// failed and is not the one an index keeps until its replacement exists.
fn can_remove_finalizer(job: &Job, st: &State, pod: &Pod, failed: bool) -> bool {
    if job.deleting() || st.finished.is_some() || pod.succeeded() {
        return true;
    }
    if !failed {
        return false;
    }
    if job.backoff_limit_per_index().is_some()
        && let Some(ix) = pod.index()
        && st.delayed.get(&ix).is_some_and(|p| p.uid() == pod.uid())
    {
        return false;
    }
    true
}

/// `cleanUncountedPodsWithoutFinalizers`: uncounted Pods whose finalizer is gone are
/// counted. Whether anything changed.
fn clean_uncounted(status: &mut Value, with_finalizer: &HashSet<String>) -> bool {
    let mut changed = false;
    for list in ["succeeded", "failed"] {
        let uids: Vec<Value> = status["uncountedTerminatedPods"][list]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let (keep, counted): (Vec<Value>, Vec<Value>) = uids
            .into_iter()
            .partition(|u| u.as_str().is_some_and(|u| with_finalizer.contains(u)));
        if counted.is_empty() {
            continue;
        }
        changed = true;
        let total = status[list].as_i64().unwrap_or(0) + counted.len() as i64;
        set_count(status, list, total);
        let uncounted = &mut status["uncountedTerminatedPods"];
        if keep.is_empty() {
            remove(uncounted, list);
        } else {
            uncounted[list] = Value::Array(keep);
        }
    }
    changed
}

fn push_uncounted(status: &mut Value, list: &str, uid: &str) {
    let uncounted = &mut status["uncountedTerminatedPods"];
    if !uncounted[list].is_array() {
        uncounted[list] = json!([]);
    }
    if let Some(a) = uncounted[list].as_array_mut() {
        a.push(json!(uid));
    }
}

fn uncounted_len(status: &Value) -> usize {
    ["succeeded", "failed"]
        .iter()
        .map(|l| {
            status["uncountedTerminatedPods"][l]
                .as_array()
                .map_or(0, Vec::len)
        })
        .sum()
}

/// `enactJobFinished`: once no Pod is uncounted or terminating, the final condition
/// (and, for `Complete`, the completion time).
fn enact_finished(cx: &mut Cx<'_>, job: &mut Job, st: &State) -> bool {
    let Some(c) = &st.finished else {
        return false;
    };
    if uncounted_len(&job.0["status"]) > 0 || st.terminating > 0 {
        return false;
    }
    job.ensure_condition(&c.kind, &c.status, &c.reason, &c.message, cx.clock.now());
    if c.kind == "Complete" {
        job.0["status"]["completionTime"] = json!(c.time);
    }
    true
}

/// `recordJobFinished`: the events of a finished Job.
fn record_finished(cx: &mut Cx<'_>, job: &Job, c: &Condition) {
    if c.kind == "Complete" {
        if job
            .completions()
            .is_some_and(|n| job.0["status"]["succeeded"].as_i64().unwrap_or(0) > n)
        {
            cx.event(
                &job.0,
                EventType::Warning,
                "TooManySucceededPods",
                "Too many succeeded pods running after completion count reached",
            );
        }
        cx.event(&job.0, EventType::Normal, "Completed", "Job completed");
    } else {
        cx.event(&job.0, EventType::Warning, &c.reason, &c.message);
    }
}

/// `PUT .../jobs/<name>/status` of the whole Job; `job` becomes what was stored.
pub(super) fn write_status(cx: &mut Cx<'_>, job: &mut Job) -> Result<(), SyncError> {
    let stored = cx
        .api
        .update_status(JOBS, job.namespace(), job.name(), &job.0)?;
    job.0 = Arc::unwrap_or_clone(stored);
    Ok(())
}

/// Sets a counter, leaving it out when 0 (`omitempty`).
pub(super) fn set_count(status: &mut Value, key: &str, n: i64) {
    if n == 0 {
        remove(status, key);
    } else {
        status[key] = json!(n);
    }
}

fn set_text(status: &mut Value, key: &str, text: &str) {
    if text.is_empty() {
        remove(status, key);
    } else {
        status[key] = json!(text);
    }
}

pub(super) fn remove(object: &mut Value, key: &str) {
    if let Some(m) = object.as_object_mut() {
        m.remove(key);
    }
}
