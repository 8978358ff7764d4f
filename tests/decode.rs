//! Accepted means decodable: objects generated from each test kind's CRD schema decode into
//! its Rust type, and the API server accepts both them and what the type writes back.
//! On the in-memory server, and on a real apiserver when one is configured (`#[kubegen::test]`).

mod common;
#[path = "decode/kinds.rs"]
mod kinds;

use common::api::{Gadget, Plain};
use kinds::{Collections, Reads, Scalars, Unions};
use kubegen::testing::TestEnv;
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
        check_accepted::<Reads>(client, ns, &check).await,
    ];
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.err().map(|f| f.to_string()))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// In memory the checks run one at a time; a real apiserver is asked 16 at a time.
#[kubegen::test]
async fn generated_objects_decode_and_round_trip(e: TestEnv) {
    let concurrency = if e.is_real() { 16 } else { 1 };
    every_kind(&e.client, &e.namespace, concurrency).await;
}
