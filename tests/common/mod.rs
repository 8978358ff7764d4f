//! Fixtures shared by the integration tests: the test kinds, and an environment that is an
//! in-memory `ApiServer`, or the cluster `KUBEGEN_TEST_KUBECONFIG` names.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use kubegen::client::PostParams;
use kubegen::testing::ApiServer;
use serde_json::json;

pub mod api {
    use kubegen::prelude::*;

    /// A Gadget: namespaced, with status and scale subresources.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "client.kubegen.dev",
        version = "v1",
        kind = "Gadget",
        status = "GadgetStatus",
        shortname = "gd",
        scale(
            spec_replicas_path = ".spec.replicas",
            status_replicas_path = ".status.replicas",
            label_selector_path = ".status.selector"
        ),
        selectable = ".spec.color",
        derive = "PartialEq"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetSpec {
        #[validate(minimum = 0, maximum = 10)]
        #[default(1)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        #[validate(pattern = "^[a-z]+$")]
        pub color: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<Size>,
        #[schema(list_type = "map", list_map_keys = ["name"])]
        #[validate(max_items = 3)]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub ports: Vec<Port>,
        #[schema(preserve_unknown_fields)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub extra: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub note: Option<String>,
    }

    #[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub enum Size {
        Small,
        Large,
    }

    #[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct Port {
        pub name: String,
        pub port: i32,
    }

    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetStatus {
        #[serde(default)]
        pub replicas: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub selector: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
    }

    /// A cluster-scoped kind without subresources.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "client.kubegen.dev",
        version = "v1",
        kind = "Plain",
        scope = "Cluster"
    )]
    pub struct PlainSpec {
        pub value: String,
    }
}

use api::*;

/// A test's client, its server (absent on a real cluster) and its own namespace.
pub struct Env {
    pub client: kube::Client,
    pub server: Option<ApiServer>,
    pub ns: String,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub async fn env() -> Env {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let ns = format!("kubegen-test-{}-{n}", std::process::id());
    match std::env::var("KUBEGEN_TEST_KUBECONFIG") {
        Ok(path) => real_cluster(&path, ns).await,
        Err(_) => {
            let server = ApiServer::new();
            Env {
                client: server.client(),
                server: Some(server),
                ns,
            }
        }
    }
}

async fn real_cluster(path: &str, ns: String) -> Env {
    use k8s_openapi::api::core::v1::Namespace;
    let kubeconfig =
        kube::config::Kubeconfig::read_from(path).expect("KUBEGEN_TEST_KUBECONFIG is readable");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("a valid kubeconfig");
    let client = kube::Client::try_from(config).expect("a client");
    kubegen::crd::install(&client, "kubegen-test", Duration::from_secs(60))
        .await
        .expect("CRDs installed");
    let namespaces: kube::Api<Namespace> = kube::Api::all(client.clone());
    let body: Namespace = serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap();
    namespaces
        .create(&PostParams::default(), &body)
        .await
        .expect("test namespace");
    Env {
        client,
        server: None,
        ns,
    }
}

pub fn gadget(name: &str, color: &str) -> Gadget {
    Gadget::new(
        name,
        GadgetSpec {
            replicas: Some(2),
            color: color.into(),
            size: None,
            ports: vec![],
            extra: None,
            note: None,
        },
    )
}

pub fn rv(o: &impl kube::Resource) -> u64 {
    o.meta()
        .resource_version
        .as_deref()
        .unwrap_or("0")
        .parse()
        .unwrap()
}
