//! The garbage collector's graph of owners and dependents (`graph.go`, `graph_builder.go`):
//! one node per uid, built from every change the server commits, with "virtual" nodes for
//! owners that references name but that have not been seen. Changing it decides what the
//! collector looks at next: the keys it queues.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Value, json};

use super::refs::{AbsentOwners, Identity, Marks, OwnerRef};
use super::{Work, work_key};
use crate::controllers::Queue;

/// What the graph knows of one uid.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub identity: Identity,
    /// The object's references as last seen.
    pub owners: Vec<OwnerRef>,
    /// The uids of the objects that reference this uid, whatever coordinates they use.
    pub dependents: BTreeSet<String>,
    /// Seen with a deletionTimestamp (never undone).
    pub being_deleted: bool,
    /// Seen with a deletionTimestamp and the `foregroundDeletion` finalizer.
    pub deleting_dependents: bool,
    /// Only referenced so far, never seen.
    pub virtual_: bool,
}

/// A change of the graph: an object seen (added, updated, deleted), or a "virtual" delete
/// the collector itself concluded (the object is not there).
#[derive(Clone, Debug)]
pub(super) struct GraphEvent {
    pub kind: EventKind,
    pub virtual_: bool,
    pub identity: Identity,
    pub owners: Vec<OwnerRef>,
    pub marks: Marks,
    /// The object before an update.
    pub old: Option<Marks>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EventKind {
    Upsert,
    Delete,
}

/// An event the graph builder records: on which object, and what it says.
#[derive(Clone, Debug)]
pub(super) struct InvalidNamespace {
    pub object: Value,
    pub message: String,
}

/// The graph, and what building it queues.
#[derive(Default)]
pub(super) struct Graph {
    pub nodes: HashMap<String, Node>,
    pub absent: AbsentOwners,
    /// Events waiting for a sync to record them, by their queue key's number.
    events: BTreeMap<u64, InvalidNamespace>,
    recorded: u64,
    /// Keys to queue after their backoff (`AddRateLimited`).
    pub delayed: Vec<String>,
}

impl Graph {
    /// `processGraphChanges`: applies one change, queueing what it calls for.
    pub(super) fn apply(&mut self, event: GraphEvent, queue: &mut Queue) {
        let uid = event.identity.uid.clone();
        if !event.virtual_
            && let Some(node) = self.nodes.get(&uid)
            && node.virtual_
        {
            self.observe_virtual(&uid, &event.identity, queue);
        }
        let found = self.nodes.contains_key(&uid);
        match event.kind {
            EventKind::Upsert if !found => {
                let node = Node {
                    identity: event.identity.clone(),
                    owners: event.owners.clone(),
                    dependents: BTreeSet::new(),
                    being_deleted: event.marks.being_deleted,
                    deleting_dependents: event.marks.being_deleted && event.marks.foreground,
                    virtual_: false,
                };
                self.nodes.insert(uid.clone(), node);
                self.add_dependent_to_owners(&uid, &event.owners, queue);
                self.process_transitions(&uid, event.old, event.marks, queue);
            }
            EventKind::Upsert => {
                if let Some(node) = self.nodes.get_mut(&uid)
                    && !event.virtual_
                {
                    node.identity.api_version = event.identity.api_version.clone();
                    node.identity.kind = event.identity.kind.clone();
                }
                let before = self.nodes[&uid].owners.clone();
                let (added, removed, changed) = differences(&before, &event.owners);
                if !added.is_empty() || !removed.is_empty() || !changed.is_empty() {
                    self.queue_unblocked_owners(&removed, &changed, queue);
                    if let Some(node) = self.nodes.get_mut(&uid) {
                        node.owners = event.owners.clone();
                    }
                    self.add_dependent_to_owners(&uid, &added, queue);
                    self.remove_dependent_from_owners(&uid, &removed);
                }
                if event.marks.being_deleted
                    && let Some(node) = self.nodes.get_mut(&uid)
                {
                    node.being_deleted = true;
                }
                self.process_transitions(&uid, event.old, event.marks, queue);
            }
            EventKind::Delete if found => self.delete(event, queue),
            EventKind::Delete => {}
        }
    }

    /// A virtual node seen for the first time: it takes the object's coordinates, and the
    /// dependents that named it otherwise are looked at again.
    fn observe_virtual(&mut self, uid: &str, observed: &Identity, queue: &mut Queue) {
        let node = &self.nodes[uid];
        if &node.identity != observed {
            let dependents: Vec<String> = node.dependents.iter().cloned().collect();
            let (_, mismatched) = self.partition_dependents(&dependents, observed);
            for dep in mismatched {
                let namespace_differs = self
                    .nodes
                    .get(&dep)
                    .is_some_and(|d| d.identity.namespace != observed.namespace);
                if !observed.namespace.is_empty() && namespace_differs {
                    self.report_invalid_namespace(&dep, &observed.uid, queue);
                }
                queue.add(work_key(Work::Delete, &dep));
            }
        }
        if let Some(node) = self.nodes.get_mut(uid) {
            node.identity = observed.clone();
            node.virtual_ = false;
        }
    }

    /// The delete of an object seen gone, or a virtual one.
    fn delete(&mut self, event: GraphEvent, queue: &mut Queue) {
        let uid = event.identity.uid.clone();
        let deleted = event.identity.clone();
        let node = self.nodes[&uid].clone();
        if event.virtual_ {
            let dependents: Vec<String> = node.dependents.iter().cloned().collect();
            let (matching, mismatched) = self.partition_dependents(&dependents, &deleted);
            if node.virtual_ {
                if !mismatched.is_empty() {
                    // Dependents disagree on the owner's coordinates: the node stays, the
                    // dependents of the absent coordinates are looked at again, and the
                    // node takes another identity they name to be verified next.
                    if !matching.is_empty() {
                        self.absent.add(deleted.clone());
                        for dep in &matching {
                            queue.add(work_key(Work::Delete, dep));
                        }
                    }
                    if node.identity == deleted
                        && let Some(alternate) = self.alternate_identity(&mismatched, &deleted)
                    {
                        if let Some(n) = self.nodes.get_mut(&uid) {
                            n.identity = alternate;
                        }
                        // Rate limited, as the same uid may come back here.
                        self.delayed.push(work_key(Work::Delete, &uid));
                    }
                    return;
                }
            } else if node.identity != deleted {
                // A real node is not removed because other coordinates are absent.
                if !matching.is_empty() {
                    self.absent.add(deleted.clone());
                    for dep in &matching {
                        queue.add(work_key(Work::Delete, dep));
                    }
                }
                return;
            }
        }
        self.nodes.remove(&uid);
        self.remove_dependent_from_owners(&uid, &node.owners);
        if !node.dependents.is_empty() {
            self.absent.add(deleted);
        }
        for dep in &node.dependents {
            queue.add(work_key(Work::Delete, dep));
        }
        for owner in &node.owners {
            if self
                .nodes
                .get(&owner.uid)
                .is_some_and(|o| o.deleting_dependents)
            {
                queue.add(work_key(Work::Delete, &owner.uid));
            }
        }
    }

    /// `addDependentToOwners`: makes `uid` a dependent of each owner (a virtual node for an
    /// owner not seen, queued to be verified), and queues the dependent itself when a
    /// reference may be invalid: an owner in another namespace (an event when it was seen),
    /// coordinates other than the owner's, or an unseen cluster-scoped owner named from
    /// another namespace.
    fn add_dependent_to_owners(&mut self, uid: &str, owners: &[OwnerRef], queue: &mut Queue) {
        let namespace = self.nodes[uid].identity.namespace.clone();
        let mut invalid = false;
        for owner in owners {
            let Some(owner_node) = self.nodes.get_mut(&owner.uid) else {
                let mut node = Node {
                    identity: Identity::of_reference(owner, &namespace),
                    owners: Vec::new(),
                    dependents: BTreeSet::new(),
                    being_deleted: false,
                    deleting_dependents: false,
                    virtual_: true,
                };
                node.dependents.insert(uid.to_owned());
                self.nodes.insert(owner.uid.clone(), node);
                queue.add(work_key(Work::Delete, &owner.uid));
                continue;
            };
            owner_node.dependents.insert(uid.to_owned());
            if invalid {
                continue;
            }
            let identity = owner_node.identity.clone();
            let seen = !owner_node.virtual_;
            let namespaced = !identity.namespace.is_empty();
            if namespaced && identity.namespace != namespace {
                if seen {
                    self.report_invalid_namespace(uid, &owner.uid, queue);
                }
                invalid = true;
            } else if !identity.matches(owner)
                || (!namespaced && identity.namespace != namespace && !seen)
            {
                invalid = true;
            }
        }
        if invalid {
            queue.add(work_key(Work::Delete, uid));
        }
    }

    fn remove_dependent_from_owners(&mut self, uid: &str, owners: &[OwnerRef]) {
        for owner in owners {
            if let Some(node) = self.nodes.get_mut(&owner.uid) {
                node.dependents.remove(uid);
            }
        }
    }

    /// An owner whose blocking reference was removed or stopped blocking may be done
    /// waiting.
    fn queue_unblocked_owners(
        &self,
        removed: &[OwnerRef],
        changed: &[(OwnerRef, OwnerRef)],
        queue: &mut Queue,
    ) {
        let removed = removed.iter().filter(|r| r.blocks());
        let unblocked = changed
            .iter()
            .filter(|(old, new)| old.blocks() && !new.blocks())
            .map(|(_, new)| new);
        for reference in removed.chain(unblocked) {
            if self.nodes.contains_key(&reference.uid) {
                queue.add(work_key(Work::Delete, &reference.uid));
            }
        }
    }

    /// An object starting to be deleted with `orphan` is orphaned; one starting with
    /// `foregroundDeletion` waits for its dependents, each of them looked at.
    fn process_transitions(
        &mut self,
        uid: &str,
        old: Option<Marks>,
        new: Marks,
        queue: &mut Queue,
    ) {
        let starts = |was: Option<bool>, has: bool| {
            new.being_deleted && has && old.is_none_or(|o| !o.being_deleted || was == Some(false))
        };
        if starts(old.map(|o| o.orphan), new.orphan) {
            queue.add(work_key(Work::Orphan, uid));
            return;
        }
        if starts(old.map(|o| o.foreground), new.foreground)
            && let Some(node) = self.nodes.get_mut(uid)
        {
            node.deleting_dependents = true;
            for dep in &node.dependents {
                queue.add(work_key(Work::Delete, dep));
            }
            queue.add(work_key(Work::Delete, uid));
        }
    }

    /// The dependents among `dependents` whose reference to `owner`'s uid matches its
    /// coordinates, and those with one that does not (a dependent in another namespace than
    /// a namespaced owner never matches). A dependent can be in both.
    fn partition_dependents(
        &self,
        dependents: &[String],
        owner: &Identity,
    ) -> (Vec<String>, Vec<String>) {
        let mut matching = Vec::new();
        let mut mismatched = Vec::new();
        for uid in dependents {
            let Some(dep) = self.nodes.get(uid) else {
                continue;
            };
            let (mut found_match, mut found_mismatch) = (false, false);
            if !owner.namespace.is_empty() && owner.namespace != dep.identity.namespace {
                found_mismatch = true;
            } else {
                for r in dep.owners.iter().filter(|r| r.uid == owner.uid) {
                    match owner.matches(r) {
                        true => found_match = true,
                        false => found_mismatch = true,
                    }
                }
            }
            if found_match {
                matching.push(uid.clone());
            }
            if found_mismatch {
                mismatched.push(uid.clone());
            }
        }
        (matching, mismatched)
    }

    /// `getAlternateOwnerIdentity`: another identity the dependents give the absent owner's
    /// uid — the first after it in order, else the first.
    fn alternate_identity(&self, dependents: &[String], absent: &Identity) -> Option<Identity> {
        let cluster_scoped = absent.namespace.is_empty();
        let mut seen: HashSet<Identity> = HashSet::from([absent.clone()]);
        let mut first: Option<Identity> = None;
        let mut following: Option<Identity> = None;
        for dep in dependents.iter().filter_map(|d| self.nodes.get(d)) {
            for r in dep.owners.iter().filter(|r| r.uid == absent.uid) {
                if absent.matches(r)
                    && (cluster_scoped || absent.namespace == dep.identity.namespace)
                {
                    continue;
                }
                let mut candidate = Identity::of_reference(r, &dep.identity.namespace);
                if cluster_scoped
                    && candidate.api_version == absent.api_version
                    && candidate.kind == absent.kind
                {
                    candidate.namespace.clear();
                }
                if !seen.insert(candidate.clone()) {
                    continue;
                }
                if first
                    .as_ref()
                    .is_none_or(|f| candidate.order_key() < f.order_key())
                {
                    first = Some(candidate.clone());
                }
                if absent.order_key() < candidate.order_key()
                    && following
                        .as_ref()
                        .is_none_or(|f| candidate.order_key() < f.order_key())
                {
                    following = Some(candidate);
                }
            }
        }
        following.or(first)
    }

    /// `reportInvalidNamespaceOwnerRef`: a Warning on the dependent that its reference to
    /// `owner_uid` names an owner in another namespace.
    fn report_invalid_namespace(&mut self, dependent: &str, owner_uid: &str, queue: &mut Queue) {
        let Some(dep) = self.nodes.get(dependent) else {
            return;
        };
        let Some(reference) = dep.owners.iter().find(|r| r.uid == owner_uid) else {
            return;
        };
        let namespace = dep.identity.namespace.clone();
        let invalid = Identity::of_reference(reference, &namespace);
        let mut metadata = json!({"name": dep.identity.name, "uid": dep.identity.uid});
        if !namespace.is_empty() {
            metadata["namespace"] = json!(namespace);
        }
        let object = json!({
            "apiVersion": dep.identity.api_version,
            "kind": dep.identity.kind,
            "metadata": metadata,
        });
        let message = format!(
            "ownerRef {invalid} does not exist in namespace {}",
            kubegen_core::go_print::quote(&namespace)
        );
        self.recorded += 1;
        self.events
            .insert(self.recorded, InvalidNamespace { object, message });
        queue.add(format!("event:{}", self.recorded));
    }

    /// The event queued as `event:<n>`.
    pub(super) fn take_event(&mut self, n: &str) -> Option<InvalidNamespace> {
        self.events.remove(&n.parse().ok()?)
    }

    /// The dependents of `uid` that block its deletion.
    pub(super) fn blocking_dependents(&self, uid: &str) -> Vec<String> {
        let Some(node) = self.nodes.get(uid) else {
            return Vec::new();
        };
        node.dependents
            .iter()
            .filter(|d| {
                self.nodes
                    .get(*d)
                    .is_some_and(|dep| dep.owners.iter().any(|r| r.uid == uid && r.blocks()))
            })
            .cloned()
            .collect()
    }
}

/// `referencesDiffs`: the references added, removed and changed (by uid) from `old` to `new`.
#[allow(clippy::type_complexity)]
fn differences(
    old: &[OwnerRef],
    new: &[OwnerRef],
) -> (Vec<OwnerRef>, Vec<OwnerRef>, Vec<(OwnerRef, OwnerRef)>) {
    let mut added = Vec::new();
    let mut changed = Vec::new();
    let mut left: Vec<&OwnerRef> = old.iter().collect();
    for r in new {
        match left.iter().position(|o| o.uid == r.uid) {
            Some(i) => {
                let before = left.remove(i);
                if before.raw != r.raw {
                    changed.push((before.clone(), r.clone()));
                }
            }
            None => added.push(r.clone()),
        }
    }
    let removed = left.into_iter().cloned().collect();
    (added, removed, changed)
}
