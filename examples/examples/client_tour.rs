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
    let (client, namespace) = kubegen_examples::cluster::prepare(path, "client-tour").await?;
    kubegen_examples::tour::client_tour(&client, &namespace)
        .await
        .map_err(|e| e.to_string())
}
