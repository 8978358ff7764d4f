//! The DaemonSet controller in memory, where the behaviour scenarios do not look: the
//! failed daemon Pod backoff and minReadySeconds on a frozen clock, Nodes that go away or
//! are tainted, the status during a surge.

use std::time::Duration;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams};
use kubegen::testing::{ApiServer, PodFate};
use serde_json::{Value, json};

use super::statefulset::{
    cluster, create, events, json_of, kubelet, merge, pod_names, status, touch,
};

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
