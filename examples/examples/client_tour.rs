//! A tour of kubegen's typed clients.
//!
//! `cargo run --example client_tour` runs against an in-memory API server;
//! `cargo run --example client_tour -- --kubeconfig ~/.kube/config` against a real cluster
//! (it applies the example CRDs and works in a new namespace).

use kubegen::client::PostParams;
use kubegen::testing::ApiServer;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kubeconfig = match args.as_slice() {
        [_] => None,
        [_, flag, path] if flag == "--kubeconfig" => Some(path.clone()),
        _ => {
            eprintln!("usage: client_tour [--kubeconfig PATH]");
            std::process::exit(2);
        }
    };
    let result = match kubeconfig {
        None => {
            println!("using an in-memory API server (kubegen::testing::ApiServer)");
            let server = ApiServer::new();
            kubegen_examples::tour::client_tour(&server.client(), "tour")
                .await
                .map_err(|e| e.to_string())
        }
        Some(path) => real_cluster(&path).await,
    };
    match result {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("client_tour: {e}");
            std::process::exit(1);
        }
    }
}

async fn real_cluster(path: &str) -> Result<String, String> {
    use k8s_openapi::api::core::v1::Namespace;
    let kubeconfig = kube::config::Kubeconfig::read_from(path).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .map_err(|e| e.to_string())?;
    let client = kube::Client::try_from(config).map_err(|e| e.to_string())?;
    kubegen::crd::install(&client, "client-tour", std::time::Duration::from_secs(60))
        .await
        .map_err(|e| e.to_string())?;
    let namespace = format!("client-tour-{}", std::process::id());
    let ns: Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": namespace}}))
            .map_err(|e| e.to_string())?;
    kube::Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await
        .map_err(|e| e.to_string())?;
    println!("using the cluster in {path}, namespace {namespace}");
    kubegen_examples::tour::client_tour(&client, &namespace)
        .await
        .map_err(|e| e.to_string())
}
