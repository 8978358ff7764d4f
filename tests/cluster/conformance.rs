//! Behavioural conformance: scripted scenarios run on the in-memory server with its
//! controllers and on a real kube-apiserver with kube-controller-manager, comparing after
//! each step — once both have settled — the objects (ownerReferences, finalizers, spec,
//! status and conditions, managers) and the events the controllers recorded.
//!
//! The real cluster's snapshots are recorded in `tests/cluster/behaviour/kcm.json`, so a
//! machine without one still compares the in-memory controllers with them; with one
//! configured (`KUBEGEN_TEST_KUBECONFIG` naming a cluster that runs kube-controller-manager,
//! or `KUBEBUILDER_ASSETS` with a `kube-controller-manager` beside the apiserver) both run
//! live and the recording must still match. `KUBEGEN_BEHAVIOUR_RECORD=1` rewrites it.

use std::collections::BTreeMap;

use futures::StreamExt;
use kubegen::testing::{ApiServer, Controllers, TestEnv};
use serde_json::Value;

use super::behaviour::run::{Side, run};
use super::behaviour::scenarios;
use super::behaviour::script::Scenario;
use crate::fixtures::diff;

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/cluster/behaviour/kcm.json"
);

/// Differences kept on purpose, by scenario name, with the reason (also in the guide, `docs/src/cluster.md`).
const INTENTIONAL: &[(&str, &str)] = &[];

type Recording = BTreeMap<String, Vec<Value>>;

/// How many scenarios run on the real cluster at once.
const LIVE_AT_ONCE: usize = 4;

/// The real cluster with kube-controller-manager the environment names, if any, serving
/// the scenarios' custom kind.
async fn real_side() -> Option<Side> {
    let env = TestEnv::real_with_controllers("behaviour")
        .await
        .unwrap_or_else(|e| panic!("{e}"))?;
    let gizmos = <super::kinds::Gizmo as kubegen::CustomResource>::crd().expect("the Gizmo CRD");
    kubegen::crd::install_crds(
        &env.client,
        &[gizmos],
        "kubegen-behaviour",
        std::time::Duration::from_secs(60),
    )
    .await
    .unwrap_or_else(|e| panic!("installing the Gizmo CRD: {e}"));
    Some(Side {
        client: env.client.clone(),
        server: None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_controllers_behave_like_kube_controller_manager() {
    let scenarios = scenarios::all();
    let mut names: Vec<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "scenario names are unique");

    let server = ApiServer::new();
    server.start_controllers(Controllers::all());
    let memory = Side {
        client: server.client(),
        server: Some(server),
    };
    let real = real_side().await;
    let recorded: Recording = std::fs::read(RECORDING)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let record = std::env::var_os("KUBEGEN_BEHAVIOUR_RECORD").is_some();
    assert!(
        !record || real.is_some(),
        "KUBEGEN_BEHAVIOUR_RECORD needs a real cluster with kube-controller-manager"
    );

    let mut report = diff::Report::default();
    // A recording run keeps the scenarios it did not run (`KUBEGEN_BEHAVIOUR_ONLY`).
    let mut recording = recorded.clone();
    recording.retain(|name, _| scenarios.iter().any(|s| &s.name == name));
    let only = std::env::var("KUBEGEN_BEHAVIOUR_ONLY").ok();
    let selected: Vec<(usize, &Scenario)> = (scenarios.iter().enumerate())
        .filter(|(_, s)| only.as_deref().is_none_or(|o| s.name.contains(o)))
        .collect();
    let namespace = |i: usize| format!("scenario-{}-{i}", std::process::id());
    // The real cluster's side first, a few scenarios at once: each has a namespace, a
    // kubelet and Nodes of its own, and most of its time is spent waiting for the cluster
    // to settle.
    let mut live: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    if let Some(real) = &real {
        let runs = selected.iter().map(|&(i, scenario)| {
            let namespace = namespace(i);
            async move {
                (
                    scenario.name.as_str(),
                    run(real, &namespace, scenario).await,
                )
            }
        });
        live = futures::stream::iter(runs)
            .buffer_unordered(LIVE_AT_ONCE)
            .collect()
            .await;
    }
    for &(i, scenario) in &selected {
        let ours = run(&memory, &namespace(i), scenario).await;
        let reference = match live.remove(scenario.name.as_str()) {
            Some(live) => {
                if !record && recorded.get(&scenario.name) != Some(&live) {
                    report.stale.push(scenario.name.clone());
                }
                recording.insert(scenario.name.clone(), live.clone());
                live
            }
            None if real.is_some() => unreachable!("every selected scenario ran live"),
            None => match recorded.get(&scenario.name) {
                Some(r) => r.clone(),
                None => {
                    report.unrecorded.push(scenario.name.clone());
                    continue;
                }
            },
        };
        let intentional = INTENTIONAL.iter().any(|(n, _)| *n == scenario.name);
        let labels = ("step", "kcm");
        report.compare(&scenario.name, intentional, labels, &ours, &reference);
    }
    if record {
        std::fs::write(RECORDING, diff::recording_text(&recording)).unwrap();
    }
    let against = if real.is_some() { "live" } else { "recorded" };
    println!(
        "behaviour: {} scenarios, {} steps; agreement with the {against} kube-controller-manager: {}/{} ({:.1}%), {} intentional differences",
        scenarios.len(),
        report.total,
        report.agreed,
        report.total,
        100.0 * report.agreed as f64 / report.total.max(1) as f64,
        report.intentional
    );
    assert!(
        report.unrecorded.is_empty(),
        "scenarios without a recording (record them with KUBEGEN_BEHAVIOUR_RECORD=1 and a real cluster): {:?}",
        report.unrecorded
    );
    assert!(
        report.stale.is_empty() || only.is_some(),
        "the real cluster now behaves differently from tests/cluster/behaviour/kcm.json (re-record with KUBEGEN_BEHAVIOUR_RECORD=1): {:?}",
        report.stale
    );
    assert!(
        report.differences.is_empty(),
        "{} of {} steps differ:\n{}",
        report.total - report.agreed - report.intentional,
        report.total,
        report.differences
    );
}
