//! Where a controller's keys come from besides its own kind: owned children and mapped
//! watches, each an informer whose events become keys of the controller's kind.

use std::marker::PhantomData;
use std::sync::Arc;

use kube::Resource;

use super::ObjectKey;
use super::predicate::{Predicate, Predicates};
use crate::informer::{Handlers, InformerKind, KindScope, SharedInformerFactory};
use crate::workqueue::{AddOptions, LOW_PRIORITY, WorkQueue};

/// An informer feeding a controller's queue.
pub(super) trait Source: Send + Sync {
    /// Adds the handlers that turn the informer's events into keys on `queue`.
    fn attach(&self, factory: &SharedInformerFactory, queue: Keys);
}

/// A controller's queue as its sources feed it: the objects of an informer's first list,
/// and updates that change nothing (resyncs), at [`LOW_PRIORITY`] when the controller
/// prioritizes (controller-runtime's `WithLowPriorityWhenUnchanged`).
#[derive(Clone)]
pub(super) struct Keys {
    pub(super) queue: WorkQueue<ObjectKey>,
    pub(super) prioritize: bool,
}

impl Keys {
    /// Queues `key` for an added object.
    pub(super) fn added(&self, key: ObjectKey, initial: bool) {
        self.add(key, initial);
    }

    /// Queues `key` for an update from `old` to `new`.
    pub(super) fn updated<K: Resource>(&self, key: ObjectKey, old: &K, new: &K) {
        self.add(
            key,
            old.meta().resource_version == new.meta().resource_version,
        );
    }

    /// Queues `key` for a deleted object.
    pub(super) fn deleted(&self, key: ObjectKey) {
        self.add(key, false);
    }

    fn add(&self, key: ObjectKey, unchanged: bool) {
        let priority = match self.prioritize && unchanged {
            true => LOW_PRIORITY,
            false => 0,
        };
        let options = AddOptions {
            priority,
            ..AddOptions::default()
        };
        self.queue.add_with(key, options);
    }
}

/// Children of kind `C` controlled by a `K`, those events the predicates pass.
pub(super) struct Owned<K, C> {
    predicates: Predicates<C>,
    kinds: PhantomData<fn() -> K>,
}

impl<K, C: 'static> Owned<K, C> {
    pub(super) fn new(predicate: impl Predicate<C>) -> Self {
        let mut predicates = Predicates::new();
        predicates.push(predicate);
        Owned {
            predicates,
            kinds: PhantomData,
        }
    }
}

/// The key of the `K` that controls `child`, if one does: its `controller: true` owner
/// reference of `K`'s group and kind. The owner lives in the child's namespace unless `K` is
/// cluster-scoped (owner references name no namespace).
fn controller_of<K, C>(child: &C) -> Option<ObjectKey>
where
    K: Resource<DynamicType = ()>,
    K::Scope: KindScope,
    C: Resource,
{
    let meta = child.meta();
    let owner = meta
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))?;
    let group = owner.api_version.rsplit_once('/').map_or("", |(g, _)| g);
    if owner.kind != K::kind(&()) || group != K::group(&()) {
        return None;
    }
    let namespace = match <K::Scope as KindScope>::NAMESPACED {
        true => meta.namespace.as_deref(),
        false => None,
    };
    Some(ObjectKey::new(namespace, &owner.name))
}

impl<K, C> Source for Owned<K, C>
where
    K: InformerKind,
    K::Scope: KindScope,
    C: InformerKind,
    C::Scope: KindScope,
{
    fn attach(&self, factory: &SharedInformerFactory, queue: Keys) {
        let (on_add, on_update, on_delete) = (queue.clone(), queue.clone(), queue);
        let (add, update, delete) = (
            self.predicates.clone(),
            self.predicates.clone(),
            self.predicates.clone(),
        );
        factory.informer::<C>().add_event_handler(
            Handlers::new()
                .on_add(move |child: &Arc<C>, initial| {
                    if add.create(child)
                        && let Some(key) = controller_of::<K, C>(child.as_ref())
                    {
                        on_add.added(key, initial);
                    }
                })
                .on_update(move |old: &Arc<C>, new: &Arc<C>| {
                    if !update.update(old, new) {
                        return;
                    }
                    // A child handed to another owner also wakes the one it left.
                    let before = controller_of::<K, C>(old.as_ref());
                    let after = controller_of::<K, C>(new.as_ref());
                    if before != after
                        && let Some(key) = before
                    {
                        on_update.updated(key, old.as_ref(), new.as_ref());
                    }
                    if let Some(key) = after {
                        on_update.updated(key, old.as_ref(), new.as_ref());
                    }
                })
                .on_delete(move |child: &Arc<C>| {
                    if delete.delete(child)
                        && let Some(key) = controller_of::<K, C>(child.as_ref())
                    {
                        on_delete.deleted(key);
                    }
                }),
        );
    }
}

type MapFn<W> = Arc<dyn Fn(&W) -> Vec<ObjectKey> + Send + Sync>;

/// Objects of kind `W` mapped to keys by a function, those events the predicates pass.
pub(super) struct Mapped<W> {
    map: MapFn<W>,
    predicates: Predicates<W>,
}

impl<W: 'static> Mapped<W> {
    pub(super) fn new(
        map: impl Fn(&W) -> Vec<ObjectKey> + Send + Sync + 'static,
        predicate: impl Predicate<W>,
    ) -> Self {
        let mut predicates = Predicates::new();
        predicates.push(predicate);
        Mapped {
            map: Arc::new(map),
            predicates,
        }
    }
}

impl<W> Source for Mapped<W>
where
    W: InformerKind,
    W::Scope: KindScope,
{
    fn attach(&self, factory: &SharedInformerFactory, queue: Keys) {
        // Each of the object's keys, queued at the priority its event has.
        let enqueue = {
            let map = self.map.clone();
            move |object: &W, unchanged: bool| {
                for key in map(object) {
                    queue.add(key, unchanged);
                }
            }
        };
        let enqueue = Arc::new(enqueue);
        let (on_add, on_update, on_delete) = (enqueue.clone(), enqueue.clone(), enqueue);
        let (add, update, delete) = (
            self.predicates.clone(),
            self.predicates.clone(),
            self.predicates.clone(),
        );
        factory.informer::<W>().add_event_handler(
            Handlers::new()
                .on_add(move |o: &Arc<W>, initial| {
                    if add.create(o) {
                        on_add(o, initial);
                    }
                })
                .on_update(move |old: &Arc<W>, new: &Arc<W>| {
                    if update.update(old, new) {
                        let unchanged = old.meta().resource_version == new.meta().resource_version;
                        on_update(old, unchanged);
                        on_update(new, unchanged);
                    }
                })
                .on_delete(move |o: &Arc<W>| {
                    if delete.delete(o) {
                        on_delete(o, false);
                    }
                }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
    use k8s_openapi::api::core::v1::Pod;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    fn pod(owners: Vec<OwnerReference>) -> Pod {
        let mut pod = Pod::default();
        pod.metadata.namespace = Some("ns".into());
        pod.metadata.name = Some("p".into());
        pod.metadata.owner_references = Some(owners);
        pod
    }

    fn owner(
        api_version: &str,
        kind: &str,
        name: &str,
        controller: Option<bool>,
    ) -> OwnerReference {
        OwnerReference {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            uid: "u".into(),
            controller,
            block_owner_deletion: None,
        }
    }

    #[test]
    fn a_child_maps_to_its_controlling_owner_of_the_right_group_and_kind() {
        let child = pod(vec![
            owner("apps/v1", "ReplicaSet", "not-controller", None),
            owner("apps/v1", "ReplicaSet", "rs", Some(true)),
        ]);
        assert_eq!(
            controller_of::<ReplicaSet, Pod>(&child),
            Some(ObjectKey::new(Some("ns"), "rs"))
        );
        // Another kind, or the same kind in another group, is not this controller's.
        assert_eq!(controller_of::<Deployment, Pod>(&child), None);
        let foreign = pod(vec![owner(
            "example.com/v1",
            "ReplicaSet",
            "rs",
            Some(true),
        )]);
        assert_eq!(controller_of::<ReplicaSet, Pod>(&foreign), None);
        // Any version of the owner's group matches.
        let older = pod(vec![owner("apps/v1beta2", "ReplicaSet", "rs", Some(true))]);
        assert_eq!(
            controller_of::<ReplicaSet, Pod>(&older),
            Some(ObjectKey::new(Some("ns"), "rs"))
        );
    }
}
