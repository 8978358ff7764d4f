//! Preparing a real cluster for the examples' `--kubeconfig PATH` mode.

use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;

/// Connects with the kubeconfig at `path`, installs the example CRDs as `manager`, and
/// creates a fresh namespace named `{manager}-{pid}`. Returns the client and the namespace.
pub async fn prepare(path: &str, manager: &str) -> Result<(kube::Client, String), String> {
    let kubeconfig = kube::config::Kubeconfig::read_from(path).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .map_err(|e| e.to_string())?;
    let client = kube::Client::try_from(config).map_err(|e| e.to_string())?;
    kubegen::crd::install(&client, manager, Duration::from_secs(60))
        .await
        .map_err(|e| e.to_string())?;
    let namespace = format!("{manager}-{}", std::process::id());
    let ns: Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": namespace}}))
            .map_err(|e| e.to_string())?;
    kube::Api::<Namespace>::all(client.clone())
        .create(&Default::default(), &ns)
        .await
        .map_err(|e| e.to_string())?;
    println!("using the cluster in {path}, namespace {namespace}");
    Ok((client, namespace))
}
