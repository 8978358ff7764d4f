//! A Job's Pods: what each one is (active, terminating, ready, succeeded, failed, its
//! completion index and when it finished), the Pods a Job creates from its template, and
//! the writes the controller makes to them (`pkg/controller/job`, `controller_utils.go`).

use std::cmp::Ordering;
use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::{INDEX_FAILURE_COUNT, INDEX_IGNORED_FAILURE_COUNT, Job};
use crate::controllers::api::PODS;
use crate::controllers::{Cx, EventType, Patch, Refused};

/// The finalizer that keeps a finished Pod until the Job has counted it.
pub(super) const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";
/// The annotation (and label) with an Indexed Job's Pod's completion index.
pub(super) const COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";
/// The environment variable an Indexed Job's containers read their index from.
const COMPLETION_INDEX_ENV: &str = "JOB_COMPLETION_INDEX";
/// `names.MaxGeneratedNameLength`: a generated name's prefix is cut to this length.
const MAX_GENERATED_NAME_PREFIX: usize = 58;

/// One Pod as the Job controller reads it.
#[derive(Clone, Debug)]
pub(super) struct Pod(pub Arc<Value>);

impl Pod {
    fn meta(&self) -> &Value {
        &self.0["metadata"]
    }

    pub(super) fn name(&self) -> &str {
        self.meta()["name"].as_str().unwrap_or("")
    }

    pub(super) fn namespace(&self) -> &str {
        self.meta()["namespace"].as_str().unwrap_or("")
    }

    pub(super) fn uid(&self) -> &str {
        self.meta()["uid"].as_str().unwrap_or("")
    }

    pub(super) fn phase(&self) -> &str {
        self.0["status"]["phase"].as_str().unwrap_or("")
    }

    pub(super) fn succeeded(&self) -> bool {
        self.phase() == "Succeeded"
    }

    /// In a terminal phase (`Succeeded` or `Failed`).
    fn terminal(&self) -> bool {
        matches!(self.phase(), "Succeeded" | "Failed")
    }

    pub(super) fn deleting(&self) -> bool {
        self.meta()["deletionTimestamp"].is_string()
    }

    pub(super) fn has_finalizer(&self) -> bool {
        self.meta()["finalizers"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f == TRACKING_FINALIZER))
    }

    /// `controller.IsPodActive`: neither terminal nor being deleted.
    pub(super) fn is_active(&self) -> bool {
        !self.terminal() && !self.deleting()
    }

    /// `controller.IsPodTerminating`: being deleted before it reached a terminal phase.
    pub(super) fn is_terminating(&self) -> bool {
        !self.terminal() && self.deleting()
    }

    /// `podutil.IsPodReady`.
    pub(super) fn is_ready(&self) -> bool {
        self.condition("Ready")
            .is_some_and(|c| c["status"] == "True")
    }

    fn condition(&self, kind: &str) -> Option<&Value> {
        self.0["status"]["conditions"]
            .as_array()?
            .iter()
            .find(|c| c["type"] == kind)
    }

    /// `isPodFailed`: Failed, or — unless only failed Pods are replaced — deleted before it
    /// succeeded.
    pub(super) fn is_failed(&self, job: &Job) -> bool {
        if self.phase() == "Failed" {
            return true;
        }
        if job.only_replace_failed_pods() {
            return false;
        }
        self.deleting() && !self.succeeded()
    }

    /// `getCompletionIndex`: the index annotation, when it is a number of at least 0.
    pub(super) fn index(&self) -> Option<i64> {
        annotation(self.meta(), super::pods::COMPLETION_INDEX)
            .and_then(|v| v.parse::<i64>().ok())
            .filter(|i| *i >= 0)
    }

    /// The index, when it is valid for a Job of `completions`.
    pub(super) fn valid_index(&self, completions: i64) -> Option<i64> {
        self.index().filter(|i| *i < completions)
    }

    /// `getIndexFailureCount`: the failure-count annotation (0 when missing or invalid).
    pub(super) fn failure_count(&self) -> i64 {
        count_annotation(self.meta(), INDEX_FAILURE_COUNT)
    }

    /// The ignored-failure-count annotation (0 when missing or invalid).
    pub(super) fn ignored_failure_count(&self) -> i64 {
        count_annotation(self.meta(), INDEX_IGNORED_FAILURE_COUNT)
    }

    /// `getIndexAbsoluteFailureCount`.
    pub(super) fn absolute_failure_count(&self) -> i64 {
        self.failure_count() + self.ignored_failure_count()
    }

    pub(super) fn creation(&self) -> Timestamp {
        time(&self.meta()["creationTimestamp"]).unwrap_or(Timestamp::UNIX_EPOCH)
    }

    /// `getFinishedTime`: the latest of the containers' finish times when all of them
    /// finished, else when the Pod stopped being Ready, else when it was deleted (less its
    /// grace period), else its creation.
    pub(super) fn finished_time(&self) -> Timestamp {
        if let Some(t) = self.containers_finished() {
            return t;
        }
        if let Some(ready) = self.condition("Ready")
            && ready["status"] == "False"
            && let Some(t) = time(&ready["lastTransitionTime"])
        {
            return t;
        }
        if let Some(deleted) = time(&self.meta()["deletionTimestamp"]) {
            let grace = self.meta()["deletionGracePeriodSeconds"]
                .as_i64()
                .unwrap_or(0);
            return deleted
                .checked_sub(SignedDuration::from_secs(grace))
                .unwrap_or(deleted);
        }
        self.creation()
    }

    fn containers_finished(&self) -> Option<Timestamp> {
        let mut latest: Option<Timestamp> = None;
        for status in self.0["status"]["containerStatuses"].as_array()? {
            let finished = time(&status["state"]["terminated"]["finishedAt"])?;
            if latest.is_none_or(|l| l < finished) {
                latest = Some(finished);
            }
        }
        latest
    }

    /// The sum of the restart counts of the containers and init containers.
    pub(super) fn restarts(&self) -> i64 {
        ["initContainerStatuses", "containerStatuses"]
            .iter()
            .flat_map(|k| self.0["status"][k].as_array().into_iter().flatten())
            .map(|s| s["restartCount"].as_i64().unwrap_or(0))
            .sum()
    }

    fn max_restarts(&self) -> i64 {
        self.0["status"]["containerStatuses"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| s["restartCount"].as_i64().unwrap_or(0))
            .max()
            .unwrap_or(0)
    }

    /// The controller owner reference.
    pub(super) fn controller_ref(&self) -> Option<&Value> {
        controller_ref(&self.0)
    }

    pub(super) fn labels(&self) -> &Value {
        &self.meta()["labels"]
    }
}

/// The controller owner reference of an object.
pub(crate) fn controller_ref(object: &Value) -> Option<&Value> {
    object["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"] == true)
}

fn annotation<'v>(meta: &'v Value, key: &str) -> Option<&'v str> {
    meta["annotations"][key].as_str()
}

/// `parseInt32` of an annotation: 0 when missing, unparsable, negative or too large.
fn count_annotation(meta: &Value, key: &str) -> i64 {
    annotation(meta, key)
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|n| (0..=i64::from(i32::MAX)).contains(n))
        .unwrap_or(0)
}

/// A `metav1.Time`.
pub(super) fn time(value: &Value) -> Option<Timestamp> {
    value.as_str()?.parse().ok()
}

/// `controller.ActivePods`' order: the Pods to delete first come first — unscheduled
/// before scheduled, Pending before Unknown before Running, not Ready before Ready, Ready
/// for less time first, more restarts first, newer first.
pub(super) fn deletion_order(a: &Pod, b: &Pod) -> Ordering {
    let node = |p: &Pod| !p.0["spec"]["nodeName"].as_str().unwrap_or("").is_empty();
    let phase = |p: &Pod| match p.phase() {
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    };
    let ready_since = |p: &Pod| {
        p.condition("Ready")
            .and_then(|c| time(&c["lastTransitionTime"]))
    };
    node(a)
        .cmp(&node(b))
        .then_with(|| phase(a).cmp(&phase(b)))
        .then_with(|| a.is_ready().cmp(&b.is_ready()))
        .then_with(|| {
            if !(a.is_ready() && b.is_ready()) {
                return Ordering::Equal;
            }
            // The one Ready later (or with no time) first.
            match (ready_since(a), ready_since(b)) {
                (x, y) if x == y => Ordering::Equal,
                (None, _) => Ordering::Less,
                (_, None) => Ordering::Greater,
                (Some(x), Some(y)) => y.cmp(&x),
            }
        })
        .then_with(|| b.max_restarts().cmp(&a.max_restarts()))
        .then_with(|| b.creation().cmp(&a.creation()))
}

/// The Pod a Job creates (`GetPodFromTemplate`): its template with the tracking finalizer
/// and the Job as controller; an Indexed Job's also carries its index (annotation, label,
/// hostname, `JOB_COMPLETION_INDEX`) and, with a backoff limit per index, its failure
/// counts.
pub(super) fn from_template(
    job: &Job,
    index: Option<i64>,
    failure_counts: Option<(i64, i64)>,
) -> Value {
    let template = &job.0["spec"]["template"];
    let mut meta = json!({});
    for key in ["labels", "annotations"] {
        if template["metadata"][key].is_object() {
            meta[key] = template["metadata"][key].clone();
        }
    }
    let mut finalizers = template["metadata"]["finalizers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !finalizers.iter().any(|f| f == TRACKING_FINALIZER) {
        finalizers.push(json!(TRACKING_FINALIZER));
    }
    meta["finalizers"] = json!(finalizers);
    meta["generateName"] = json!(format!("{}-", job.name()));
    meta["ownerReferences"] = json!([{
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": job.name(),
        "uid": job.uid(),
        "controller": true,
        "blockOwnerDeletion": true,
    }]);
    let mut spec = template["spec"].clone();
    if let Some(index) = index {
        for key in ["initContainers", "containers"] {
            for container in spec[key].as_array_mut().into_iter().flatten() {
                add_index_env(container);
            }
        }
        let i = index.to_string();
        if !meta["annotations"].is_object() {
            meta["annotations"] = json!({});
        }
        meta["annotations"][COMPLETION_INDEX] = json!(i);
        if !meta["labels"].is_object() {
            meta["labels"] = json!({});
        }
        meta["labels"][COMPLETION_INDEX] = json!(i);
        spec["hostname"] = json!(format!("{}-{index}", job.name()));
        meta["generateName"] = json!(generate_name_with_index(job.name(), index));
        if let Some((failed, ignored)) = failure_counts {
            meta["annotations"][INDEX_FAILURE_COUNT] = json!(failed.to_string());
            if ignored > 0 {
                meta["annotations"][INDEX_IGNORED_FAILURE_COUNT] = json!(ignored.to_string());
            }
        }
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
}

/// `addCompletionIndexEnvVariable`.
fn add_index_env(container: &mut Value) {
    let env = &mut container["env"];
    if env
        .as_array()
        .is_some_and(|e| e.iter().any(|v| v["name"] == COMPLETION_INDEX_ENV))
    {
        return;
    }
    if !env.is_array() {
        *env = json!([]);
    }
    if let Some(env) = env.as_array_mut() {
        env.push(json!({
            "name": COMPLETION_INDEX_ENV,
            "valueFrom": {"fieldRef": {"fieldPath": format!("metadata.labels['{COMPLETION_INDEX}']")}},
        }));
    }
}

/// `podGenerateNameWithIndex`: `<job>-<index>-`, the Job's name cut so that the prefix
/// fits a generated name.
fn generate_name_with_index(job: &str, index: i64) -> String {
    let suffix = format!("-{index}-");
    let mut prefix = format!("{job}{suffix}");
    if prefix.len() > MAX_GENERATED_NAME_PREFIX {
        let keep = MAX_GENERATED_NAME_PREFIX.saturating_sub(suffix.len());
        prefix = format!("{}{suffix}", &job[..keep.min(job.len())]);
    }
    prefix
}

/// `RealPodControl.CreatePods`: the Pod, and the event on the Job.
pub(super) fn create(cx: &mut Cx<'_>, job: &Job, pod: &Value) -> Result<(), Refused> {
    match cx.api.create(PODS, job.namespace(), pod) {
        Ok(created) => {
            let name = created["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            cx.event(
                &job.0,
                EventType::Normal,
                "SuccessfulCreate",
                &format!("Created pod: {name}"),
            );
            Ok(())
        }
        // A namespace being deleted takes every creation with it: nothing to say.
        Err(e) if namespace_terminating(&e) => Err(e),
        Err(e) => {
            cx.event(
                &job.0,
                EventType::Warning,
                "FailedCreate",
                &format!("Error creating: {}", e.message),
            );
            Err(e)
        }
    }
}

/// Whether a refusal is for a namespace being deleted (`NamespaceTerminatingCause`).
pub(crate) fn namespace_terminating(e: &Refused) -> bool {
    e.status["details"]["causes"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["type"] == "NamespaceTerminating"))
}

/// `RealPodControl.DeletePod`: the DELETE and the event on the Job. A Pod already gone
/// counts as deleted, without an event.
pub(super) fn delete(cx: &mut Cx<'_>, job: &Job, pod: &Pod) -> Result<(), Refused> {
    match cx
        .api
        .delete(PODS, pod.namespace(), pod.name(), &Value::Null)
    {
        Ok(_) => {
            cx.event(
                &job.0,
                EventType::Normal,
                "SuccessfulDelete",
                &format!("Deleted pod: {}", pod.name()),
            );
            Ok(())
        }
        Err(e) if e.is_not_found() => Err(e),
        Err(e) => {
            cx.event(
                &job.0,
                EventType::Warning,
                "FailedDelete",
                &format!("Error deleting: {}", e.message),
            );
            Err(e)
        }
    }
}

/// `removeTrackingFinalizerPatch`, sent when the Pod has the finalizer (a strategic merge
/// patch of the Pod).
pub(super) fn patch_away_finalizer(cx: &mut Cx<'_>, pod: &Pod) -> Result<(), Refused> {
    if !pod.has_finalizer() {
        return Ok(());
    }
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}});
    cx.api
        .patch(
            PODS,
            pod.namespace(),
            pod.name(),
            None,
            Patch::Strategic,
            &patch,
        )
        .map(drop)
}

/// The finalizer patched away; a Pod already gone has none either.
pub(super) fn remove_finalizer(cx: &mut Cx<'_>, pod: &Pod) -> Result<(), Refused> {
    match patch_away_finalizer(cx, pod) {
        Err(e) if e.is_not_found() => Ok(()),
        other => other,
    }
}

/// `deleteJobPods`: each Pod loses its finalizer (so it is not counted), then is deleted.
/// How many were deleted (a Pod found gone counts), how many of those were Ready, and the
/// first error.
pub(super) fn delete_uncounted(
    cx: &mut Cx<'_>,
    job: &Job,
    pods: &[&Pod],
) -> (i64, i64, Option<Refused>) {
    delete_each(cx, job, pods, true)
}

/// `deleteActivePods`, when the Job is finishing: the Pods are deleted keeping their
/// finalizer (it goes once they are counted). How many were deleted, how many were Ready,
/// and the first error.
pub(super) fn delete_keeping_finalizer(
    cx: &mut Cx<'_>,
    job: &Job,
    pods: &[&Pod],
) -> (i64, i64, Option<Refused>) {
    delete_each(cx, job, pods, false)
}

/// Deletes each Pod, its finalizer first when `uncounted`.
fn delete_each(
    cx: &mut Cx<'_>,
    job: &Job,
    pods: &[&Pod],
    uncounted: bool,
) -> (i64, i64, Option<Refused>) {
    let (mut deleted, mut ready, mut error) = (0, 0, None);
    for pod in pods {
        if uncounted && let Err(e) = patch_away_finalizer(cx, pod) {
            if e.is_not_found() {
                deleted += 1;
            } else {
                error.get_or_insert(e);
            }
            continue;
        }
        match delete(cx, job, pod) {
            Ok(()) => deleted += 1,
            Err(e) if e.is_not_found() => deleted += 1,
            Err(e) => {
                error.get_or_insert(e);
            }
        }
        if pod.is_ready() {
            ready += 1;
        }
    }
    (deleted, ready, error)
}
