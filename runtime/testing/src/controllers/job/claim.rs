//! Which Pods a Job owns (`getPodsForJob` with `PodControllerRefManager.ClaimPods`): its
//! controlled Pods that match its selector, orphans it adopts (owner reference and
//! tracking finalizer in one patch), Pods it releases; and Pods left with the tracking
//! finalizer when their Job is gone or finished (`syncOrphanPod`).

use serde_json::{Value, json};
use std::sync::Arc;

use super::pods::{Pod, TRACKING_FINALIZER, controller_ref};
use super::{JOBS, Job};
use crate::builtin::validate::LabelSelector as Selector;
use crate::controllers::api::PODS;
use crate::controllers::{Api, Cx, Patch, Refused};

/// The Pods `job` owns once orphans matching its selector are adopted and owned Pods
/// that no longer match are released.
pub(super) fn pods_for(job: &Job, cx: &mut Cx<'_>) -> Result<Vec<Pod>, Refused> {
    let selector = Selector::parse(&job.0["spec"]["selector"]);
    let matches = |pod: &Value| {
        selector
            .as_ref()
            .is_some_and(|s| s.matches(&pod["metadata"]["labels"]))
    };
    let mut owned = Vec::new();
    for pod in cx.api.list(PODS, Some(job.namespace())) {
        match controller_ref(&pod) {
            Some(owner) if owner["uid"] != job.uid() => {}
            Some(_) if matches(&pod) => owned.push(Pod(pod)),
            Some(_) => {
                if !job.deleting() {
                    release(cx, job, &pod)?;
                }
            }
            None => {
                if job.deleting()
                    || !matches(&pod)
                    || pod["metadata"]["deletionTimestamp"].is_string()
                {
                    continue;
                }
                if let Some(adopted) = adopt(cx, job, &pod)? {
                    owned.push(Pod(Arc::new(adopted)));
                }
            }
        }
    }
    Ok(owned)
}

/// Adopts an orphan: after checking with a fresh read that the Job is not being deleted,
/// one patch adds the Job as controller and the tracking finalizer. `None` when the Pod
/// is gone.
fn adopt(cx: &mut Cx<'_>, job: &Job, pod: &Value) -> Result<Option<Value>, Refused> {
    let fresh = cx.api.get(JOBS, job.namespace(), job.name());
    let fresh_uid = fresh.as_ref().map(|j| &j["metadata"]["uid"]);
    if fresh_uid != Some(&json!(job.uid())) {
        return Err(refused(format!(
            "original Job {}/{} is gone: got uid {}, wanted {}",
            job.namespace(),
            job.name(),
            fresh_uid.and_then(Value::as_str).unwrap_or(""),
            job.uid()
        )));
    }
    if let Some(deleted) = fresh
        .as_ref()
        .and_then(|j| j["metadata"]["deletionTimestamp"].as_str())
    {
        return Err(refused(format!(
            "{}/{} has just been deleted at {deleted}",
            job.namespace(),
            job.name()
        )));
    }
    let patch = json!({"metadata": {
        "ownerReferences": [{
            "apiVersion": "batch/v1", "kind": "Job", "name": job.name(), "uid": job.uid(),
            "controller": true, "blockOwnerDeletion": true,
        }],
        "uid": pod["metadata"]["uid"],
        "finalizers": [TRACKING_FINALIZER],
    }});
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or("");
    let name = pod["metadata"]["name"].as_str().unwrap_or("");
    match cx
        .api
        .patch(PODS, namespace, name, None, Patch::Strategic, &patch)
    {
        Ok(adopted) => Ok(Some(Arc::unwrap_or_clone(adopted))),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Releases a Pod that no longer matches: one patch removes the owner reference and the
/// tracking finalizer.
fn release(cx: &mut Cx<'_>, job: &Job, pod: &Value) -> Result<(), Refused> {
    let patch = json!({"metadata": {
        "ownerReferences": [{"$patch": "delete", "uid": job.uid()}],
        "$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER],
        "uid": pod["metadata"]["uid"],
    }});
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or("");
    let name = pod["metadata"]["name"].as_str().unwrap_or("");
    match cx
        .api
        .patch(PODS, namespace, name, None, Patch::Strategic, &patch)
    {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() || e.code == 422 => Ok(()),
        Err(e) => Err(e),
    }
}

fn refused(message: String) -> Refused {
    Refused {
        code: 409,
        reason: "Conflict".into(),
        message,
        status: Value::Null,
    }
}

/// The Job a controller reference names, if it exists with that uid (`resolveControllerRef`).
pub(super) fn resolve(api: &Api, namespace: &str, owner: &Value) -> Option<Job> {
    if owner["kind"] != "Job" {
        return None;
    }
    let job = api.get_owned(JOBS, namespace, owner["name"].as_str()?)?;
    (job["metadata"]["uid"] == owner["uid"]).then_some(Job(job))
}

/// `syncOrphanPod`: a Pod keeps its tracking finalizer only while a Job of this
/// controller that has not finished controls it.
pub(super) fn sync_orphan(cx: &mut Cx<'_>, namespace: &str, name: &str) -> Result<(), Refused> {
    let Some(pod) = cx.api.get(PODS, namespace, name) else {
        return Ok(());
    };
    let pod = Pod(pod);
    if let Some(owner) = pod.controller_ref() {
        if owner["kind"] != "Job" || owner["apiVersion"] != "batch/v1" {
            return Ok(());
        }
        if let Some(job) = resolve(cx.api, namespace, owner)
            && (job.managed_externally() || !job.finished())
        {
            return Ok(());
        }
    }
    super::pods::remove_finalizer(cx, &pod)
}

/// `cleanupPodFinalizers`: the keys of the Pods `job` controls that still have the
/// tracking finalizer, for the orphan sync.
pub(super) fn pods_to_clean(api: &Api, job: &Job) -> Vec<String> {
    let Some(selector) = Selector::parse(&job.0["spec"]["selector"]) else {
        return Vec::new();
    };
    api.list(PODS, Some(job.namespace()))
        .into_iter()
        .map(Pod)
        .filter(|p| selector.matches(p.labels()))
        .filter(|p| p.controller_ref().is_some_and(|o| o["uid"] == job.uid()))
        .filter(Pod::has_finalizer)
        .map(|p| super::orphan_key(p.namespace(), p.name()))
        .collect()
}
