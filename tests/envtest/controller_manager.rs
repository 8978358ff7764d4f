//! `EnvtestBuilder::controller_manager` and `Envtest::shared_with_controllers`:
//! kube-controller-manager beside the apiserver. With it, a Deployment gets a ReplicaSet and
//! Pods, dependents of a deleted owner are garbage-collected and a deleted namespace goes away;
//! without it (the default, and `Envtest::shared`) none of that happens.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec, ReplicaSet};
use k8s_openapi::api::core::v1::{
    ConfigMap, Container, Namespace, Pod, PodSpec, PodTemplateSpec, ServiceAccount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use kube::api::{Api, DeleteParams, PostParams};
use kube::{Client, ResourceExt};
use kubegen::testing::{Envtest, EnvtestError, Eventually};

use super::api::{Probe, ProbeSpec};
use super::{OWN_INSTANCE, assets};

/// How long a test with the controller manager waits for it to act; it usually takes well under
/// a second, but the machine may be busy starting other apiservers.
const ACT_WITHIN: Duration = Duration::from_secs(60);
/// How long a test without it waits before concluding that nothing happened. The controller
/// manager acts on a Deployment or a deleted owner within 200 ms here; on a deleted namespace
/// only after 5 s, the grace period its namespace controller always waits (for other
/// apiservers of an HA cluster to see the deletion), then within 200 ms.
const NOTHING_WITHIN: Duration = Duration::from_secs(8);

fn meta(name: &str, namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: namespace.map(Into::into),
        ..ObjectMeta::default()
    }
}

async fn create_namespace(client: &Client, name: &str) {
    Api::<Namespace>::all(client.clone())
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: meta(name, None),
                ..Namespace::default()
            },
        )
        .await
        .unwrap();
}

/// Polls `check` every 100 ms until it is true; fails the test after [`ACT_WITHIN`], naming
/// `what`. Returns how long it took.
async fn eventually<F, Fut>(what: &str, check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    let patience = Eventually::default()
        .timeout(ACT_WITHIN)
        .interval(Duration::from_millis(100));
    patience.until(what, check).await;
    started.elapsed()
}

// --- The scenarios: each sets something up that only a controller would finish, and checks
// whether it was finished. ---

/// A one-replica Deployment `web` in `ns`.
async fn create_deployment(client: &Client, ns: &str) {
    let labels = BTreeMap::from([("app".to_string(), "web".to_string())]);
    let deployment = Deployment {
        metadata: meta("web", Some(ns)),
        spec: DeploymentSpec {
            replicas: Some(1),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "web".into(),
                        image: Some("registry.k8s.io/pause:3.10".into()),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        },
        ..Deployment::default()
    };
    Api::<Deployment>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &deployment)
        .await
        .unwrap();
}

/// Whether `object`'s controller is the object with uid `owner`.
fn controlled_by(object: &impl kube::Resource, owner: Option<String>) -> bool {
    object
        .owner_references()
        .iter()
        .any(|r| Some(&r.uid) == owner.as_ref() && r.controller == Some(true))
}

/// Whether Deployment `web` has a ReplicaSet, and that ReplicaSet a Pod.
async fn deployment_has_replica_set_and_pod(client: &Client, ns: &str) -> bool {
    let deployment = Api::<Deployment>::namespaced(client.clone(), ns)
        .get("web")
        .await
        .unwrap();
    let replica_sets = Api::<ReplicaSet>::namespaced(client.clone(), ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items;
    let Some(replica_set) = replica_sets
        .iter()
        .find(|rs| controlled_by(*rs, deployment.uid()))
    else {
        return false;
    };
    let pods = Api::<Pod>::namespaced(client.clone(), ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items;
    pods.iter().any(|pod| controlled_by(pod, replica_set.uid()))
}

/// ConfigMap `owner` with two dependents (ConfigMap `dependent`, Probe `dependent`), then
/// `owner` deleted in the background: the garbage collector's work is to delete the
/// dependents.
async fn orphan_dependents(client: &Client, ns: &str) {
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
    let owner = config_maps
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: meta("owner", Some(ns)),
                ..ConfigMap::default()
            },
        )
        .await
        .unwrap();
    let owned_by = vec![OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: "owner".into(),
        uid: owner.uid().unwrap(),
        ..OwnerReference::default()
    }];
    create_pair(client, ns, "dependent", Some(owned_by)).await;
    config_maps
        .delete("owner", &DeleteParams::background())
        .await
        .unwrap();
}

/// ConfigMap `name` and Probe `name` in `ns`, owned by `owners`.
async fn create_pair(client: &Client, ns: &str, name: &str, owners: Option<Vec<OwnerReference>>) {
    let metadata = ObjectMeta {
        owner_references: owners,
        ..meta(name, Some(ns))
    };
    Api::<ConfigMap>::namespaced(client.clone(), ns)
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: metadata.clone(),
                ..ConfigMap::default()
            },
        )
        .await
        .unwrap();
    let mut probe = Probe::new(
        name,
        ProbeSpec {
            target: "x".into(),
            attempts: None,
        },
    );
    probe.metadata = metadata;
    Api::<Probe>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &probe)
        .await
        .unwrap();
}

/// Which of ConfigMap `name` and Probe `name` (see [`create_pair`]) exist in `ns`: the dependents of the deleted
/// owner (`dependent`), or the content of the deleted namespace (`content`).
async fn left_of(client: &Client, ns: &str, name: &str) -> Vec<&'static str> {
    let mut left = Vec::new();
    let config_map = Api::<ConfigMap>::namespaced(client.clone(), ns)
        .get_opt(name)
        .await
        .unwrap();
    if config_map.is_some() {
        left.push("ConfigMap");
    }
    let probe = Api::<Probe>::namespaced(client.clone(), ns)
        .get_opt(name)
        .await
        .unwrap();
    if probe.is_some() {
        left.push("Probe");
    }
    left
}

/// Namespace `ns` with a ConfigMap and a Probe in it, then deleted: the namespace controller's
/// work is to delete its content and then the namespace.
async fn delete_a_namespace_with_content(client: &Client, ns: &str) {
    create_namespace(client, ns).await;
    create_pair(client, ns, "content", None).await;
    Api::<Namespace>::all(client.clone())
        .delete(ns, &DeleteParams::default())
        .await
        .unwrap();
}

async fn namespace(client: &Client, ns: &str) -> Option<Namespace> {
    Api::<Namespace>::all(client.clone())
        .get_opt(ns)
        .await
        .unwrap()
}

// --- With the controller manager (the shared instance that has it). ---

async fn with_controllers(case: &str) -> Option<&'static Envtest> {
    assets(case)?;
    let env = Envtest::shared_with_controllers()
        .await
        .expect("the shared envtest with controllers starts");
    println!(
        "envtest with the controller manager started in {:?}",
        env.startup_time()
    );
    Some(env)
}

#[tokio::test]
async fn with_the_controller_manager_a_deployment_gets_a_replica_set_and_a_pod() {
    let Some(env) = with_controllers("deployment").await else {
        return;
    };
    assert!(env.controller_manager_pid().is_some());
    let client = env.client();
    let ns = "cm-deployment";
    create_namespace(&client, ns).await;
    create_deployment(&client, ns).await;
    let took = eventually("a ReplicaSet and a Pod for Deployment web", || {
        deployment_has_replica_set_and_pod(&client, ns)
    })
    .await;
    println!("Deployment → ReplicaSet → Pod in {took:?}");
}

#[tokio::test]
async fn with_the_controller_manager_dependents_of_a_deleted_owner_are_garbage_collected() {
    let Some(env) = with_controllers("garbage collection").await else {
        return;
    };
    let client = env.client();
    let ns = "cm-gc";
    create_namespace(&client, ns).await;
    orphan_dependents(&client, ns).await;
    let took = eventually(
        "the deleted ConfigMap's dependents (a ConfigMap, a Probe) deleted",
        || async { left_of(&client, ns, "dependent").await.is_empty() },
    )
    .await;
    println!("dependents garbage-collected in {took:?}");
}

#[tokio::test]
async fn with_the_controller_manager_a_deleted_namespace_disappears() {
    let Some(env) = with_controllers("namespace deletion").await else {
        return;
    };
    let client = env.client();
    let ns = "cm-deleted";
    delete_a_namespace_with_content(&client, ns).await;
    let content = eventually("the ConfigMap and Probe in cm-deleted deleted", || async {
        left_of(&client, ns, "content").await.is_empty()
    })
    .await;
    let took = eventually("namespace cm-deleted gone", || async {
        namespace(&client, ns).await.is_none()
    })
    .await;
    println!("namespace content deleted in {content:?}, the namespace {took:?} later");
}

#[tokio::test]
async fn with_the_controller_manager_new_namespaces_get_a_default_service_account() {
    let Some(env) = with_controllers("service accounts").await else {
        return;
    };
    let client = env.client();
    // What start waited for.
    Api::<ServiceAccount>::namespaced(client.clone(), "default")
        .get("default")
        .await
        .unwrap();
    let ns = "cm-service-account";
    create_namespace(&client, ns).await;
    eventually("ServiceAccount cm-service-account/default", || async {
        Api::<ServiceAccount>::namespaced(client.clone(), ns)
            .get_opt("default")
            .await
            .unwrap()
            .is_some()
    })
    .await;
    let log = env.dir().join("kube-controller-manager.log");
    assert!(
        std::fs::metadata(&log).is_ok_and(|m| m.len() > 0),
        "{} is empty or missing",
        log.display()
    );
}

// --- Without it (the plain shared instance): the same scenarios stay as they were left. ---

#[tokio::test]
async fn without_the_controller_manager_nothing_is_reconciled_collected_or_finalized() {
    if assets("no controller manager").is_none() {
        return;
    }
    let env = Envtest::shared().await.expect("the shared envtest starts");
    assert_eq!(env.controller_manager_pid(), None);
    assert!(!env.dir().join("kube-controller-manager.log").exists());
    let client = env.client();
    let (deploy_ns, gc_ns, deleted_ns) = ("plain-deployment", "plain-gc", "plain-deleted");
    create_namespace(&client, deploy_ns).await;
    create_deployment(&client, deploy_ns).await;
    create_namespace(&client, gc_ns).await;
    orphan_dependents(&client, gc_ns).await;
    delete_a_namespace_with_content(&client, deleted_ns).await;

    tokio::time::sleep(NOTHING_WITHIN).await;

    let replica_sets = Api::<ReplicaSet>::namespaced(client.clone(), deploy_ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items;
    assert!(replica_sets.is_empty(), "{replica_sets:?}");
    assert_eq!(
        left_of(&client, gc_ns, "dependent").await,
        ["ConfigMap", "Probe"],
        "nothing garbage-collects the deleted owner's dependents"
    );
    assert_eq!(
        left_of(&client, deleted_ns, "content").await,
        ["ConfigMap", "Probe"],
        "nothing deletes the deleted namespace's content"
    );
    let deleted = namespace(&client, deleted_ns)
        .await
        .expect("the deleted namespace is still there");
    assert!(deleted.metadata.deletion_timestamp.is_some());
    assert_eq!(
        deleted.status.and_then(|s| s.phase).as_deref(),
        Some("Terminating")
    );
    // Nor does any namespace get a default ServiceAccount.
    let accounts = Api::<ServiceAccount>::namespaced(client, deploy_ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items;
    assert!(accounts.is_empty(), "{accounts:?}");
}

// --- Errors, and the process's life. ---

/// A directory holding symlinks to `assets`' etcd and kube-apiserver only.
fn assets_without_the_controller_manager(assets: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for binary in ["etcd", "kube-apiserver"] {
        std::os::unix::fs::symlink(assets.join(binary), dir.path().join(binary)).unwrap();
    }
    dir
}

#[tokio::test]
async fn a_missing_controller_manager_binary_is_named() {
    let Some(assets) = assets("missing controller manager") else {
        return;
    };
    let dir = assets_without_the_controller_manager(&assets);
    let binary = dir.path().join("kube-controller-manager");
    let err = Envtest::builder()
        .assets_dir(dir.path())
        .controller_manager(true)
        .start()
        .await
        .unwrap_err();
    match &err {
        EnvtestError::ControllerManagerMissing {
            origin,
            path,
            exists,
        } => {
            assert_eq!(*origin, "EnvtestBuilder::assets_dir");
            assert_eq!(path, &binary);
            assert!(!exists);
        }
        other => panic!("expected ControllerManagerMissing, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "the controller manager was asked for (EnvtestBuilder::controller_manager or \
             Envtest::shared_with_controllers), but {} does not exist",
            binary.display()
        )),
        "{message}"
    );
    assert!(
        message.contains("setup-envtest's assets do not include it"),
        "{message}"
    );
    assert!(message.contains("../shared/k8s/install"), "{message}");

    // A file that cannot be executed does not count either.
    std::fs::write(&binary, "#!/bin/sh\n").unwrap();
    let err = Envtest::builder()
        .assets_dir(dir.path())
        .controller_manager(true)
        .start()
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            EnvtestError::ControllerManagerMissing { exists: true, .. }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("is not executable"), "{err}");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn dropping_stops_the_controller_manager_with_the_others() {
    if assets("controller manager drop").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    let env = Envtest::builder()
        .crds([])
        .controller_manager(true)
        .start()
        .await
        .unwrap();
    println!(
        "envtest with the controller manager, no CRDs, started in {:?}",
        env.startup_time()
    );
    let dir = env.dir().to_path_buf();
    let controller_manager = env.controller_manager_pid().expect("it was asked for");
    assert!(super::running(controller_manager, &dir));
    assert!(dir.join("kube-controller-manager.log").exists());
    let (apiserver, etcd) = (env.apiserver_pid(), env.etcd_pid());
    drop(env);
    assert!(
        !super::running(controller_manager, &dir),
        "kube-controller-manager {controller_manager} still runs"
    );
    super::assert_cleaned_up(apiserver, etcd, &dir);
}

#[tokio::test]
async fn a_controller_manager_that_exits_early_is_reported_with_its_log() {
    if assets("controller manager exits early").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    let err = Envtest::builder()
        .crds([])
        .controller_manager(true)
        .controller_manager_flag("--no-such-flag=1")
        .start()
        .await
        .unwrap_err();
    super::assert_exited_on_an_unknown_flag(&err, "kube-controller-manager");
}

#[tokio::test]
async fn a_controller_manager_that_is_never_ready_times_out_with_its_log() {
    if assets("controller manager timeout").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    // Without its service-account controller it runs, but never creates default/default.
    let timeout = Duration::from_secs(20);
    let err = Envtest::builder()
        .crds([])
        .controller_manager(true)
        .controller_manager_flag("--controllers=*,-serviceaccount-controller")
        .start_timeout(timeout)
        .start()
        .await
        .unwrap_err();
    match &err {
        EnvtestError::Timeout {
            process,
            timeout: reported,
            waiting_for,
            log_tail,
        } => {
            assert_eq!(*process, "kube-controller-manager", "{err}");
            assert_eq!(*reported, timeout);
            assert!(
                waiting_for.contains("ServiceAccount default/default does not exist yet"),
                "{waiting_for}"
            );
            assert!(!log_tail.is_empty());
        }
        other => panic!("expected Timeout, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("the envtest kube-controller-manager was not ready within 20s"),
        "{err}"
    );
}
