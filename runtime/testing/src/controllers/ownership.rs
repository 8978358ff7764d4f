//! Controller references (`pkg/controller/controller_ref_manager.go`): which objects a
//! controller owns, adopting the orphans its selector matches and releasing its own that no
//! longer match, with the same strategic merge patches kube-controller-manager sends.

use std::borrow::Borrow;
use std::sync::Arc;

use serde_json::{Value, json};

use super::api::{Api, Patch, Resource};
use super::podutil::{is_terminating, labels, meta};
use crate::builtin::validate::LabelSelector;

/// The controller reference among an object's `ownerReferences`, if any.
pub(crate) fn controller_of(object: &Value) -> Option<&Value> {
    object["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"] == true)
}

/// `NewControllerRef`: a reference to `owner` (of `api_version`/`kind`) as its controller.
pub(crate) fn controller_ref(owner: &Value, api_version: &str, kind: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "name": meta(owner, "name"),
        "uid": meta(owner, "uid"),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// The owner of `kind` a controller reference names, if it exists under that uid
/// (`resolveControllerRef`).
pub(crate) fn resolve(
    api: &Api,
    resource: Resource,
    kind: &str,
    namespace: &str,
    reference: &Value,
) -> Option<Arc<Value>> {
    if reference["kind"] != kind {
        return None;
    }
    let owner = api.get(resource, namespace, reference["name"].as_str()?)?;
    (owner["metadata"]["uid"] == reference["uid"]).then_some(owner)
}

/// The owners of `resource` in `namespace` whose selector matches `object`'s labels; an
/// owner with an empty or unreadable selector matches nothing (`GetPodStatefulSets`,
/// `GetPodDaemonSets`, `GetHistoryDaemonSets`).
pub(crate) fn selecting(
    api: &Api,
    resource: Resource,
    namespace: &str,
    object: &Value,
) -> Vec<Arc<Value>> {
    api.list(resource, Some(namespace))
        .into_iter()
        .filter(|owner| {
            LabelSelector::parse(&owner["spec"]["selector"])
                .is_some_and(|s| !s.is_empty() && s.matches(labels(object)))
        })
        .collect()
}

/// The objects of `resource` in the owner's namespace that it may claim: those it controls
/// and the orphans (`FilterPodsByOwner` with orphans, the revision index's two keys).
pub(crate) fn candidates(api: &Api, resource: Resource, owner: &Value) -> Vec<Arc<Value>> {
    let uid = meta(owner, "uid");
    api.list(resource, Some(meta(owner, "namespace")))
        .into_iter()
        .filter(|o| controller_of(o).is_none_or(|r| r["uid"] == uid))
        .collect()
}

/// A controller claiming objects (`BaseControllerRefManager.ClaimObject`).
pub(crate) struct Claimer<'a> {
    api: &'a Api,
    owner: &'a Value,
    /// The owner's resource, for the live read before an adoption.
    owner_resource: Resource,
    api_version: &'static str,
    kind: &'static str,
    /// `CanAdopt`'s answer, asked once.
    can_adopt: Option<Result<(), String>>,
}

impl<'a> Claimer<'a> {
    pub(crate) fn new(
        api: &'a Api,
        owner: &'a Value,
        owner_resource: Resource,
        api_version: &'static str,
        kind: &'static str,
    ) -> Self {
        Claimer {
            api,
            owner,
            owner_resource,
            api_version,
            kind,
            can_adopt: None,
        }
    }

    /// Claims `objects` of `resource` (the candidates): keeps the owner's that `matches`,
    /// releases the owner's that do not, adopts the orphans that do. Returns the claimed
    /// ones as they were read, and the aggregated errors of the patches that failed.
    pub(crate) fn claim<T: Borrow<Value>>(
        &mut self,
        resource: Resource,
        objects: Vec<T>,
        matches: impl Fn(&Value) -> bool,
    ) -> (Vec<T>, Result<(), String>) {
        let mut claimed = Vec::new();
        let mut errors = Vec::new();
        for object in objects {
            match self.claim_one(resource, object.borrow(), &matches) {
                Ok(true) => claimed.push(object),
                Ok(false) => {}
                Err(e) => errors.push(e),
            }
        }
        (claimed, aggregate(&errors))
    }

    fn claim_one(
        &mut self,
        resource: Resource,
        object: &Value,
        matches: &impl Fn(&Value) -> bool,
    ) -> Result<bool, String> {
        let owner_deleting = is_terminating(self.owner);
        if let Some(reference) = controller_of(object) {
            if reference["uid"] != self.owner["metadata"]["uid"] {
                return Ok(false);
            }
            if matches(object) {
                return Ok(true);
            }
            if owner_deleting {
                return Ok(false);
            }
            self.release(resource, object)?;
            return Ok(false);
        }
        if owner_deleting || !matches(object) || is_terminating(object) {
            return Ok(false);
        }
        if meta(self.owner, "namespace") != meta(object, "namespace") {
            return Ok(false);
        }
        self.adopt(resource, object)
    }

    /// `RecheckDeletionTimestamp` over a live read of the owner, once per claimer.
    fn can_adopt(&mut self) -> Result<(), String> {
        let (api, owner, resource) = (self.api, self.owner, self.owner_resource);
        self.can_adopt
            .get_or_insert_with(|| {
                let (namespace, name) = (meta(owner, "namespace"), meta(owner, "name"));
                let Some(fresh) = api.get(resource, namespace, name) else {
                    return Err(format!(
                        "{}.{} \"{name}\" not found",
                        resource.plural, resource.group
                    ));
                };
                if fresh["metadata"]["uid"] != owner["metadata"]["uid"] {
                    return Err(format!(
                        "original {} {namespace}/{name} is gone: got uid {}, wanted {}",
                        kind_word(resource),
                        meta(&fresh, "uid"),
                        meta(owner, "uid")
                    ));
                }
                if let Some(at) = fresh["metadata"]["deletionTimestamp"].as_str() {
                    return Err(format!("{namespace}/{name} has just been deleted at {at}"));
                }
                Ok(())
            })
            .clone()
    }

    /// Adds the owner's controller reference (`AdoptPod`, `AdoptControllerRevision`):
    /// whether the object was adopted (not gone meanwhile).
    fn adopt(&mut self, resource: Resource, object: &Value) -> Result<bool, String> {
        if let Err(e) = self.can_adopt() {
            return Err(format!(
                "can't adopt {} {}/{} ({}): {e}",
                kind_word(resource),
                meta(object, "namespace"),
                meta(object, "name"),
                meta(object, "uid")
            ));
        }
        let reference = controller_ref(self.owner, self.api_version, self.kind);
        match self.patch_owner_refs(resource, object, reference) {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(e.message),
        }
    }

    /// Removes the owner's reference (`ReleasePod`, `ReleaseControllerRevision`); an object
    /// gone or refused as invalid is released already.
    fn release(&self, resource: Resource, object: &Value) -> Result<(), String> {
        let deletion = json!({"$patch": "delete", "uid": meta(self.owner, "uid")});
        match self.patch_owner_refs(resource, object, deletion) {
            Ok(_) => Ok(()),
            Err(e) if e.code == 404 || e.code == 422 => Ok(()),
            Err(e) => Err(e.message),
        }
    }
}

impl Claimer<'_> {
    /// A strategic merge patch of one owner reference, with the object's uid as a
    /// precondition.
    fn patch_owner_refs(
        &self,
        resource: Resource,
        object: &Value,
        reference: Value,
    ) -> Result<Arc<Value>, super::Refused> {
        let patch =
            json!({"metadata": {"ownerReferences": [reference], "uid": meta(object, "uid")}});
        let (namespace, name) = (meta(object, "namespace"), meta(object, "name"));
        self.api
            .patch(resource, namespace, name, None, Patch::Strategic, &patch)
    }
}

/// The kind of a resource's objects, in messages.
fn kind_word(resource: Resource) -> &'static str {
    match resource.plural {
        "statefulsets" => "StatefulSet",
        "daemonsets" => "DaemonSet",
        "pods" => "Pod",
        "controllerrevisions" => "ControllerRevision",
        _ => "object",
    }
}

/// `utilerrors.NewAggregate(errs)`: nothing, one message, or the distinct messages in
/// brackets.
pub(crate) fn aggregate(errors: &[String]) -> Result<(), String> {
    match errors {
        [] => Ok(()),
        [one] => Err(one.clone()),
        many => {
            let mut seen: Vec<&str> = Vec::new();
            for e in many {
                if !seen.contains(&e.as_str()) {
                    seen.push(e);
                }
            }
            match seen.as_slice() {
                [one] => Err((*one).to_owned()),
                all => Err(format!("[{}]", all.join(", "))),
            }
        }
    }
}
