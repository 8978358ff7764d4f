//! The StatefulSet and DaemonSet controllers in memory, where the behaviour scenarios do not
//! look: timings on a frozen clock (minReadySeconds, the failed daemon Pod backoff), the
//! status writes of a step, claims and the retention policy's owner references, revision
//! names and collisions, Nodes that go away.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, StatefulSet};
use k8s_openapi::api::core::v1::{Event, Node, PersistentVolumeClaim, Pod};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kubegen::testing::{ApiServer, Controllers, Kubelet, PodFate};
use serde_json::{Value, json};

fn object<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid object")
}

fn json_of<T: serde::Serialize>(object: &T) -> Value {
    serde_json::to_value(object).expect("serializable")
}

/// A server with the controllers running, its clock frozen, and a namespace.
async fn cluster(namespace: &str) -> ApiServer {
    let server = ApiServer::new();
    server
        .clock()
        .freeze_at("2026-03-01T10:00:00Z".parse().unwrap());
    server.create_namespace(namespace).unwrap();
    server.start_controllers(Controllers::all());
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

async fn create<T>(api: &Api<T>, body: Value) -> T
where
    T: Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    api.create(&PostParams::default(), &object(body))
        .await
        .unwrap()
}

async fn merge<T>(api: &Api<T>, name: &str, patch: Value)
where
    T: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
}

/// Changes `name`'s annotations, which syncs it, and waits for the controllers.
async fn touch<T>(server: &ApiServer, api: &Api<T>, name: &str, value: &str)
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
async fn kubelet(server: &ApiServer, namespace: &str, name: &str, fate: PodFate) {
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

async fn pod_names(pods: &Api<Pod>) -> Vec<String> {
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

fn status(object: &impl serde::Serialize) -> Value {
    json_of(object)["status"].clone()
}

/// The events' messages with their counts, sorted.
async fn events(server: &ApiServer, namespace: &str) -> Vec<(String, i64)> {
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

fn node(name: &str) -> Value {
    json!({"metadata": {"name": name, "labels": {"pool": "test"}}})
}

fn daemon_set(name: &str) -> Value {
    json!({
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"nodeSelector": {"pool": "test"}, "containers": [{"name": "c", "image": "busybox"}]},
            },
        },
    })
}

/// A cluster with Nodes `nodes` and the DaemonSet `ds` in `namespace`, settled.
async fn daemons(
    namespace: &str,
    nodes: &[&str],
    ds: Value,
) -> (ApiServer, Api<Node>, Api<DaemonSet>, Api<Pod>) {
    let server = cluster(namespace).await;
    let node_api: Api<Node> = Api::all(server.client());
    for name in nodes {
        create(&node_api, node(name)).await;
    }
    let sets: Api<DaemonSet> = Api::namespaced(server.client(), namespace);
    create(&sets, ds).await;
    server.settle().await;
    let pods = Api::namespaced(server.client(), namespace);
    (server, node_api, sets, pods)
}

/// The daemon Pods by the Node their affinity pins them to.
async fn daemon_pods(pods: &Api<Pod>) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = pods
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|p| {
            let pod = json_of(&p);
            let node = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
                .as_str()
                .unwrap_or("")
                .to_owned();
            (node, pod["status"]["phase"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    found.sort();
    found
}

#[tokio::test]
async fn a_failed_daemon_pod_waits_out_its_backoff() {
    let (server, _, _, pods) = daemons("d1", &["d1-n1"], daemon_set("agent")).await;
    let first = pod_names(&pods).await.remove(0);
    kubelet(&server, "d1", &first, PodFate::Failed { exit_code: 1 }).await;
    // Killed and made again at once.
    let second = pod_names(&pods).await.remove(0);
    assert_ne!(first, second);
    kubelet(&server, "d1", &second, PodFate::Failed { exit_code: 1 }).await;
    // Failing again within a second: left until the backoff (1 s) has passed.
    assert_eq!(
        daemon_pods(&pods).await,
        [("d1-n1".into(), "Failed".into())]
    );
    server.clock().advance(Duration::from_secs(1));
    server.settle().await;
    assert_eq!(
        daemon_pods(&pods).await,
        [("d1-n1".into(), "Pending".into())]
    );
    let failed = events(&server, "d1")
        .await
        .into_iter()
        .filter(|(m, _)| m.starts_with("Found failed daemon pod"))
        .count();
    assert_eq!(failed, 2);
}

#[tokio::test]
async fn a_deleted_nodes_pod_goes_at_the_next_sync() {
    let (server, nodes, sets, pods) = daemons("d2", &["d2-n1", "d2-n2"], daemon_set("agent")).await;
    assert_eq!(
        daemon_pods(&pods).await,
        [
            ("d2-n1".into(), "Pending".into()),
            ("d2-n2".into(), "Pending".into())
        ]
    );
    let agent = status(&sets.get("agent").await.unwrap());
    assert_eq!(
        agent,
        json!({"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2,
               "numberReady": 0, "observedGeneration": 1, "updatedNumberScheduled": 2, "numberUnavailable": 2})
    );
    // No handler sees a Node go: the Pod stays until something syncs the set.
    nodes.delete("d2-n2", &Default::default()).await.unwrap();
    server.settle().await;
    assert_eq!(daemon_pods(&pods).await.len(), 2);
    touch(&server, &sets, "agent", "1").await;
    assert_eq!(
        daemon_pods(&pods).await,
        [("d2-n1".into(), "Pending".into())]
    );
    assert_eq!(
        status(&sets.get("agent").await.unwrap())["desiredNumberScheduled"],
        1
    );
}

#[tokio::test]
async fn a_daemon_pod_is_available_after_min_ready_seconds() {
    let mut body = daemon_set("agent");
    body["spec"]["minReadySeconds"] = json!(5);
    let (server, _, sets, pods) = daemons("d3", &["d3-n1"], body).await;
    let name = pod_names(&pods).await.remove(0);
    kubelet(&server, "d3", &name, PodFate::Ready).await;
    let counts = |s: Value| (s["numberReady"].clone(), s["numberAvailable"].clone());
    assert_eq!(
        counts(status(&sets.get("agent").await.unwrap())),
        (json!(1), Value::Null)
    );
    server.clock().advance(Duration::from_secs(5));
    server.settle().await;
    assert_eq!(
        counts(status(&sets.get("agent").await.unwrap())),
        (json!(1), json!(1))
    );
}

#[tokio::test]
async fn a_node_tainted_no_execute_loses_its_pod_at_the_next_sync() {
    let (server, nodes, sets, pods) = daemons("d4", &["d4-n1"], daemon_set("agent")).await;
    // A NoSchedule taint: the Pod stays, counted misscheduled once the set syncs.
    merge(
        &nodes,
        "d4-n1",
        json!({"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}),
    )
    .await;
    touch(&server, &sets, "agent", "1").await;
    assert_eq!(daemon_pods(&pods).await.len(), 1);
    let agent = status(&sets.get("agent").await.unwrap());
    assert_eq!(
        (
            agent["desiredNumberScheduled"].clone(),
            agent["numberMisscheduled"].clone()
        ),
        (json!(0), json!(1))
    );
    // NoExecute: deleted at the next sync.
    merge(
        &nodes,
        "d4-n1",
        json!({"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoExecute"}]}}),
    )
    .await;
    server.settle().await;
    assert_eq!(daemon_pods(&pods).await.len(), 1);
    touch(&server, &sets, "agent", "2").await;
    assert!(daemon_pods(&pods).await.is_empty());
}

#[tokio::test]
async fn with_max_surge_the_old_pod_stays_until_the_new_one_is_ready() {
    let mut body = daemon_set("agent");
    body["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}});
    let (server, _, sets, pods) = daemons("d5", &["d5-n1"], body).await;
    let old = pod_names(&pods).await.remove(0);
    kubelet(&server, "d5", &old, PodFate::Ready).await;
    server.clock().advance(Duration::from_secs(1));
    merge(
        &sets,
        "agent",
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}}}}),
    )
    .await;
    server.settle().await;
    let names = pod_names(&pods).await;
    assert_eq!(names.len(), 2, "a new Pod beside the old one");
    let new = names.into_iter().find(|n| *n != old).unwrap();
    // The status counts each Node's oldest Pod: the old one, Ready, not updated.
    let agent = status(&sets.get("agent").await.unwrap());
    assert_eq!(
        (
            agent["numberReady"].clone(),
            agent["updatedNumberScheduled"].clone()
        ),
        (json!(1), Value::Null)
    );
    kubelet(&server, "d5", &new, PodFate::Ready).await;
    assert_eq!(pod_names(&pods).await, [new]);
    let agent = status(&sets.get("agent").await.unwrap());
    assert_eq!(
        (
            agent["numberReady"].clone(),
            agent["updatedNumberScheduled"].clone()
        ),
        (json!(1), json!(1))
    );
}
