//! Namespace deletion in memory, on a frozen clock: when the namespace controller acts,
//! how often it comes back while finalizers hold content, what its conditions say, and the
//! apiserver's side of a namespace DELETE and `/finalize`.

use std::time::Duration;

use http::Method;
use kubegen::testing::{ApiServer, Controllers};
use serde_json::{Value, json};

use super::support::{advance, merge_patch, send};

const T0: &str = "2030-01-01T00:00:00Z";

/// A server with its controllers on a clock frozen at `T0`.
async fn cluster() -> ApiServer {
    let server = ApiServer::new();
    server.clock().freeze_at(T0.parse().unwrap());
    server.start_controllers(Controllers::all());
    server.settle().await;
    server
}

/// A merge patch; the answer's code.
async fn patch(server: &ApiServer, path: &str, body: Value) -> u16 {
    merge_patch(server, path, body).await.0
}

async fn get(server: &ApiServer, path: &str) -> Option<Value> {
    match send(server, Method::GET, path, None).await {
        (200, v) => Some(v),
        _ => None,
    }
}

async fn create(server: &ApiServer, path: &str, body: Value) -> (u16, Value) {
    send(server, Method::POST, path, Some(body)).await
}

async fn namespace(server: &ApiServer, name: &str) -> Option<Value> {
    get(server, &format!("/api/v1/namespaces/{name}")).await
}

fn condition<'a>(ns: &'a Value, kind: &str) -> &'a Value {
    ns["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == kind))
        .unwrap_or(&Value::Null)
}

async fn make_namespace(server: &ApiServer, name: &str) {
    server.create_namespace(name).unwrap();
    server.settle().await;
}

async fn delete_namespace(server: &ApiServer, name: &str, options: Option<Value>) -> (u16, Value) {
    send(
        server,
        Method::DELETE,
        &format!("/api/v1/namespaces/{name}"),
        options,
    )
    .await
}

#[tokio::test]
async fn a_deleted_namespace_goes_five_seconds_later() {
    let server = cluster().await;
    make_namespace(&server, "n").await;
    let (code, answer) = delete_namespace(&server, "n", None).await;
    assert_eq!(code, 200);
    assert_eq!(answer["kind"], "Namespace", "the namespace, not a Status");
    assert_eq!(answer["status"]["phase"], "Terminating");
    assert_eq!(answer["metadata"]["deletionTimestamp"], T0);
    server.settle().await;
    advance(&server, Duration::from_secs(4)).await;
    let ns = namespace(&server, "n")
        .await
        .expect("still there after 4 s");
    assert!(ns["status"].get("conditions").is_none(), "untouched: {ns}");
    assert!(
        get(&server, "/api/v1/namespaces/n/serviceaccounts/default")
            .await
            .is_some()
    );
    advance(&server, Duration::from_secs(1)).await;
    assert!(namespace(&server, "n").await.is_none(), "gone at 5 s");
    let maps = get(&server, "/api/v1/namespaces/n/configmaps")
        .await
        .unwrap();
    assert_eq!(
        maps["items"],
        json!([]),
        "kube-root-ca.crt deleted and not made again"
    );
    let accounts = get(&server, "/api/v1/namespaces/n/serviceaccounts")
        .await
        .unwrap();
    assert_eq!(accounts["items"], json!([]), "the default account too");
}

#[tokio::test]
async fn finalizers_hold_content_and_the_controller_comes_back_every_8_seconds() {
    let server = cluster().await;
    make_namespace(&server, "held").await;
    let held =
        json!({"metadata": {"name": "held", "finalizers": ["example.com/b", "example.com/a"]}});
    assert_eq!(
        create(&server, "/api/v1/namespaces/held/configmaps", held)
            .await
            .0,
        201
    );
    let secret = json!({"metadata": {"name": "held", "finalizers": ["example.com/a"]}});
    assert_eq!(
        create(&server, "/api/v1/namespaces/held/secrets", secret)
            .await
            .0,
        201
    );
    delete_namespace(&server, "held", None).await;
    server.settle().await;
    advance(&server, Duration::from_secs(5)).await;
    let ns = namespace(&server, "held").await.expect("held");
    let remaining = condition(&ns, "NamespaceContentRemaining");
    assert_eq!(remaining["status"], "True");
    assert_eq!(remaining["reason"], "SomeResourcesRemain");
    assert_eq!(
        remaining["message"],
        "Some resources are remaining: configmaps. has 1 resource instances, secrets. has 1 resource instances"
    );
    let finalizers = condition(&ns, "NamespaceFinalizersRemaining");
    assert_eq!(
        finalizers["message"],
        "Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances"
    );
    let types: Vec<&Value> = ns["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["type"])
        .collect();
    assert_eq!(
        types,
        [
            "NamespaceDeletionDiscoveryFailure",
            "NamespaceDeletionGroupVersionParsingFailure",
            "NamespaceDeletionContentFailure",
            "NamespaceContentRemaining",
            "NamespaceFinalizersRemaining"
        ]
    );
    let first_transition = remaining["lastTransitionTime"].clone();
    assert_eq!(first_transition, "2030-01-01T00:00:05Z");
    let map = get(&server, "/api/v1/namespaces/held/configmaps/held")
        .await
        .unwrap();
    assert_eq!(map["metadata"]["deletionGracePeriodSeconds"], 0);

    // The Secret's finalizer goes at 6 s; the status write at 5 s brings the controller back
    // at 10 s (not at 13 s, 5 + 8), which reports the new count.
    advance(&server, Duration::from_secs(1)).await;
    let release = || json!({"metadata": {"finalizers": null}});
    assert_eq!(
        patch(&server, "/api/v1/namespaces/held/secrets/held", release()).await,
        200
    );
    advance(&server, Duration::from_secs(3)).await;
    let ns = namespace(&server, "held").await.unwrap();
    assert!(
        condition(&ns, "NamespaceContentRemaining")["message"]
            .as_str()
            .unwrap()
            .contains("secrets."),
        "not synced before 10 s"
    );
    advance(&server, Duration::from_secs(1)).await;
    let ns = namespace(&server, "held").await.unwrap();
    let remaining = condition(&ns, "NamespaceContentRemaining");
    assert_eq!(
        remaining["message"],
        "Some resources are remaining: configmaps. has 1 resource instances"
    );
    assert_eq!(
        remaining["lastTransitionTime"], first_transition,
        "the status did not change, only the message"
    );
    // Written again at 10 s: back at 15 s, then every 8 s (23 s, 31 s).
    assert_eq!(
        patch(
            &server,
            "/api/v1/namespaces/held/configmaps/held",
            release()
        )
        .await,
        200
    );
    advance(&server, Duration::from_secs(4)).await;
    assert!(
        namespace(&server, "held").await.is_some(),
        "not before 15 s"
    );
    advance(&server, Duration::from_secs(1)).await;
    assert!(namespace(&server, "held").await.is_none(), "gone at 15 s");
}

#[tokio::test]
async fn with_pods_left_the_controller_waits_for_them_before_anything_else() {
    let server = cluster().await;
    make_namespace(&server, "pods").await;
    let pod = json!({
        "metadata": {"name": "p", "finalizers": ["example.com/pod"]},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    });
    assert_eq!(
        create(&server, "/api/v1/namespaces/pods/pods", pod).await.0,
        201
    );
    create(
        &server,
        "/api/v1/namespaces/pods/configmaps",
        json!({"metadata": {"name": "c"}}),
    )
    .await;
    delete_namespace(&server, "pods", None).await;
    server.settle().await;
    advance(&server, Duration::from_secs(5)).await;
    let pod = get(&server, "/api/v1/namespaces/pods/pods/p")
        .await
        .unwrap();
    assert!(pod["metadata"]["deletionTimestamp"].is_string());
    assert!(
        get(&server, "/api/v1/namespaces/pods/configmaps/c")
            .await
            .is_some(),
        "nothing else is deleted while a Pod is left"
    );
    let ns = namespace(&server, "pods").await.unwrap();
    // Remaining Pods are not counted in the conditions.
    assert_eq!(
        condition(&ns, "NamespaceContentRemaining")["status"],
        "False"
    );
    assert_eq!(
        condition(&ns, "NamespaceFinalizersRemaining")["status"],
        "False"
    );
    // The Pod's 30 s grace period: the controller comes back after 16 s (and 5 s after its
    // status write, at 10 s).
    advance(&server, Duration::from_secs(5)).await; // the sync at 10 s still sees the Pod
    advance(&server, Duration::from_secs(1)).await;
    let release = json!({"metadata": {"finalizers": null}});
    assert_eq!(
        patch(&server, "/api/v1/namespaces/pods/pods/p", release).await,
        200
    );
    server.settle().await;
    advance(&server, Duration::from_secs(14)).await; // 25 s
    assert!(
        get(&server, "/api/v1/namespaces/pods/configmaps/c")
            .await
            .is_some(),
        "not before 26 s"
    );
    advance(&server, Duration::from_secs(1)).await;
    assert!(namespace(&server, "pods").await.is_none(), "gone at 26 s");
}

#[tokio::test]
async fn custom_resources_go_with_the_namespace() {
    let server = cluster().await;
    make_namespace(&server, "crs").await;
    let path = "/apis/cluster.kubegen.dev/v1/namespaces/crs/gizmos";
    let gizmo = json!({"apiVersion": "cluster.kubegen.dev/v1", "kind": "Gizmo",
        "metadata": {"name": "g", "finalizers": ["example.com/g"]}, "spec": {"size": 1}});
    assert_eq!(create(&server, path, gizmo).await.0, 201);
    delete_namespace(&server, "crs", None).await;
    server.settle().await;
    advance(&server, Duration::from_secs(5)).await;
    let ns = namespace(&server, "crs").await.unwrap();
    assert_eq!(
        condition(&ns, "NamespaceContentRemaining")["message"],
        "Some resources are remaining: gizmos.cluster.kubegen.dev has 1 resource instances"
    );
    let (code, refused) = create(
        &server,
        path,
        json!({"apiVersion": "cluster.kubegen.dev/v1", "kind": "Gizmo", "metadata": {"name": "new"}, "spec": {}}),
    )
    .await;
    assert_eq!(code, 403);
    assert_eq!(refused["details"]["group"], "cluster.kubegen.dev");
    assert_eq!(
        refused["details"]["causes"][0]["reason"],
        "NamespaceTerminating"
    );
}

#[tokio::test]
async fn the_controller_sorts_other_spec_finalizers_and_leaves_them() {
    let server = cluster().await;
    make_namespace(&server, "fin").await;
    let mut ns = namespace(&server, "fin").await.unwrap();
    ns["spec"]["finalizers"] = json!([
        "z.example.com/b",
        "a.example.com/a",
        "kubernetes",
        "z.example.com/b"
    ]);
    let (code, put) = send(
        &server,
        Method::PUT,
        "/api/v1/namespaces/fin/finalize",
        Some(ns),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        put["spec"]["finalizers"],
        json!([
            "z.example.com/b",
            "a.example.com/a",
            "kubernetes",
            "z.example.com/b"
        ]),
        "the apiserver stores them as sent"
    );
    delete_namespace(&server, "fin", None).await;
    server.settle().await;
    advance(&server, Duration::from_secs(5)).await;
    let ns = namespace(&server, "fin")
        .await
        .expect("held by its own finalizers");
    assert_eq!(
        ns["spec"]["finalizers"],
        json!(["a.example.com/a", "z.example.com/b"])
    );
    let finalize = ns["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["subresource"] == "finalize" && m["manager"] == "kube-controller-manager");
    assert!(finalize.is_some(), "{ns}");
    // A DELETE of a terminating namespace answers it as it is.
    let rv = ns["metadata"]["resourceVersion"].clone();
    let (code, again) = delete_namespace(&server, "fin", None).await;
    assert_eq!((code, &again["metadata"]["resourceVersion"]), (200, &rv));
    // Without finalizers left, the /finalize request deletes it, answering the update at
    // the resourceVersion it updated.
    let mut body = ns.clone();
    body["spec"]["finalizers"] = json!([]);
    let (code, last) = send(
        &server,
        Method::PUT,
        "/api/v1/namespaces/fin/finalize",
        Some(body),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(last["spec"], json!({}));
    assert_eq!(last["metadata"]["resourceVersion"], rv);
    assert!(namespace(&server, "fin").await.is_none());
}

#[tokio::test]
async fn a_namespace_without_spec_finalizers_waits_for_a_second_delete() {
    let server = cluster().await;
    make_namespace(&server, "bare").await;
    create(
        &server,
        "/api/v1/namespaces/bare/configmaps",
        json!({"metadata": {"name": "c"}}),
    )
    .await;
    let mut ns = namespace(&server, "bare").await.unwrap();
    ns["spec"]["finalizers"] = json!([]);
    let (_, put) = send(
        &server,
        Method::PUT,
        "/api/v1/namespaces/bare/finalize",
        Some(ns),
    )
    .await;
    assert_eq!(
        put["spec"],
        json!({}),
        "an Active namespace loses its finalizer too"
    );
    let (code, marked) = delete_namespace(&server, "bare", None).await;
    assert_eq!(code, 200);
    assert_eq!(marked["status"]["phase"], "Terminating");
    server.settle().await;
    advance(&server, Duration::from_secs(30)).await;
    let ns = namespace(&server, "bare").await.expect("left alone");
    assert!(ns["status"].get("conditions").is_none());
    assert!(
        get(&server, "/api/v1/namespaces/bare/configmaps/c")
            .await
            .is_some()
    );
    let (code, deleted) = delete_namespace(&server, "bare", None).await;
    assert_eq!(code, 200);
    assert_eq!(deleted["kind"], "Namespace", "the deleted namespace");
    assert!(namespace(&server, "bare").await.is_none());
    assert!(
        get(&server, "/api/v1/namespaces/bare/configmaps/c")
            .await
            .is_some(),
        "its content stays in storage"
    );
}

#[tokio::test]
async fn a_propagation_policy_puts_its_finalizer_on_the_namespace() {
    let server = ApiServer::new();
    for (name, options, want) in [
        (
            "fg",
            json!({"propagationPolicy": "Foreground"}),
            json!(["foregroundDeletion"]),
        ),
        (
            "or",
            json!({"propagationPolicy": "Orphan"}),
            json!(["orphan"]),
        ),
        (
            "od",
            json!({"orphanDependents": false}),
            json!(["foregroundDeletion"]),
        ),
        (
            "bg",
            json!({"propagationPolicy": "Background"}),
            Value::Null,
        ),
    ] {
        server.create_namespace(name).unwrap();
        let (code, ns) = delete_namespace(&server, name, Some(options)).await;
        assert_eq!(code, 200, "{name}");
        assert_eq!(ns["metadata"]["finalizers"], want, "{name}");
    }
    // Preconditions are the namespace registry's own.
    server.create_namespace("pre").unwrap();
    let (code, refused) = delete_namespace(
        &server,
        "pre",
        Some(json!({"preconditions": {"uid": "other"}})),
    )
    .await;
    assert_eq!(code, 409);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .starts_with("Operation cannot be fulfilled on namespaces \"pre\": Precondition failed: UID in precondition: other, UID in object meta: "),
        "{refused}"
    );
    let (code, _) = delete_namespace(&server, "kube-system", None).await;
    assert_eq!(code, 403);
    // The preconditions come first, even for a namespace that may not be deleted.
    let mismatch = json!({"preconditions": {"uid": "x"}});
    let (code, _) = delete_namespace(&server, "kube-system", Some(mismatch)).await;
    assert_eq!(code, 409);
    // A DELETE that both orphans and propagates is refused before anything.
    server.create_namespace("both").unwrap();
    let both = json!({"orphanDependents": true, "propagationPolicy": "Foreground"});
    let (code, _) = delete_namespace(&server, "both", Some(both)).await;
    assert_eq!(code, 422);
}

#[tokio::test]
async fn finalize_checks_each_finalizer_and_answers_other_methods_405() {
    let server = ApiServer::new();
    server.create_namespace("f").unwrap();
    let body = json!({"metadata": {"name": "f"}, "spec": {"finalizers": ["bad", "Bad/x"]}});
    let (code, refused) = send(
        &server,
        Method::PUT,
        "/api/v1/namespaces/f/finalize",
        Some(body),
    )
    .await;
    assert_eq!(code, 422);
    let fields: Vec<&Value> = refused["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["field"])
        .collect();
    assert_eq!(fields, ["spec.finalizers[0]", "spec.finalizers[1]"]);
    let (code, _) = send(
        &server,
        Method::PATCH,
        "/api/v1/namespaces/f/finalize",
        Some(json!({})),
    )
    .await;
    assert_eq!(code, 405);
}

#[tokio::test]
async fn kube_root_ca_crt_is_put_back_in_a_terminating_namespace() {
    let server = cluster().await;
    make_namespace(&server, "ca").await;
    let path = "/api/v1/namespaces/ca/configmaps/kube-root-ca.crt";
    let hold = json!({"metadata": {"finalizers": ["example.com/hold"]}});
    assert_eq!(patch(&server, path, hold).await, 200);
    delete_namespace(&server, "ca", None).await;
    server.settle().await;
    advance(&server, Duration::from_secs(5)).await;
    let change = json!({"metadata": {"annotations": null}, "data": {"ca.crt": "x"}});
    assert_eq!(patch(&server, path, change).await, 200);
    server.settle().await;
    let map = get(&server, path).await.unwrap();
    assert!(map["metadata"]["deletionTimestamp"].is_string());
    assert!(map["metadata"]["annotations"]["kubernetes.io/description"].is_string());
    assert_ne!(map["data"]["ca.crt"], "x");
    let release = json!({"metadata": {"finalizers": null}});
    assert_eq!(patch(&server, path, release).await, 200);
    server.settle().await;
    assert!(
        get(&server, path).await.is_none(),
        "not made again in a terminating namespace"
    );
}
