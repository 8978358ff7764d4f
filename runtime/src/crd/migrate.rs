//! Storage version migration, the job of kube-storage-version-migrator: every object of a
//! CRD is rewritten so that the apiserver stores it at the current storage version, and then
//! the versions nothing is stored at any more leave the CRD's `status.storedVersions` (after
//! which they may be removed from the CRD).
//!
//! Each object is rewritten with an update that changes nothing (the apiserver re-encodes it
//! at the storage version; an object already stored there is left as it is), guarded by its
//! resourceVersion: an object changed meanwhile is read again and retried, one deleted
//! meanwhile is skipped. Writing an object at any version stores it at the storage version,
//! so once every object has been rewritten nothing is stored at an older one.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

/// How often an object changed by someone else is read again and rewritten.
const CONFLICT_RETRIES: usize = 5;
/// Objects per list page.
const PAGE_SIZE: u32 = 500;

/// What a migration did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    /// The CRD.
    pub crd: String,
    /// The version every object is now stored at.
    pub storage_version: String,
    /// Objects rewritten (all of them, less those deleted meanwhile).
    pub rewritten: usize,
    /// Objects deleted while the migration ran.
    pub gone: usize,
    /// `status.storedVersions` before.
    pub stored_versions_before: Vec<String>,
    /// `status.storedVersions` after: the storage version alone.
    pub stored_versions: Vec<String>,
}

/// Why a migration stopped. Nothing is lost: objects already rewritten are stored at the
/// storage version, and `status.storedVersions` is only changed at the end.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// The CRD could not be read or its status not written.
    #[error("CRD {crd}: {source}")]
    Crd {
        /// The CRD name.
        crd: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// The CRD marks no version as the storage version.
    #[error("CRD {crd} has no storage version")]
    NoStorageVersion {
        /// The CRD name.
        crd: String,
    },
    /// Listing or rewriting the objects failed.
    #[error("CRD {crd}: rewriting {object}: {source}")]
    Object {
        /// The CRD name.
        crd: String,
        /// The object (`namespace/name`), or `the list` for a failed list.
        object: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// An object kept changing under the migration.
    #[error("CRD {crd}: {object} changed {CONFLICT_RETRIES} times while being rewritten")]
    Contended {
        /// The CRD name.
        crd: String,
        /// The object (`namespace/name`).
        object: String,
    },
    /// The storage version changed while objects were rewritten; objects written before
    /// the change may be stored at the old one.
    #[error(
        "CRD {crd}: the storage version changed from {from} to {to} during the migration; run it again"
    )]
    StorageVersionChanged {
        /// The CRD name.
        crd: String,
        /// The storage version the migration started with.
        from: String,
        /// The storage version now.
        to: String,
    },
}

/// Rewrites every object of CRD `crd` (by name, e.g. `databases.db.example.com`) at its
/// storage version, then sets `status.storedVersions` to the storage version alone.
pub async fn migrate_storage_version(
    client: &kube::Client,
    crd: &str,
) -> Result<Migration, MigrateError> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd_error = |source: kube::Error| MigrateError::Crd {
        crd: crd.to_owned(),
        source: Box::new(source),
    };
    let definition = crds.get(crd).await.map_err(crd_error)?;
    let storage = storage_version(&definition).ok_or_else(|| MigrateError::NoStorageVersion {
        crd: crd.to_owned(),
    })?;
    let stored_versions_before = definition
        .status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default();
    let resource = ApiResource {
        group: definition.spec.group.clone(),
        version: storage.clone(),
        api_version: format!("{}/{storage}", definition.spec.group),
        kind: definition.spec.names.kind.clone(),
        plural: definition.spec.names.plural.clone(),
    };
    let (rewritten, gone) = rewrite_all(client, crd, &resource).await?;

    let now = crds.get(crd).await.map_err(crd_error)?;
    let storage_now = storage_version(&now).unwrap_or_default();
    if storage_now != storage {
        return Err(MigrateError::StorageVersionChanged {
            crd: crd.to_owned(),
            from: storage,
            to: storage_now,
        });
    }
    let patch = json!({"status": {"storedVersions": [storage]}});
    let patched = crds
        .patch_status(crd, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(crd_error)?;
    Ok(Migration {
        crd: crd.to_owned(),
        storage_version: storage,
        rewritten,
        gone,
        stored_versions_before,
        stored_versions: patched
            .status
            .and_then(|s| s.stored_versions)
            .unwrap_or_default(),
    })
}

/// The version marked `storage: true`.
fn storage_version(crd: &CustomResourceDefinition) -> Option<String> {
    crd.spec
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name.clone())
}

/// Rewrites every object, page by page. Returns how many were rewritten and how many were
/// gone by the time their turn came.
async fn rewrite_all(
    client: &kube::Client,
    crd: &str,
    resource: &ApiResource,
) -> Result<(usize, usize), MigrateError> {
    let all: Api<DynamicObject> = Api::all_with(client.clone(), resource);
    let (mut rewritten, mut gone) = (0, 0);
    let mut params = ListParams::default().limit(PAGE_SIZE);
    loop {
        let page = all
            .list(&params)
            .await
            .map_err(|source| MigrateError::Object {
                crd: crd.to_owned(),
                object: "the list".into(),
                source: Box::new(source),
            })?;
        for object in page.items {
            match rewrite(client, crd, resource, object).await? {
                true => rewritten += 1,
                false => gone += 1,
            }
        }
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => return Ok((rewritten, gone)),
        }
    }
}

/// Rewrites one object unchanged; `false` when it no longer exists.
async fn rewrite(
    client: &kube::Client,
    crd: &str,
    resource: &ApiResource,
    mut object: DynamicObject,
) -> Result<bool, MigrateError> {
    let name = object.metadata.name.clone().unwrap_or_default();
    let namespace = object.metadata.namespace.clone();
    let api: Api<DynamicObject> = match &namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, resource),
        None => Api::all_with(client.clone(), resource),
    };
    let id = match &namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    };
    let failed = |source: kube::Error| MigrateError::Object {
        crd: crd.to_owned(),
        object: id.clone(),
        source: Box::new(source),
    };
    for _ in 0..CONFLICT_RETRIES {
        match api.replace(&name, &PostParams::default(), &object).await {
            Ok(_) => return Ok(true),
            Err(kube::Error::Api(status)) if status.code == 404 => return Ok(false),
            Err(kube::Error::Api(status)) if status.code == 409 => {
                object = match api.get_opt(&name).await.map_err(failed)? {
                    Some(fresh) => fresh,
                    None => return Ok(false),
                };
            }
            Err(e) => return Err(failed(e)),
        }
    }
    Err(MigrateError::Contended {
        crd: crd.to_owned(),
        object: id,
    })
}
