//! What CEL rules add to validating an object, measured three ways in the same run:
//! `ResourceValidator::validate_create` on the object's JSON (validation alone),
//! `obj.validate()` (the local API: serialization, defaulting and validation), and a dry-run
//! create through the in-memory server (decoding, coercion, field tracking and validation),
//! each for the same object with 0 (kind `Bare`), 5 (`Checked`) and 20 (`Guarded`) rules. The peer of the rules is the schema
//! validation of the same object (the 0-rule kind): 5 simple rules should add less than it
//! costs.
//!
//! `cargo bench --features testing --bench validation`

use criterion::{Criterion, criterion_group, criterion_main};
use kubegen::client::PostParams;
use kubegen::prelude::*;
use kubegen::testing::ApiServer;
use kubegen::validation::ResourceValidator;
use serde_json::Value;

/// The object every kind carries: a few bounded scalars, a list and a map.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Fields {
    #[validate(minimum = 0, maximum = 100)]
    pub replicas: i32,
    #[validate(min_length = 1, max_length = 63, pattern = "^[a-z][a-z0-9-]*$")]
    pub name: String,
    #[validate(max_items = 16)]
    pub tags: Vec<String>,
    #[validate(max_properties = 16)]
    pub labels: std::collections::BTreeMap<String, String>,
    #[validate(minimum = 0)]
    pub min: i32,
    #[validate(minimum = 0)]
    pub max: i32,
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "bench.kubegen.dev", version = "v1", kind = "Bare")]
pub struct BareSpec {
    #[serde(flatten)]
    pub fields: Fields,
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "bench.kubegen.dev", version = "v1", kind = "Checked")]
#[rule("self.min <= self.max", message = "min must not exceed max")]
#[rule("self.replicas <= 50 || self.tags.size() > 0")]
#[rule("self.name.startsWith('app') || self.name.size() > 2")]
#[rule("self.tags.all(t, t.size() <= 32)")]
#[rule("!has(self.labels.env) || self.labels.env != ''")]
pub struct CheckedSpec {
    #[serde(flatten)]
    pub fields: Fields,
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "bench.kubegen.dev", version = "v1", kind = "Guarded")]
#[rule("self.min <= self.max", message = "min must not exceed max")]
#[rule("self.replicas <= 50 || self.tags.size() > 0")]
#[rule("self.name.startsWith('app') || self.name.size() > 2")]
#[rule("self.tags.all(t, t.size() <= 32)")]
#[rule("!has(self.labels.env) || self.labels.env != ''")]
#[rule("self.replicas >= 0")]
#[rule("self.min >= 0")]
#[rule("self.max <= 1000")]
#[rule("self.name.size() <= 63")]
#[rule("self.tags.size() <= 16")]
#[rule("self.labels.size() <= 16")]
#[rule("self.name != 'forbidden'")]
#[rule("self.replicas != 13")]
#[rule("self.max - self.min >= 0")]
#[rule("self.tags.all(t, t != '')")]
#[rule("self.labels.all(k, k.size() <= 63)")]
#[rule("self.name.matches('^[a-z]')")]
#[rule("self.tags.exists(t, t == 'web') || true")]
#[rule("self.replicas * 2 <= 200")]
#[rule("self.name.endsWith('x') || self.name.size() >= 1")]
pub struct GuardedSpec {
    #[serde(flatten)]
    pub fields: Fields,
}

macro_rules! object {
    ($kind:ident, $spec:ident) => {
        $kind::new(
            "bench-object",
            $spec {
                fields: Fields {
                    replicas: 3,
                    name: "app-frontend".into(),
                    tags: vec!["web".into(), "frontend".into(), "eu".into()],
                    labels: [("env", "prod"), ("team", "shop")]
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect(),
                    min: 1,
                    max: 5,
                },
            },
        )
    };
}

/// A kind's validator, built from its CRD as the in-memory server builds it.
fn validator<K: kubegen::CustomResource>() -> ResourceValidator {
    let crd = K::crd().expect("the bench kinds' CRDs build");
    let schema = serde_json::to_value(
        &crd.spec.versions[0]
            .schema
            .as_ref()
            .expect("a schema")
            .open_api_v3_schema,
    )
    .expect("a schema serializes");
    let info = K::INFO;
    ResourceValidator::new(info.group, info.version, info.kind, true, &schema, None)
}

/// The object's JSON as the apiserver validates it (namespace filled in as by a request).
fn json_of(object: &impl Serialize) -> Value {
    let mut json = serde_json::to_value(object).expect("serializes");
    json["metadata"]["namespace"] = "bench".into();
    json
}

fn validation(c: &mut Criterion) {
    let plain = object!(Bare, BareSpec);
    let five = object!(Checked, CheckedSpec);
    let twenty = object!(Guarded, GuardedSpec);
    for (name, ok) in [
        ("0 rules", plain.validate().is_ok()),
        ("5 rules", five.validate().is_ok()),
        ("20 rules", twenty.validate().is_ok()),
    ] {
        assert!(ok, "the {name} object is valid");
    }

    let mut group = c.benchmark_group("validate_create");
    let cases = [
        ("0_rules", validator::<Bare>(), json_of(&plain)),
        ("5_rules", validator::<Checked>(), json_of(&five)),
        ("20_rules", validator::<Guarded>(), json_of(&twenty)),
    ];
    for (name, validator, json) in &cases {
        group.bench_function(*name, |b| b.iter(|| validator.validate_create(json)));
    }
    group.finish();

    let mut group = c.benchmark_group("validate_local");
    group.bench_function("0_rules", |b| b.iter(|| plain.validate()));
    group.bench_function("5_rules", |b| b.iter(|| five.validate()));
    group.bench_function("20_rules", |b| b.iter(|| twenty.validate()));
    group.finish();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // kube::Client spawns its request buffer, so it is built inside the runtime.
    let _entered = rt.enter();
    let server = ApiServer::new();
    server.create_namespace("bench").expect("a namespace");
    let client = server.client();
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let mut group = c.benchmark_group("in_memory_dry_run_create");
    group.bench_function("0_rules", |b| {
        let api = client.bares("bench");
        b.iter(|| {
            rt.block_on(api.create_with(&dry_run, &plain))
                .expect("valid")
        })
    });
    group.bench_function("5_rules", |b| {
        let api = client.checkeds("bench");
        b.iter(|| {
            rt.block_on(api.create_with(&dry_run, &five))
                .expect("valid")
        })
    });
    group.bench_function("20_rules", |b| {
        let api = client.guardeds("bench");
        b.iter(|| {
            rt.block_on(api.create_with(&dry_run, &twenty))
                .expect("valid")
        })
    });
    group.finish();
}

criterion_group!(benches, validation);
criterion_main!(benches);
