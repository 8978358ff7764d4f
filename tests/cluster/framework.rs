//! The controllers' driver: changes reach them, `settle` waits for them, the clock is the
//! server's.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, ServiceAccount};
use kube::api::{Api, DeleteParams, PostParams};
use kubegen::testing::{ApiServer, Controllers};
use serde_json::json;

fn object<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("a valid object")
}

#[tokio::test]
async fn settle_waits_for_the_service_account_controller() {
    let server = ApiServer::new();
    server.create_namespace("early").unwrap();
    server.start_controllers(Controllers::all());
    server.create_namespace("late").unwrap();
    server.settle().await;
    let client = server.client();
    // Namespaces that existed before the controllers started get their account too.
    for ns in ["default", "kube-system", "early", "late"] {
        let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
        let account = accounts.get("default").await.unwrap();
        // A name alone is no field anybody manages, as on a real cluster.
        assert_eq!(account.metadata.managed_fields, None, "{ns}");
    }
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), "late");
    accounts
        .delete("default", &DeleteParams::default())
        .await
        .unwrap();
    server.settle().await;
    assert!(
        accounts.get_opt("default").await.unwrap().is_some(),
        "made again"
    );
}

#[tokio::test]
async fn settle_returns_at_once_without_controllers() {
    let server = ApiServer::new();
    tokio::time::timeout(Duration::from_secs(1), server.settle())
        .await
        .expect("nothing to wait for");
    let client = server.client();
    let maps: Api<ConfigMap> = Api::namespaced(client, "default");
    maps.create(
        &PostParams::default(),
        &object(json!({"metadata": {"name": "a"}})),
    )
    .await
    .unwrap();
    let accounts: Api<ServiceAccount> = Api::namespaced(server.client(), "default");
    assert!(accounts.get_opt("default").await.unwrap().is_none());
}

#[tokio::test]
async fn a_frozen_clock_stamps_what_the_server_writes() {
    let server = ApiServer::new();
    let clock = server.clock();
    clock.freeze_at("2030-05-06T07:08:09Z".parse().unwrap());
    let maps: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let params = PostParams {
        field_manager: Some("test".into()),
        ..PostParams::default()
    };
    let made = maps
        .create(
            &params,
            &object(json!({"metadata": {"name": "a"}, "data": {"k": "v"}})),
        )
        .await
        .unwrap();
    let stamp = |m: &ConfigMap| serde_json::to_value(&m.metadata.creation_timestamp).unwrap();
    assert_eq!(stamp(&made), json!("2030-05-06T07:08:09Z"));
    clock.advance(Duration::from_secs(3600));
    let later = maps
        .create(
            &params,
            &object(json!({"metadata": {"name": "b"}, "data": {"k": "v"}})),
        )
        .await
        .unwrap();
    assert_eq!(stamp(&later), json!("2030-05-06T08:08:09Z"));
    let time = |m: &ConfigMap| {
        serde_json::to_value(&m.metadata.managed_fields.as_ref().unwrap()[0].time).unwrap()
    };
    assert_eq!(time(&later), json!("2030-05-06T08:08:09Z"));
}

fn pod(name: &str, restart: &str) -> k8s_openapi::api::core::v1::Pod {
    object(json!({
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": "busybox:1.36"}]},
    }))
}

#[tokio::test]
async fn the_kubelet_runs_pods_to_their_fate() {
    use k8s_openapi::api::core::v1::Pod;
    use kubegen::testing::{Kubelet, PodFate};

    let server = ApiServer::new();
    let kubelet = Kubelet::with_fate(|pod: &Pod| match pod.metadata.name.as_deref() {
        Some("broken") => PodFate::Failed { exit_code: 42 },
        Some("stuck") => PodFate::Pending,
        _ => Kubelet::new().fate(pod),
    });
    server.start_controllers(Controllers::all().kubelet(kubelet));
    server.settle().await; // the default ServiceAccount, which Pods need
    let pods: Api<Pod> = Api::namespaced(server.client(), "default");
    for p in [
        pod("web", "Always"),
        pod("task", "Never"),
        pod("broken", "Never"),
        pod("stuck", "Always"),
    ] {
        pods.create(&PostParams::default(), &p).await.unwrap();
    }
    server.settle().await;
    let status = |p: &Pod| serde_json::to_value(p.status.as_ref().unwrap()).unwrap();
    let web = status(&pods.get("web").await.unwrap());
    assert_eq!(web["phase"], "Running");
    let ready = web["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Ready")
        .unwrap();
    assert_eq!(ready["status"], "True");
    assert_eq!(web["containerStatuses"][0]["ready"], true);
    let task = status(&pods.get("task").await.unwrap());
    assert_eq!(task["phase"], "Succeeded");
    assert_eq!(
        task["containerStatuses"][0]["state"]["terminated"]["exitCode"],
        0
    );
    let broken = status(&pods.get("broken").await.unwrap());
    assert_eq!(broken["phase"], "Failed");
    assert_eq!(
        broken["containerStatuses"][0]["state"]["terminated"]["exitCode"],
        42
    );
    let stuck = status(&pods.get("stuck").await.unwrap());
    assert_eq!(stuck["phase"], "Pending");
    let managers: Vec<_> = pods
        .get("web")
        .await
        .unwrap()
        .metadata
        .managed_fields
        .unwrap()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert!(managers.contains(&"kubelet".to_owned()), "{managers:?}");
}

/// `#[kubegen::test(controllers)]`: every backend has the controllers and a kubelet, and
/// `env.settle()` waits for them.
#[kubegen::test(controllers)]
async fn the_harness_gives_a_cluster_with_controllers(env: kubegen::testing::TestEnv) {
    use k8s_openapi::api::core::v1::Pod;

    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &env.namespace);
    pods.create(&PostParams::default(), &pod("web", "Always"))
        .await
        .unwrap();
    env.settle().await;
    let web = pods.get("web").await.unwrap();
    assert_eq!(web.status.unwrap().phase.as_deref(), Some("Running"));
    let maps: Api<ConfigMap> = Api::namespaced(env.client.clone(), &env.namespace);
    assert!(maps.get_opt("kube-root-ca.crt").await.unwrap().is_some());
    pods.create(&PostParams::default(), &pod("stuck", "Always"))
        .await
        .unwrap();
    env.settle().await;
    let fail = env
        .set_pod("stuck", kubegen::testing::PodFate::Failed { exit_code: 2 })
        .await;
    assert_eq!(
        fail.unwrap().status.unwrap().phase.as_deref(),
        Some("Failed")
    );
}
