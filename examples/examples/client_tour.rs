//! A tour of kubegen's typed clients.
//!
//! `cargo run --example client_tour` runs against an in-memory API server;
//! `cargo run --example client_tour -- --kubeconfig ~/.kube/config` against a real cluster
//! (it applies the example CRDs and works in a new namespace).

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
            in_memory().await
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

/// The tour on a fresh in-memory server, in a namespace created first: as on a real
/// apiserver, objects can only be created in a namespace that exists.
async fn in_memory() -> Result<String, String> {
    let server = ApiServer::new();
    server
        .create_namespace("tour")
        .map_err(|e| format!("creating namespace tour: {}", e.message))?;
    kubegen_examples::tour::client_tour(&server.client(), "tour")
        .await
        .map_err(|e| e.to_string())
}

async fn real_cluster(path: &str) -> Result<String, String> {
    let (client, namespace) = kubegen_examples::cluster::prepare(path, "client-tour").await?;
    kubegen_examples::tour::client_tour(&client, &namespace)
        .await
        .map_err(|e| e.to_string())
}
