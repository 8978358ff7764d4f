use k8s_openapi::api::core::v1::ConfigMap;
use kubegen::client::ResourceClient;

/// A ConfigMap has no `/status` on kube-apiserver; a Deployment has (and `/scale`).
async fn misuse(client: kube::Client) {
    let deployments =
        ResourceClient::<k8s_openapi::api::apps::v1::Deployment>::namespaced(client.clone(), "d");
    let _ = deployments.get_status("web").await;
    let _ = deployments.get_scale("web").await;
    let _ = ResourceClient::<ConfigMap>::namespaced(client, "d")
        .get_status("settings")
        .await;
}

fn main() {}
