//! The TTL-after-finished controller (`pkg/controller/ttlafterfinished`,
//! "ttl-after-finished-controller"): a finished Job with `ttlSecondsAfterFinished` is
//! deleted that long after it finished — in the foreground, so its Pods go first — on the
//! cluster's clock. It records no events.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::api::JOBS;
use super::queue::split_key;
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Run, SyncError};

pub(super) struct TtlAfterFinished;

impl Run for TtlAfterFinished {
    fn name(&self) -> &'static str {
        "ttl-after-finished-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, _: &Api) {
        if change.is("batch", "jobs")
            && change.change != ChangeType::Deleted
            && needs_cleanup(&change.object)
        {
            queue.add(change.key());
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let (namespace, name) = split_key(key);
        let Some(job) = cx.api.get(JOBS, namespace, name) else {
            return Ok(Outcome::Done);
        };
        if !needs_cleanup(&job) {
            return Ok(Outcome::Done);
        }
        let Some(finished) = finish_time(&job) else {
            return Err(format!(
                "unable to find the time when the Job {namespace}/{name} finished"
            ));
        };
        let ttl = job["spec"]["ttlSecondsAfterFinished"].as_i64().unwrap_or(0);
        let expires = finished
            .checked_add(SignedDuration::from_secs(ttl))
            .unwrap_or(Timestamp::MAX);
        if cx.clock.now() < expires {
            return Ok(Outcome::At(expires));
        }
        let options = json!({
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": "Foreground",
            "preconditions": {"uid": job["metadata"]["uid"]},
        });
        match cx.api.delete(JOBS, namespace, name, &options) {
            Ok(_) => Ok(Outcome::Done),
            Err(e) if e.is_not_found() || e.is_conflict() => Ok(Outcome::Done),
            Err(e) => Err(e.into()),
        }
    }
}

/// Not being deleted, with a TTL, and finished.
fn needs_cleanup(job: &Value) -> bool {
    !job["metadata"]["deletionTimestamp"].is_string()
        && job["spec"]["ttlSecondsAfterFinished"].is_i64()
        && finish_time(job).is_some()
}

/// When the `Complete` or `Failed` condition became True.
fn finish_time(job: &Value) -> Option<Timestamp> {
    job["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| (c["type"] == "Complete" || c["type"] == "Failed") && c["status"] == "True")
        .and_then(|c| c["lastTransitionTime"].as_str()?.parse().ok())
}
