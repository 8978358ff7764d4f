//! The Deployment and ReplicaSet controllers in memory, where the behaviour scenarios do not
//! show them well: times on a frozen clock (minReadySeconds, the progress deadline, a pause),
//! proportional scaling mid-rollout, a hash collision, ReplicationControllers.

use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Event, Pod, ReplicationController};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kubegen::testing::{ApiServer, Controller, Controllers, Kubelet, PodFate};
use serde_json::{Value, json};

use super::behaviour::scenarios;
use super::support::advance;

const T0: &str = "2030-01-01T00:00:00Z";

/// A server whose clock stands at [`T0`], its controllers (and `kubelet`) running, settled.
async fn cluster(kubelet: Option<Kubelet>) -> ApiServer {
    let server = ApiServer::new();
    server.clock().freeze_at(T0.parse().unwrap());
    // Without the garbage collector: the tests look at what the workload controllers leave
    // behind when an owner goes.
    let controllers = Controllers::all().without(Controller::GarbageCollector);
    let controllers = match kubelet {
        Some(k) => controllers.kubelet(k),
        None => controllers,
    };
    server.start_controllers(controllers);
    server.settle().await; // the default ServiceAccount, which Pods need
    server
}

/// A Deployment `web` of `replicas` Pods of `busybox:1.36`, with `spec` merged in.
fn deployment(replicas: i64, spec: Value) -> Deployment {
    serde_json::from_value(scenarios::deployment::deployment(replicas, spec)).unwrap()
}

fn deployments(server: &ApiServer) -> Api<Deployment> {
    Api::namespaced(server.client(), "default")
}

/// The Deployment's status as JSON.
async fn status(server: &ApiServer) -> Value {
    let d = deployments(server).get("web").await.unwrap();
    serde_json::to_value(d.status.unwrap()).unwrap()
}

/// The Deployment's condition of `kind`.
async fn condition(server: &ApiServer, kind: &str) -> Value {
    let status = status(server).await;
    status["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == kind)
        .cloned()
        .unwrap_or(Value::Null)
}

/// The ReplicaSets' replicas and status counts, by name.
async fn replica_sets(server: &ApiServer) -> Vec<(String, i32, Value)> {
    let rss: Api<ReplicaSet> = Api::namespaced(server.client(), "default");
    let mut out: Vec<_> = rss
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|rs| {
            let replicas = rs.spec.replicas.unwrap_or(0);
            let status = serde_json::to_value(rs.status.unwrap_or_default()).unwrap();
            (rs.metadata.name.unwrap(), replicas, status)
        })
        .collect();
    out.sort_by_key(|(name, ..)| name.clone());
    out
}

async fn patch(server: &ApiServer, patch: Value) {
    deployments(server)
        .patch("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    server.settle().await;
}

#[tokio::test]
async fn ready_pods_become_available_after_min_ready_seconds_on_the_clock() {
    let server = cluster(Some(Kubelet::new())).await;
    deployments(&server)
        .create(
            &PostParams::default(),
            &deployment(2, json!({"minReadySeconds": 10})),
        )
        .await
        .unwrap();
    server.settle().await;
    let s = status(&server).await;
    assert_eq!(
        (s["readyReplicas"].clone(), s["availableReplicas"].clone()),
        (json!(2), Value::Null)
    );
    assert_eq!(condition(&server, "Available").await["status"], "False");
    advance(&server, Duration::from_secs(9)).await;
    assert_eq!(
        status(&server).await["availableReplicas"],
        Value::Null,
        "9 s: not yet"
    );
    advance(&server, Duration::from_secs(1)).await;
    let s = status(&server).await;
    assert_eq!(
        s["availableReplicas"], 2,
        "Ready for exactly minReadySeconds"
    );
    assert_eq!(condition(&server, "Available").await["status"], "True");
    let progressing = condition(&server, "Progressing").await;
    assert_eq!(progressing["reason"], "NewReplicaSetAvailable");
    assert_eq!(progressing["lastUpdateTime"], "2030-01-01T00:00:10Z");
    let (_, _, rs) = &replica_sets(&server).await[0];
    assert_eq!(rs["availableReplicas"], 2);
}

#[tokio::test]
async fn the_progress_deadline_is_checked_a_second_after_it_passed() {
    let server = cluster(None).await; // the Pods stay Pending
    deployments(&server)
        .create(
            &PostParams::default(),
            &deployment(2, json!({"progressDeadlineSeconds": 10})),
        )
        .await
        .unwrap();
    server.settle().await;
    let progressing = condition(&server, "Progressing").await;
    assert_eq!(progressing["reason"], "ReplicaSetUpdated");
    assert_eq!(progressing["lastUpdateTime"], T0);
    advance(&server, Duration::from_secs(10)).await;
    assert_eq!(
        condition(&server, "Progressing").await["reason"],
        "ReplicaSetUpdated",
        "the deadline itself has not passed"
    );
    // Go looks again a second after the deadline, not as soon as it passed.
    server.clock().advance(Duration::from_millis(500));
    server.settle().await;
    assert_eq!(
        condition(&server, "Progressing").await["reason"],
        "ReplicaSetUpdated"
    );
    server.clock().advance(Duration::from_millis(500));
    server.settle().await;
    let progressing = condition(&server, "Progressing").await;
    assert_eq!(progressing["status"], "False");
    assert_eq!(progressing["reason"], "ProgressDeadlineExceeded");
    let name = &replica_sets(&server).await[0].0;
    assert_eq!(
        progressing["message"],
        format!("ReplicaSet \"{name}\" has timed out progressing.")
    );
    assert_eq!(progressing["lastUpdateTime"], "2030-01-01T00:00:11Z");
    // No event says so.
    let events: Api<Event> = Api::namespaced(server.client(), "default");
    let reasons: Vec<String> = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|e| e.reason)
        .collect();
    assert!(
        !reasons.iter().any(|r| r.contains("Deadline")),
        "{reasons:?}"
    );
}

#[tokio::test]
async fn a_pause_does_not_count_against_the_deadline() {
    let server = cluster(None).await;
    deployments(&server)
        .create(
            &PostParams::default(),
            &deployment(1, json!({"progressDeadlineSeconds": 10})),
        )
        .await
        .unwrap();
    server.settle().await;
    patch(&server, json!({"spec": {"paused": true}})).await;
    let paused = condition(&server, "Progressing").await;
    assert_eq!(
        (paused["status"].as_str(), paused["reason"].as_str()),
        (Some("Unknown"), Some("DeploymentPaused"))
    );
    advance(&server, Duration::from_secs(60)).await;
    assert_eq!(
        condition(&server, "Progressing").await["reason"],
        "DeploymentPaused"
    );
    patch(&server, json!({"spec": {"paused": null}})).await;
    let resumed = condition(&server, "Progressing").await;
    assert_eq!(resumed["reason"], "DeploymentResumed");
    assert_eq!(resumed["lastUpdateTime"], "2030-01-01T00:01:00Z");
    // The deadline counts from the resume.
    advance(&server, Duration::from_secs(10)).await;
    assert_eq!(
        condition(&server, "Progressing").await["reason"],
        "DeploymentResumed"
    );
    advance(&server, Duration::from_secs(1)).await;
    assert_eq!(
        condition(&server, "Progressing").await["reason"],
        "ProgressDeadlineExceeded"
    );
}

#[tokio::test]
async fn a_deployment_scaled_mid_rollout_grows_its_replica_sets_in_proportion() {
    // The old template's Pods become Ready, the new one's never do.
    let kubelet = Kubelet::with_fate(|pod: &Pod| {
        let image = pod.spec.as_ref().unwrap().containers[0].image.clone();
        match image.as_deref() {
            Some("busybox:1.36") => PodFate::Ready,
            _ => PodFate::Running,
        }
    });
    let server = cluster(Some(kubelet)).await;
    let strategy = json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}}});
    deployments(&server)
        .create(&PostParams::default(), &deployment(10, strategy))
        .await
        .unwrap();
    server.settle().await;
    patch(
        &server,
        json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "busybox:1.37"}]}}}}),
    )
    .await;
    let sizes = |rss: Vec<(String, i32, Value)>| -> Vec<i32> {
        let mut sizes: Vec<i32> = rss.into_iter().map(|(_, r, _)| r).collect();
        sizes.sort_by(|a, b| b.cmp(a));
        sizes
    };
    // Within maxSurge 3 and maxUnavailable 2 of 10: 8 old and 5 new, as on a real cluster.
    assert_eq!(sizes(replica_sets(&server).await), [8, 5]);
    patch(&server, json!({"spec": {"replicas": 20}})).await;
    // 10 more for 23 in all, shared by size: 8 * 23 / 13 and 5 * 23 / 13, rounded.
    assert_eq!(sizes(replica_sets(&server).await), [14, 9]);
    let s = status(&server).await;
    assert_eq!(
        (s["replicas"].clone(), s["updatedReplicas"].clone()),
        (json!(23), json!(9))
    );
}

#[tokio::test]
async fn a_replica_set_name_taken_by_another_template_raises_the_collision_count() {
    let server = cluster(None).await;
    deployments(&server)
        .create(&PostParams::default(), &deployment(1, json!({})))
        .await
        .unwrap();
    server.settle().await;
    let (taken, ..) = replica_sets(&server).await.remove(0);
    // The Deployment goes (without a garbage collector its ReplicaSet stays, controlled by
    // the Deployment that was), and the ReplicaSet's template changes.
    deployments(&server)
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    let rss: Api<ReplicaSet> = Api::namespaced(server.client(), "default");
    let other = json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "busybox:1.35"}]}}}});
    rss.patch(&taken, &PatchParams::default(), &Patch::Merge(&other))
        .await
        .unwrap();
    server.settle().await;
    deployments(&server)
        .create(&PostParams::default(), &deployment(1, json!({})))
        .await
        .unwrap();
    server.settle().await;
    assert_eq!(status(&server).await["collisionCount"], 1);
    let names: Vec<String> = replica_sets(&server)
        .await
        .into_iter()
        .map(|(n, ..)| n)
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let new = names.iter().find(|n| **n != taken).unwrap();
    let rs = rss.get(new).await.unwrap();
    let owner = &rs.metadata.owner_references.unwrap()[0];
    assert_eq!(owner.kind, "Deployment");
    let hash = rs.metadata.labels.unwrap()["pod-template-hash"].clone();
    assert_eq!(*new, format!("web-{hash}"));
}

#[tokio::test]
async fn a_replication_controller_keeps_its_pods_as_a_replica_set_does() {
    let server = cluster(Some(Kubelet::new())).await;
    let rcs: Api<ReplicationController> = Api::namespaced(server.client(), "default");
    let rc = json!({
        "metadata": {"name": "old"},
        "spec": {"replicas": 2, "template": {
            "metadata": {"labels": {"app": "old"}},
            "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
        }},
    });
    rcs.create(&PostParams::default(), &serde_json::from_value(rc).unwrap())
        .await
        .unwrap();
    server.settle().await;
    let rc = rcs.get("old").await.unwrap();
    assert_eq!(
        serde_json::to_value(rc.status.unwrap()).unwrap(),
        json!({"availableReplicas": 2, "fullyLabeledReplicas": 2, "observedGeneration": 1, "readyReplicas": 2, "replicas": 2})
    );
    let pods: Api<Pod> = Api::namespaced(server.client(), "default");
    let listed = pods
        .list(&ListParams::default().labels("app=old"))
        .await
        .unwrap();
    assert_eq!(listed.items.len(), 2);
    let owner = &listed.items[0].metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.api_version.as_str(), owner.kind.as_str()),
        ("v1", "ReplicationController")
    );
    let events: Api<Event> = Api::namespaced(server.client(), "default");
    let sources: Vec<_> = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some("SuccessfulCreate"))
        .map(|e| e.source.unwrap().component.unwrap())
        .collect();
    assert_eq!(
        sources,
        ["replication-controller", "replication-controller"]
    );
}
