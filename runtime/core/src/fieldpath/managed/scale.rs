//! Field ownership through the scale subresource: a `Scale` object only has
//! `spec.replicas`, which maps to the resource's own replicas field.

use std::collections::BTreeMap;

use serde_json::Value;

use super::entries::{ManagedFields, ManagedFieldsError, VersionedSet};
use crate::fieldpath::{Path, Set};

/// The version `Scale` objects are served in.
pub const SCALE_API_VERSION: &str = "autoscaling/v1";

/// Translates managed fields between a resource and its `Scale`.
pub struct ScaleHandler<'a> {
    /// The resource's `managedFields`.
    pub parent: Option<&'a Value>,
    /// The apiVersion of the request.
    pub api_version: &'a str,
    /// The replicas path of every version of the kind (`None`: that version has no scale
    /// subresource).
    pub replicas_paths: &'a BTreeMap<String, Option<Path>>,
}

fn scale_replicas() -> Path {
    Path::fields(["spec", "replicas"])
}

impl ScaleHandler<'_> {
    /// The `Scale`'s managed fields: every manager of the replicas field, owning
    /// `spec.replicas` at `autoscaling/v1`.
    pub fn to_subresource(&self) -> Result<Vec<Value>, ManagedFieldsError> {
        let managed = ManagedFields::decode(self.parent)?;
        let mut out = ManagedFields::default();
        for (manager, vs) in &managed.fields {
            let Some(Some(path)) = self.replicas_paths.get(&vs.api_version) else {
                continue;
            };
            if vs.set.has(&path.0) {
                out.fields.insert(
                    manager.clone(),
                    VersionedSet {
                        set: Set::from_paths([scale_replicas()]),
                        api_version: SCALE_API_VERSION.into(),
                        applied: vs.applied,
                    },
                );
                out.times.insert(
                    manager.clone(),
                    managed.times.get(manager).cloned().flatten(),
                );
            }
        }
        Ok(out.encode())
    }

    /// The resource's managed fields after a scale write whose result is `scale`: owners of
    /// the replicas field that no longer own it through the scale lose it, and scale
    /// managers that own `spec.replicas` own the resource's replicas field.
    pub fn to_parent(&self, scale: Option<&Value>) -> Result<Vec<Value>, ManagedFieldsError> {
        let parent = ManagedFields::decode(self.parent)?;
        let mut scale = ManagedFields::decode(scale)?;
        let mut out = ManagedFields::default();
        let time = |m: &str| parent.times.get(m).cloned().flatten();
        for (manager, vs) in &parent.fields {
            let Some(path) = self.replicas_paths.get(&vs.api_version) else {
                continue;
            };
            let owns_replicas = path.as_ref().is_some_and(|p| vs.set.has(&p.0));
            // Owners of other fields only, and owners that still own replicas through the
            // scale, keep their entry as it is.
            if !owns_replicas || scale.fields.remove(manager).is_some() {
                out.fields.insert(manager.clone(), vs.clone());
                out.times.insert(manager.clone(), time(manager));
            } else if let Some(path) = path {
                let set = vs.set.difference(&Set::from_paths([path.clone()]));
                if !set.is_empty() {
                    out.fields
                        .insert(manager.clone(), VersionedSet { set, ..vs.clone() });
                    out.times.insert(manager.clone(), time(manager));
                }
            }
        }
        let own_path = self.replicas_paths.get(self.api_version).cloned().flatten();
        for (manager, vs) in scale.fields {
            if !vs.set.has(&scale_replicas().0) {
                continue;
            }
            out.fields.insert(
                manager.clone(),
                VersionedSet {
                    set: Set::from_paths(own_path.clone()),
                    api_version: self.api_version.to_owned(),
                    applied: vs.applied,
                },
            );
            out.times.insert(manager.clone(), time(&manager));
        }
        Ok(out.encode())
    }
}
