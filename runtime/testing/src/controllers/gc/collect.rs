//! The collector's work on one uid (`garbagecollector.go`, `operations.go`, `patch.go`):
//! `attemptToDeleteItem` — classify the object's owners as solid, dangling or waiting for
//! their dependents' deletion, and delete the object, drop its dead references, or leave it
//! — the foreground owner's wait for its blocking dependents, and `attemptToOrphan`.

use serde_json::{Value, json};
use std::sync::Arc;

use super::graph::{EventKind, Graph, GraphEvent};
use super::refs::{FOREGROUND, Identity, Marks, ORPHAN, OwnerRef};
use super::{Failure, Work, work_key};
use crate::controllers::{Api, Patch, Queue, Resource};

/// How often a finalizer's removal is tried against conflicts (`retry.DefaultBackoff`).
const FINALIZER_TRIES: usize = 4;

/// How an owner reference stands (`classifyReferences`).
#[derive(Default)]
struct Classified {
    /// The owner exists and is not waiting for its dependents.
    solid: Vec<OwnerRef>,
    /// The owner does not exist (or another object has its name).
    dangling: Vec<OwnerRef>,
    /// The owner is being deleted in the foreground.
    waiting: Vec<OwnerRef>,
}

/// What a reference's owner turned out to be.
enum Owner {
    Dangling,
    Found(Arc<Value>),
    /// A cluster-scoped object naming a namespaced owner: never resolved, never retried.
    Invalid,
}

/// The collector's work on one key.
pub(super) struct Collector<'a> {
    graph: &'a mut Graph,
    api: &'a Api,
    queue: &'a mut Queue,
}

impl<'a> Collector<'a> {
    pub(super) fn new(graph: &'a mut Graph, api: &'a Api, queue: &'a mut Queue) -> Self {
        Collector { graph, api, queue }
    }

    /// `attemptToDeleteWorker` and `attemptToDeleteItem`.
    pub(super) fn attempt_to_delete(&mut self, uid: &str) -> Result<(), Failure> {
        let Some(item) = self.graph.nodes.get(uid).cloned() else {
            return Ok(());
        };
        // Being deleted is a one-way trip: its dependents are handled when it is gone.
        if item.being_deleted && !item.deleting_dependents {
            return Ok(());
        }
        let latest = match self.get(&item.identity)? {
            Some(latest) if latest["metadata"]["uid"] == item.identity.uid.as_str() => latest,
            _ => {
                self.virtual_delete(&item.identity);
                return Ok(());
            }
        };
        if item.deleting_dependents {
            return self.process_deleting_dependents(uid, &item.identity);
        }
        let references = OwnerRef::all_of(&latest);
        if !references.is_empty() {
            let Some(classified) = self.classify(&item.identity, &references)? else {
                return Ok(());
            };
            self.decide(&item.identity, &latest, classified)?;
        }
        if self.graph.nodes.get(uid).is_some_and(|n| n.virtual_) {
            return Err(Failure::NotObserved);
        }
        Ok(())
    }

    /// What to do with an object whose owners are classified.
    fn decide(
        &mut self,
        item: &Identity,
        latest: &Value,
        classified: Classified,
    ) -> Result<(), Failure> {
        let Classified {
            solid,
            dangling,
            waiting,
        } = classified;
        let rv = latest["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let references = OwnerRef::all_of(latest);
        if !solid.is_empty() {
            if dangling.is_empty() && waiting.is_empty() {
                return Ok(());
            }
            // Waiting references go too, or their owners would wait for this one forever.
            let uids: Vec<String> = dangling
                .iter()
                .chain(&waiting)
                .map(|r| r.uid.clone())
                .collect();
            return self.remove_references(item, &uids);
        }
        let has_dependents = self
            .graph
            .nodes
            .get(&item.uid)
            .is_some_and(|n| !n.dependents.is_empty());
        let policy = if !waiting.is_empty() && has_dependents {
            // Its own dependents go first, so it is deleted in the foreground as well; a
            // dependent doing the same may be a cycle, broken by not blocking its owners.
            let dependents = self.graph.nodes[&item.uid].dependents.clone();
            let cycle = dependents.iter().any(|d| {
                self.graph
                    .nodes
                    .get(d)
                    .is_some_and(|n| n.deleting_dependents)
            });
            if cycle {
                self.unblock_references(item)?;
            }
            "Foreground"
        } else {
            let marks = Marks::of(latest);
            match (marks.orphan, marks.foreground) {
                (true, _) => "Orphan",
                (_, true) => "Foreground",
                _ => "Background",
            }
        };
        match self.delete(item, &rv, &references, policy) {
            Err(Failure::Refused(r)) if r.is_not_found() => {
                self.virtual_delete(item);
                Ok(())
            }
            other => other,
        }
    }

    /// `classifyReferences`; `None` when the object is cluster-scoped and names a namespaced
    /// owner (nothing to do, ever).
    fn classify(
        &mut self,
        item: &Identity,
        references: &[OwnerRef],
    ) -> Result<Option<Classified>, Failure> {
        let mut classified = Classified::default();
        for reference in references {
            match self.owner_of(item, reference)? {
                Owner::Invalid => return Ok(None),
                Owner::Dangling => classified.dangling.push(reference.clone()),
                Owner::Found(owner) => {
                    let marks = Marks::of(&owner);
                    match marks.being_deleted && marks.foreground {
                        true => classified.waiting.push(reference.clone()),
                        false => classified.solid.push(reference.clone()),
                    }
                }
            }
        }
        Ok(Some(classified))
    }

    /// `isDangling`: the owner a reference names, looked up by name in the object's
    /// namespace (or cluster-wide) and compared by uid; absent owners are remembered.
    fn owner_of(&mut self, item: &Identity, reference: &OwnerRef) -> Result<Owner, Failure> {
        let mut absent = Identity::of_reference(reference, "");
        if self.graph.absent.has(&absent) {
            return Ok(Owner::Dangling);
        }
        absent.namespace = item.namespace.clone();
        if self.graph.absent.has(&absent) {
            return Ok(Owner::Dangling);
        }
        let (resource, namespaced) = self.resource(&reference.api_version, &reference.kind)?;
        if !namespaced {
            absent.namespace.clear();
        }
        if item.namespace.is_empty() && namespaced {
            return Ok(Owner::Invalid);
        }
        let namespace = if namespaced {
            item.namespace.as_str()
        } else {
            ""
        };
        match self.api.get(resource, namespace, &reference.name) {
            Some(owner) if owner["metadata"]["uid"] == reference.uid.as_str() => {
                Ok(Owner::Found(owner))
            }
            _ => {
                self.graph.absent.add(absent);
                Ok(Owner::Dangling)
            }
        }
    }

    /// `processDeletingDependentsItem`: an owner deleted in the foreground lets go (its
    /// finalizer removed) once no dependent blocks it; until then its blocking dependents
    /// are looked at.
    fn process_deleting_dependents(&mut self, uid: &str, item: &Identity) -> Result<(), Failure> {
        let blocking = self.graph.blocking_dependents(uid);
        if blocking.is_empty() {
            return self.remove_finalizer(item, FOREGROUND);
        }
        for dep in blocking {
            let deleting = self
                .graph
                .nodes
                .get(&dep)
                .is_some_and(|n| n.deleting_dependents);
            if !deleting {
                self.queue.add(work_key(Work::Delete, &dep));
            }
        }
        Ok(())
    }

    /// `attemptToOrphanWorker`: every dependent loses its reference to the owner, then the
    /// owner its `orphan` finalizer.
    pub(super) fn attempt_to_orphan(&mut self, uid: &str) -> Result<(), Failure> {
        let Some(owner) = self.graph.nodes.get(uid).cloned() else {
            return Ok(());
        };
        let mut errors = Vec::new();
        for dep in &owner.dependents {
            let Some(dependent) = self.graph.nodes.get(dep).map(|n| n.identity.clone()) else {
                continue;
            };
            match self.remove_references(&dependent, std::slice::from_ref(&owner.identity.uid)) {
                Ok(()) => {}
                Err(Failure::Refused(r)) if r.is_not_found() => {}
                Err(e) => errors.push(format!("orphaning {dependent} failed, {e}")),
            }
        }
        if !errors.is_empty() {
            return Err(Failure::Other(format!(
                "failed to orphan dependents of owner {}, got errors: {}",
                owner.identity,
                errors.join(", ")
            )));
        }
        self.remove_finalizer(&owner.identity, ORPHAN)
    }

    /// A delete the collector concluded: the object at `identity` is not there.
    fn virtual_delete(&mut self, identity: &Identity) {
        let event = GraphEvent {
            kind: EventKind::Delete,
            virtual_: true,
            identity: identity.clone(),
            owners: Vec::new(),
            marks: Marks::default(),
            old: None,
        };
        self.graph.apply(event, self.queue);
    }

    /// The served resource of a kind at a version, and whether it is namespaced.
    fn resource(&self, api_version: &str, kind: &str) -> Result<(Resource, bool), Failure> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.api.mapping(group, version, kind).ok_or_else(|| {
            Failure::Unmapped(format!(
                "unable to get REST mapping for {api_version}/{kind}."
            ))
        })
    }

    /// Where `identity` lives: its resource and namespace (none for a cluster-scoped kind).
    fn locate(&self, identity: &Identity) -> Result<(Resource, String), Failure> {
        let (resource, namespaced) = self.resource(&identity.api_version, &identity.kind)?;
        let namespace = match namespaced {
            true => identity.namespace.clone(),
            false => String::new(),
        };
        Ok((resource, namespace))
    }

    /// The object at `identity`, if any.
    fn get(&self, identity: &Identity) -> Result<Option<Arc<Value>>, Failure> {
        let (resource, namespace) = self.locate(identity)?;
        Ok(self.api.get(resource, &namespace, &identity.name))
    }

    /// `deleteObject`: a DELETE with the object's uid and resourceVersion as preconditions;
    /// after a conflict, once more at the live resourceVersion if its references did not
    /// change.
    fn delete(
        &self,
        item: &Identity,
        rv: &str,
        references: &[OwnerRef],
        policy: &str,
    ) -> Result<(), Failure> {
        let (resource, namespace) = self.locate(item)?;
        let options = |rv: &str| {
            json!({
                "kind": "DeleteOptions",
                "apiVersion": "v1",
                "preconditions": {"uid": item.uid, "resourceVersion": rv},
                "propagationPolicy": policy,
            })
        };
        match self
            .api
            .delete(resource, &namespace, &item.name, &options(rv))
        {
            Err(e) if e.is_conflict() && !rv.is_empty() => {
                let Some(live) = self.api.get(resource, &namespace, &item.name) else {
                    return Ok(());
                };
                let live_rv = live["metadata"]["resourceVersion"].as_str().unwrap_or("");
                let same = live["metadata"]["uid"] == item.uid.as_str()
                    && live_rv != rv
                    && OwnerRef::all_of(&live) == references;
                if !same {
                    return Err(e.into());
                }
                self.api
                    .delete(resource, &namespace, &item.name, &options(live_rv))
                    .map(drop)
                    .map_err(Failure::from)
            }
            other => other.map(drop).map_err(Failure::from),
        }
    }

    /// Removes the references to `uids` from the object at `identity`: a strategic-merge
    /// patch naming the object's uid, or for a kind that refuses one (custom resources) a
    /// JSON merge patch of the remaining references at the object's resourceVersion.
    fn remove_references(&mut self, identity: &Identity, uids: &[String]) -> Result<(), Failure> {
        let deletes: Vec<Value> = uids
            .iter()
            .map(|u| json!({"$patch": "delete", "uid": u}))
            .collect();
        let strategic = json!({"metadata": {"uid": identity.uid, "ownerReferences": deletes}});
        self.patch(identity, &strategic, |current| {
            let kept: Vec<Value> = OwnerRef::all_of(current)
                .into_iter()
                .filter(|r| !uids.contains(&r.uid))
                .map(|r| r.raw)
                .collect();
            references_patch(current, kept)
        })
    }

    /// Makes the object's blocking references stop blocking (a possible cycle of foreground
    /// deletions).
    fn unblock_references(&mut self, identity: &Identity) -> Result<(), Failure> {
        let owners = self
            .graph
            .nodes
            .get(&identity.uid)
            .map(|n| n.owners.clone())
            .unwrap_or_default();
        let unblocked = |r: &OwnerRef| {
            let mut raw = r.raw.clone();
            raw["blockOwnerDeletion"] = json!(false);
            raw
        };
        let blocking: Vec<Value> = owners
            .iter()
            .filter(|r| r.blocks())
            .map(unblocked)
            .collect();
        let strategic = json!({"metadata": {"uid": identity.uid, "ownerReferences": blocking}});
        let all: Vec<Value> = owners.iter().map(unblocked).collect();
        self.patch(identity, &strategic, |current| {
            references_patch(current, all.clone())
        })
    }

    /// A strategic-merge patch, or the merge patch `fallback` makes of the current object when
    /// the kind answers 415.
    fn patch(
        &self,
        identity: &Identity,
        strategic: &Value,
        fallback: impl FnOnce(&Value) -> Value,
    ) -> Result<(), Failure> {
        let (resource, namespace) = self.locate(identity)?;
        let name = identity.name.as_str();
        match self.api.patch(
            resource,
            &namespace,
            name,
            None,
            Patch::Strategic,
            strategic,
        ) {
            Err(e) if e.code == 415 => {
                let Some(current) = self.api.get(resource, &namespace, name) else {
                    return Err(Failure::Refused(not_found(identity)));
                };
                let merge = fallback(&current);
                self.api
                    .patch(resource, &namespace, name, None, Patch::Merge, &merge)
                    .map(drop)
                    .map_err(Failure::from)
            }
            other => other.map(drop).map_err(Failure::from),
        }
    }

    /// `removeFinalizer`: a merge patch of the object's other finalizers at its
    /// resourceVersion (`null` for none), tried again after a conflict.
    fn remove_finalizer(&self, identity: &Identity, finalizer: &str) -> Result<(), Failure> {
        for _ in 0..FINALIZER_TRIES {
            let Some(object) = self.get(identity)? else {
                return Ok(());
            };
            let finalizers: Vec<&Value> = object["metadata"]["finalizers"]
                .as_array()
                .map(|f| f.iter().collect())
                .unwrap_or_default();
            if !finalizers.iter().any(|f| *f == finalizer) {
                return Ok(());
            }
            let rest: Vec<&Value> = finalizers.into_iter().filter(|f| *f != finalizer).collect();
            let rest = match rest.is_empty() {
                true => Value::Null,
                false => json!(rest),
            };
            let rv = &object["metadata"]["resourceVersion"];
            let patch = json!({"metadata": {"resourceVersion": rv, "finalizers": rest}});
            let (resource, namespace) = self.locate(identity)?;
            match self.api.patch(
                resource,
                &namespace,
                &identity.name,
                None,
                Patch::Merge,
                &patch,
            ) {
                Ok(_) => return Ok(()),
                Err(e) if e.is_conflict() => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Failure::Other(format!(
            "updateMaxRetries({FINALIZER_TRIES}) has reached. The garbage collector will retry later for owner {identity}."
        )))
    }
}

/// A merge patch setting the object's references to `references` (`null` for none) at its
/// resourceVersion.
fn references_patch(current: &Value, references: Vec<Value>) -> Value {
    let references = match references.is_empty() {
        true => Value::Null,
        false => Value::Array(references),
    };
    json!({"metadata": {
        "resourceVersion": current["metadata"]["resourceVersion"],
        "ownerReferences": references,
    }})
}

/// The 404 of an object that went away between two requests.
fn not_found(identity: &Identity) -> crate::controllers::Refused {
    crate::controllers::Refused {
        code: 404,
        reason: "NotFound".into(),
        message: format!("{identity} not found"),
        status: Value::Null,
    }
}
