//! Accepted means decodable: objects generated from each example kind's CRD schema decode
//! into its Rust type, and the API server accepts both them and what the type writes back.
//! Always on the in-memory server; also on the cluster `KUBEGEN_TEST_KUBECONFIG` names.

use kubegen::testing::ApiServer;
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

#[tokio::test]
async fn generated_example_objects_decode_and_round_trip_in_memory() {
    let server = ApiServer::new();
    every_kind(&server.client(), "default", 1).await;
}

#[tokio::test]
async fn generated_example_objects_decode_and_round_trip_on_a_cluster() {
    let Ok(path) = std::env::var("KUBEGEN_TEST_KUBECONFIG") else {
        eprintln!("KUBEGEN_TEST_KUBECONFIG is not set: skipped");
        return;
    };
    let (client, namespace) = kubegen_examples::cluster::prepare(&path, "kubegen-decode")
        .await
        .expect("the cluster is ready");
    every_kind(&client, &namespace, 16).await;
}
