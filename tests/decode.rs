//! Accepted means decodable: objects generated from each test kind's CRD schema decode into
//! its Rust type, and the API server accepts both them and what the type writes back.
//! Always on the in-memory server; also on the cluster `KUBEGEN_TEST_KUBECONFIG` names.

mod common;
#[path = "decode/kinds.rs"]
mod kinds;

use common::api::{Gadget, Plain};
use kinds::{Collections, Scalars, Unions};
use kubegen::testing::ApiServer;
use kubegen::testing::generate::{Check, check_accepted};

/// Objects per kind, and the seed they come from (change it to explore further).
const COUNT: u64 = 1000;
const SEED: u64 = 0x006b_7562_6567_656e;

/// Runs the property for every test kind against `client`, reporting every failure.
async fn every_kind(client: &kube::Client, ns: &str, concurrency: usize) {
    let check = Check::new(COUNT, SEED).concurrency(concurrency);
    let results = [
        check_accepted::<Gadget>(client, ns, &check).await,
        check_accepted::<Plain>(client, ns, &check).await,
        check_accepted::<Unions>(client, ns, &check).await,
        check_accepted::<Scalars>(client, ns, &check).await,
        check_accepted::<Collections>(client, ns, &check).await,
    ];
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.err().map(|f| f.to_string()))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn generated_objects_decode_and_round_trip_in_memory() {
    let server = ApiServer::new();
    every_kind(&server.client(), "default", 1).await;
}

#[tokio::test]
async fn generated_objects_decode_and_round_trip_on_a_cluster() {
    if std::env::var("KUBEGEN_TEST_KUBECONFIG").is_err() {
        eprintln!("KUBEGEN_TEST_KUBECONFIG is not set: skipped");
        return;
    }
    let env = common::env().await;
    every_kind(&env.client, &env.ns, 16).await;
}
