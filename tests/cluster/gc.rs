//! The garbage collector in memory, where the behavioural scenarios do not show it well:
//! the exact writes (and their managers), retries on the cluster's clock, events outside the
//! scenario's namespace, owners recreated, objects there before the collector started.

use std::time::Duration;

use http::Method;
use kubegen::testing::{ApiServer, Controller, Controllers};
use serde_json::{Value, json};

use super::support::{merge_patch, send};

const MAPS: &str = "/api/v1/namespaces/default/configmaps";
const PODS: &str = "/api/v1/namespaces/default/pods";
const HOLD: &str = "example.com/hold";

async fn create(server: &ApiServer, collection: &str, body: Value) -> Value {
    let (code, made) = send(server, Method::POST, collection, Some(body)).await;
    assert_eq!(code, 201, "{made}");
    made
}

async fn get(server: &ApiServer, path: &str) -> Option<Value> {
    match send(server, Method::GET, path, None).await {
        (200, object) => Some(object),
        (404, _) => None,
        (code, answer) => panic!("GET {path}: {code} {answer}"),
    }
}

async fn delete(server: &ApiServer, path: &str, options: Value) -> (u16, Value) {
    send(server, Method::DELETE, path, Some(options)).await
}

/// Deletes the ConfigMap `name` of `default` with `policy`.
async fn delete_map(server: &ApiServer, name: &str, policy: &str) -> (u16, Value) {
    let options = json!({"propagationPolicy": policy});
    delete(server, &format!("{MAPS}/{name}"), options).await
}

fn map(name: &str, owners: Value, finalizers: &[&str]) -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "ownerReferences": owners, "finalizers": finalizers},
    })
}

fn reference(owner: &Value, block: bool) -> Value {
    json!({
        "apiVersion": owner["apiVersion"], "kind": owner["kind"],
        "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
        "controller": true, "blockOwnerDeletion": block,
    })
}

/// A reference that neither controls nor blocks.
fn plain_reference(owner: &Value) -> Value {
    json!({
        "apiVersion": owner["apiVersion"], "kind": owner["kind"],
        "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
    })
}

/// How many owner references `object` has.
fn references(object: &Value) -> usize {
    object["metadata"]["ownerReferences"]
        .as_array()
        .map_or(0, Vec::len)
}

fn managers(object: &Value) -> Vec<String> {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["manager"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// A server with the garbage collector alone.
fn collecting() -> ApiServer {
    let server = ApiServer::new();
    server.start_controllers(Controllers::none().with(Controller::GarbageCollector));
    server
}

#[tokio::test]
async fn background_foreground_and_orphan() {
    let server = collecting();
    for policy in ["Background", "Foreground", "Orphan"] {
        let owner = create(&server, MAPS, map("owner", json!([]), &[])).await;
        create(
            &server,
            MAPS,
            map("dep", json!([reference(&owner, true)]), &[]),
        )
        .await;
        let (code, answer) = delete_map(&server, "owner", policy).await;
        assert_eq!(code, 200, "{answer}");
        server.settle().await;
        assert!(
            get(&server, &format!("{MAPS}/owner")).await.is_none(),
            "{policy}"
        );
        let dep = get(&server, &format!("{MAPS}/dep")).await;
        match policy {
            "Orphan" => {
                let dep = dep.expect("an orphan stays");
                assert!(dep["metadata"].get("ownerReferences").is_none(), "{dep}");
                // The collector's patch only removed a reference: no field of its own.
                assert!(!managers(&dep).contains(&"kube-controller-manager".into()));
                send(&server, Method::DELETE, &format!("{MAPS}/dep"), None).await;
            }
            _ => assert!(dep.is_none(), "{policy}"),
        }
    }
}

#[tokio::test]
async fn a_foreground_owner_waits_for_a_blocking_dependent() {
    let server = collecting();
    let owner = create(&server, MAPS, map("owner", json!([]), &[])).await;
    create(
        &server,
        MAPS,
        map("dep", json!([reference(&owner, true)]), &[HOLD]),
    )
    .await;
    delete_map(&server, "owner", "Foreground").await;
    server.settle().await;
    let waiting = get(&server, &format!("{MAPS}/owner"))
        .await
        .expect("waiting");
    assert_eq!(
        waiting["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let dep = get(&server, &format!("{MAPS}/dep")).await.expect("held");
    assert!(dep["metadata"]["deletionTimestamp"].is_string());
    let release = json!({"metadata": {"finalizers": null}});
    let (code, _) = merge_patch(&server, &format!("{MAPS}/dep"), release).await;
    assert_eq!(code, 200);
    server.settle().await;
    assert!(get(&server, &format!("{MAPS}/dep")).await.is_none());
    assert!(get(&server, &format!("{MAPS}/owner")).await.is_none());
}

#[tokio::test]
async fn a_scheduled_pod_keeps_a_foreground_owner_until_it_is_gone() {
    let server = ApiServer::new();
    let clock = server.clock();
    clock.freeze_at("2030-01-01T00:00:00Z".parse().unwrap());
    server.start_controllers(Controllers::all());
    server.settle().await; // the default ServiceAccount
    let owner = create(&server, MAPS, map("owner", json!([]), &[])).await;
    create(
        &server,
        PODS,
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "bound", "ownerReferences": [reference(&owner, true)]},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox:1.36"}]},
        }),
    )
    .await;
    delete_map(&server, "owner", "Foreground").await;
    server.settle().await;
    let pod = get(&server, &format!("{PODS}/bound"))
        .await
        .expect("graceful");
    assert_eq!(pod["metadata"]["deletionTimestamp"], "2030-01-01T00:00:30Z");
    assert_eq!(pod["metadata"]["deletionGracePeriodSeconds"], 30);
    assert_eq!(pod["metadata"]["generation"], 2);
    // No kubelet finishes it: the owner waits past the deadline.
    clock.advance(Duration::from_secs(60));
    server.settle().await;
    assert!(get(&server, &format!("{MAPS}/owner")).await.is_some());
    let (code, gone) = delete(
        &server,
        &format!("{PODS}/bound"),
        json!({"gracePeriodSeconds": 0}),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(gone["kind"], "Pod", "a Pod's DELETE answers the Pod");
    server.settle().await;
    assert!(get(&server, &format!("{PODS}/bound")).await.is_none());
    assert!(get(&server, &format!("{MAPS}/owner")).await.is_none());
}

#[tokio::test]
async fn an_owner_of_an_unserved_kind_keeps_its_dependents_forever() {
    let server = ApiServer::new();
    let clock = server.clock();
    clock.freeze_at("2030-01-01T00:00:00Z".parse().unwrap());
    server.start_controllers(Controllers::none().with(Controller::GarbageCollector));
    let widget = json!({
        "apiVersion": "example.com/v1", "kind": "Widget", "name": "w",
        "uid": "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716",
    });
    let ghost = json!({
        "apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
        "uid": "3f1b6a2e-0d5c-4b8e-9a7f-5c2d1e0f4a6b",
    });
    create(&server, MAPS, map("dep", json!([widget.clone()]), &[])).await;
    // Its other owner is gone, but the unknown one keeps it from being classified.
    create(&server, MAPS, map("mixed", json!([widget, ghost]), &[])).await;
    // The retries wait on the cluster's clock, so settling does not wait for them.
    server.settle().await;
    for _ in 0..12 {
        clock.advance(Duration::from_secs(1000));
        server.settle().await;
    }
    assert!(get(&server, &format!("{MAPS}/dep")).await.is_some());
    let mixed = get(&server, &format!("{MAPS}/mixed"))
        .await
        .expect("never collected");
    assert_eq!(references(&mixed), 2);
}

#[tokio::test]
async fn a_cluster_scoped_dependent_of_a_namespaced_owner_gets_an_event_and_stays() {
    let server = collecting();
    let owner = create(&server, MAPS, map("owner", json!([]), &[])).await;
    let role = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "dep-of-map", "ownerReferences": [reference(&owner, false)]},
        "rules": [],
    });
    let roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    create(&server, roles, role).await;
    server.settle().await;
    let (_, events) = send(
        &server,
        Method::GET,
        "/api/v1/namespaces/default/events",
        None,
    )
    .await;
    let event = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["reason"] == "OwnerRefInvalidNamespace")
        .expect("the event, in default");
    let uid = owner["metadata"]["uid"].as_str().unwrap();
    assert_eq!(
        event["message"],
        format!(
            "ownerRef [v1/ConfigMap, namespace: , name: owner, uid: {uid}] does not exist in namespace \"\""
        )
    );
    assert_eq!(event["type"], "Warning");
    assert_eq!(event["source"]["component"], "garbage-collector-controller");
    assert_eq!(event["involvedObject"]["kind"], "ClusterRole");
    assert!(event["involvedObject"].get("namespace").is_none());
    send(&server, Method::DELETE, &format!("{MAPS}/owner"), None).await;
    server.settle().await;
    assert!(
        get(&server, &format!("{roles}/dep-of-map")).await.is_some(),
        "never collected"
    );
}

#[tokio::test]
async fn a_recreated_owner_does_not_keep_the_old_ones_dependents() {
    let server = collecting();
    let old = create(&server, MAPS, map("owner", json!([]), &[])).await;
    create(
        &server,
        MAPS,
        map("dep", json!([reference(&old, false)]), &[]),
    )
    .await;
    server.settle().await;
    let (code, _) = delete_map(&server, "owner", "Orphan").await;
    assert_eq!(code, 200);
    server.settle().await;
    // The orphan went back under an owner of the same name, with the old uid.
    create(&server, MAPS, map("owner", json!([]), &[])).await;
    let (code, _) = merge_patch(
        &server,
        &format!("{MAPS}/dep"),
        json!({"metadata": {"ownerReferences": [reference(&old, false)]}}),
    )
    .await;
    assert_eq!(code, 200);
    server.settle().await;
    assert!(
        get(&server, &format!("{MAPS}/dep")).await.is_none(),
        "its owner is gone"
    );
    assert!(
        get(&server, &format!("{MAPS}/owner")).await.is_some(),
        "the new one stays"
    );
}

#[tokio::test]
async fn dangling_references_from_before_the_collector_started_are_collected() {
    let server = ApiServer::new();
    let ghost = json!({
        "apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
        "uid": "3f1b6a2e-0d5c-4b8e-9a7f-5c2d1e0f4a6b",
    });
    create(&server, MAPS, map("dep", json!([ghost]), &[])).await;
    server.settle().await;
    assert!(
        get(&server, &format!("{MAPS}/dep")).await.is_some(),
        "no collector yet"
    );
    server.start_controllers(Controllers::none().with(Controller::GarbageCollector));
    server.settle().await;
    assert!(get(&server, &format!("{MAPS}/dep")).await.is_none());
}

#[tokio::test]
async fn a_custom_resource_loses_a_reference_by_merge_patch() {
    let server = collecting();
    let gizmos = "/apis/cluster.kubegen.dev/v1/namespaces/default/gizmos";
    let gone = create(&server, MAPS, map("gone", json!([]), &[])).await;
    let keep = create(&server, MAPS, map("keep", json!([]), &[])).await;
    create(
        &server,
        gizmos,
        json!({
            "apiVersion": "cluster.kubegen.dev/v1", "kind": "Gizmo",
            "metadata": {"name": "g", "ownerReferences": [reference(&gone, false), {
                "apiVersion": "v1", "kind": "ConfigMap", "name": "keep",
                "uid": keep["metadata"]["uid"],
            }]},
            "spec": {"size": 1},
        }),
    )
    .await;
    send(&server, Method::DELETE, &format!("{MAPS}/gone"), None).await;
    server.settle().await;
    let g = get(&server, &format!("{gizmos}/g"))
        .await
        .expect("kept by its other owner");
    assert_eq!(
        g["metadata"]["ownerReferences"],
        json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "keep", "uid": keep["metadata"]["uid"]}])
    );
    delete_map(&server, "keep", "Orphan").await;
    server.settle().await;
    let g = get(&server, &format!("{gizmos}/g"))
        .await
        .expect("orphaned");
    assert!(g["metadata"].get("ownerReferences").is_none(), "{g}");
    assert!(get(&server, &format!("{MAPS}/keep")).await.is_none());
}

#[tokio::test]
async fn a_dependent_in_another_namespace_is_deleted_with_an_event() {
    let server = collecting();
    server.create_namespace("other").unwrap();
    let owner = create(&server, MAPS, map("owner", json!([]), &[])).await;
    let local = create(
        &server,
        "/api/v1/namespaces/other/configmaps",
        map("local", json!([]), &[]),
    )
    .await;
    let other = "/api/v1/namespaces/other/configmaps";
    create(
        &server,
        other,
        map("cross", json!([reference(&owner, false)]), &[]),
    )
    .await;
    create(
        &server,
        other,
        map(
            "both",
            json!([reference(&owner, false), plain_reference(&local)]),
            &[],
        ),
    )
    .await;
    server.settle().await;
    assert!(get(&server, &format!("{other}/cross")).await.is_none());
    let both = get(&server, &format!("{other}/both"))
        .await
        .expect("kept by its local owner");
    assert_eq!(references(&both), 1);
    assert_eq!(both["metadata"]["ownerReferences"][0]["name"], "local");
    let (_, events) = send(
        &server,
        Method::GET,
        "/api/v1/namespaces/other/events",
        None,
    )
    .await;
    let reasons: Vec<&Value> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["reason"])
        .collect();
    assert_eq!(reasons, [&json!("OwnerRefInvalidNamespace"); 2]);
    assert!(
        get(&server, &format!("{MAPS}/owner")).await.is_some(),
        "the owner is untouched"
    );
}

#[tokio::test]
async fn dependents_naming_one_missing_uid_two_ways_are_both_collected() {
    let server = collecting();
    let uid = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
    let as_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": uid});
    let as_secret = json!({"apiVersion": "v1", "kind": "Secret", "name": "b", "uid": uid});
    create(&server, MAPS, map("dep1", json!([as_map]), &[])).await;
    create(&server, MAPS, map("dep2", json!([as_secret]), &[])).await;
    server.settle().await;
    assert!(get(&server, &format!("{MAPS}/dep1")).await.is_none());
    assert!(get(&server, &format!("{MAPS}/dep2")).await.is_none());
}
