//! The CronJob controller (`pkg/controller/cronjob`, "cronjob-controller", its v2): at
//! each scheduled time a Job from the CronJob's template, named for the minute it was due
//! and annotated with the time; concurrency as the policy says (`Allow`, `Forbid`,
//! `Replace`); finished Jobs past the history limits deleted; `status.active`,
//! `lastScheduleTime` and `lastSuccessfulTime` kept. It syncs each CronJob again 100 ms
//! after its next scheduled time on the cluster's clock, so a test with a frozen clock
//! runs it by advancing the clock.

mod schedule;

use jiff::Timestamp;
use serde_json::{Value, json};
use std::sync::Arc;

use self::schedule::{Missed, Recent};
use super::api::{CRON_JOBS, JOBS};
use super::queue::{key, split_key};
use super::{Api, Change, ChangeType, Cx, EventType, Outcome, Queue, Run, SyncError};
use crate::builtin::validate::cron;

/// The annotation with the time a CronJob's Job was scheduled for.
const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

pub(super) struct CronJobs;

impl Run for CronJobs {
    fn name(&self) -> &'static str {
        "cronjob-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        if change.is("batch", "cronjobs") {
            let Some(old) = change
                .old
                .as_ref()
                .filter(|_| change.change == ChangeType::Modified)
            else {
                queue.add(change.key());
                return;
            };
            // A new schedule: synced when it is next due (`updateCronJob`).
            let new = &change.object;
            if old["spec"]["schedule"] != new["spec"]["schedule"]
                || old["spec"]["timeZone"] != new["spec"]["timeZone"]
            {
                let now = api.clock().now();
                let parsed = cron::parse_standard(&schedule::schedule_text(new));
                if let Some(at) = parsed.ok().and_then(|s| schedule::next_sync(new, now, &s)) {
                    queue.add_at(change.key(), at);
                }
                return;
            }
            queue.add(change.key());
        } else if change.is("batch", "jobs") {
            // The CronJob controlling the Job (both, when the controller changed).
            let namespace = change.namespace();
            let mut owners = vec![controller_ref(&change.object)];
            if let Some(old) = &change.old {
                owners.push(controller_ref(old));
            }
            for owner in owners.into_iter().flatten() {
                if resolve(api, namespace, owner).is_some() {
                    queue.add(key(namespace, owner["name"].as_str().unwrap_or("")));
                }
            }
        }
    }

    fn sync(&mut self, cron_key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let (namespace, name) = split_key(cron_key);
        let Some(mut cron_job) = cx.api.get_owned(CRON_JOBS, namespace, name) else {
            return Ok(Outcome::Done);
        };
        // Every Job whose controller reference names the CronJob (by name alone).
        let jobs: Vec<Value> = cx
            .api
            .list(JOBS, Some(namespace))
            .into_iter()
            .filter(|j| controller_ref(j).is_some_and(|r| r["name"] == name))
            .map(Arc::unwrap_or_clone)
            .collect();
        let cleaned = cleanup_finished(cx, &mut cron_job, &jobs);
        let (requeue, synced, error) = sync_cron_job(cx, &mut cron_job, &jobs);
        if cleaned || synced {
            // `active` is left out when empty.
            if cron_job["status"]["active"]
                .as_array()
                .is_some_and(Vec::is_empty)
                && let Some(status) = cron_job["status"].as_object_mut()
            {
                status.remove("active");
            }
            cx.api
                .update_status(CRON_JOBS, namespace, name, &cron_job)?;
        }
        match (requeue, error) {
            (Some(at), _) => Ok(Outcome::At(at)),
            (None, Some(e)) => Err(e),
            (None, None) => Ok(Outcome::Done),
        }
    }
}

/// `syncCronJob`: the CronJob's active Jobs brought up to date, and the Job due now
/// created. When to sync again, whether the status changed, and an error to retry.
fn sync_cron_job(
    cx: &mut Cx<'_>,
    cron_job: &mut Value,
    jobs: &[Value],
) -> (Option<Timestamp>, bool, Option<SyncError>) {
    let now = cx.clock.now();
    let mut changed = false;
    for job in jobs {
        let uid = &job["metadata"]["uid"];
        let job_name = job["metadata"]["name"].as_str().unwrap_or("");
        let active = in_active(cron_job, uid);
        let finished = finished_condition(job);
        if !active && finished.is_none() {
            cx.event(
                cron_job,
                EventType::Warning,
                "UnexpectedJob",
                &format!("Saw a job that the controller did not create or forgot: {job_name}"),
            );
        } else if active && let Some(condition) = finished {
            remove_active(cron_job, uid);
            cx.event(
                cron_job,
                EventType::Normal,
                "SawCompletedJob",
                &format!("Saw completed job: {job_name}, condition: {condition}"),
            );
            changed = true;
        }
        if finished == Some("Complete")
            && let Some(completed) = job["status"]["completionTime"].as_str()
        {
            let later =
                |last: &str| completed.parse::<Timestamp>().ok() > last.parse::<Timestamp>().ok();
            match cron_job["status"]["lastSuccessfulTime"].as_str() {
                Some(last) if !later(last) => {}
                _ => {
                    cron_job["status"]["lastSuccessfulTime"] = json!(completed);
                    changed = true;
                }
            }
        }
    }
    // Active Jobs that are gone.
    let namespace = cron_job["metadata"]["namespace"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let refs = cron_job["status"]["active"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for r in refs {
        if jobs.iter().any(|j| j["metadata"]["uid"] == r["uid"]) {
            continue;
        }
        let name = r["name"].as_str().unwrap_or("");
        if cx.api.get(JOBS, &namespace, name).is_none() {
            cx.event(
                cron_job,
                EventType::Normal,
                "MissingJob",
                &format!("Active job went missing: {name}"),
            );
            remove_active(cron_job, &r["uid"]);
            changed = true;
        }
    }
    if cron_job["metadata"]["deletionTimestamp"].is_string() {
        return (None, changed, None);
    }
    if let Some(zone) = cron_job["spec"]["timeZone"].as_str()
        && let Err(e) = cron::load_location(zone)
    {
        let message = format!("invalid timeZone: {}: {e}", go_quote(zone));
        cx.event(cron_job, EventType::Warning, "UnknownTimeZone", &message);
        return (None, changed, None);
    }
    if cron_job["spec"]["suspend"] == true {
        return (None, changed, None);
    }
    let spec_schedule = cron_job["spec"]["schedule"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if spec_schedule.contains("TZ") {
        let message = format!(
            "CRON_TZ or TZ used in schedule {} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
            go_quote(&spec_schedule)
        );
        cx.event(
            cron_job,
            EventType::Warning,
            "UnsupportedSchedule",
            &message,
        );
    }
    let sched = match cron::parse_standard(&schedule::schedule_text(cron_job)) {
        Ok(s) => s,
        Err(e) => {
            let message = format!("unparseable schedule: {} : {e}", go_quote(&spec_schedule));
            cx.event(
                cron_job,
                EventType::Warning,
                "UnparseableSchedule",
                &message,
            );
            return (None, changed, None);
        }
    };
    let next = |cron_job: &Value| schedule::next_sync(cron_job, now, &sched);
    // `nextScheduleTime`: the most recent unmet time, within the starting deadline.
    let scheduled = match schedule::most_recent(cron_job, now, &sched, true) {
        Ok(Recent {
            most_recent: Some(t),
            missed,
            ..
        }) if t <= now => {
            if missed == Missed::Many {
                cx.event(
                    cron_job,
                    EventType::Warning,
                    "TooManyMissedTimes",
                    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
                );
            }
            t
        }
        Ok(_) => return (next(cron_job), changed, None),
        Err((_, e)) => {
            let message = format!("invalid schedule: {spec_schedule} : {e}");
            cx.event(cron_job, EventType::Warning, "InvalidSchedule", &message);
            return (None, changed, None);
        }
    };
    if let Some(deadline) = cron_job["spec"]["startingDeadlineSeconds"].as_i64()
        && scheduled
            .checked_add(jiff::SignedDuration::from_secs(deadline))
            .is_ok_and(|d| d < now)
    {
        let message = format!(
            "Missed scheduled time to start a job: {}",
            scheduled.strftime("%a, %d %b %Y %H:%M:%S +0000")
        );
        cx.event(cron_job, EventType::Warning, "MissSchedule", &message);
        return (next(cron_job), changed, None);
    }
    let cron_name = cron_job["metadata"]["name"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let job_name = schedule::job_name(&cron_name, scheduled);
    let already = cron_job["status"]["active"]
        .as_array()
        .is_some_and(|a| a.iter().any(|r| r["name"] == job_name.as_str()))
        || cron_job["status"]["lastScheduleTime"].as_str() == Some(&schedule::stamp(scheduled));
    if already {
        return (next(cron_job), changed, None);
    }
    let policy = cron_job["spec"]["concurrencyPolicy"]
        .as_str()
        .unwrap_or("Allow");
    let active = cron_job["status"]["active"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if policy == "Forbid" && !active.is_empty() {
        cx.event(
            cron_job,
            EventType::Normal,
            "JobAlreadyActive",
            "Not starting job because prior execution is running and concurrency policy is Forbid",
        );
        return (next(cron_job), changed, None);
    }
    if policy == "Replace" {
        for r in &active {
            let name = r["name"].as_str().unwrap_or("");
            let ns = r["namespace"].as_str().unwrap_or(&namespace);
            let Some(job) = cx.api.get(JOBS, ns, name) else {
                let message = format!("Get job: jobs.batch {} not found", go_quote(name));
                cx.event(cron_job, EventType::Warning, "FailedGet", &message);
                return (None, changed, Some(message));
            };
            if !delete_job(cx, cron_job, &job) {
                return (
                    None,
                    changed,
                    Some(format!("could not replace job {ns}/{name}")),
                );
            }
            changed = true;
        }
    }
    let request = job_from_template(cron_job, &job_name, scheduled);
    let created = match cx.api.create(JOBS, &namespace, &request) {
        Ok(created) => {
            cx.event(
                cron_job,
                EventType::Normal,
                "SuccessfulCreate",
                &format!("Created job {job_name}"),
            );
            Arc::unwrap_or_clone(created)
        }
        Err(e) if crate::controllers::job::namespace_terminating(&e) => {
            return (None, changed, Some(e.into()));
        }
        Err(e) if e.is_already_exists() => {
            // Made by an earlier sync whose status was not written, or by someone else.
            let Some(existing) = cx.api.get(JOBS, &namespace, &job_name) else {
                return (None, changed, Some(e.into()));
            };
            let ours =
                controller_ref(&existing).is_some_and(|r| r["uid"] == cron_job["metadata"]["uid"]);
            if !ours || in_active(cron_job, &existing["metadata"]["uid"]) {
                return (None, changed, None);
            }
            Arc::unwrap_or_clone(existing)
        }
        Err(e) => {
            cx.event(
                cron_job,
                EventType::Warning,
                "FailedCreate",
                &format!("Error creating job: {}", e.message),
            );
            return (None, changed, Some(e.into()));
        }
    };
    let meta = &created["metadata"];
    let reference = json!({
        "kind": "Job",
        "namespace": meta["namespace"],
        "name": meta["name"],
        "uid": meta["uid"],
        "apiVersion": "batch/v1",
        "resourceVersion": meta["resourceVersion"],
    });
    if !cron_job["status"]["active"].is_array() {
        cron_job["status"]["active"] = json!([]);
    }
    if let Some(a) = cron_job["status"]["active"].as_array_mut() {
        a.push(reference);
    }
    cron_job["status"]["lastScheduleTime"] = json!(schedule::stamp(scheduled));
    (next(cron_job), true, None)
}

/// `getJobFromTemplate2`: the Job for `scheduled` — the template's labels, annotations
/// (with the scheduled time) and spec, the CronJob as controller.
fn job_from_template(cron_job: &Value, name: &str, scheduled: Timestamp) -> Value {
    let template = &cron_job["spec"]["jobTemplate"];
    let mut annotations = template["metadata"]["annotations"].clone();
    if !annotations.is_object() {
        annotations = json!({});
    }
    annotations[SCHEDULED_TIMESTAMP] = json!(schedule::scheduled_stamp(cron_job, scheduled));
    let mut meta = json!({
        "name": name,
        "annotations": annotations,
        "ownerReferences": [{
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "name": cron_job["metadata"]["name"],
            "uid": cron_job["metadata"]["uid"],
            "controller": true,
            "blockOwnerDeletion": true,
        }],
    });
    if template["metadata"]["labels"]
        .as_object()
        .is_some_and(|l| !l.is_empty())
    {
        meta["labels"] = template["metadata"]["labels"].clone();
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": template["spec"]})
}

/// `cleanupFinishedJobs`: the oldest finished Jobs past the successful and failed
/// history limits deleted. Whether the status changed.
fn cleanup_finished(cx: &mut Cx<'_>, cron_job: &mut Value, jobs: &[Value]) -> bool {
    let spec = &cron_job["spec"];
    let limits = [
        ("Complete", spec["successfulJobsHistoryLimit"].as_i64()),
        ("Failed", spec["failedJobsHistoryLimit"].as_i64()),
    ];
    if limits.iter().all(|(_, l)| l.is_none()) {
        return false;
    }
    let mut changed = false;
    for (kind, limit) in limits {
        let Some(limit) = limit else { continue };
        let mut done: Vec<&Value> = jobs
            .iter()
            .filter(|j| finished_condition(j) == Some(kind))
            .collect();
        let surplus = done.len() as i64 - limit;
        if surplus <= 0 {
            continue;
        }
        // `byJobStartTime`: the earliest start first, Jobs never started last, then by name.
        done.sort_by(|a, b| {
            let start = |j: &Value| {
                j["status"]["startTime"]
                    .as_str()
                    .and_then(|s| s.parse::<Timestamp>().ok())
            };
            let name = |j: &Value| j["metadata"]["name"].as_str().unwrap_or("").to_owned();
            match (start(a), start(b)) {
                (Some(x), Some(y)) if x != y => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                _ => name(a).cmp(&name(b)),
            }
        });
        for job in done.into_iter().take(surplus as usize) {
            changed |= delete_job(cx, cron_job, job);
        }
    }
    changed
}

/// `deleteJob`: the Job deleted in the background (its Pods by the garbage collector) and
/// taken off `status.active`, with the event.
fn delete_job(cx: &mut Cx<'_>, cron_job: &mut Value, job: &Value) -> bool {
    let namespace = job["metadata"]["namespace"].as_str().unwrap_or("");
    let name = job["metadata"]["name"].as_str().unwrap_or("");
    let options =
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
    match cx.api.delete(JOBS, namespace, name, &options) {
        Ok(_) => {
            remove_active(cron_job, &job["metadata"]["uid"]);
            cx.event(
                cron_job,
                EventType::Normal,
                "SuccessfulDelete",
                &format!("Deleted job {name}"),
            );
            true
        }
        Err(e) => {
            cx.event(
                cron_job,
                EventType::Warning,
                "FailedDelete",
                &format!("Deleted job: {}", e.message),
            );
            false
        }
    }
}

/// `Complete` or `Failed`, whichever is True first in the Job's conditions.
fn finished_condition(job: &Value) -> Option<&'static str> {
    job["status"]["conditions"]
        .as_array()?
        .iter()
        .filter(|c| c["status"] == "True")
        .find_map(|c| match c["type"].as_str() {
            Some("Complete") => Some("Complete"),
            Some("Failed") => Some("Failed"),
            _ => None,
        })
}

fn in_active(cron_job: &Value, uid: &Value) -> bool {
    cron_job["status"]["active"]
        .as_array()
        .is_some_and(|a| a.iter().any(|r| &r["uid"] == uid))
}

fn remove_active(cron_job: &mut Value, uid: &Value) {
    if let Some(a) = cron_job["status"]["active"].as_array_mut() {
        a.retain(|r| &r["uid"] != uid);
    }
}

fn controller_ref(object: &Value) -> Option<&Value> {
    object["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"] == true)
}

/// The CronJob a Job's controller reference names, with that uid (`resolveControllerRef`).
fn resolve(api: &Api, namespace: &str, owner: &Value) -> Option<Value> {
    if owner["kind"] != "CronJob" {
        return None;
    }
    let cron_job = api.get(CRON_JOBS, namespace, owner["name"].as_str()?)?;
    (cron_job["metadata"]["uid"] == owner["uid"]).then(|| Arc::unwrap_or_clone(cron_job))
}

/// A string as Go's `%q` writes it.
fn go_quote(s: &str) -> String {
    kubegen_core::go_print::marshal(&Value::String(s.to_owned()))
}
