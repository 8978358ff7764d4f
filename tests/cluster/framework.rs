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
