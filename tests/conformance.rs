//! Conformance: the same requests sent to kubegen's in-memory server and to a real
//! kube-apiserver must get the same answers — HTTP code, `Status` reason, message and causes,
//! warnings, the returned object and the stored object (every write is followed by a GET),
//! watch event sequences and list pages.
//!
//! With a real apiserver configured (`KUBEBUILDER_ASSETS` or `KUBEGEN_TEST_KUBECONFIG`) both
//! servers are asked live. The apiserver's answers are also recorded in
//! `tests/conformance/apiserver.json`, so that on a machine without one the in-memory server
//! is still compared with the apiserver's recorded answers; a live run checks that the
//! recording is current. `KUBEGEN_CONFORMANCE_RECORD=1` with a real apiserver rewrites it.
//! Answers are normalized first: uids, resourceVersions, timestamps, continue tokens and the
//! per-run namespace name are blanked (see `runner::normalize`).

pub mod cases;
pub mod cel_kinds;
pub mod cel_rule_kinds;
use crate::fixtures::diff;
pub mod kinds;
pub mod pattern_kinds;
pub mod runner;
pub mod script;

use std::collections::BTreeMap;

use kubegen::testing::TestEnv;
use serde_json::Value;

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/conformance/apiserver.json"
);

/// Differences kept on purpose, by case name, with the reason (also listed in the guide, `docs/src/conformance.md`).
/// The ServiceAccount admission of the recorded kube-apiserver build adds a fourth source,
/// `openshift-service-ca.crt`, to a Pod's token volume: an OpenShift patch, not upstream
/// Kubernetes, which the in-memory server does not copy.
const OPENSHIFT_TOKEN_SOURCE: &str =
    "the recorded apiserver build's token volume has an OpenShift-only source";

/// Messages that print Go structs of the apiserver's internal types (`%#v`, or a diff of
/// their JSON with Go's field names and zero values): the in-memory server prints the same
/// change from the object's own fields.
const GO_STRUCT_DUMP: &str = "the message dumps an internal Go struct";

const INTENTIONAL: &[(&str, &str)] = &[
    (
        "bodies: merge patch, 1e309?fieldValidation=Ignore",
        "the 422 quotes the patched object with the literal 1e309 in it, which a JSON value here \
     cannot hold; the in-memory server quotes `null` (same code, reason, field and error)",
    ),
    ("builtin: defaults-pod", OPENSHIFT_TOKEN_SOURCE),
    ("builtin: defaults-pod-image-digest", OPENSHIFT_TOKEN_SOURCE),
    ("builtin: defaults-pod-image-latest", OPENSHIFT_TOKEN_SOURCE),
    (
        "builtin: defaults-pod-image-untagged",
        OPENSHIFT_TOKEN_SOURCE,
    ),
    (
        "builtin: immutable-pod-add-container",
        OPENSHIFT_TOKEN_SOURCE,
    ),
    (
        "builtin: immutable-pod-spec-forbidden",
        OPENSHIFT_TOKEN_SOURCE,
    ),
    (
        "builtin: immutable-pod-spec-image-ok",
        OPENSHIFT_TOKEN_SOURCE,
    ),
    (
        "builtin: invalid-pod-probe-bad-port-name",
        OPENSHIFT_TOKEN_SOURCE,
    ),
    ("builtin: immutable-pvc-spec-change", GO_STRUCT_DUMP),
    ("builtin: immutable-pvc-shrink", GO_STRUCT_DUMP),
    ("builtin: immutable-pvc-grow-unbound", GO_STRUCT_DUMP),
    ("builtin: immutable-job-template-change", GO_STRUCT_DUMP),
];

type Recording = BTreeMap<String, Vec<Value>>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_server_answers_like_the_apiserver() {
    let cases = cases::all();
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "case names are unique");

    let memory = TestEnv::in_memory("conformance");
    let real = TestEnv::real("conformance")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let recorded: Recording = std::fs::read(RECORDING)
        .ok()
        .and_then(|bytes| serde_json::from_value(runner::parse(&bytes)?).ok())
        .unwrap_or_default();
    let record = std::env::var_os("KUBEGEN_CONFORMANCE_RECORD").is_some();
    assert!(
        !record || real.is_some(),
        "KUBEGEN_CONFORMANCE_RECORD needs a real apiserver (KUBEBUILDER_ASSETS or KUBEGEN_TEST_KUBECONFIG)"
    );

    let mut report = diff::Report::default();
    let mut recording = Recording::new();
    for (i, case) in cases.iter().enumerate() {
        let namespace = format!("conformance-{}-{i}", std::process::id());
        memory.create_namespace(&namespace).await.unwrap();
        let ours = runner::run(&memory.client, &namespace, case).await;
        let reference = match &real {
            Some(real) => {
                real.create_namespace(&namespace).await.unwrap();
                let live = runner::run(&real.client, &namespace, case).await;
                if !record && recorded.get(&case.name) != Some(&live) {
                    report.stale.push(case.name.clone());
                }
                recording.insert(case.name.clone(), live.clone());
                live
            }
            None => match recorded.get(&case.name) {
                Some(r) => r.clone(),
                None => {
                    report.unrecorded.push(case.name.clone());
                    continue;
                }
            },
        };
        let expected = case.requests();
        assert_eq!(
            reference.len(),
            expected,
            "{}: the reference has {} answers for {expected} requests",
            case.name,
            reference.len()
        );
        let intentional = INTENTIONAL.iter().any(|(name, _)| *name == case.name);
        let labels = ("request", "apiserver");
        report.compare(&case.name, intentional, labels, &ours, &reference);
    }
    if record {
        std::fs::write(RECORDING, diff::recording_text(&recording)).unwrap();
    }

    let against = if real.is_some() { "live" } else { "recorded" };
    println!(
        "conformance: {} cases, {} requests; agreement with the {against} apiserver: {}/{} ({:.1}%), {} intentional differences",
        cases.len(),
        report.total,
        report.agreed,
        report.total,
        100.0 * report.agreed as f64 / report.total.max(1) as f64,
        report.intentional,
    );
    assert!(
        report.unrecorded.is_empty(),
        "cases without a recording (record them with KUBEGEN_CONFORMANCE_RECORD=1 and a real apiserver): {:?}",
        report.unrecorded
    );
    assert!(
        report.stale.is_empty(),
        "the apiserver now answers these cases differently from tests/conformance/apiserver.json \
         (re-record with KUBEGEN_CONFORMANCE_RECORD=1): {:?}",
        report.stale
    );
    assert!(
        report.differences.is_empty(),
        "{} of {} requests answered differently:\n{}",
        report.total - report.agreed - report.intentional,
        report.total,
        report.differences
    );
}
