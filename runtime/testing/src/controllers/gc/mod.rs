//! The garbage collector (`pkg/controller/garbagecollector`): deletes objects whose owners
//! are all gone, orphans the dependents of an owner deleted with the `orphan` finalizer, and
//! deletes the dependents of one deleted with `foregroundDeletion` before letting it go.
//!
//! It watches every kind but Events. Its graph of owners and dependents ([`graph`], of the
//! identities and references of [`refs`]) is built from every change the server commits;
//! what a change calls for is queued as "attempt to delete" or "attempt to orphan" one uid,
//! and worked on ([`collect`]) with the server's current objects. Its writes are
//! kube-controller-manager's: DELETE with uid and resourceVersion preconditions and a
//! propagation policy, a strategic-merge patch removing owner references (a JSON merge patch
//! for custom resources, which refuse the strategic one), a merge patch removing its
//! finalizer; its only event is `OwnerRefInvalidNamespace`.
//!
//! Without an informer's lag the graph is always current: nothing waits for caches, and every
//! kind the server serves is known from the start (kube-controller-manager learns a new CRD's
//! at its next discovery, every 30 s). Retries (an owner of a kind the server does not serve
//! is retried forever) wait client-go's per-item backoff on the cluster's clock.

mod collect;
mod graph;
mod refs;

use std::collections::HashMap;
use std::time::Duration;

use self::graph::{EventKind, Graph, GraphEvent};
use self::refs::{Identity, Marks, OwnerRef};
use super::{Api, Change, ChangeType, Cx, EventType, Outcome, Queue, Run, SyncError};

/// What is queued for a uid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Work {
    /// `attemptToDelete`: collect the object if its owners are gone, or finish a foreground
    /// deletion.
    Delete,
    /// `attemptToOrphan`: take the owner's references off its dependents.
    Orphan,
}

/// The queue key of `work` on `uid`.
pub(super) fn work_key(work: Work, uid: &str) -> String {
    match work {
        Work::Delete => format!("delete:{uid}"),
        Work::Orphan => format!("orphan:{uid}"),
    }
}

/// The resources the collector leaves alone: Events are never collected.
fn ignored(change: &Change) -> bool {
    change.resource == "events" && matches!(change.group, "" | "events.k8s.io")
}

/// Why work on a uid stopped short.
#[derive(Debug)]
pub(super) enum Failure {
    /// A reference's kind is not served (`restMappingError`): retried until it is.
    Unmapped(String),
    /// The object exists but was never seen (a kind the collector does not watch).
    NotObserved,
    /// A request the server refused.
    Refused(super::Refused),
    /// Anything else worth a retry.
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unmapped(m) | Failure::Other(m) => f.write_str(m),
            Failure::NotObserved => f.write_str("item hasn't been observed via informer yet"),
            Failure::Refused(r) => write!(f, "{r}"),
        }
    }
}

impl From<super::Refused> for Failure {
    fn from(r: super::Refused) -> Self {
        Failure::Refused(r)
    }
}

/// The garbage collector.
#[derive(Default)]
pub(super) struct GarbageCollector {
    graph: Graph,
    /// How many times in a row each key failed.
    failures: HashMap<String, u32>,
}

impl GarbageCollector {
    /// One more failure of `key`, and client-go's per-item backoff after it: 5 ms doubling,
    /// at most 1000 s.
    fn count_failure(&mut self, key: &str) -> Duration {
        let failures = self.failures.entry(key.to_owned()).or_insert(0);
        *failures += 1;
        let exponent = (*failures - 1).min(20);
        Duration::from_millis(5u64 << exponent).min(Duration::from_secs(1000))
    }
}

impl Run for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbage-collector-controller"
    }

    fn user_agent(&self) -> String {
        format!("{}/generic-garbage-collector", super::api::USER_AGENT)
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, _: &Api) {
        if ignored(change) {
            return;
        }
        let object = &change.object;
        let meta = &object["metadata"];
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
        let event = GraphEvent {
            kind: match change.change {
                ChangeType::Deleted => EventKind::Delete,
                ChangeType::Added | ChangeType::Modified => EventKind::Upsert,
            },
            virtual_: false,
            identity: Identity {
                api_version: text(&object["apiVersion"]),
                kind: change.kind.to_owned(),
                name: text(&meta["name"]),
                uid: text(&meta["uid"]),
                namespace: text(&meta["namespace"]),
            },
            owners: OwnerRef::all_of(object),
            marks: Marks::of(object),
            old: change.old.as_deref().map(Marks::of),
        };
        self.graph.apply(event, queue);
    }

    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let outcome =
            match key.split_once(':') {
                Some(("event", n)) => {
                    if let Some(event) = self.graph.take_event(n) {
                        cx.event(
                            &event.object,
                            EventType::Warning,
                            "OwnerRefInvalidNamespace",
                            &event.message,
                        );
                    }
                    Ok(())
                }
                Some(("delete", uid)) => collect::Collector::new(&mut self.graph, cx.api, cx.queue)
                    .attempt_to_delete(uid),
                Some(("orphan", uid)) => collect::Collector::new(&mut self.graph, cx.api, cx.queue)
                    .attempt_to_orphan(uid),
                _ => Ok(()),
            };
        let delayed = std::mem::take(&mut self.graph.delayed);
        let outcome = match outcome {
            Ok(()) if !delayed.iter().any(|k| k == key) => {
                self.failures.remove(key);
                Outcome::Done
            }
            Ok(()) => Outcome::Done,
            Err(failure) => {
                tracing::debug!(%key, %failure, "garbage collector: retrying");
                Outcome::After(self.count_failure(key))
            }
        };
        for key in delayed {
            let delay = self.count_failure(&key);
            cx.queue.add_after(key, cx.clock.now(), delay);
        }
        Ok(outcome)
    }
}
