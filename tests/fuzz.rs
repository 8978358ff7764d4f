//! A differential fuzzer: seeded, reproducible mutations of valid requests — their bodies'
//! bytes and JSON, metadata, headers, query strings and URLs (`fuzz/mutations.rs`) — on a
//! namespaced and a cluster-scoped test kind and the built-in Lease (`fuzz/request.rs`), sent
//! to the in-memory server and to kube-apiserver, whose answers (code, `Status`, body,
//! warnings, and the object read back afterwards) must agree, as the conformance suite
//! compares them.
//!
//! - With a real apiserver (`KUBEBUILDER_ASSETS` or `KUBEGEN_TEST_KUBECONFIG`), `KUBEGEN_FUZZ_CASES`
//!   cases (default 3,000) go to both; every difference must be listed in
//!   `tests/fuzz/accepted.json` with its reason, and the first cases' answers must match the
//!   recording `tests/fuzz/apiserver.json` (`KUBEGEN_FUZZ_RECORD=1` rewrites both files: the
//!   recording, and the differences, keeping the reasons already written).
//! - Without one (the README's test command), the recorded cases run in memory only and are
//!   compared with the recording: the in-memory server must not crash, hang or answer
//!   differently except where `accepted.json` says so.
//!
//! Agreement is printed per mutation class. `fuzz/webhook.rs` fuzzes the webhook server;
//! `fuzz/pure.rs` the pure decoders and validators.

mod kinds;
mod mutations;
mod pure;
mod request;
use crate::conformance::runner;
use crate::conformance::script;
mod webhook;

use std::collections::BTreeMap;
use std::time::Duration;

use kubegen::testing::TestEnv;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use mutations::CLASSES;
use request::{Request, Template};

const RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz/apiserver.json");
const ACCEPTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz/accepted.json");
/// The seed every case derives from.
const SEED: u64 = 0x6b75_6265_6765_6e21;
/// How many cases the recording keeps (and the in-memory-only run replays).
const RECORDED: usize = 340;
/// How many cases a live run sends by default.
const LIVE: usize = 3000;

/// The `i`th case and its class.
fn case(i: usize) -> (&'static str, script::Case) {
    let class = &CLASSES[i % CLASSES.len()];
    let mut rng = ChaCha8Rng::seed_from_u64(SEED.wrapping_add(i as u64 * 0x9e37_79b9));
    let templates: Vec<Template> = Template::ALL
        .into_iter()
        .filter(|t| (class.applies)(*t))
        .collect();
    let template = templates[rng.random_range(0..templates.len())];
    let mut request = Request::from_template(template, &mut rng);
    (class.mutate)(&mut request, &mut rng);
    (
        class.name,
        request.into_case(format!("{} #{i}", class.name)),
    )
}

/// Long strings (a 300 KB value echoed back) compared by length and content hash.
fn shorten(value: &mut Value) {
    match value {
        Value::String(s) if s.len() > 512 => {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            s.hash(&mut h);
            *s = format!("<{} bytes, {:016x}>", s.len(), h.finish());
        }
        Value::Array(items) => items.iter_mut().for_each(shorten),
        Value::Object(fields) => fields.values_mut().for_each(shorten),
        _ => {}
    }
}

async fn run(client: &kube::Client, namespace: &str, case: &script::Case) -> Vec<Value> {
    match tokio::time::timeout(
        Duration::from_secs(60),
        runner::run(client, namespace, case),
    )
    .await
    {
        Ok(mut answers) => {
            answers.iter_mut().for_each(shorten);
            answers
        }
        Err(_) => vec![json!("no answer within 60 s")],
    }
}

fn print_case(case: &script::Case) {
    println!("{}:", case.name);
    for step in &case.steps {
        if let script::Step::Write {
            method,
            path,
            query,
            headers,
            body,
            ..
        } = step
        {
            let query = query
                .as_deref()
                .map(|q| format!("?{q}"))
                .unwrap_or_default();
            println!("  {method} {path}{query}");
            for (name, value) in headers {
                println!("  {name}: {value}");
            }
            if let script::Payload::Raw(bytes) = body {
                let text = String::from_utf8_lossy(bytes);
                println!("  {}", text.chars().take(2000).collect::<String>());
            }
        }
    }
}

fn read_map(path: &str) -> BTreeMap<String, Value> {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_value(runner::parse(&bytes)?).ok())
        .unwrap_or_default()
}

/// One line per entry, so a re-recording's diff names the cases that changed.
fn write_map(path: &str, map: &BTreeMap<String, Value>) {
    let lines: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("  {}: {}", json!(k), serde_json::to_string(v).unwrap()))
        .collect();
    std::fs::write(path, format!("{{\n{}\n}}\n", lines.join(",\n"))).unwrap();
}

/// Per class: cases, agreeing cases, differences accepted.
#[derive(Default)]
struct Tally {
    cases: usize,
    agreed: usize,
    accepted: usize,
}

/// Answers nested up to 20,000 deep are compared, normalized and dropped by recursive code
/// (serde_json's), so the test runs on threads with room for it.
#[test]
fn mutated_requests_answer_as_the_apiserver_answers() {
    const STACK: usize = 512 << 20;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(STACK)
        .enable_all()
        .build()
        .unwrap();
    let test = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            runtime.block_on(mutated_requests());
            // The servers' background tasks are dropped, not woken into a closing runtime.
            runtime.shutdown_background();
        })
        .unwrap();
    if let Err(panic) = test.join() {
        std::panic::resume_unwind(panic);
    }
}

async fn mutated_requests() {
    // `KUBEGEN_FUZZ_SHOW=<i>` prints the requests of case `i` and runs nothing.
    if let Some(i) = std::env::var("KUBEGEN_FUZZ_SHOW")
        .ok()
        .and_then(|i| i.parse().ok())
    {
        print_case(&case(i).1);
        return;
    }
    let memory = TestEnv::in_memory("fuzz");
    let real = TestEnv::real("fuzz")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let record = std::env::var_os("KUBEGEN_FUZZ_RECORD").is_some();
    assert!(
        !record || real.is_some(),
        "KUBEGEN_FUZZ_RECORD needs a real apiserver"
    );
    let count = std::env::var("KUBEGEN_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(if real.is_some() { LIVE } else { RECORDED });
    let recorded = read_map(RECORDING);
    let accepted = read_map(ACCEPTED);
    let mut recording = BTreeMap::new();
    let mut differences = BTreeMap::new();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    for i in 0..count {
        let (class, case) = case(i);
        let namespace = format!("fuzz-{}-{i}", std::process::id());
        memory.create_namespace(&namespace).await.unwrap();
        let ours = run(&memory.client, &namespace, &case).await;
        let reference = match &real {
            Some(real) => {
                real.create_namespace(&namespace).await.unwrap();
                let live = run(&real.client, &namespace, &case).await;
                if i < RECORDED {
                    if !record && recorded.get(&case.name) != Some(&json!(live)) {
                        stale.push(case.name.clone());
                    }
                    recording.insert(case.name.clone(), json!(live));
                }
                live
            }
            None => match recorded.get(&case.name).and_then(Value::as_array) {
                Some(answers) => answers.clone(),
                None => continue,
            },
        };
        let tally = tallies.entry(class).or_default();
        tally.cases += 1;
        if ours == reference {
            tally.agreed += 1;
        } else if let Some(reason) = accepted.get(&case.name) {
            tally.accepted += 1;
            differences.insert(case.name.clone(), reason.clone());
        } else {
            differences.insert(case.name.clone(), json!("new"));
            unexpected.push(format!(
                "{}:\n  in memory: {}\n  apiserver: {}",
                case.name,
                json!(ours),
                json!(reference)
            ));
        }
    }
    if record {
        write_map(RECORDING, &recording);
        write_map(ACCEPTED, &differences);
    }
    let against = if real.is_some() { "live" } else { "recorded" };
    println!("fuzz: agreement with the {against} apiserver, per mutation class:");
    let (mut cases, mut agreed, mut kept) = (0, 0, 0);
    for (class, t) in &tallies {
        println!(
            "  {class:<20} {:>4}/{:<4} agree, {:>3} accepted differences",
            t.agreed, t.cases, t.accepted
        );
        (cases, agreed, kept) = (cases + t.cases, agreed + t.agreed, kept + t.accepted);
    }
    println!(
        "  {:<20} {agreed:>4}/{cases:<4} agree, {kept:>3} accepted differences",
        "all"
    );
    assert!(
        cases > 0,
        "no case ran: is tests/fuzz/apiserver.json there?"
    );
    assert!(
        record || unexpected.is_empty(),
        "{} cases answered differently, not listed in tests/fuzz/accepted.json:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        stale.is_empty(),
        "the apiserver now answers these cases differently from tests/fuzz/apiserver.json \
         (re-record with KUBEGEN_FUZZ_RECORD=1): {stale:?}"
    );
}
