//! The sample-controller on both backends: a Foo gets its Deployment, the Deployment's status
//! reaches the Foo, replicas follow the Foo, and a Deployment the Foo does not control is left
//! alone with a Warning event. Most tests run without kube-controller-manager and write the
//! Deployment's status themselves; the `#[kubegen::test(controllers)]` ones run with the
//! cluster's controllers and a kubelet (in memory, or Envtest with kube-controller-manager), so
//! the Deployment really becomes Available and deleting the Foo really collects its children.

use std::future::Future;
use std::time::Duration;

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Patch, PatchParams};
use kubegen::builtin::BuiltinClientExt;
use kubegen::client::ClientError;
use kubegen::testing::{Eventually, TestEnv};
use kubegen_examples::sample_controller::{
    CONTROLLER_AGENT_NAME, ERR_RESOURCE_EXISTS, Foo, FooClientExt, FooSpec,
    MESSAGE_RESOURCE_SYNCED, SUCCESS_SYNCED, manager, message_resource_exists, new_deployment,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The controller running on a test's namespace until dropped.
struct Running {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<Result<(), kubegen::manager::ManagerError>>,
}

impl Running {
    fn start(e: &TestEnv) -> Self {
        let stop = CancellationToken::new();
        let task = tokio::spawn(manager(&e.client, &e.namespace).run(stop.clone()));
        Running { stop, task }
    }

    /// Stops the Manager gracefully; it must not have failed.
    async fn stop(self) {
        self.stop.cancel();
        self.task.await.unwrap().unwrap();
    }
}

/// `check` until it answers `Some`, for up to 30 seconds.
async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let patience = Eventually::default().timeout(Duration::from_secs(30));
    patience.until(what, check).await
}

fn foo(name: &str, deployment: &str, replicas: i32) -> Foo {
    Foo::new(
        name,
        FooSpec {
            deployment_name: deployment.into(),
            replicas: Some(replicas),
        },
    )
}

/// The events about the Foo named `name` with `reason`.
async fn events(e: &TestEnv, name: &str, reason: &str) -> Vec<Event> {
    let all = kube::Api::<Event>::namespaced(e.client.clone(), &e.namespace)
        .list(&Default::default())
        .await
        .unwrap();
    all.items
        .into_iter()
        .filter(|ev| {
            let about = ev.regarding.as_ref();
            about.and_then(|r| r.kind.as_deref()) == Some("Foo")
                && about.and_then(|r| r.name.as_deref()) == Some(name)
                && ev.reason.as_deref() == Some(reason)
        })
        .collect()
}

/// Writes the Deployment's status as kube-controller-manager would once `available` pods
/// of `replicas` are up.
async fn set_deployment_status(e: &TestEnv, name: &str, replicas: i32, available: i32) {
    let status = json!({"status": {
        "observedGeneration": 1,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": available,
        "availableReplicas": available,
    }});
    e.client
        .deployments(&e.namespace)
        .patch_status(name, &PatchParams::default(), &Patch::Merge(status))
        .await
        .unwrap();
}

#[kubegen::test]
async fn a_foo_gets_its_deployment_and_its_status_follows_it(e: TestEnv) {
    let running = Running::start(&e);
    let foos = e.client.foos(&e.namespace);
    let created = foos
        .create(&foo("example-foo", "example-nginx", 2))
        .await
        .unwrap();

    let deployments = e.client.deployments(&e.namespace);
    let deployment = eventually("the Deployment exists", || async {
        deployments.get_opt("example-nginx").await.unwrap()
    })
    .await;
    let owners = deployment.metadata.owner_references.clone().unwrap();
    assert_eq!(owners.len(), 1, "{owners:#?}");
    let owner = &owners[0];
    assert_eq!(
        (
            owner.api_version.as_str(),
            owner.kind.as_str(),
            owner.name.as_str(),
            Some(&owner.uid),
            owner.controller,
            owner.block_owner_deletion,
        ),
        (
            "samplecontroller.k8s.io/v1alpha1",
            "Foo",
            "example-foo",
            created.metadata.uid.as_ref(),
            Some(true),
            Some(true),
        )
    );
    let spec = &deployment.spec;
    assert_eq!(spec.replicas, Some(2));
    let labels = json!({"app": "nginx", "controller": "example-foo"});
    assert_eq!(json!(spec.selector.match_labels), labels);
    let template = &spec.template;
    assert_eq!(json!(template.metadata.as_ref().unwrap().labels), labels);
    let containers = &template.spec.as_ref().unwrap().containers;
    assert_eq!(containers.len(), 1);
    assert_eq!(
        (containers[0].name.as_str(), containers[0].image.as_deref()),
        ("nginx", Some("nginx:latest"))
    );
    // The server defaulted the rest as it does any Deployment.
    assert_eq!(
        containers[0].image_pull_policy.as_deref(),
        Some("Always"),
        "nginx:latest is pulled always"
    );
    assert_eq!(spec.revision_history_limit, Some(10));
    // The Deployment was created by the controller, as its field manager.
    let managers: Vec<_> = deployment
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter_map(|m| m.manager.as_deref())
        .collect();
    assert_eq!(managers, [CONTROLLER_AGENT_NAME]);

    // Nothing is available yet, and the Foo says so.
    eventually("the Foo's status says 0 available", || async {
        let current = foos.get("example-foo").await.unwrap();
        (current.status?.available_replicas == 0).then_some(())
    })
    .await;

    set_deployment_status(&e, "example-nginx", 2, 2).await;
    let synced = eventually("the Foo's status says 2 available", || async {
        let current = foos.get("example-foo").await.unwrap();
        (current.status.as_ref()?.available_replicas == 2).then_some(current)
    })
    .await;
    assert_eq!(synced.metadata.generation, Some(1), "only status changed");

    let events = eventually("a Synced event", || async {
        Some(events(&e, "example-foo", SUCCESS_SYNCED).await).filter(|v| !v.is_empty())
    })
    .await;
    let event = &events[0];
    assert_eq!(event.type_.as_deref(), Some("Normal"));
    assert_eq!(event.note.as_deref(), Some(MESSAGE_RESOURCE_SYNCED));
    assert_eq!(
        event.reporting_controller.as_deref(),
        Some(CONTROLLER_AGENT_NAME)
    );
    running.stop().await;
}

#[kubegen::test]
async fn changing_a_foos_replicas_updates_its_deployment(e: TestEnv) {
    let running = Running::start(&e);
    let foos = e.client.foos(&e.namespace);
    foos.create(&foo("scaled", "scaled-nginx", 1))
        .await
        .unwrap();
    let deployments = e.client.deployments(&e.namespace);
    let first = eventually("the Deployment exists", || async {
        deployments.get_opt("scaled-nginx").await.unwrap()
    })
    .await;
    assert_eq!(first.spec.replicas, Some(1));

    let patch = json!({"spec": {"replicas": 3}});
    foos.patch("scaled", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    let scaled = eventually("the Deployment has 3 replicas", || async {
        let d = deployments.get("scaled-nginx").await.unwrap();
        (d.spec.replicas == Some(3)).then_some(d)
    })
    .await;
    // The same Deployment, replaced: a new generation, the owner kept.
    assert_eq!(scaled.metadata.uid, first.metadata.uid);
    assert_eq!(scaled.metadata.generation, Some(2));
    assert_eq!(
        scaled.metadata.owner_references,
        first.metadata.owner_references
    );
    running.stop().await;
}

#[kubegen::test]
async fn a_deployment_the_foo_does_not_control_is_left_alone(e: TestEnv) {
    // Someone else's Deployment, of the name the Foo will ask for.
    let deployments = e.client.deployments(&e.namespace);
    let mut theirs = new_deployment(&foo("someone-else", "taken", 1));
    theirs.metadata.owner_references = None;
    let theirs = deployments.create(&theirs).await.unwrap();

    let running = Running::start(&e);
    let foos = e.client.foos(&e.namespace);
    foos.create(&foo("intruder", "taken", 3)).await.unwrap();
    let warnings = eventually("an ErrResourceExists event", || async {
        Some(events(&e, "intruder", ERR_RESOURCE_EXISTS).await).filter(|v| !v.is_empty())
    })
    .await;
    let warning = &warnings[0];
    assert_eq!(warning.type_.as_deref(), Some("Warning"));
    assert_eq!(
        warning.note.as_deref(),
        Some("Resource \"taken\" already exists and is not managed by Foo")
    );
    assert_eq!(warning.note, Some(message_resource_exists("taken")));
    running.stop().await;

    // The Deployment is as it was, and the Foo was never synced.
    let after = deployments.get("taken").await.unwrap();
    assert_eq!(
        after.metadata.resource_version,
        theirs.metadata.resource_version
    );
    assert_eq!(after.metadata.owner_references, None);
    assert_eq!(after.spec.replicas, Some(1));
    let intruder = foos.get("intruder").await.unwrap();
    assert_eq!(intruder.status, None);
    assert!(events(&e, "intruder", SUCCESS_SYNCED).await.is_empty());
}

#[kubegen::test]
async fn a_foos_replicas_are_between_1_and_10(e: TestEnv) {
    let foos = e.client.foos(&e.namespace);
    for (replicas, bound) in [
        (0, "greater than or equal to 1"),
        (11, "less than or equal to 10"),
    ] {
        let refused = foos.create(&foo("out-of-range", "nginx", replicas)).await;
        let Err(ClientError::Invalid { status, .. }) = &refused else {
            panic!("{replicas} replicas: {refused:?}");
        };
        let message = &status.message;
        assert!(
            message.contains(&format!(
                "spec.replicas: Invalid value: {replicas}: spec.replicas in body should be {bound}"
            )),
            "{message}"
        );
    }
}

/// The ReplicaSets and Pods of the test's namespace the Foo `name` made (the sample-controller
/// labels its Deployment's template `controller: <Foo>`).
async fn children(e: &TestEnv, name: &str) -> (Vec<ReplicaSet>, Vec<Pod>) {
    let params = kube::api::ListParams::default().labels(&format!("controller={name}"));
    let replica_sets = e.client.replica_sets(&e.namespace).list(&params).await;
    let pods = e.client.pods(&e.namespace).list(&params).await;
    (replica_sets.unwrap().items, pods.unwrap().items)
}

// ANCHOR: live
#[kubegen::test(controllers)]
async fn with_the_cluster_a_foo_becomes_available_and_deleting_it_collects_its_deployment(
    e: TestEnv,
) {
    let running = Running::start(&e);
    let foos = e.client.foos(&e.namespace);
    foos.create(&foo("live", "live-nginx", 2)).await.unwrap();

    // The Deployment controller makes a ReplicaSet, that one two Pods, the kubelet runs them,
    // the Deployment reports them available, and the sample-controller copies that.
    let synced = eventually("the Foo's status says 2 available", || async {
        let current = foos.get("live").await.unwrap();
        (current.status.as_ref()?.available_replicas == 2).then_some(current)
    })
    .await;
    assert_eq!(synced.metadata.generation, Some(1));
    let deployment = e.client.deployments(&e.namespace);
    let deployment = deployment.get("live-nginx").await.unwrap();
    let status = deployment.status.clone().unwrap();
    assert_eq!(
        (
            status.replicas,
            status.ready_replicas,
            status.updated_replicas
        ),
        (Some(2), Some(2), Some(2))
    );
    let available = (status.conditions.iter().flatten())
        .find(|c| c.type_.as_deref() == Some("Available"))
        .unwrap();
    assert_eq!(
        (available.status.as_deref(), available.reason.as_deref()),
        (Some("True"), Some("MinimumReplicasAvailable"))
    );
    let (replica_sets, pods) = children(&e, "live").await;
    assert_eq!(replica_sets.len(), 1, "{replica_sets:#?}");
    let replica_set = &replica_sets[0];
    let owner = &replica_set.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), Some(&owner.uid)),
        ("Deployment", deployment.metadata.uid.as_ref())
    );
    assert_eq!(pods.len(), 2, "{pods:#?}");
    for pod in &pods {
        let owner = &pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            owner.uid.as_str(),
            replica_set.metadata.uid.as_deref().unwrap()
        );
        assert_eq!(
            pod.status.as_ref().and_then(|s| s.phase.as_deref()),
            Some("Running")
        );
    }
    running.stop().await;

    // Deleting the Foo (background propagation, a custom resource's default) lets the
    // garbage collector take the Deployment, then its ReplicaSet, then the Pods.
    foos.delete("live", &Default::default()).await.unwrap();
    eventually(
        "the Deployment, ReplicaSet and Pods are collected",
        || async {
            let deployments = e.client.deployments(&e.namespace);
            let gone = deployments.get_opt("live-nginx").await.unwrap().is_none();
            let (replica_sets, pods) = children(&e, "live").await;
            (gone && replica_sets.is_empty() && pods.is_empty()).then_some(())
        },
    )
    .await;
}
// ANCHOR_END: live

#[kubegen::test(controllers)]
async fn with_the_cluster_deleting_the_namespace_removes_everything(e: TestEnv) {
    let running = Running::start(&e);
    let foos = e.client.foos(&e.namespace);
    foos.create(&foo("doomed", "doomed-nginx", 1))
        .await
        .unwrap();
    eventually("the Foo's status says 1 available", || async {
        let current = foos.get("doomed").await.unwrap();
        (current.status?.available_replicas == 1).then_some(())
    })
    .await;
    running.stop().await;

    // The namespace controller deletes the Foo, the Deployment, its ReplicaSet and Pod,
    // and the rest (the default ServiceAccount, kube-root-ca.crt, events), then the
    // namespace itself.
    let namespaces = e.client.namespaces();
    namespaces
        .delete(&e.namespace, &Default::default())
        .await
        .unwrap();
    let terminating = namespaces.get(&e.namespace).await.unwrap();
    let phase = terminating.status.and_then(|s| s.phase);
    assert_eq!(phase.as_deref(), Some("Terminating"));
    for _ in 0..3000 {
        if namespaces.get_opt(&e.namespace).await.unwrap().is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        namespaces.get_opt(&e.namespace).await.unwrap().is_none(),
        "the namespace is gone within a minute"
    );
    let foos = e
        .client
        .foos_all_namespaces()
        .list(&Default::default())
        .await
        .unwrap();
    assert!(
        (foos.items.iter()).all(|f| f.metadata.namespace.as_deref() != Some(&e.namespace)),
        "{:#?}",
        foos.items
    );
    let (replica_sets, pods) = children(&e, "doomed").await;
    assert!(replica_sets.is_empty() && pods.is_empty());
}
