//! What a reconciler does to the objects it manages, as controller-runtime's `controllerutil`
//! does it: owner references ([`set_controller_reference`]), finalizers
//! ([`add_finalizer`], [`finalize`]) and writes that report what they did
//! ([`create_or_update`], [`create_or_patch`]).
//!
//! ```
//! use k8s_openapi::api::apps::v1::Deployment;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen_runtime::controller::util::{add_finalizer, set_controller_reference};
//!
//! let mut owner = Deployment::default();
//! owner.metadata.namespace = Some("apps".into());
//! owner.metadata.name = Some("web".into());
//! owner.metadata.uid = Some("3c5a".into());
//! let mut settings = ConfigMap::default();
//! settings.metadata.namespace = Some("apps".into());
//! set_controller_reference(&owner, &mut settings).unwrap();
//! let reference = &settings.metadata.owner_references.as_ref().unwrap()[0];
//! assert_eq!((reference.controller, reference.block_owner_deletion), (Some(true), Some(true)));
//! assert!(add_finalizer(&mut settings, "example.com/cleanup"));
//! assert!(!add_finalizer(&mut settings, "example.com/cleanup"));
//! ```

use std::future::Future;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use super::Action;
use crate::client::Kind;

/// Why an owner reference cannot be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OwnerError {
    /// A namespaced owner of a cluster-scoped object.
    #[error(
        "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace {owner_namespace}"
    )]
    ClusterScopedObject {
        /// The owner's namespace.
        owner_namespace: String,
    },
    /// Owner and object in different namespaces.
    #[error(
        "cross-namespace owner references are disallowed, owner's namespace {owner_namespace}, obj's namespace {object_namespace}"
    )]
    CrossNamespace {
        /// The owner's namespace.
        owner_namespace: String,
        /// The object's namespace.
        object_namespace: String,
    },
    /// The object already has another controller.
    #[error("Object {namespace}/{name} is already owned by another {kind} controller {owner}")]
    AlreadyOwned {
        /// The object's namespace.
        namespace: String,
        /// The object's name.
        name: String,
        /// The present controller's kind.
        kind: String,
        /// The present controller's name.
        owner: String,
    },
}

/// The reference to `owner` an object it owns carries. Its `uid` must be set: an owner is
/// an object read from the apiserver.
fn reference_to<O: Resource<DynamicType = ()>>(owner: &O) -> OwnerReference {
    OwnerReference {
        api_version: O::api_version(&()).into_owned(),
        kind: O::kind(&()).into_owned(),
        name: owner.name_any(),
        uid: owner.uid().unwrap_or_default(),
        controller: None,
        block_owner_deletion: None,
    }
}

/// The owner's namespace must be the object's (a cluster-scoped owner may own anything).
fn check_namespaces<O: Resource, K: Resource>(owner: &O, object: &K) -> Result<(), OwnerError> {
    let Some(owner_namespace) = owner.meta().namespace.clone().filter(|n| !n.is_empty()) else {
        return Ok(());
    };
    match object.meta().namespace.as_deref().unwrap_or("") {
        "" => Err(OwnerError::ClusterScopedObject { owner_namespace }),
        ns if ns != owner_namespace => Err(OwnerError::CrossNamespace {
            owner_namespace,
            object_namespace: ns.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// Whether two references name the same object: the same group, kind and name (the
/// version and uid may differ).
fn same_object(a: &OwnerReference, b: &OwnerReference) -> bool {
    let group = |r: &OwnerReference| {
        r.api_version
            .rsplit_once('/')
            .map_or("", |(g, _)| g)
            .to_owned()
    };
    group(a) == group(b) && a.kind == b.kind && a.name == b.name
}

/// Puts `reference` among `object`'s owner references, replacing one to the same object.
fn upsert<K: Resource>(object: &mut K, reference: OwnerReference) {
    let owners = object
        .meta_mut()
        .owner_references
        .get_or_insert_with(Vec::new);
    match owners.iter_mut().find(|r| same_object(r, &reference)) {
        Some(existing) => *existing = reference,
        None => owners.push(reference),
    }
}

/// Makes `owner` the controller of `object` (controller-runtime's `SetControllerReference`):
/// an owner reference with `controller` and `blockOwnerDeletion` set, so that deleting the
/// owner deletes the object (and, in foreground deletion, waits for it) and the object's
/// events wake the owner's controller ([`Controller::owns`](super::Controller::owns)).
/// A reference to the same owner is replaced; another controller is an error.
///
/// `blockOwnerDeletion` needs `update` on the owner's `finalizers` subresource when the
/// apiserver runs `OwnerReferencesPermissionEnforcement`; `owns` grants it.
pub fn set_controller_reference<O, K>(owner: &O, object: &mut K) -> Result<(), OwnerError>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    check_namespaces(owner, object)?;
    let reference = OwnerReference {
        controller: Some(true),
        block_owner_deletion: Some(true),
        ..reference_to(owner)
    };
    let present = object.meta().owner_references.iter().flatten();
    if let Some(existing) = present
        .filter(|r| r.controller == Some(true))
        .find(|r| !same_object(r, &reference))
    {
        return Err(OwnerError::AlreadyOwned {
            namespace: object.meta().namespace.clone().unwrap_or_default(),
            name: object.meta().name.clone().unwrap_or_default(),
            kind: existing.kind.clone(),
            owner: existing.name.clone(),
        });
    }
    upsert(object, reference);
    Ok(())
}

/// Makes `owner` an owner of `object` without controlling it (controller-runtime's
/// `SetOwnerReference`): the object is garbage-collected once all its owners are gone. A
/// reference to the same owner is replaced.
pub fn set_owner_reference<O, K>(owner: &O, object: &mut K) -> Result<(), OwnerError>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    check_namespaces(owner, object)?;
    upsert(object, reference_to(owner));
    Ok(())
}

/// Whether `object` has an owner reference with `controller` set.
pub fn has_controller_reference<K: Resource>(object: &K) -> bool {
    let owners = object.meta().owner_references.iter().flatten();
    owners.into_iter().any(|r| r.controller == Some(true))
}

/// Whether `object`'s finalizers hold `finalizer`.
pub fn contains_finalizer<K: Resource>(object: &K, finalizer: &str) -> bool {
    object.finalizers().iter().any(|f| f == finalizer)
}

/// Adds `finalizer` to `object` unless it holds it; whether it was added.
pub fn add_finalizer<K: Resource>(object: &mut K, finalizer: &str) -> bool {
    if contains_finalizer(object, finalizer) {
        return false;
    }
    object.finalizers_mut().push(finalizer.to_owned());
    true
}

/// Removes every `finalizer` from `object`; whether there was one.
pub fn remove_finalizer<K: Resource>(object: &mut K, finalizer: &str) -> bool {
    let before = object.finalizers().len();
    object.finalizers_mut().retain(|f| f != finalizer);
    object.finalizers().len() != before
}

/// What a [`create_or_update`] or [`create_or_patch`] did (controller-runtime's
/// `OperationResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationResult {
    /// Nothing changed; nothing was written.
    Unchanged,
    /// The object did not exist and was created.
    Created,
    /// The object was written (for `create_or_patch`: outside its status).
    Updated,
    /// The object and its status were written (`create_or_patch` only).
    UpdatedStatus,
    /// Only the status was written (`create_or_patch` only).
    UpdatedStatusOnly,
}

impl OperationResult {
    /// controller-runtime's word for it: `unchanged`, `created`, `updated`, `updatedStatus`,
    /// `updatedStatusOnly`.
    pub fn as_str(self) -> &'static str {
        match self {
            OperationResult::Unchanged => "unchanged",
            OperationResult::Created => "created",
            OperationResult::Updated => "updated",
            OperationResult::UpdatedStatus => "updatedStatus",
            OperationResult::UpdatedStatusOnly => "updatedStatusOnly",
        }
    }
}

/// Why a [`create_or_update`], [`create_or_patch`] or [`finalize`] failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The apiserver refused a read or write (a conflict included: retry the reconcile).
    #[error(transparent)]
    Api(#[from] kube::Error),
    /// The object given has no name.
    #[error("the object to create or update has no name")]
    NoName,
    /// The mutate function renamed the object or moved it to another namespace.
    #[error("the mutate function cannot change the object's name or namespace")]
    Renamed,
    /// The object does not serialize to JSON.
    #[error("the object does not serialize: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// Reads the object named as `object` is; if it is missing, `mutate`s `object` and creates
/// it, otherwise `mutate`s what was read and replaces it if that changed anything
/// (controller-runtime's `CreateOrUpdate`). Changes `mutate` makes to a status subresource
/// are not written. Returns the object as the apiserver answered (or as read, unchanged)
/// and what was done.
///
/// `mutate` sets what the controller owns and leaves the rest: fields it clears that the
/// apiserver defaults make every call an update.
pub async fn create_or_update<K: Kind>(
    api: &Api<K>,
    object: K,
    mutate: impl FnOnce(&mut K),
) -> Result<(K, OperationResult), WriteError> {
    let name = object.meta().name.clone().ok_or(WriteError::NoName)?;
    let Some(mut current) = api.get_opt(&name).await? else {
        let created = mutated(object, mutate)?;
        let created = api.create(&PostParams::default(), &created).await?;
        return Ok((created, OperationResult::Created));
    };
    let before = serde_json::to_value(&current)?;
    current = mutated(current, mutate)?;
    if serde_json::to_value(&current)? == before {
        return Ok((current, OperationResult::Unchanged));
    }
    let updated = api.replace(&name, &PostParams::default(), &current).await?;
    Ok((updated, OperationResult::Updated))
}

/// [`create_or_update`] with merge patches instead of a replace (controller-runtime's
/// `CreateOrPatch`): only what `mutate` changed is sent, so fields written by others since
/// the read survive. A changed status is patched through the status subresource when the
/// object existed (a created object's status is the next reconcile's to write).
pub async fn create_or_patch<K: Kind>(
    api: &Api<K>,
    object: K,
    mutate: impl FnOnce(&mut K),
) -> Result<(K, OperationResult), WriteError> {
    let name = object.meta().name.clone().ok_or(WriteError::NoName)?;
    let Some(current) = api.get_opt(&name).await? else {
        let created = mutated(object, mutate)?;
        let created = api.create(&PostParams::default(), &created).await?;
        return Ok((created, OperationResult::Created));
    };
    let mut before = serde_json::to_value(&current)?;
    let changed = mutated(current.clone(), mutate)?;
    let mut after = serde_json::to_value(&changed)?;
    let status_before = take_status(&mut before);
    let status_after = take_status(&mut after);
    let params = PatchParams::default();
    let mut result = (current, OperationResult::Unchanged);
    if let Some(patch) = merge_patch(&before, &after) {
        result = (
            api.patch(&name, &params, &Patch::Merge(&patch)).await?,
            OperationResult::Updated,
        );
    }
    if let Some(patch) = merge_patch(&status_before, &status_after) {
        let patch = json!({ "status": patch });
        let patched = api
            .patch_status(&name, &params, &Patch::Merge(&patch))
            .await?;
        result.1 = match result.1 {
            OperationResult::Updated => OperationResult::UpdatedStatus,
            _ => OperationResult::UpdatedStatusOnly,
        };
        result.0 = patched;
    }
    Ok(result)
}

/// `object` after `mutate`, which must leave its name and namespace alone.
fn mutated<K: Resource>(mut object: K, mutate: impl FnOnce(&mut K)) -> Result<K, WriteError> {
    let key = (object.meta().name.clone(), object.meta().namespace.clone());
    mutate(&mut object);
    match (object.meta().name.clone(), object.meta().namespace.clone()) == key {
        true => Ok(object),
        false => Err(WriteError::Renamed),
    }
}

fn take_status(object: &mut Value) -> Value {
    object
        .as_object_mut()
        .and_then(|o| o.remove("status"))
        .unwrap_or(Value::Null)
}

/// The JSON merge patch (RFC 7386) that turns `before` into `after`; `None` when they are
/// equal.
fn merge_patch(before: &Value, after: &Value) -> Option<Value> {
    if before == after {
        return None;
    }
    let (Value::Object(before), Value::Object(after)) = (before, after) else {
        return Some(after.clone());
    };
    let mut patch = serde_json::Map::new();
    for (key, old) in before {
        match after.get(key) {
            None => {
                patch.insert(key.clone(), Value::Null);
            }
            Some(new) => {
                if let Some(change) = merge_patch(old, new) {
                    patch.insert(key.clone(), change);
                }
            }
        }
    }
    for (key, new) in after {
        if !before.contains_key(key) {
            patch.insert(key.clone(), new.clone());
        }
    }
    Some(Value::Object(patch))
}

/// What [`finalize`] asks of the reconciler.
#[derive(Debug)]
pub enum Finalizing<K> {
    /// The object lives (and holds the finalizer): reconcile it.
    Apply(Arc<K>),
    /// The object is being deleted and still holds the finalizer: release what it holds
    /// outside the cluster. Once this succeeds the finalizer is removed; an error keeps it,
    /// and the deletion waits for the next attempt.
    Cleanup(Arc<K>),
}

/// A reconcile behind finalizer `name` (kube-runtime's `finalizer`, controller-runtime's
/// add / check / remove pattern in one call). A live object is reconciled by
/// `step(Finalizing::Apply)`, after the finalizer is added if it lacks it (in the same pass,
/// so a predicate that skips metadata-only updates cannot hold the apply back; the object
/// handed over is the one read, without the finalizer's write); a deleted object holding the
/// finalizer is cleaned up by `step(Finalizing::Cleanup)`, once, and then the finalizer is
/// removed; a deleted object without it is left alone.
///
/// Every write carries the resourceVersion read, so a concurrent change fails with a
/// conflict ([`WriteError::Api`]) instead of losing another writer's finalizers: return it,
/// and the key is retried from the fresh object.
pub async fn finalize<K, E, F, Fut>(
    api: &Api<K>,
    name: &str,
    object: Arc<K>,
    step: F,
) -> Result<Action, FinalizeError<E>>
where
    K: Kind,
    F: FnOnce(Finalizing<K>) -> Fut,
    Fut: Future<Output = Result<Action, E>>,
{
    let deleting = object.meta().deletion_timestamp.is_some();
    match (deleting, contains_finalizer(object.as_ref(), name)) {
        (false, held) => {
            if !held {
                let mut finalizers = object.finalizers().to_vec();
                finalizers.push(name.to_owned());
                write_finalizers(api, &object, finalizers).await?;
            }
            step(Finalizing::Apply(object))
                .await
                .map_err(FinalizeError::Step)
        }
        (true, true) => {
            step(Finalizing::Cleanup(object.clone()))
                .await
                .map_err(FinalizeError::Step)?;
            let finalizers = object.finalizers().iter().filter(|f| *f != name);
            write_finalizers(api, &object, finalizers.cloned().collect()).await?;
            Ok(Action::Done)
        }
        (true, false) => Ok(Action::Done),
    }
}

/// Sets `object`'s finalizers to `finalizers`, if it is still at the resourceVersion read.
async fn write_finalizers<K: Kind>(
    api: &Api<K>,
    object: &K,
    finalizers: Vec<String>,
) -> Result<(), WriteError> {
    let patch = json!({"metadata": {
        "finalizers": finalizers,
        "resourceVersion": object.resource_version(),
    }});
    let params = PatchParams::default();
    api.patch(&object.name_any(), &params, &Patch::Merge(&patch))
        .await?;
    Ok(())
}

/// Why a [`finalize`] failed: the reconciler's step, or the finalizer's write.
#[derive(Debug, thiserror::Error)]
pub enum FinalizeError<E> {
    /// The `Apply` or `Cleanup` step failed.
    #[error("{0}")]
    Step(E),
    /// Adding or removing the finalizer failed.
    #[error("writing the finalizer: {0}")]
    Write(#[from] WriteError),
}

impl<E> From<kube::Error> for FinalizeError<E> {
    fn from(error: kube::Error) -> Self {
        FinalizeError::Write(WriteError::Api(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
    use k8s_openapi::api::core::v1::Namespace;

    fn named<K: Resource + Default>(namespace: Option<&str>, name: &str) -> K {
        let mut k = K::default();
        k.meta_mut().namespace = namespace.map(str::to_owned);
        k.meta_mut().name = Some(name.to_owned());
        k.meta_mut().uid = Some(format!("uid-{name}"));
        k
    }

    #[test]
    fn controller_references_are_one_per_object_and_stay_in_the_namespace() {
        let owner: Deployment = named(Some("a"), "web");
        let mut rs: ReplicaSet = named(Some("a"), "web-1");
        set_controller_reference(&owner, &mut rs).unwrap();
        // Again: replaced, not added.
        set_controller_reference(&owner, &mut rs).unwrap();
        let refs = rs.metadata.owner_references.clone().unwrap();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].api_version, "apps/v1");
        assert_eq!(refs[0].uid, "uid-web");
        assert!(has_controller_reference(&rs));
        let other: Deployment = named(Some("a"), "api");
        assert_eq!(
            set_controller_reference(&other, &mut rs)
                .unwrap_err()
                .to_string(),
            "Object a/web-1 is already owned by another Deployment controller web"
        );
        // A plain owner reference beside it is fine.
        set_owner_reference(&other, &mut rs).unwrap();
        assert_eq!(rs.metadata.owner_references.as_ref().unwrap().len(), 2);
        let mut elsewhere: ReplicaSet = named(Some("b"), "x");
        assert_eq!(
            set_controller_reference(&owner, &mut elsewhere)
                .unwrap_err()
                .to_string(),
            "cross-namespace owner references are disallowed, owner's namespace a, obj's namespace b"
        );
        let mut cluster: Namespace = named(None, "n");
        assert_eq!(
            set_owner_reference(&owner, &mut cluster)
                .unwrap_err()
                .to_string(),
            "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace a"
        );
        // A cluster-scoped owner may own a namespaced object.
        let namespace: Namespace = named(None, "n");
        set_owner_reference(&namespace, &mut elsewhere).unwrap();
    }

    #[test]
    fn finalizers_are_added_once_and_removed_entirely() {
        let mut d: Deployment = named(Some("a"), "web");
        assert!(add_finalizer(&mut d, "x/y"));
        assert!(!add_finalizer(&mut d, "x/y"));
        d.metadata.finalizers.as_mut().unwrap().push("x/y".into());
        assert!(contains_finalizer(&d, "x/y"));
        assert!(remove_finalizer(&mut d, "x/y"));
        assert!(!remove_finalizer(&mut d, "x/y"));
        assert!(!contains_finalizer(&d, "x/y"));
    }

    #[test]
    fn merge_patches_carry_only_the_difference() {
        let before = json!({"a": 1, "b": {"c": 2, "d": 3}, "e": [1]});
        let after = json!({"a": 1, "b": {"c": 2, "f": 4}, "e": [1, 2]});
        assert_eq!(
            merge_patch(&before, &after),
            Some(json!({"b": {"d": null, "f": 4}, "e": [1, 2]}))
        );
        assert_eq!(merge_patch(&before, &before), None);
    }
}
