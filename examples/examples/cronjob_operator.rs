//! The CronJob operator (see `kubegen_examples::operator`).
//!
//! `cargo run --example cronjob_operator` runs against an in-memory API server, seeding a few
//! CronJobs; `cargo run --example cronjob_operator -- --kubeconfig PATH` against a cluster.

use kubegen::testing::ApiServer;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.as_slice() {
        [_] => {
            println!("using an in-memory API server (kubegen::testing::ApiServer)");
            let server = ApiServer::new();
            kubegen_examples::operator::demo(server.client(), "demo")
                .await
                .map_err(|e| e.to_string())
        }
        [_, flag, path] if flag == "--kubeconfig" => on_cluster(path).await,
        _ => {
            eprintln!("usage: cronjob_operator [--kubeconfig PATH]");
            std::process::exit(2);
        }
    };
    match result {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => {
            eprintln!("cronjob_operator: {e}");
            std::process::exit(1);
        }
    }
}

async fn on_cluster(path: &str) -> Result<Vec<String>, String> {
    let (client, namespace) = kubegen_examples::cluster::prepare(path, "cronjob-operator").await?;
    kubegen_examples::operator::demo(client, &namespace)
        .await
        .map_err(|e| e.to_string())
}
