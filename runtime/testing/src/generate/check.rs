//! The property: what a kind's schema accepts, its Rust type decodes, and what the type
//! writes back, the apiserver accepts.

use std::fmt;

use futures::StreamExt;
use kube::Resource;
use kube::api::PostParams;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Generator;
use kubegen_runtime::resource::{CustomResource, Scope};

/// Which step of the property an object failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// No object could be generated (the schema's constraints contradict each other).
    Generate,
    /// The generated object did not decode into the kind's Rust type.
    Decode,
    /// The apiserver refused the generated object: the generator made an invalid object,
    /// or (on the in-memory server) the server judges differently from the apiserver.
    AcceptGenerated,
    /// The apiserver refused what the Rust type serialized after decoding the object.
    AcceptRoundTrip,
    /// What the apiserver answered with (after defaulting and pruning) did not decode.
    DecodeStored,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Generate => "generate",
            Stage::Decode => "decode",
            Stage::AcceptGenerated => "accept the generated object",
            Stage::AcceptRoundTrip => "accept the re-serialized object",
            Stage::DecodeStored => "decode the apiserver's answer",
        })
    }
}

/// One object that broke the property, with what reproduces it.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The run's seed.
    pub seed: u64,
    /// The object's index in the run: `Generator::object(seed, index)` makes it again.
    pub index: u64,
    /// The step that failed.
    pub stage: Stage,
    /// The object that failed the step (the generated one, or what was sent or received).
    pub object: Value,
    /// The serde error, the apiserver's message, or why generation failed.
    pub error: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seed {} index {}: failed to {}: {}\n  object: {}",
            self.seed, self.index, self.stage, self.error, self.object
        )
    }
}

/// Every failure of a run (at least one).
#[derive(Clone, Debug, thiserror::Error)]
pub struct Failures {
    /// The kind checked.
    pub kind: String,
    /// How many objects were checked.
    pub checked: u64,
    /// Each failing object.
    pub failures: Vec<Failure>,
}

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut stages: Vec<(Stage, usize)> = Vec::new();
        for failure in &self.failures {
            match stages.iter_mut().find(|(s, _)| *s == failure.stage) {
                Some((_, n)) => *n += 1,
                None => stages.push((failure.stage, 1)),
            }
        }
        let stages: Vec<String> = stages
            .iter()
            .map(|(s, n)| format!("{n} failed to {s}"))
            .collect();
        writeln!(
            f,
            "{}: {} of {} generated objects failed ({})",
            self.kind,
            self.failures.len(),
            self.checked,
            stages.join(", ")
        )?;
        for failure in self.failures.iter().take(5) {
            writeln!(f, "- {failure}")?;
        }
        if self.failures.len() > 5 {
            writeln!(f, "- and {} more", self.failures.len() - 5)?;
        }
        Ok(())
    }
}

fn generator<K: CustomResource>(seed: u64) -> Result<Generator, Failure> {
    Generator::for_kind::<K>().map_err(|e| Failure {
        seed,
        index: 0,
        stage: Stage::Generate,
        object: Value::Null,
        error: e.to_string(),
    })
}

fn finish<K: CustomResource>(checked: u64, failures: Vec<Failure>) -> Result<u64, Failures> {
    if failures.is_empty() {
        Ok(checked)
    } else {
        Err(Failures {
            kind: K::INFO.kind.to_owned(),
            checked,
            failures,
        })
    }
}

/// Generates `count` objects of kind `K` from its CRD schema (seeded with `seed`) and decodes
/// each into `K`. Returns how many were checked, or every object that did not decode.
///
/// One line property-tests a kind: `check_decodes::<MyKind>(1000, 42).unwrap()`.
pub fn check_decodes<K>(count: u64, seed: u64) -> Result<u64, Failures>
where
    K: CustomResource + DeserializeOwned,
{
    let mut generator = match generator::<K>(seed) {
        Ok(g) => g,
        Err(f) => return finish::<K>(0, vec![f]),
    };
    let mut failures = Vec::new();
    for (index, object) in generator.objects(seed, count) {
        let fail = |stage, object, error| Failure {
            seed,
            index,
            stage,
            object,
            error,
        };
        match object {
            Err(e) => failures.push(fail(Stage::Generate, Value::Null, e.to_string())),
            Ok(object) => {
                if let Err(e) = serde_json::from_value::<K>(object.clone()) {
                    failures.push(fail(Stage::Decode, object, e.to_string()));
                }
            }
        }
    }
    finish::<K>(count, failures)
}

/// How [`check_accepted`] runs: how many objects from which seed, how many requests at a
/// time, and what to change in generated objects first.
pub struct Check<'a> {
    count: u64,
    seed: u64,
    concurrency: usize,
    decode_answers: bool,
    adjust: Option<&'a (dyn Fn(&mut Value) + Sync)>,
}

impl<'a> Check<'a> {
    /// `count` objects from `seed`, one request at a time, answers decoded.
    pub fn new(count: u64, seed: u64) -> Self {
        Check {
            count,
            seed,
            concurrency: 1,
            decode_answers: true,
            adjust: None,
        }
    }

    /// Sends up to `n` requests at once (worth it against a real apiserver).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Changes every generated object before it is checked. The generator does not evaluate
    /// CEL (`x-kubernetes-validations`): a kind with rules brings objects within them here.
    pub fn adjust(mut self, f: &'a (dyn Fn(&mut Value) + Sync)) -> Self {
        self.adjust = Some(f);
        self
    }

    /// Does not decode the server's answers. For a version that is not the storage version
    /// of a kind without a conversion webhook, the apiserver prunes each object by the
    /// storage version's schema, so what it answers is not this version's shape.
    pub fn without_answer_decoding(mut self) -> Self {
        self.decode_answers = false;
        self
    }
}

/// The full property against an API server (the in-memory `ApiServer`'s client, or a real
/// cluster's): each generated object of kind `K` must be accepted by a dry-run create and
/// decode into `K`, `K`'s serialization of it must be accepted too, and the server's answers
/// (defaulted and pruned) must decode as well. `namespace` is used for namespaced kinds.
/// Nothing is stored (`dryRun=All`). Returns how many objects were checked.
pub async fn check_accepted<K>(
    client: &kube::Client,
    namespace: &str,
    check: &Check<'_>,
) -> Result<u64, Failures>
where
    K: CustomResource + Resource<DynamicType = ()> + DeserializeOwned + Serialize,
{
    let seed = check.seed;
    let mut generator = match generator::<K>(seed) {
        Ok(g) => g,
        Err(f) => return finish::<K>(0, vec![f]),
    };
    let ns = (K::INFO.scope == Scope::Namespaced).then_some(namespace);
    let url = K::url_path(&(), ns);
    let objects: Vec<(u64, Result<Value, super::GenerateError>)> = generator
        .objects(seed, check.count)
        .map(|(index, object)| {
            let object = object.map(|mut o| {
                if let Some(adjust) = check.adjust {
                    adjust(&mut o);
                }
                o
            });
            (index, object)
        })
        .collect();
    let mut failures: Vec<Failure> = futures::stream::iter(objects)
        .map(|(index, object)| {
            let url = url.clone();
            async move { one::<K>(client, &url, check, index, object).await }
        })
        .buffer_unordered(check.concurrency)
        .filter_map(|r| async move { r })
        .collect()
        .await;
    failures.sort_by_key(|f| f.index);
    finish::<K>(check.count, failures)
}

async fn one<K>(
    client: &kube::Client,
    url: &str,
    check: &Check<'_>,
    index: u64,
    object: Result<Value, super::GenerateError>,
) -> Option<Failure>
where
    K: CustomResource + DeserializeOwned + Serialize,
{
    let fail = |stage, object, error| {
        Some(Failure {
            seed: check.seed,
            index,
            stage,
            object,
            error,
        })
    };
    let object = match object {
        Ok(o) => o,
        Err(e) => return fail(Stage::Generate, Value::Null, e.to_string()),
    };
    let stored = match dry_run_create(client, url, &object).await {
        Ok(stored) => stored,
        Err(e) => return fail(Stage::AcceptGenerated, object, e),
    };
    if check.decode_answers
        && let Err(e) = serde_json::from_value::<K>(stored.clone())
    {
        return fail(Stage::DecodeStored, stored, e.to_string());
    }
    let typed: K = match serde_json::from_value(object.clone()) {
        Ok(t) => t,
        Err(e) => return fail(Stage::Decode, object, e.to_string()),
    };
    let written = match serde_json::to_value(&typed) {
        Ok(v) => v,
        Err(e) => return fail(Stage::AcceptRoundTrip, object, e.to_string()),
    };
    match dry_run_create(client, url, &written).await {
        Err(e) => fail(Stage::AcceptRoundTrip, written, e),
        Ok(_) if !check.decode_answers => None,
        Ok(stored) => match serde_json::from_value::<K>(stored.clone()) {
            Ok(_) => None,
            Err(e) => fail(Stage::DecodeStored, stored, e.to_string()),
        },
    }
}

async fn dry_run_create(client: &kube::Client, url: &str, object: &Value) -> Result<Value, String> {
    let params = PostParams {
        dry_run: true,
        field_manager: Some("kubegen-generate".into()),
    };
    let body = serde_json::to_vec(object).map_err(|e| e.to_string())?;
    let request = kube::core::Request::new(url)
        .create(&params, body)
        .map_err(|e| e.to_string())?;
    client
        .request::<Value>(request)
        .await
        .map_err(|e| e.to_string())
}
