//! Accepted means decodable: objects generated from each example kind's CRD schema decode
//! into its Rust type, and the API server accepts both them and what the type writes back.
//! On the in-memory server, and on a real apiserver when one is configured (`#[kubegen::test]`).

use kubegen::testing::TestEnv;
use kubegen::testing::generate::{Check, check_accepted};
use kubegen_examples::{cronjob::CronJob, database, widget::Widget};
use serde_json::{Value, json};

/// Objects per kind, and the seed they come from (change it to explore further).
const COUNT: u64 = 1000;
const SEED: u64 = 0x006b_7562_6567_656e;

/// Widget's CEL rule, which the generator does not evaluate: `minAvailable <= replicas`
/// (replicas defaults to 1).
fn within_widget_rule(object: &mut Value) {
    let spec = &mut object["spec"];
    let replicas = spec["replicas"].as_i64().unwrap_or(1);
    if spec["minAvailable"].as_i64().is_some_and(|m| m > replicas) {
        spec["minAvailable"] = json!(replicas);
    }
}

/// Runs the property for every example kind against `client`, reporting every failure.
async fn every_kind(client: &kube::Client, namespace: &str, concurrency: usize) {
    let check = Check::new(COUNT, SEED).concurrency(concurrency);
    let widget = Check::new(COUNT, SEED)
        .concurrency(concurrency)
        .adjust(&within_widget_rule);
    // Database v1alpha1 is served but stored as v1, and without a conversion webhook the
    // apiserver prunes its objects by v1's schema: what it answers is not v1alpha1's shape.
    let v1alpha1 = Check::new(COUNT, SEED)
        .concurrency(concurrency)
        .without_answer_decoding();
    let results = [
        check_accepted::<CronJob>(client, namespace, &check).await,
        check_accepted::<Widget>(client, namespace, &widget).await,
        check_accepted::<database::v1alpha1::Database>(client, namespace, &v1alpha1).await,
        check_accepted::<database::v1::Database>(client, namespace, &check).await,
    ];
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.err().map(|f| f.to_string()))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// In memory the checks run one at a time; a real apiserver is asked 16 at a time.
#[kubegen::test]
async fn generated_example_objects_decode_and_round_trip(e: TestEnv) {
    let concurrency = if e.is_real() { 16 } else { 1 };
    every_kind(&e.client, &e.namespace, concurrency).await;
}
