//! Storage version migration: objects stored at an old version are rewritten at the storage
//! version, and the old version leaves the CRD's `status.storedVersions`.
//!
//! On a real apiserver the history is real: the CRD is switched to store `v1alpha1`, objects
//! are written (and stored at `v1alpha1`), and the CRD is switched back to `v1`, leaving
//! `storedVersions` at `["v1", "v1alpha1"]`. The in-memory server cannot change a served
//! CRD, so there the history is only recorded in `storedVersions` (through the status
//! subresource, as on the apiserver).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kubegen::crd::{MigrateError, migrate_storage_version};
use kubegen::testing::TestEnv;
use serde_json::json;

mod v1alpha1 {
    use kubegen::prelude::*;

    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "migrate.kubegen.dev",
        version = "v1alpha1",
        kind = "Volume",
        storage = false
    )]
    pub struct VolumeSpec {
        pub size: String,
    }
}

mod v1 {
    use kubegen::prelude::*;

    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(group = "migrate.kubegen.dev", version = "v1", kind = "Volume")]
    pub struct VolumeSpec {
        pub size: String,
    }
}

const CRD: &str = "volumes.migrate.kubegen.dev";

fn stored_versions(crd: &CustomResourceDefinition) -> Vec<String> {
    let mut versions = crd
        .status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default();
    versions.sort();
    versions
}

/// Makes `version` the CRD's storage version and waits until the apiserver has taken it up:
/// the CRD's update adds it to `storedVersions` at once, and the custom resource handler
/// rebuilds its storage from the CRD informer shortly after (nothing in the API shows when,
/// so a second's grace follows).
async fn store_at(crds: &Api<CustomResourceDefinition>, version: &str) {
    let mut crd = crds.get(CRD).await.unwrap();
    for v in &mut crd.spec.versions {
        v.storage = v.name == version;
    }
    crds.replace(CRD, &PostParams::default(), &crd)
        .await
        .unwrap();
    for _ in 0..100 {
        if stored_versions(&crds.get(CRD).await.unwrap()).contains(&version.to_owned()) {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{version} never became a stored version");
}

#[kubegen::test]
async fn objects_move_to_the_storage_version_and_old_versions_leave_stored_versions(e: TestEnv) {
    let crds: Api<CustomResourceDefinition> = Api::all(e.client.clone());
    let old: Api<v1alpha1::Volume> = Api::namespaced(e.client.clone(), &e.namespace);
    let names = ["a", "b", "c"];
    if e.is_real() {
        store_at(&crds, "v1alpha1").await;
    }
    for name in names {
        let volume = v1alpha1::Volume::new(name, v1alpha1::VolumeSpec { size: "1Gi".into() });
        old.create(&PostParams::default(), &volume).await.unwrap();
    }
    if e.is_real() {
        store_at(&crds, "v1").await;
    } else {
        let history = json!({"status": {"storedVersions": ["v1alpha1", "v1"]}});
        crds.patch_status(CRD, &PatchParams::default(), &Patch::Merge(&history))
            .await
            .unwrap();
    }
    let before: Vec<_> = old.list(&Default::default()).await.unwrap().items;
    assert_eq!(before.len(), names.len());

    let migration = migrate_storage_version(&e.client, CRD).await.unwrap();
    assert_eq!(migration.storage_version, "v1");
    assert_eq!(migration.rewritten, names.len());
    assert_eq!(migration.gone, 0);
    assert_eq!(migration.stored_versions_before.len(), 2);
    assert_eq!(migration.stored_versions, ["v1"]);
    assert_eq!(stored_versions(&crds.get(CRD).await.unwrap()), ["v1"]);

    // Every object is still there, unchanged, and readable at both versions.
    let current: Api<v1::Volume> = Api::namespaced(e.client.clone(), &e.namespace);
    for object in &before {
        let name = object.metadata.name.as_deref().unwrap();
        let now = current.get(name).await.unwrap();
        assert_eq!(now.spec.size, object.spec.size);
        if e.is_real() {
            // Stored at v1alpha1, so the rewrite really wrote it.
            assert_ne!(
                now.metadata.resource_version,
                object.metadata.resource_version
            );
        }
    }

    // A second run finds nothing stored at an old version.
    let again = migrate_storage_version(&e.client, CRD).await.unwrap();
    assert_eq!(again.stored_versions_before, ["v1"]);
    assert_eq!(again.rewritten, names.len());
}

#[kubegen::test]
async fn an_unknown_crd_is_a_typed_error(e: TestEnv) {
    match migrate_storage_version(&e.client, "nothings.migrate.kubegen.dev").await {
        Err(MigrateError::Crd { crd, source }) => {
            assert_eq!(crd, "nothings.migrate.kubegen.dev");
            assert!(
                matches!(*source, kube::Error::Api(ref s) if s.code == 404),
                "{source}"
            );
        }
        other => panic!("{other:?}"),
    }
}
