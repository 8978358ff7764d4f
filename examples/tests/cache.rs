//! The Cache kind end to end: conversion between versions that really differ, defaulting and
//! validating admission, and webhooks that are down.
//!
//! On a real apiserver the webhooks are `cache_webhook`'s (`cache::webhook::webhooks()`)
//! served by `kubegen::webhook` over HTTPS on 127.0.0.1, with the CRD's Webhook conversion
//! and the webhook configurations crdgen writes, the self-signed CA as their caBundle. In
//! memory the same handlers run in process. Every test runs on both.

use std::sync::OnceLock;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::core::Status;
use kubegen::crd::webhooks::{self, FailurePolicy, WebhookEndpoint, WebhookOptions};
use kubegen::testing::TestEnv;
use kubegen::webhook::{AdmissionType, SelfSigned, WebhookKind, WebhookServer};
use kubegen_examples::cache::{v1, v1alpha1, webhook::PROTECTED_LABEL};
use serde_json::json;

const CRD: &str = "caches.cache.example.com";
const VALIDATING: &str = "validate-v1.caches.cache.example.com";
/// Objects with this label meet the webhooks of `webhook_down` on a real apiserver.
const DOWN_LABEL: &str = "cache.example.com/webhook-test";

/// The webhook server of this test process, on its own thread and runtime (each test has a
/// runtime of its own): its port and the CA that signed its certificate.
fn webhook_server() -> &'static (u16, String) {
    static SERVER: OnceLock<(u16, String)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let certs = SelfSigned::generate(&["127.0.0.1"]).unwrap();
                let server = WebhookServer::new(
                    kubegen_examples::cache::webhook::webhooks(),
                    certs.tls().unwrap(),
                )
                .unwrap()
                .bind(([127, 0, 0, 1], 0).into())
                .await
                .unwrap();
                tx.send((server.local_addr().port(), certs.ca_pem.clone()))
                    .unwrap();
                server.serve(std::future::pending()).await.unwrap();
            });
        });
        rx.recv().unwrap()
    })
}

fn endpoint(port: u16, ca: &str) -> WebhookEndpoint {
    WebhookEndpoint::url(&format!("https://127.0.0.1:{port}"))
        .unwrap()
        .with_ca_bundle(ca.as_bytes().to_vec())
        .unwrap()
}

/// Puts the Cache webhooks in front of `e`'s server: in process in memory; on a real
/// apiserver (once per process) the CRD's Webhook conversion and both configurations, as
/// crdgen writes them, pointing at [`webhook_server`], then waits until they answer.
async fn serve_webhooks(e: &TestEnv) {
    if let Some(server) = &e.server {
        server.admission(kubegen_examples::cache::webhook::webhooks());
        return;
    }
    static INSTALLED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    INSTALLED
        .get_or_init(|| async {
            let (port, ca) = webhook_server();
            let endpoint = endpoint(*port, ca);
            let mut crd = kubegen::registry::crds()
                .unwrap()
                .into_iter()
                .find(|c| c.metadata.name.as_deref() == Some(CRD))
                .unwrap();
            webhooks::with_conversion(&mut crd, &endpoint);
            kubegen::crd::install_crds(&e.client, &[crd], "cache-test", Duration::from_secs(30))
                .await
                .unwrap();
            let kinds = webhooks::storage_versions("Cache").unwrap();
            let options = WebhookOptions {
                mutating_configuration_name: "cache-test-mutating".into(),
                validating_configuration_name: "cache-test-validating".into(),
                ..WebhookOptions::default()
            };
            let apply = PatchParams::apply("cache-test").force();
            let mutating =
                webhooks::mutating_webhook_configuration(&kinds, &endpoint, &options).unwrap();
            Api::<MutatingWebhookConfiguration>::all(e.client.clone())
                .patch("cache-test-mutating", &apply, &Patch::Apply(&mutating))
                .await
                .unwrap();
            let validating =
                webhooks::validating_webhook_configuration(&kinds, &endpoint, &options).unwrap();
            Api::<ValidatingWebhookConfiguration>::all(e.client.clone())
                .patch("cache-test-validating", &apply, &Patch::Apply(&validating))
                .await
                .unwrap();
            // The apiserver picks configurations up asynchronously: wait until a v1alpha1
            // object too small for the validating webhook is refused by it (which also needs
            // the conversion webhook).
            let api: Api<v1alpha1::Cache> = Api::namespaced(e.client.clone(), &e.namespace);
            let probe = old_cache("probe", "redis:7.2", "1Mi");
            let dry_run = PostParams {
                dry_run: true,
                ..PostParams::default()
            };
            let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
            loop {
                match api.create(&dry_run, &probe).await {
                    Err(kube::Error::Api(s)) if s.message.contains(VALIDATING) => break,
                    other => assert!(
                        tokio::time::Instant::now() < deadline,
                        "the webhooks never took effect: {other:?}"
                    ),
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
        .await;
}

fn old_cache(name: &str, engine: &str, memory: &str) -> v1alpha1::Cache {
    v1alpha1::Cache::new(
        name,
        v1alpha1::CacheSpec {
            engine: engine.into(),
            memory: memory.into(),
            replicas: None,
        },
    )
}

fn cache(name: &str, memory: &str, persistence: Option<v1::Persistence>) -> v1::Cache {
    v1::Cache::new(
        name,
        v1::CacheSpec {
            engine: v1::Engine::Valkey,
            version: "8.0".into(),
            memory: Quantity(memory.into()),
            replicas: Some(3),
            persistence,
        },
    )
}

fn apis(e: &TestEnv) -> (Api<v1alpha1::Cache>, Api<v1::Cache>) {
    (
        Api::namespaced(e.client.clone(), &e.namespace),
        Api::namespaced(e.client.clone(), &e.namespace),
    )
}

fn status(result: Result<impl std::fmt::Debug, kube::Error>) -> Status {
    match result {
        Err(kube::Error::Api(s)) => *s,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[kubegen::test]
async fn created_in_v1alpha1_read_and_listed_in_v1(e: TestEnv) {
    serve_webhooks(&e).await;
    let (old, new) = apis(&e);
    let created = old
        .create(
            &PostParams::default(),
            &old_cache("a", "redis:7.2", "512Mi"),
        )
        .await
        .unwrap();
    assert_eq!(created.spec.engine, "redis:7.2");
    assert_eq!(created.spec.replicas, Some(1), "v1alpha1's schema default");

    let read = new.get("a").await.unwrap();
    assert_eq!(read.spec.engine, v1::Engine::Redis);
    assert_eq!(read.spec.version, "7.2");
    assert_eq!(read.spec.memory, Quantity("512Mi".into()));
    assert_eq!(read.spec.persistence, None);
    let listed = new.list(&ListParams::default()).await.unwrap();
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].spec, read.spec);
    // The hub never carries the conversion data.
    assert!(read.metadata.annotations.unwrap_or_default().is_empty());
}

#[kubegen::test]
async fn an_update_through_v1alpha1_keeps_what_only_v1_has(e: TestEnv) {
    serve_webhooks(&e).await;
    let (old, new) = apis(&e);
    let persistence = v1::Persistence {
        snapshot_every: Some("15m".into()),
        volume_size: Some(Quantity("4Gi".into())),
    };
    new.create(
        &PostParams::default(),
        &cache("b", "1Gi", Some(persistence.clone())),
    )
    .await
    .unwrap();

    // Read, change and replace in the old version, which cannot hold `persistence`.
    let mut seen = old.get("b").await.unwrap();
    assert_eq!(seen.spec.engine, "valkey:8.0");
    seen.spec.memory = "2Gi".into();
    old.replace("b", &PostParams::default(), &seen)
        .await
        .unwrap();
    // And a merge patch through it.
    old.patch(
        "b",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 5}})),
    )
    .await
    .unwrap();

    let now = new.get("b").await.unwrap();
    assert_eq!(now.spec.memory, Quantity("2Gi".into()));
    assert_eq!(now.spec.replicas, Some(5));
    assert_eq!(
        now.spec.persistence,
        Some(persistence),
        "v1's persistence survived"
    );
}

#[kubegen::test]
async fn a_v1alpha1_watch_sees_v1_writes_in_its_own_shape(e: TestEnv) {
    serve_webhooks(&e).await;
    let (old, new) = apis(&e);
    let list = old.list(&ListParams::default()).await.unwrap();
    let version = list.metadata.resource_version.unwrap();
    let mut events = old
        .watch(&WatchParams::default().timeout(20), &version)
        .await
        .unwrap()
        .boxed();

    new.create(&PostParams::default(), &cache("c", "512Mi", None))
        .await
        .unwrap();
    new.patch(
        "c",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"memory": "768Mi"}})),
    )
    .await
    .unwrap();

    let mut seen = Vec::new();
    while seen.len() < 2 {
        match events.try_next().await.unwrap() {
            Some(WatchEvent::Added(c)) | Some(WatchEvent::Modified(c)) => {
                assert_eq!(c.spec.engine, "valkey:8.0");
                seen.push(c.spec.memory);
            }
            Some(WatchEvent::Bookmark(_)) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(seen, ["512Mi", "768Mi"]);
}

#[kubegen::test]
async fn defaulting_and_validating_webhooks_are_enforced(e: TestEnv) {
    serve_webhooks(&e).await;
    let (old, new) = apis(&e);
    let pp = PostParams::default();

    // Defaulting: the webhook sizes the volume from the memory, the schema the interval.
    let persistence = v1::Persistence::default();
    let created = new
        .create(&pp, &cache("d", "512Mi", Some(persistence)))
        .await
        .unwrap();
    let persistence = created.spec.persistence.unwrap();
    assert_eq!(persistence.volume_size, Some(Quantity("1024Mi".into())));
    assert_eq!(persistence.snapshot_every.as_deref(), Some("1h"));

    // Validating, on create in either version (v1alpha1 converted for the webhook).
    let too_small = format!(
        "admission webhook \"{VALIDATING}\" denied the request: Cache.cache.example.com \"e\" is invalid: spec.memory: Invalid value: \"32Mi\": a replica needs at least 64Mi"
    );
    let s = status(new.create(&pp, &cache("e", "32Mi", None)).await);
    assert_eq!(
        (s.code, s.reason.as_str(), s.message.as_str()),
        (422, "Invalid", too_small.as_str())
    );
    let s = status(old.create(&pp, &old_cache("e", "redis:7.2", "32Mi")).await);
    assert_eq!((s.code, s.message.as_str()), (422, too_small.as_str()));

    // On update, with the old object.
    let s = status(
        new.patch(
            "d",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"engine": "redis"}})),
        )
        .await,
    );
    assert_eq!(s.code, 422);
    assert!(
        s.message.ends_with(
            "spec.engine: Forbidden: the engine of a Cache cannot change: create a new Cache"
        ),
        "{}",
        s.message
    );
    // The schema and CEL rules run in the webhook too, and in the apiserver before it.
    let s = status(
        new.patch(
            "d",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"engine": "memcached"}})),
        )
        .await,
    );
    assert_eq!(s.code, 422);
    assert!(
        s.message.contains("memcached keeps no data on disk"),
        "{}",
        s.message
    );

    // On delete: a protected Cache stays.
    new.patch(
        "d",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {PROTECTED_LABEL: "true"}}})),
    )
    .await
    .unwrap();
    let s = status(new.delete("d", &DeleteParams::default()).await);
    assert_eq!(
        (s.code, s.reason.as_str(), s.message.as_str()),
        (
            403,
            "Forbidden",
            format!("admission webhook \"{VALIDATING}\" denied the request: Cache d is protected: remove the label {PROTECTED_LABEL} first").as_str()
        )
    );
    new.patch(
        "d",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {PROTECTED_LABEL: null}}})),
    )
    .await
    .unwrap();
    new.delete("d", &DeleteParams::default()).await.unwrap();
}

/// A validating webhook nobody serves, for objects labelled `DOWN_LABEL: <value>`: on a real
/// apiserver a configuration of its own pointing at a closed port, in memory the kind's
/// validating webhook marked unavailable. Returns the label value to put on objects.
async fn webhook_down(e: &TestEnv, policy: FailurePolicy) -> String {
    let value = format!("down-{}", policy.as_str().to_lowercase());
    if let Some(server) = &e.server {
        server.admission_unavailable(
            AdmissionType::Validating,
            WebhookKind::of::<v1::Cache>(),
            policy,
        );
        return value;
    }
    // A port that was free a moment ago, now closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (_, ca) = webhook_server();
    let name = format!("cache-test-{value}");
    let kinds = webhooks::storage_versions("Cache").unwrap();
    let options = WebhookOptions {
        failure_policy: policy,
        validating_configuration_name: name.clone(),
        ..WebhookOptions::default()
    };
    let mut config =
        webhooks::validating_webhook_configuration(&kinds, &endpoint(port, ca), &options).unwrap();
    for webhook in config.webhooks.iter_mut().flatten() {
        webhook.name = format!("{value}.caches.cache.example.com");
        webhook.object_selector = Some(LabelSelector {
            match_labels: Some([(DOWN_LABEL.to_owned(), value.clone())].into()),
            ..LabelSelector::default()
        });
    }
    Api::<ValidatingWebhookConfiguration>::all(e.client.clone())
        .patch(
            &name,
            &PatchParams::apply("cache-test").force(),
            &Patch::Apply(&config),
        )
        .await
        .unwrap();
    if policy == FailurePolicy::Fail {
        // Wait until the configuration is in effect: a labelled dry run fails.
        let api: Api<v1::Cache> = Api::namespaced(e.client.clone(), &e.namespace);
        let mut probe = cache("probe", "512Mi", None);
        probe.metadata.labels = Some([(DOWN_LABEL.to_owned(), value.clone())].into());
        let dry_run = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while api.create(&dry_run, &probe).await.is_ok() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{name} never took effect"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    value
}

#[kubegen::test]
async fn a_webhook_that_is_down_fails_or_is_ignored_by_its_policy(e: TestEnv) {
    serve_webhooks(&e).await;
    let (_, new) = apis(&e);
    let pp = PostParams::default();

    let fail = webhook_down(&e, FailurePolicy::Fail).await;
    let mut refused = cache("f", "512Mi", None);
    refused.metadata.labels = Some([(DOWN_LABEL.to_owned(), fail)].into());
    let s = status(new.create(&pp, &refused).await);
    assert_eq!((s.code, s.reason.as_str()), (500, "InternalError"));
    assert!(
        s.message
            .starts_with("Internal error occurred: failed calling webhook \""),
        "{}",
        s.message
    );
    assert!(new.get_opt("f").await.unwrap().is_none());

    let ignore = webhook_down(&e, FailurePolicy::Ignore).await;
    let mut admitted = cache("g", "512Mi", None);
    admitted.metadata.labels = Some([(DOWN_LABEL.to_owned(), ignore)].into());
    // Give the Ignore configuration time to be seen: it must not matter either way.
    tokio::time::sleep(Duration::from_millis(500)).await;
    new.create(&pp, &admitted).await.unwrap();
}

/// `cache_webhook --self-signed DIR` writes its CA and serves; bad arguments get the usage.
#[test]
fn the_cache_webhook_binary_serves_and_explains_its_arguments() {
    use std::io::{BufRead, BufReader};
    let binary = env!("CARGO_BIN_EXE_cache_webhook");
    let dir = std::env::temp_dir().join(format!("kubegen-cache-webhook-{}", std::process::id()));
    let mut child = std::process::Command::new(binary)
        .args([
            "--self-signed",
            dir.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.contains("CA for the caBundle written to"), "{first}");
    assert!(
        second.starts_with("cache_webhook: serving on https://127.0.0.1:"),
        "{second}"
    );
    let ca = std::fs::read_to_string(dir.join("ca.crt")).unwrap();
    assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"));
    std::fs::remove_dir_all(&dir).unwrap();

    let output = std::process::Command::new(binary)
        .arg("--cert")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(
        err.contains("--cert needs a value") && err.contains("usage: cache_webhook"),
        "{err}"
    );
}

/// A write of [`apply_at_both_versions`], at `version`, by a field manager.
enum Write {
    Apply {
        force: bool,
        spec: serde_json::Value,
    },
    Merge(serde_json::Value),
    JsonPatch(serde_json::Value),
    /// A PUT of the object as read: a no-op.
    ReplaceAsRead,
}

/// One step: the write, then `200` and the spec (as v1 shows it) and ownership it leaves —
/// each manager as `manager Operation version: paths`, sorted — or the code and message.
struct Step {
    what: &'static str,
    version: &'static str,
    manager: &'static str,
    write: Write,
    answer: &'static str,
    spec: serde_json::Value,
    managers: &'static [&'static str],
}

impl Step {
    async fn run(self, e: &TestEnv) {
        let gvk = kube::core::GroupVersionKind::gvk("cache.example.com", self.version, "Cache");
        let resource = kube::core::ApiResource::from_gvk_with_plural(&gvk, "caches");
        let api = Api::<kube::core::DynamicObject>::namespaced_with(
            e.client.clone(),
            &e.namespace,
            &resource,
        );
        let params = PatchParams {
            field_manager: Some(self.manager.into()),
            ..PatchParams::default()
        };
        let result = match self.write {
            Write::Apply { force, spec } => {
                let body = json!({"apiVersion": format!("cache.example.com/{}", self.version),
                                  "kind": "Cache", "metadata": {"name": "ssa"}, "spec": spec});
                let params = PatchParams {
                    force,
                    ..PatchParams::apply(self.manager)
                };
                api.patch("ssa", &params, &Patch::Apply(body)).await
            }
            Write::Merge(body) => api.patch("ssa", &params, &Patch::Merge(body)).await,
            Write::JsonPatch(ops) => {
                let ops = serde_json::from_value(ops).unwrap();
                api.patch("ssa", &params, &Patch::Json::<()>(ops)).await
            }
            Write::ReplaceAsRead => {
                let current = api.get("ssa").await.unwrap();
                let params = PostParams {
                    field_manager: Some(self.manager.into()),
                    ..PostParams::default()
                };
                api.replace("ssa", &params, &current).await
            }
        };
        let answer = match result {
            Ok(_) => "200".to_owned(),
            Err(kube::Error::Api(s)) => format!("{} {}", s.code, s.message),
            Err(other) => panic!("{}: {other}", self.what),
        };
        assert_eq!(answer, self.answer, "{}", self.what);
        if answer == "200" {
            let (spec, managers) = ownership(e, "ssa").await;
            assert_eq!(spec, self.spec, "{}", self.what);
            assert_eq!(managers, self.managers, "{}", self.what);
        }
    }
}

/// The object's spec as v1 shows it, and its managers, sorted (entries are ordered by time in
/// whole seconds, so steps within one second tie).
async fn ownership(e: &TestEnv, name: &str) -> (serde_json::Value, Vec<String>) {
    fn leaves(fields: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
        let Some(fields) = fields.as_object().filter(|f| !f.is_empty()) else {
            out.push(prefix.to_owned());
            return;
        };
        for (key, value) in fields {
            let name = key.trim_start_matches("f:");
            leaves(value, &format!("{prefix}.{name}"), out);
        }
    }
    let (_, new) = apis(e);
    let object = new.get(name).await.unwrap();
    let mut managers: Vec<String> = object
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            let mut paths = Vec::new();
            leaves(
                &m.fields_v1.map(|f| f.0).unwrap_or_default(),
                "",
                &mut paths,
            );
            let version = m.api_version.unwrap_or_default();
            let version = version.trim_start_matches("cache.example.com/");
            format!(
                "{} {} {version}: {}",
                m.manager.unwrap_or_default(),
                m.operation.unwrap_or_default(),
                paths.join(" ")
            )
        })
        .collect();
    managers.sort();
    (serde_json::to_value(object.spec).unwrap(), managers)
}

/// Server-side apply by managers at both versions, through the conversion webhook: the
/// apiserver's field manager converts whole and *partial* objects (pruned to some managers'
/// fields) to each manager's version, and the generated conversions must take both. Every
/// answer, spec and ownership below is what kube-apiserver v1.36.2 gives.
#[kubegen::test]
async fn apply_at_both_versions(e: TestEnv) {
    serve_webhooks(&e).await;
    let persistence = json!({"snapshotEvery": "2h", "volumeSize": "1Gi"});
    let apply = |force, spec| Write::Apply { force, spec };
    const HUB_PERSISTENCE: &str =
        "hub Apply v1: .spec.memory .spec.persistence.snapshotEvery .spec.persistence.volumeSize";
    let steps = [
        Step {
            what: "alpha applies at v1alpha1",
            version: "v1alpha1",
            manager: "alpha",
            write: apply(
                false,
                json!({"engine": "redis:7.2", "memory": "512Mi", "replicas": 2}),
            ),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.2", "memory": "512Mi", "replicas": 2}),
            managers: &["alpha Apply v1alpha1: .spec.engine .spec.memory .spec.replicas"],
        },
        Step {
            what: "hub applies at v1",
            version: "v1",
            manager: "hub",
            write: apply(false, json!({"persistence": persistence})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.2", "memory": "512Mi", "replicas": 2,
                         "persistence": persistence}),
            managers: &[
                "alpha Apply v1alpha1: .spec.engine .spec.memory .spec.replicas",
                "hub Apply v1: .spec.persistence.snapshotEvery .spec.persistence.volumeSize",
            ],
        },
        // Ownership is compared at the owner's version: v1alpha1's `memory` is v1's.
        Step {
            what: "hub takes memory",
            version: "v1",
            manager: "hub",
            write: apply(false, json!({"persistence": persistence, "memory": "1Gi"})),
            answer: "409 Apply failed with 1 conflict: conflict with \"alpha\": .spec.memory",
            spec: json!(null),
            managers: &[],
        },
        Step {
            what: "hub forces memory",
            version: "v1",
            manager: "hub",
            write: apply(true, json!({"persistence": persistence, "memory": "1Gi"})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.2", "memory": "1Gi", "replicas": 2,
                         "persistence": persistence}),
            managers: &[
                "alpha Apply v1alpha1: .spec.engine .spec.replicas",
                HUB_PERSISTENCE,
            ],
        },
        // Dropping the required `memory` nobody else owns: pruning it converts the object
        // without it (a partial object) to v1alpha1; the result lacks a required field, which
        // the defaulting webhook (it decodes the object) is the first to see.
        Step {
            what: "hub drops memory",
            version: "v1",
            manager: "hub",
            write: apply(true, json!({"persistence": persistence, "replicas": 5})),
            answer: "422 admission webhook \"mutate-v1.caches.cache.example.com\" denied the \
                     request: Cache.cache.example.com \"ssa\" is invalid: spec.memory: \
                     Required value: the object does not decode as Cache",
            spec: json!(null),
            managers: &[],
        },
        Step {
            what: "alpha drops replicas (the schema's default comes back)",
            version: "v1alpha1",
            manager: "alpha",
            write: apply(false, json!({"engine": "redis:7.2"})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.2", "memory": "1Gi", "replicas": 1,
                         "persistence": persistence}),
            managers: &["alpha Apply v1alpha1: .spec.engine", HUB_PERSISTENCE],
        },
        // A manager moving to the other version: its last fields are pruned at v1, where
        // nobody else holds `memory`, so the partial object converted to v1alpha1 lacks it.
        Step {
            what: "hub moves to v1alpha1, dropping persistence",
            version: "v1alpha1",
            manager: "hub",
            write: apply(false, json!({"memory": "1Gi"})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.2", "memory": "1Gi", "replicas": 1}),
            managers: &[
                "alpha Apply v1alpha1: .spec.engine",
                "hub Apply v1alpha1: .spec.memory",
            ],
        },
        // Updates take what they change at every version: v1's `version` is part of
        // v1alpha1's `engine`, so alpha loses it. Updates at v1alpha1 keep the v1 managers.
        Step {
            what: "hubpatcher merge-patches at v1",
            version: "v1",
            manager: "hubpatcher",
            write: Write::Merge(json!({"spec": {"version": "7.4"}})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.4", "memory": "1Gi", "replicas": 1}),
            managers: &[
                "hub Apply v1alpha1: .spec.memory",
                "hubpatcher Update v1: .spec.version",
            ],
        },
        Step {
            what: "patcher merge-patches at v1alpha1",
            version: "v1alpha1",
            manager: "patcher",
            write: Write::Merge(json!({"spec": {"replicas": 4}})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.4", "memory": "1Gi", "replicas": 4}),
            managers: &[
                "hub Apply v1alpha1: .spec.memory",
                "hubpatcher Update v1: .spec.version",
                "patcher Update v1alpha1: .spec.replicas",
            ],
        },
        Step {
            what: "jsonpatcher at v1alpha1",
            version: "v1alpha1",
            manager: "jsonpatcher",
            write: Write::JsonPatch(
                json!([{"op": "replace", "path": "/spec/memory", "value": "2Gi"}]),
            ),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.4", "memory": "2Gi", "replicas": 4}),
            managers: &[
                "hubpatcher Update v1: .spec.version",
                "jsonpatcher Update v1alpha1: .spec.memory",
                "patcher Update v1alpha1: .spec.replicas",
            ],
        },
        Step {
            what: "replacer writes the object as read at v1alpha1 (a no-op)",
            version: "v1alpha1",
            manager: "replacer",
            write: Write::ReplaceAsRead,
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.4", "memory": "2Gi", "replicas": 4}),
            managers: &[
                "hubpatcher Update v1: .spec.version",
                "jsonpatcher Update v1alpha1: .spec.memory",
                "patcher Update v1alpha1: .spec.replicas",
            ],
        },
        Step {
            what: "alpha takes engine and memory back",
            version: "v1alpha1",
            manager: "alpha",
            write: apply(false, json!({"engine": "redis:7.2", "memory": "3Gi"})),
            // Conflicts name each owner's version.
            answer: "409 Apply failed with 2 conflicts: \
                     conflicts with \"hubpatcher\" using cache.example.com/v1:\n- .spec.version\n\
                     conflicts with \"jsonpatcher\" using cache.example.com/v1alpha1:\n- .spec.memory",
            spec: json!(null),
            managers: &[],
        },
        Step {
            what: "alpha forces engine and memory back",
            version: "v1alpha1",
            manager: "alpha",
            write: apply(true, json!({"engine": "redis:7.2", "memory": "3Gi"})),
            answer: "200",
            spec: json!({"engine": "redis", "version": "7.2", "memory": "3Gi", "replicas": 4}),
            managers: &[
                "alpha Apply v1alpha1: .spec.engine .spec.memory",
                "patcher Update v1alpha1: .spec.replicas",
            ],
        },
    ];
    for step in steps {
        step.run(&e).await;
    }
}

/// A conversion that fails answers with the apiserver's words for a failing conversion
/// webhook around kubegen's webhook's own message, on both servers.
#[kubegen::test]
async fn a_failing_conversion_reads_the_same_on_both_servers(e: TestEnv) {
    serve_webhooks(&e).await;
    let (old, _) = apis(&e);
    // The mutating webhook is registered at v1, so the create is converted before the
    // schema's pattern could refuse the engine; admission wraps the error twice.
    let s = status(
        old.create(&PostParams::default(), &old_cache("f", "redis", "512Mi"))
            .await,
    );
    let conversion = "conversion webhook for cache.example.com/v1alpha1, Kind=Cache failed: \
         converting object 0 to cache.example.com/v1: Cache cache.example.com/v1alpha1: \
         spec.engine: \"redis\" is not engine:version";
    assert_eq!((s.code, s.reason.as_str()), (500, "InternalError"));
    assert_eq!(
        s.message,
        format!("Internal error occurred: Internal error occurred: {conversion}")
    );
    let causes = s.details.map(|d| d.causes).unwrap_or_default();
    assert_eq!(causes.len(), 1);
    assert_eq!(
        causes[0].message,
        format!("Internal error occurred: {conversion}")
    );
}
