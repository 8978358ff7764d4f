//! The service-account controller: a `default` ServiceAccount in every active namespace,
//! made again when it is deleted (`pkg/controller/serviceaccount`).

use serde_json::json;

use super::api::{NAMESPACES, SERVICE_ACCOUNTS};
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Run, SyncError};

/// The accounts every namespace gets.
const ACCOUNTS: [&str; 1] = ["default"];

pub(super) struct ServiceAccounts;

impl Run for ServiceAccounts {
    fn name(&self) -> &'static str {
        "serviceaccount-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, _: &Api) {
        if change.is("", "namespaces") && change.change != ChangeType::Deleted {
            queue.add(change.name());
        }
        if change.is("", "serviceaccounts") && change.change == ChangeType::Deleted {
            queue.add(change.namespace());
        }
    }

    fn sync(&mut self, namespace: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let Some(ns) = cx.api.get(NAMESPACES, "", namespace) else {
            return Ok(Outcome::Done);
        };
        if ns["status"]["phase"] != "Active" {
            return Ok(Outcome::Done);
        }
        for name in ACCOUNTS {
            if cx.api.get(SERVICE_ACCOUNTS, namespace, name).is_some() {
                continue;
            }
            let account =
                json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}});
            match cx.api.create(SERVICE_ACCOUNTS, namespace, &account) {
                Ok(_) => {}
                // Made meanwhile, or the namespace began terminating.
                Err(e) if e.is_already_exists() || e.is_namespace_terminating() => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Outcome::Done)
    }
}
