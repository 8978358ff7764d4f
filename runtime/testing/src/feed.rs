//! What the server tells the in-memory controllers: every change it commits, in order, as
//! an informer delivers it to its handlers. The server pushes; the controllers' driver drains.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::Notify;

/// What happened to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChangeType {
    Added,
    Modified,
    Deleted,
}

/// One committed change, as an informer delivers it to its handlers.
#[derive(Clone, Debug)]
pub(crate) struct Change {
    /// The order of changes across the server.
    pub seq: u64,
    /// The kind's API group (`""` for core).
    pub group: &'static str,
    /// The kind's resource (plural).
    pub resource: &'static str,
    /// The kind's name (`Deployment`).
    pub kind: &'static str,
    pub change: ChangeType,
    /// The object before the change (updates and deletes).
    pub old: Option<Arc<Value>>,
    /// The object after the change; for a delete, its last state.
    pub object: Arc<Value>,
}

impl Change {
    /// Whether the change is to the resource `group`/`resource`.
    pub(crate) fn is(&self, group: &str, resource: &str) -> bool {
        self.group == group && self.resource == resource
    }

    /// The changed object's namespace (`""` for a cluster-scoped one).
    pub(crate) fn namespace(&self) -> &str {
        self.object["metadata"]["namespace"].as_str().unwrap_or("")
    }

    /// The changed object's name.
    pub(crate) fn name(&self) -> &str {
        self.object["metadata"]["name"].as_str().unwrap_or("")
    }

    /// The changed object's queue key (`namespace/name`, or `name`).
    pub(crate) fn key(&self) -> String {
        key(self.namespace(), self.name())
    }
}

/// The changes the server committed and the controllers have not seen yet. The server
/// pushes while it holds its state, so a write's changes are queued before its answer is
/// sent, and a `settle` after it waits for them.
#[derive(Default)]
pub(crate) struct Feed {
    changes: Mutex<VecDeque<Change>>,
    published: std::sync::atomic::AtomicU64,
    pub(crate) wake: Notify,
}

impl Feed {
    pub(crate) fn push(&self, mut change: Change) {
        let seq = self
            .published
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        change.seq = seq;
        self.changes.lock().push_back(change);
        self.wake.notify_one();
    }

    pub(crate) fn published(&self) -> u64 {
        self.published.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub(crate) fn drain(&self) -> VecDeque<Change> {
        std::mem::take(&mut *self.changes.lock())
    }
}

/// A queue key for a namespaced object (`namespace/name`) or a cluster-scoped one (`name`),
/// as client-go's `MetaNamespaceKeyFunc` writes it.
pub(crate) fn key(namespace: &str, name: &str) -> String {
    match namespace {
        "" => name.to_owned(),
        ns => format!("{ns}/{name}"),
    }
}
