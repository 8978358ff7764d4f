//! The Job controller (`pkg/controller/job`, "job-controller"): a Job's Pods created from
//! its template (the tracking finalizer and the Job as controller on each, an Indexed
//! Job's with their index), failed ones replaced after a backoff, every finished Pod
//! counted exactly once, and the Job finished when its completions are reached, a
//! policy decides, its backoff limit is exceeded or its deadline passed.
//!
//! - [`pods`]: what a Pod is to the Job, and the Pods it creates and deletes;
//! - [`claim`]: which Pods a Job owns, and finalizers left on orphans;
//! - [`manage`]: creating and deleting Pods; [`backoff`]: when failed ones are replaced;
//! - [`tracking`]: counting finished Pods and the two-step finish;
//! - [`indexes`]: an Indexed Job's indexes; [`policies`]: pod failure and success policies.

mod backoff;
mod claim;
mod indexes;
mod manage;
mod pods;
mod policies;
mod tracking;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use jiff::Timestamp;
use serde_json::{Value, json};

use self::backoff::Record;
use self::indexes::Intervals;
use self::pods::Pod;
pub(super) use self::pods::namespace_terminating;
use super::api::JOBS;
use super::queue::split_key;
use super::{Api, Change, ChangeType, Cx, EventType, Outcome, Queue, Run, SyncError};

/// The annotation with the failures an index has seen (`backoffLimitPerIndex`).
const INDEX_FAILURE_COUNT: &str = "batch.kubernetes.io/job-index-failure-count";
/// The annotation with the failures an index has seen that a pod failure policy ignored.
const INDEX_IGNORED_FAILURE_COUNT: &str = "batch.kubernetes.io/job-index-ignored-failure-count";
/// `spec.managedBy` of the Jobs this controller manages (as when it is not set).
const MANAGED_BY: &str = "kubernetes.io/job-controller";
/// The prefix of an orphan Pod's key: its tracking finalizer is to be removed.
const ORPHAN: &str = "orphan:";

/// The Job controller. It remembers each Job's failures since its last success, for the
/// backoff.
#[derive(Default)]
pub(super) struct Jobs {
    backoff: HashMap<String, Record>,
}

/// The queue key of an orphan Pod.
fn orphan_key(namespace: &str, name: &str) -> String {
    format!("{ORPHAN}{namespace}/{name}")
}

impl Run for Jobs {
    fn name(&self) -> &'static str {
        "job-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        if change.is("batch", "jobs") {
            let job = Job(Value::clone(&change.object));
            queue.add(change.key());
            // A finished or deleted Job's Pods lose their finalizers however they got there.
            if change.change == ChangeType::Deleted
                || (change.change == ChangeType::Modified && job.finished())
            {
                for key in claim::pods_to_clean(api, &job) {
                    queue.add(key);
                }
            }
        } else if change.is("", "pods") {
            self.observe_pod(change, queue, api);
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        if let Some(pod) = key.strip_prefix(ORPHAN) {
            let (namespace, name) = split_key(pod);
            claim::sync_orphan(cx, namespace, name)?;
            return Ok(Outcome::Done);
        }
        self.sync_job(key, cx)
    }
}

impl Jobs {
    /// `addPod`, `updatePod`, `deletePod`: the Job controlling the Pod is synced (both, when
    /// the controller changed); an orphan with the finalizer is cleaned, and Jobs whose
    /// selector matches it may adopt it.
    fn observe_pod(&mut self, change: &Change, queue: &mut Queue, api: &Api) {
        let pod = Pod(change.object.clone());
        let namespace = pod.namespace().to_owned();
        let gone = change.change == ChangeType::Deleted || pod.deleting();
        if change.change == ChangeType::Modified
            && let Some(old) = &change.old
        {
            let old_ref = pods::controller_ref(old);
            if old_ref.is_some()
                && old_ref != pod.controller_ref()
                && let Some(job) = old_ref.and_then(|r| claim::resolve(api, &namespace, r))
            {
                queue.add(job.key());
            }
        }
        match pod.controller_ref() {
            Some(owner) => match claim::resolve(api, &namespace, owner) {
                Some(job) if !(gone && job.finished()) => queue.add(job.key()),
                _ if gone && pod.has_finalizer() => queue.add(orphan_key(&namespace, pod.name())),
                _ => {}
            },
            None => {
                if pod.has_finalizer() {
                    queue.add(orphan_key(&namespace, pod.name()));
                }
                if gone {
                    return;
                }
                let labels_changed = change.old.as_deref().is_none_or(|old| {
                    old["metadata"]["labels"] != change.object["metadata"]["labels"]
                        || pods::controller_ref(old).is_some()
                });
                if labels_changed {
                    for job in jobs_selecting(api, &pod) {
                        queue.add(job.key());
                    }
                }
            }
        }
    }

    /// `syncJob`.
    fn sync_job(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let (namespace, name) = split_key(key);
        let Some(stored) = cx.api.get_owned(JOBS, namespace, name) else {
            self.backoff.remove(key);
            return Ok(Outcome::Done);
        };
        let mut job = Job(stored);
        if job.managed_externally() {
            return Ok(Outcome::Done);
        }
        if job.finished() {
            self.backoff.remove(key);
            return Ok(Outcome::Done);
        }
        if !matches!(job.completion_mode(), "NonIndexed" | "Indexed") {
            cx.event(
                &job.0,
                EventType::Warning,
                "UnknownCompletionMode",
                "Skipped Job sync because completion mode is unknown",
            );
            return Ok(Outcome::Done);
        }
        if !job.0["status"].is_object() {
            job.0["status"] = json!({});
        }
        if !job.0["status"]["uncountedTerminatedPods"].is_object() {
            job.0["status"]["uncountedTerminatedPods"] = json!({});
        }
        let pods = claim::pods_for(&job, cx)?;
        let now = cx.clock.now();
        let mut st = State::new(
            &job,
            pods,
            self.backoff.get(key).cloned().unwrap_or_default(),
        );
        if job.0["status"]["startTime"].is_null() && !job.suspended() {
            job.0["status"]["startTime"] = json!(stamp(now));
        }
        self.decide_finish(cx, key, &mut job, &mut st, now);
        let mut active = st.active_count();
        let mut error = None;
        let mut suspend_changed = false;
        if st.finished.is_some() {
            let victims: Vec<&Pod> = st.pods.iter().filter(|p| p.is_active()).collect();
            let (deleted, ready, e) = pods::delete_keeping_finalizer(cx, &job, &victims);
            if deleted != active {
                // Not every Pod could be deleted: not finished yet.
                st.finished = None;
            }
            active -= deleted;
            st.terminating += deleted;
            st.ready -= ready;
            error = e;
        } else {
            let mut managed = false;
            if !job.deleting() {
                (active, error) = manage::manage(cx, key, &job, &mut st);
                managed = true;
            }
            let complete = match job.completions() {
                None => st.succeeded > 0 && active == 0,
                Some(n) => st.succeeded >= n && active == 0,
            };
            if complete {
                st.finished = Some(Condition::new(
                    "SuccessCriteriaMet",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    now,
                ));
            } else if managed {
                suspend_changed = self.suspension(cx, &mut job, now);
            }
        }
        let status = &job.0["status"];
        let needs_flush = suspend_changed
            || active != status["active"].as_i64().unwrap_or(0)
            || status["ready"].as_i64() != Some(st.ready)
            || status["terminating"].as_i64() != Some(st.terminating);
        tracking::set_count(&mut job.0["status"], "active", active);
        job.0["status"]["ready"] = json!(st.ready);
        job.0["status"]["terminating"] = json!(st.terminating);
        tracking::track_and_remove_finalizers(cx, &mut job, &mut st, needs_flush)
            .map_err(|e| format!("tracking status: {e}"))?;
        if st.record_saved {
            self.backoff.insert(key.to_owned(), st.record.clone());
        }
        match error {
            Some(e) => Err(e.into()),
            None => Ok(Outcome::Done),
        }
    }

    /// Whether the Job is finishing, and why: its interim condition (or, when it had one,
    /// its final one) in `st.finished`. A running Job with a deadline is synced again
    /// when it passes.
    fn decide_finish(
        &self,
        cx: &mut Cx<'_>,
        key: &str,
        job: &mut Job,
        st: &mut State,
        now: Timestamp,
    ) {
        let met = job
            .condition("SuccessCriteriaMet")
            .filter(|c| c["status"] == "True")
            .map(Condition::from_json);
        st.finished = met;
        if st.finished.is_none() {
            if let Some(target) = job
                .condition("FailureTarget")
                .filter(|c| c["status"] == "True")
            {
                let target = Condition::from_json(target);
                st.finished = Some(Condition::new(
                    "Failed",
                    "True",
                    &target.reason,
                    &target.message,
                    now,
                ));
            } else if let Some(policy) = job.pod_failure_policy()
                && let Some(message) = st
                    .pods
                    .iter()
                    .filter(|p| p.is_failed(job))
                    .find_map(|p| policies::match_pod_failure_policy(policy, p).fail_job)
            {
                st.finished = Some(Condition::new(
                    "FailureTarget",
                    "True",
                    "PodFailurePolicy",
                    &message,
                    now,
                ));
            }
        }
        if st.finished.is_none() {
            let restarts_exceeded = job.restart_policy() == "OnFailure" && {
                let restarts: i64 = st
                    .pods
                    .iter()
                    .filter(|p| matches!(p.phase(), "Running" | "Pending"))
                    .map(Pod::restarts)
                    .sum();
                match job.backoff_limit() {
                    0 => restarts > 0,
                    limit => restarts >= limit,
                }
            };
            if st.failed > job.backoff_limit() || restarts_exceeded {
                st.finished = Some(Condition::failure_target(
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    now,
                ));
            } else if let Some(left) = job.deadline_left(now) {
                if left.is_zero() {
                    st.finished = Some(Condition::failure_target(
                        "DeadlineExceeded",
                        "Job was active longer than specified deadline",
                        now,
                    ));
                } else {
                    cx.queue.add_after(key, now, left);
                }
            }
        }
        if job.indexed() {
            let (previous, all) = indexes::succeeded(job, &st.pods);
            st.prev_succeeded_indexes = previous;
            st.succeeded = all.total();
            st.succeeded_indexes = all;
            if job.backoff_limit_per_index().is_some() {
                let failed = indexes::failed(job, &st.pods);
                if st.finished.is_none() {
                    let completions = job.completions().unwrap_or(0);
                    if job.max_failed_indexes().is_some_and(|m| failed.total() > m) {
                        st.finished = Some(Condition::failure_target(
                            "MaxFailedIndexesExceeded",
                            "Job has exceeded the specified maximal number of failed indexes",
                            now,
                        ));
                    } else if failed.total() > 0
                        && failed.total() + st.succeeded_indexes.total() >= completions
                    {
                        st.finished = Some(Condition::failure_target(
                            "FailedIndexes",
                            "Job has failed indexes",
                            now,
                        ));
                    }
                }
                let active: Vec<&Pod> = st.pods.iter().filter(|p| p.is_active()).collect();
                st.delayed = indexes::delayed_deletion(
                    job,
                    &st.pods,
                    &active,
                    &st.succeeded_indexes,
                    &failed,
                );
                st.failed_indexes = Some(failed);
            }
            if st.finished.is_none()
                && let Some(message) = policies::match_success_policy(
                    &job.0["spec"]["successPolicy"],
                    job.completions().unwrap_or(0),
                    &st.succeeded_indexes,
                )
            {
                st.finished = Some(Condition::new(
                    "SuccessCriteriaMet",
                    "True",
                    "SuccessPolicy",
                    &message,
                    now,
                ));
            }
        }
    }

    /// The `Suspended` condition kept in step with `spec.suspend`, with its event.
    /// Suspending clears the start time; resuming starts it anew. Whether it changed.
    fn suspension(&self, cx: &mut Cx<'_>, job: &mut Job, now: Timestamp) -> bool {
        if job.suspended() {
            let changed =
                job.ensure_condition("Suspended", "True", "JobSuspended", "Job suspended", now);
            if changed {
                tracking::remove(&mut job.0["status"], "startTime");
                cx.event(&job.0, EventType::Normal, "Suspended", "Job suspended");
            }
            changed
        } else {
            let changed =
                job.ensure_condition("Suspended", "False", "JobResumed", "Job resumed", now);
            if changed {
                cx.event(&job.0, EventType::Normal, "Resumed", "Job resumed");
                job.0["status"]["startTime"] = json!(stamp(now));
            }
            changed
        }
    }
}

/// The Jobs in the Pod's namespace whose selector matches its labels (`GetPodJobs`).
fn jobs_selecting(api: &Api, pod: &Pod) -> Vec<Job> {
    api.list_owned(JOBS, Some(pod.namespace()))
        .into_iter()
        .map(Job)
        .filter(|job| {
            let selector = &job.0["spec"]["selector"];
            crate::builtin::validate::LabelSelector::parse(selector)
                .is_some_and(|s| !s.is_empty() && s.matches(pod.labels()))
        })
        .collect()
}

/// A time as the API writes it.
fn stamp(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A Job, as stored.
#[derive(Clone, Debug)]
pub(super) struct Job(pub(super) Value);

impl Job {
    pub(super) fn name(&self) -> &str {
        self.0["metadata"]["name"].as_str().unwrap_or("")
    }

    pub(super) fn namespace(&self) -> &str {
        self.0["metadata"]["namespace"].as_str().unwrap_or("")
    }

    pub(super) fn uid(&self) -> &str {
        self.0["metadata"]["uid"].as_str().unwrap_or("")
    }

    fn key(&self) -> String {
        super::queue::key(self.namespace(), self.name())
    }

    fn spec(&self) -> &Value {
        &self.0["spec"]
    }

    pub(super) fn deleting(&self) -> bool {
        self.0["metadata"]["deletionTimestamp"].is_string()
    }

    /// `spec.managedBy` names another controller.
    pub(super) fn managed_externally(&self) -> bool {
        self.spec()["managedBy"]
            .as_str()
            .is_some_and(|m| m != MANAGED_BY)
    }

    pub(super) fn completions(&self) -> Option<i64> {
        self.spec()["completions"].as_i64()
    }

    pub(super) fn parallelism(&self) -> i64 {
        self.spec()["parallelism"].as_i64().unwrap_or(1)
    }

    pub(super) fn backoff_limit(&self) -> i64 {
        self.spec()["backoffLimit"].as_i64().unwrap_or(6)
    }

    pub(super) fn backoff_limit_per_index(&self) -> Option<i64> {
        self.spec()["backoffLimitPerIndex"].as_i64()
    }

    pub(super) fn max_failed_indexes(&self) -> Option<i64> {
        self.spec()["maxFailedIndexes"].as_i64()
    }

    pub(super) fn completion_mode(&self) -> &str {
        self.spec()["completionMode"]
            .as_str()
            .unwrap_or("NonIndexed")
    }

    pub(super) fn indexed(&self) -> bool {
        self.completion_mode() == "Indexed"
    }

    pub(super) fn suspended(&self) -> bool {
        self.spec()["suspend"] == true
    }

    pub(super) fn pod_failure_policy(&self) -> Option<&Value> {
        Some(&self.spec()["podFailurePolicy"]).filter(|p| p.is_object())
    }

    pub(super) fn restart_policy(&self) -> &str {
        self.spec()["template"]["spec"]["restartPolicy"]
            .as_str()
            .unwrap_or("")
    }

    /// `onlyReplaceFailedPods`: `podReplacementPolicy: Failed`, or a pod failure policy.
    pub(super) fn only_replace_failed_pods(&self) -> bool {
        self.spec()["podReplacementPolicy"] == "Failed" || self.pod_failure_policy().is_some()
    }

    /// How long the Job may still run under `activeDeadlineSeconds` (zero once it is
    /// past); `None` without a deadline, a start, or while suspended.
    fn deadline_left(&self, now: Timestamp) -> Option<Duration> {
        let seconds = self.spec()["activeDeadlineSeconds"].as_i64()?;
        if self.suspended() {
            return None;
        }
        let start = pods::time(&self.0["status"]["startTime"])?;
        let allowed = jiff::SignedDuration::from_secs(seconds);
        let elapsed = now.duration_since(start);
        Some(if elapsed >= allowed {
            Duration::ZERO
        } else {
            (allowed - elapsed).unsigned_abs()
        })
    }

    pub(super) fn status_str(&self, key: &str) -> &str {
        self.0["status"][key].as_str().unwrap_or("")
    }

    pub(super) fn condition(&self, kind: &str) -> Option<&Value> {
        self.0["status"]["conditions"]
            .as_array()?
            .iter()
            .find(|c| c["type"] == kind)
    }

    /// `IsJobFinished`: `Complete` or `Failed` is True.
    pub(super) fn finished(&self) -> bool {
        ["Complete", "Failed"]
            .iter()
            .any(|k| self.condition(k).is_some_and(|c| c["status"] == "True"))
    }

    fn conditions_mut(&mut self) -> &mut Vec<Value> {
        let conditions = &mut self.0["status"]["conditions"];
        if !conditions.is_array() {
            *conditions = json!([]);
        }
        match conditions {
            Value::Array(a) => a,
            // Made an array just above.
            _ => unreachable!(),
        }
    }

    pub(super) fn push_condition(&mut self, c: &Condition) {
        let c = c.to_json();
        self.conditions_mut().push(c);
    }

    /// `ensureJobConditionStatus`: a condition of `kind` with this status, reason and
    /// message, replaced whole (new times) when any differs; a False one is never added.
    /// Whether anything changed.
    pub(super) fn ensure_condition(
        &mut self,
        kind: &str,
        status: &str,
        reason: &str,
        message: &str,
        now: Timestamp,
    ) -> bool {
        let new = Condition::new(kind, status, reason, message, now).to_json();
        let conditions = self.conditions_mut();
        if let Some(existing) = conditions.iter_mut().find(|c| c["type"] == kind) {
            if existing["status"] != status
                || existing["reason"].as_str().unwrap_or("") != reason
                || existing["message"].as_str().unwrap_or("") != message
            {
                *existing = new;
                return true;
            }
            return false;
        }
        if status != "False" {
            conditions.push(new);
            return true;
        }
        if conditions.is_empty() {
            tracking::remove(&mut self.0["status"], "conditions");
        }
        false
    }
}

/// A Job condition.
#[derive(Clone, Debug)]
pub(super) struct Condition {
    pub kind: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    /// Its probe and transition time.
    pub time: String,
}

impl Condition {
    pub(super) fn new(
        kind: &str,
        status: &str,
        reason: &str,
        message: &str,
        now: Timestamp,
    ) -> Self {
        Condition {
            kind: kind.to_owned(),
            status: status.to_owned(),
            reason: reason.to_owned(),
            message: message.to_owned(),
            time: stamp(now),
        }
    }

    /// `newFailureCondition`: the interim `FailureTarget`.
    fn failure_target(reason: &str, message: &str, now: Timestamp) -> Self {
        Condition::new("FailureTarget", "True", reason, message, now)
    }

    fn from_json(c: &Value) -> Self {
        let text = |k: &str| c[k].as_str().unwrap_or("").to_owned();
        Condition {
            kind: text("type"),
            status: text("status"),
            reason: text("reason"),
            message: text("message"),
            time: text("lastTransitionTime"),
        }
    }

    pub(super) fn is_success_criteria_met(&self) -> bool {
        self.kind == "SuccessCriteriaMet" && self.status == "True"
    }

    fn to_json(&self) -> Value {
        let mut c = json!({
            "type": self.kind,
            "status": self.status,
            "lastProbeTime": self.time,
            "lastTransitionTime": self.time,
        });
        if !self.reason.is_empty() {
            c["reason"] = json!(self.reason);
        }
        if !self.message.is_empty() {
            c["message"] = json!(self.message);
        }
        c
    }
}

/// What one sync works out about a Job (`syncJobCtx`).
struct State {
    /// The Pods the Job owns.
    pub pods: Vec<Pod>,
    /// The condition the Job is finishing with: interim first, final in the end.
    pub finished: Option<Condition>,
    pub succeeded: i64,
    pub failed: i64,
    pub prev_succeeded_indexes: Intervals,
    pub succeeded_indexes: Intervals,
    /// With a backoff limit per index, the failed indexes.
    pub failed_indexes: Option<Intervals>,
    /// The failures since the last success, with this sync's.
    pub record: Record,
    /// Whether the record is to be kept (the status was written).
    pub record_saved: bool,
    /// The uids in `status.uncountedTerminatedPods` as the sync found them.
    pub uncounted_succeeded: HashSet<String>,
    pub uncounted_failed: HashSet<String>,
    /// The failed Pod each index keeps until its replacement exists.
    pub delayed: BTreeMap<i64, Pod>,
    pub terminating: i64,
    pub ready: i64,
}

impl State {
    /// The counts of the Pods found: new finished ones taken into the backoff record.
    fn new(job: &Job, pods: Vec<Pod>, record: Record) -> State {
        let uids = |list: &str| -> HashSet<String> {
            job.0["status"]["uncountedTerminatedPods"][list]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|u| u.as_str().map(str::to_owned))
                .collect()
        };
        let (uncounted_succeeded, uncounted_failed) = (uids("succeeded"), uids("failed"));
        let completions = job.completions().unwrap_or(0);
        // `getNewFinishedPods`: finished Pods with the finalizer not yet uncounted.
        let fresh = |p: &&Pod, uncounted: &HashSet<String>| {
            p.has_finalizer()
                && !uncounted.contains(p.uid())
                && (!job.indexed() || p.valid_index(completions).is_some())
        };
        let new_succeeded: Vec<&Pod> = pods
            .iter()
            .filter(|p| fresh(p, &uncounted_succeeded) && p.succeeded())
            .collect();
        let new_failed: Vec<&Pod> = pods
            .iter()
            .filter(|p| fresh(p, &uncounted_failed) && p.is_failed(job))
            .collect();
        let counted_failures = match job.pod_failure_policy() {
            Some(policy) => new_failed
                .iter()
                .filter(|p| policies::match_pod_failure_policy(policy, p).counts)
                .count(),
            None => new_failed.len(),
        };
        let status = &job.0["status"];
        let succeeded = status["succeeded"].as_i64().unwrap_or(0)
            + new_succeeded.len() as i64
            + uncounted_succeeded.len() as i64;
        let failed = status["failed"].as_i64().unwrap_or(0)
            + counted_failures as i64
            + uncounted_failed.len() as i64;
        let record = record.with(&new_succeeded, &new_failed);
        let active: Vec<&Pod> = pods.iter().filter(|p| p.is_active()).collect();
        let ready = active.iter().filter(|p| p.is_ready()).count() as i64;
        let terminating = pods.iter().filter(|p| p.is_terminating()).count() as i64;
        State {
            pods,
            finished: None,
            succeeded,
            failed,
            prev_succeeded_indexes: Intervals::default(),
            succeeded_indexes: Intervals::default(),
            failed_indexes: None,
            record,
            record_saved: false,
            uncounted_succeeded,
            uncounted_failed,
            delayed: BTreeMap::new(),
            terminating,
            ready,
        }
    }

    fn active_count(&self) -> i64 {
        self.pods.iter().filter(|p| p.is_active()).count() as i64
    }
}
