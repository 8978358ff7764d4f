//! The test's [`Kubelet`] run beside the controllers: each Pending Pod meets its fate once,
//! with the server's clock as the time it happened.

use super::api::PODS;
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Run, SyncError};
use crate::kubelet::{FIELD_MANAGER, Kubelet};

impl Run for Kubelet {
    fn name(&self) -> &'static str {
        FIELD_MANAGER
    }

    fn user_agent(&self) -> String {
        "kubelet/v1.36.2 (linux/amd64) kubernetes/98b3519".to_owned()
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, _: &Api) {
        if change.is("", "pods") && change.change != ChangeType::Deleted {
            queue.add(change.key());
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let (namespace, name) = super::queue::split_key(key);
        let Some(pod) = cx.api.get(PODS, namespace, name) else {
            return Ok(Outcome::Done);
        };
        let Some(fate) = self.pending_fate(&pod) else {
            return Ok(Outcome::Done);
        };
        let status = self.status(&pod, fate, &cx.clock.rfc3339());
        let patch = serde_json::json!({"status": status});
        match cx.api.patch(
            PODS,
            namespace,
            name,
            Some("status"),
            super::Patch::Merge,
            &patch,
        ) {
            Ok(_) => Ok(Outcome::Done),
            Err(e) if e.is_not_found() => Ok(Outcome::Done),
            Err(e) => Err(e.into()),
        }
    }
}
