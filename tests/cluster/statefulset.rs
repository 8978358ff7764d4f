//! The StatefulSet controller in memory, where the behaviour scenarios do not look:
//! minReadySeconds on a frozen clock, the status writes of a step, claims and the retention
//! policy's owner references, revision names and collisions. (The DaemonSet controller's
//! are in `daemonset.rs`, with these helpers.)

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet};
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kubegen::testing::{ApiServer, Controller, Controllers, Kubelet, PodFate};
use serde_json::{Value, json};

pub(super) fn object<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid object")
}

pub(super) fn json_of<T: serde::Serialize>(object: &T) -> Value {
    serde_json::to_value(object).expect("serializable")
}

/// A server with the controllers running, its clock frozen, and a namespace.
pub(super) async fn cluster(namespace: &str) -> ApiServer {
    let server = ApiServer::new();
    server
        .clock()
        .freeze_at("2026-03-01T10:00:00Z".parse().unwrap());
    server.create_namespace(namespace).unwrap();
    // Without the garbage collector: the tests look at the owner references it would act on.
    server.start_controllers(Controllers::all().without(Controller::GarbageCollector));
    server.settle().await;
    server
}

fn set(name: &str, replicas: i64, policy: &str) -> Value {
    json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "podManagementPolicy": policy,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]},
            },
            "volumeClaimTemplates": [{
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }],
        },
    })
}

pub(super) async fn create<T>(api: &Api<T>, body: Value) -> T
where
    T: Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    api.create(&PostParams::default(), &object(body))
        .await
        .unwrap()
}

pub(super) async fn merge<T>(api: &Api<T>, name: &str, patch: Value)
where
    T: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
}

/// Changes `name`'s annotations, which syncs it, and waits for the controllers.
pub(super) async fn touch<T>(server: &ApiServer, api: &Api<T>, name: &str, value: &str)
where
    T: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    merge(
        api,
        name,
        json!({"metadata": {"annotations": {"touch": value}}}),
    )
    .await;
    server.settle().await;
}

/// Writes what a kubelet reports for Pod `name` meeting `fate`, at the server's time.
pub(super) async fn kubelet(server: &ApiServer, namespace: &str, name: &str, fate: PodFate) {
    Kubelet::new()
        .set_at(
            &server.client(),
            namespace,
            name,
            fate,
            &server.clock().rfc3339(),
        )
        .await
        .unwrap();
    server.settle().await;
}

pub(super) async fn pod_names(pods: &Api<Pod>) -> Vec<String> {
    let mut names: Vec<String> = pods
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|p| p.metadata.name)
        .collect();
    names.sort();
    names
}

pub(super) fn status(object: &impl serde::Serialize) -> Value {
    json_of(object)["status"].clone()
}

/// The events' messages with their counts, sorted.
pub(super) async fn events(server: &ApiServer, namespace: &str) -> Vec<(String, i64)> {
    let events: Api<Event> = Api::namespaced(server.client(), namespace);
    let mut said: Vec<(String, i64)> = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|e| {
            (
                e.message.unwrap_or_default(),
                i64::from(e.count.unwrap_or(0)),
            )
        })
        .collect();
    said.sort();
    said
}

#[tokio::test]
async fn a_revision_is_named_as_kube_controller_manager_names_it() {
    let server = cluster("s1").await;
    let sets: Api<StatefulSet> = Api::namespaced(server.client(), "s1");
    let mut body = set("web", 1, "OrderedReady");
    body["metadata"]["annotations"] = json!({"note": "hello"});
    create(&sets, body).await;
    server.settle().await;
    // The recorded cluster named this template's revision web-74b67c9cd8.
    let revisions: Api<ControllerRevision> = Api::namespaced(server.client(), "s1");
    let revision = json_of(&revisions.get("web-74b67c9cd8").await.unwrap());
    assert_eq!(revision["revision"], 1);
    assert_eq!(
        revision["metadata"]["labels"],
        json!({"app": "web", "controller.kubernetes.io/hash": "74b67c9cd8"})
    );
    assert_eq!(
        revision["metadata"]["annotations"],
        json!({"note": "hello"})
    );
    assert_eq!(revision["data"]["spec"]["template"]["$patch"], "replace");
    let pods: Api<Pod> = Api::namespaced(server.client(), "s1");
    let pod = json_of(&pods.get("web-0").await.unwrap());
    assert_eq!(
        pod["metadata"]["labels"],
        json!({
            "app": "web",
            "apps.kubernetes.io/pod-index": "0",
            "controller-revision-hash": "web-74b67c9cd8",
            "statefulset.kubernetes.io/pod-name": "web-0",
        })
    );
    assert_eq!(pod["metadata"]["generateName"], "web-");
    assert_eq!(pod["spec"]["hostname"], "web-0");
    assert_eq!(pod["spec"]["subdomain"], "web");
    assert_eq!(
        pod["spec"]["volumes"][0],
        json!({"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}})
    );
}

#[tokio::test]
async fn each_step_writes_the_status_twice() {
    let server = cluster("s2").await;
    let sets: Api<StatefulSet> = Api::namespaced(server.client(), "s2");
    let mut watch = sets
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    create(&sets, set("web", 2, "OrderedReady")).await;
    server.settle().await;
    let mut written = Vec::new();
    while let Ok(Some(event)) = tokio::time::timeout(Duration::from_millis(200), watch.next()).await
    {
        if let Ok(WatchEvent::Modified(set)) = event {
            written.push(status(&set));
        }
    }
    // The Pod a sync creates is counted by the sync its creation triggers.
    let replicas: Vec<&Value> = written.iter().map(|s| &s["replicas"]).collect();
    assert_eq!(replicas, [&json!(0), &json!(1)], "{written:#?}");
    assert_eq!(written[0]["observedGeneration"], 1);
    assert_eq!(written[0]["collisionCount"], 0);
    assert_eq!(written[1]["currentReplicas"], 1);
    // OrderedReady: web-1 waits for web-0 to be Running and Ready.
    let pods: Api<Pod> = Api::namespaced(server.client(), "s2");
    assert_eq!(pod_names(&pods).await, ["web-0"]);
}

#[tokio::test]
async fn the_next_ordinal_waits_min_ready_seconds() {
    let server = cluster("s3").await;
    let sets: Api<StatefulSet> = Api::namespaced(server.client(), "s3");
    let mut body = set("web", 2, "OrderedReady");
    body["spec"]["minReadySeconds"] = json!(10);
    create(&sets, body).await;
    server.settle().await;
    kubelet(&server, "s3", "web-0", PodFate::Ready).await;
    let pods: Api<Pod> = Api::namespaced(server.client(), "s3");
    let web = status(&sets.get("web").await.unwrap());
    assert_eq!(
        (
            web["readyReplicas"].clone(),
            web["availableReplicas"].clone()
        ),
        (json!(1), json!(0))
    );
    server.clock().advance(Duration::from_secs(9));
    server.settle().await;
    assert_eq!(pod_names(&pods).await, ["web-0"]);
    server.clock().advance(Duration::from_secs(1));
    server.settle().await;
    assert_eq!(pod_names(&pods).await, ["web-0", "web-1"]);
    assert_eq!(
        status(&sets.get("web").await.unwrap())["availableReplicas"],
        1
    );
}

#[tokio::test]
async fn claims_follow_the_retention_policy() {
    let server = cluster("s4").await;
    let sets: Api<StatefulSet> = Api::namespaced(server.client(), "s4");
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(server.client(), "s4");
    let pods: Api<Pod> = Api::namespaced(server.client(), "s4");
    let mut body = set("db", 2, "Parallel");
    body["spec"]["persistentVolumeClaimRetentionPolicy"] =
        json!({"whenDeleted": "Delete", "whenScaled": "Delete"});
    create(&sets, body).await;
    server.settle().await;
    let owners = |claim: &PersistentVolumeClaim| -> Vec<(String, String)> {
        claim
            .metadata
            .owner_references
            .iter()
            .flatten()
            .map(|r| (r.kind.clone(), r.name.clone()))
            .collect()
    };
    for claim in ["data-db-0", "data-db-1"] {
        let claim = claims.get(claim).await.unwrap();
        assert_eq!(owners(&claim), [("StatefulSet".into(), "db".into())]);
        assert_eq!(json_of(&claim)["metadata"]["labels"], json!({"app": "db"}));
    }
    for pod in ["db-0", "db-1"] {
        kubelet(&server, "s4", pod, PodFate::Ready).await;
    }
    // Scaled down: the claim goes with its Pod (the garbage collector deletes it then).
    merge(&sets, "db", json!({"spec": {"replicas": 1}})).await;
    server.settle().await;
    assert_eq!(pod_names(&pods).await, ["db-0"]);
    let scaled = claims.get("data-db-1").await.unwrap();
    assert_eq!(owners(&scaled), [("Pod".into(), "db-1".into())]);
    // Scaled up while the old Pod's claim is still there: the new Pod waits for it to go.
    merge(&sets, "db", json!({"spec": {"replicas": 2}})).await;
    server.settle().await;
    assert_eq!(pod_names(&pods).await, ["db-0"]);
    merge(
        &claims,
        "data-db-1",
        json!({"metadata": {"finalizers": null}}),
    )
    .await;
    claims
        .delete("data-db-1", &Default::default())
        .await
        .unwrap();
    // Claims are not watched: the next sync of the set makes the Pod and a new claim.
    touch(&server, &sets, "db", "1").await;
    assert_eq!(pod_names(&pods).await, ["db-0", "db-1"]);
    let fresh = claims.get("data-db-1").await.unwrap();
    assert_eq!(owners(&fresh), [("StatefulSet".into(), "db".into())]);
    // Retain, Retain: the set lets go of its claims.
    merge(
        &sets,
        "db",
        json!({"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}}}),
    )
    .await;
    server.settle().await;
    for claim in ["data-db-0", "data-db-1"] {
        assert!(
            owners(&claims.get(claim).await.unwrap()).is_empty(),
            "{claim}"
        );
    }
}

#[tokio::test]
async fn a_name_taken_by_other_data_is_a_collision() {
    let server = cluster("s5").await;
    server.create_namespace("s5b").unwrap();
    server.settle().await;
    // The revision name this template gets, learnt in another namespace.
    let elsewhere: Api<StatefulSet> = Api::namespaced(server.client(), "s5b");
    create(&elsewhere, set("web", 1, "OrderedReady")).await;
    server.settle().await;
    let name = status(&elsewhere.get("web").await.unwrap())["updateRevision"]
        .as_str()
        .unwrap()
        .to_owned();
    let revisions: Api<ControllerRevision> = Api::namespaced(server.client(), "s5");
    create(
        &revisions,
        json!({"metadata": {"name": name}, "data": {"other": true}, "revision": 1}),
    )
    .await;
    let sets: Api<StatefulSet> = Api::namespaced(server.client(), "s5");
    create(&sets, set("web", 1, "OrderedReady")).await;
    server.settle().await;
    let web = status(&sets.get("web").await.unwrap());
    assert_eq!(web["collisionCount"], 1);
    assert_ne!(web["updateRevision"], json!(name));
    let pods: Api<Pod> = Api::namespaced(server.client(), "s5");
    let pod = json_of(&pods.get("web-0").await.unwrap());
    assert_eq!(
        pod["metadata"]["labels"]["controller-revision-hash"],
        web["updateRevision"]
    );
}
