//! The example APIs' CRDs, and the crdgen command line that prints them.

use kubegen::schema::structural;
use kubegen::testing::TestEnv;
use kubegen::{CustomResource, registry};
use kubegen_examples::{cronjob, database, widget};
use serde_json::{Value, json};

use crate::demo_log;

fn run(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kubegen::crdgen::run_cli(
        std::iter::once("crdgen").chain(args.iter().copied()),
        &mut out,
        &mut err,
    );
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn every_example_crd_passes_the_structural_check() {
    let crds = registry::crds().expect("the example registry is valid");
    let names: Vec<_> = crds
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "caches.cache.example.com",
            "cronjobs.batch.tutorial.kubebuilder.io",
            "databases.db.example.com",
            "foos.samplecontroller.k8s.io",
            "widgets.gadgets.example.com"
        ]
    );
    for crd in &crds {
        for version in &crd.spec.versions {
            let schema =
                serde_json::to_value(&version.schema.as_ref().unwrap().open_api_v3_schema).unwrap();
            assert_eq!(
                structural::check(&schema),
                vec![],
                "{} {}",
                crd.spec.names.kind,
                version.name
            );
        }
    }
}

#[test]
fn the_cronjob_crd_has_the_kubebuilder_shape() {
    let crd = serde_json::to_value(cronjob::CronJob::crd().unwrap()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(spec["required"], json!(["schedule", "jobTemplate"]));
    assert_eq!(
        spec["properties"]["concurrencyPolicy"],
        json!({"type": "string", "enum": ["Allow", "Forbid", "Replace"], "default": "Allow", "description": "Specifies how to treat concurrent executions of a Job."})
    );
    let template_meta = &spec["properties"]["jobTemplate"]["properties"]["spec"]["properties"]["template"]
        ["properties"]["metadata"];
    assert_eq!(
        template_meta["properties"]["labels"]["additionalProperties"],
        json!({"type": "string"})
    );
    assert!(
        template_meta["properties"].get("managedFields").is_none(),
        "embedded metadata is compact"
    );
    let status = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"];
    assert_eq!(
        status["conditions"]["x-kubernetes-list-map-keys"],
        json!(["type"])
    );
}

#[test]
fn the_two_database_versions_merge() {
    let crds = registry::crds().unwrap();
    let db = crds
        .iter()
        .find(|c| c.spec.names.kind == "Database")
        .unwrap();
    let versions: Vec<(&str, bool, Option<bool>)> = db
        .spec
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v.storage, v.deprecated))
        .collect();
    assert_eq!(
        versions,
        [("v1", true, None), ("v1alpha1", false, Some(true))]
    );
    assert_eq!(database::v1::Database::INFO.version, "v1");
}

#[test]
fn crdgen_prints_multi_document_yaml_in_a_stable_order() {
    let (code, out, err) = run(&[]);
    assert_eq!((code, err.as_str()), (0, ""));
    use serde::Deserialize;
    let docs: Vec<Value> = serde_yaml_ng::Deserializer::from_str(&out)
        .map(|d| Value::deserialize(d).unwrap())
        .collect();
    let names: Vec<&str> = docs
        .iter()
        .map(|d| d["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "caches.cache.example.com",
            "cronjobs.batch.tutorial.kubebuilder.io",
            "databases.db.example.com",
            "foos.samplecontroller.k8s.io",
            "widgets.gadgets.example.com"
        ]
    );
    assert_eq!(run(&[]).1, out, "output is stable");
    assert!(
        out.contains("minimum: 0\n"),
        "whole numbers print as integers"
    );
}

#[test]
fn crdgen_selects_kinds_and_prints_json() {
    let (code, out, _) = run(&["--kind", "Widget", "--format", "json"]);
    assert_eq!(code, 0);
    let crd: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(crd["metadata"]["name"], "widgets.gadgets.example.com");
    assert_eq!(crd["spec"]["scope"], "Cluster");

    let (_, out, _) = run(&[
        "--kind",
        "cronjobs",
        "--kind",
        "databases.db.example.com",
        "--format",
        "json",
    ]);
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            list["kind"].clone(),
            list["items"].as_array().unwrap().len()
        ),
        (json!("List"), 2)
    );

    let (code, out, err) = run(&["--kind", "Gizmo"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "crdgen: no registered kind matches `Gizmo` (run with --list to see them)\n"
    );
}

#[test]
fn crdgen_limits_description_length() {
    let (_, full, _) = run(&["--kind", "CronJob", "--format", "json"]);
    let (_, short, _) = run(&[
        "--kind",
        "CronJob",
        "--format",
        "json",
        "--max-description-length",
        "20",
    ]);
    let (_, none, _) = run(&[
        "--kind",
        "CronJob",
        "--format",
        "json",
        "--max-description-length",
        "0",
    ]);
    assert!(none.len() < short.len() && short.len() < full.len());
    fn longest(v: &Value) -> usize {
        match v {
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| {
                    if k == "description" {
                        v.as_str().map_or(0, |s| s.chars().count())
                    } else {
                        longest(v)
                    }
                })
                .max()
                .unwrap_or(0),
            Value::Array(a) => a.iter().map(longest).max().unwrap_or(0),
            _ => 0,
        }
    }
    assert_eq!(longest(&serde_json::from_str(&short).unwrap()), 20);
    assert_eq!(longest(&serde_json::from_str(&none).unwrap()), 0);
    let none: Value = serde_json::from_str(&none).unwrap();
    let props = &none["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert!(
        props.get("schedule").is_some(),
        "fields survive description removal"
    );
}

#[test]
fn crdgen_writes_one_file_per_crd() {
    let dir = std::env::temp_dir().join(format!("kubegen-crdgen-{}", std::process::id()));
    let (code, out, err) = run(&["--out-dir", dir.to_str().unwrap()]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "caches.cache.example.com.yaml",
            "cronjobs.batch.tutorial.kubebuilder.io.yaml",
            "databases.db.example.com.yaml",
            "foos.samplecontroller.k8s.io.yaml",
            "widgets.gadgets.example.com.yaml"
        ]
    );
    let widget: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join(&files[4])).unwrap()).unwrap();
    assert_eq!(widget["spec"]["names"]["kind"], "Widget");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crdgen_lists_and_explains_its_options() {
    let (code, out, _) = run(&["--list"]);
    assert_eq!(code, 0);
    assert!(out.contains("widgets.gadgets.example.com\tgadgets.example.com/v1\tWidget\tkubegen_examples::widget::Widget"));
    let (code, _, err) = run(&["--format", "xml"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'xml'"), "{err}");
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--max-description-length"));
}

#[test]
fn the_crdgen_binary_runs() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .arg("--list")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap().lines().count(), 7);
}

#[test]
fn widget_objects_default_and_round_trip() {
    use kubegen::Defaults;
    let mut w: widget::Widget = serde_json::from_value(json!({
        "apiVersion": "gadgets.example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"color": "red", "ports": [{"name": "http", "port": 80}], "shape": {"kind": "circle", "radius": 1.5}},
    }))
    .unwrap();
    w.set_defaults();
    assert_eq!(w.spec.replicas, Some(1));
    assert_eq!(w.spec.ports[0].protocol.as_deref(), Some("TCP"));
    let back = serde_json::to_value(&w).unwrap();
    assert_eq!(
        back["spec"]["shape"],
        json!({"kind": "circle", "radius": 1.5})
    );
    assert_eq!(back["kind"], "Widget");
}

#[kubegen::test]
async fn the_client_tour_runs(e: TestEnv) {
    let text = kubegen_examples::tour::client_tour(&e.client, &e.namespace)
        .await
        .unwrap();
    let first = text.lines().next().unwrap_or_default();
    let uid = first
        .strip_prefix("created databases/orders: uid ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(uid.len(), 36, "a server-assigned UUID: {text}");
    for expected in [
        "team=shop selects 1 of 2 databases",
        "defaulted it to schedule \"0 3 * * *\", 7 days",
        "409 Conflict, as expected",
        "retry_on_conflict upgraded to version 17 (generation 3)",
        "status subresource: ready=true, generation still 3",
        "managed by [\"tour\"]",
        "the watch saw: ADDED billing, MODIFIED orders, MODIFIED orders",
        "to 5 replicas",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(
        text.ends_with("deleted billing; 2 databases remain\n"),
        "{text}"
    );
}

#[kubegen::test]
async fn the_operator_reconciles_and_cleans_up(e: TestEnv) {
    use kubegen_examples::cronjob::CronJobClientExt;
    use kubegen_examples::operator::CRONJOB_LABEL;
    use kubegen_examples::operator::{FINALIZER, MANAGER};
    let ns = &e.namespace;
    let report = kubegen_examples::operator::demo(e.client.clone(), ns, 1)
        .await
        .unwrap();
    let log = &report.log;
    let lease = [
        "replica-0 leads",
        "replica-0 stopped",
        "the Lease was released",
    ];
    for line in demo_log::reconciled(ns)
        .into_iter()
        .chain(lease.map(String::from))
    {
        assert!(log.contains(&line), "missing {line:?} in {log:#?}");
    }
    // Every reconcile that wrote something succeeded, and the endpoint says so in
    // controller-runtime's names.
    let metric = |name: &str| {
        report
            .metrics
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {name} in {}", report.metrics))
    };
    assert!(
        metric(r#"controller_runtime_reconcile_total{controller="cronjob",result="success"}"#)
            >= 6.0
    );
    let failures: Vec<&String> = log.iter().filter(|l| l.contains("failed")).collect();
    assert_eq!(
        metric(r#"controller_runtime_reconcile_total{controller="cronjob",result="error"}"#),
        failures.len() as f64,
        "{failures:#?}"
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(metric(r#"workqueue_adds_total{name="cronjob",controller="cronjob"}"#) >= 6.0);
    assert_eq!(
        metric(r#"leader_election_master_status{name="cronjob-operator"}"#),
        1.0
    );
    // What it did is in events.k8s.io Events, reported by the operator about each CronJob.
    let events = kube::Api::<k8s_openapi::api::events::v1::Event>::namespaced(e.client.clone(), ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items;
    let recorded = |name: &str, reason: &str| {
        events.iter().any(|ev| {
            ev.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name)
                && ev.reason.as_deref() == Some(reason)
                && ev.reporting_controller.as_deref() == Some(MANAGER)
                && ev.reporting_instance.as_deref() == Some("replica-0")
        })
    };
    assert!(recorded("nightly", "Scheduled"), "{events:#?}");
    assert!(recorded("nightly", "RunStarted"), "{events:#?}");
    assert!(recorded("paused", "Suspended"), "{events:#?}");
    let jobs = e
        .client
        .cron_jobs(ns)
        .list(&Default::default())
        .await
        .unwrap();
    let names: Vec<String> = jobs
        .items
        .iter()
        .map(|j| j.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(
        names,
        ["nightly", "paused"],
        "hourly was deleted after its cleanup"
    );
    // hourly's Job went with it; paused never ran; nightly has one, which it controls,
    // made from its template.
    // Not `BuiltinClientExt::jobs`: its `cron_jobs` would clash with the CRD's.
    let runs = kubegen::client::ResourceClient::<k8s_openapi::api::batch::v1::Job>::namespaced(
        e.client.clone(),
        ns,
    )
    .list(&Default::default())
    .await
    .unwrap()
    .items;
    assert_eq!(runs.len(), 1, "{runs:#?}");
    let run = &runs[0];
    let nightly = &jobs.items[0];
    let owner = &run.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.name.as_str(), Some(&owner.uid), owner.controller),
        ("nightly", nightly.metadata.uid.as_ref(), Some(true))
    );
    let labels = run.metadata.labels.as_ref().unwrap();
    assert_eq!(
        labels.get(CRONJOB_LABEL).map(String::as_str),
        Some("nightly")
    );
    let template = nightly.spec.job_template.spec.as_ref().unwrap();
    let run_spec = run.spec.as_ref().unwrap();
    let pod_spec = |t: &k8s_openapi::api::core::v1::PodTemplateSpec| {
        let spec = t.spec.clone().unwrap();
        (spec.restart_policy, spec.containers[0].clone().command)
    };
    assert_eq!(pod_spec(&run_spec.template), pod_spec(&template.template));
    // The apiserver gave the Job its selector and defaults, as it does any Job.
    assert!(run_spec.selector.is_some(), "{run_spec:#?}");
    assert_eq!(run_spec.backoff_limit, Some(6));
    let active = nightly.status.as_ref().unwrap().active.as_ref().unwrap();
    assert_eq!(active[0].name, run.metadata.name);
    assert_eq!(active[0].uid, run.metadata.uid);
    assert_eq!(
        (active[0].api_version.as_deref(), active[0].kind.as_deref()),
        (Some("batch/v1"), Some("Job"))
    );

    // The operator owns exactly what it applied: its finalizer on the CronJob, its status
    // fields through the status subresource.
    let owned = |o: &kube::api::ObjectMeta, subresource: &str| {
        o.managed_fields
            .iter()
            .flatten()
            .find(|m| {
                m.manager.as_deref() == Some(MANAGER)
                    && m.operation.as_deref() == Some("Apply")
                    && m.subresource.as_deref().unwrap_or("") == subresource
            })
            .and_then(|m| m.fields_v1.clone())
            .map_or(json!(null), |f| f.0)
    };
    assert_eq!(
        owned(&nightly.metadata, ""),
        json!({"f:metadata": {"f:finalizers": {format!("v:\"{FINALIZER}\""): {}}}})
    );
    assert_eq!(
        owned(&nightly.metadata, "status"),
        json!({"f:status": {
            "f:active": {},
            "f:conditions": {"k:{\"type\":\"Ready\"}": {
                ".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:observedGeneration": {},
                "f:reason": {}, "f:status": {}, "f:type": {},
            }},
            "f:lastScheduleTime": {},
        }})
    );
    let paused = &jobs.items[1];
    assert_eq!(
        owned(&paused.metadata, "status"),
        json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {
            ".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:observedGeneration": {},
            "f:reason": {}, "f:status": {}, "f:type": {},
        }}}})
    );
    for job in &jobs.items {
        let condition = &job.status.as_ref().unwrap().conditions.as_ref().unwrap()[0];
        assert_eq!(condition.observed_generation, job.metadata.generation);
        assert_eq!(
            job.metadata.finalizers.as_deref(),
            Some(&[FINALIZER.to_string()][..])
        );
    }
}

#[kubegen::test]
async fn three_operator_replicas_fail_over_when_the_leader_is_killed(e: TestEnv) {
    let ns = &e.namespace;
    let report = kubegen_examples::operator::demo(e.client.clone(), ns, 3)
        .await
        .unwrap();
    let log = &report.log;
    let leader = log
        .iter()
        .find_map(|l| l.strip_suffix(" leads"))
        .expect("a leader");
    let successor = log
        .iter()
        .find_map(|l| l.split_once(" took over; ").map(|(who, _)| who))
        .expect("a successor");
    assert_ne!(leader, successor, "{log:#?}");
    assert!(
        log.contains(&format!("killed {leader} without releasing its Lease")),
        "{log:#?}"
    );
    assert!(
        log.contains(&format!("{ns}/weekly: Ready=True (Scheduled)")),
        "{log:#?}"
    );
    // The two survivors stopped gracefully and the last leader released the Lease.
    assert_eq!(
        log.iter().filter(|l| l.ends_with(" stopped")).count(),
        2,
        "{log:#?}"
    );
    assert_eq!(
        log.last().map(String::as_str),
        Some("the Lease was released")
    );
}

// ANCHOR: with_the_cluster
#[kubegen::test(controllers)]
async fn with_the_cluster_a_cronjobs_run_completes_and_leaves_its_active_list(e: TestEnv) {
    use k8s_openapi::api::batch::v1::Job;
    use k8s_openapi::api::core::v1::Pod;
    use kubegen::manager::LeaderElection;
    use kubegen_examples::cronjob::{CronJob, CronJobClientExt};
    use kubegen_examples::operator::{CRONJOB_LABEL, Log, manager};
    let ns = &e.namespace;
    let election = LeaderElection::new(ns, "cronjob-operator");
    let metrics = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let operator = manager(&e.client, ns, election, metrics, &Log::default()).unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let running = tokio::spawn(operator.run(stop.clone()));

    let spec = json!({
        "schedule": "0 2 * * *",
        "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure",
            "containers": [{"name": "hello", "image": "busybox", "command": ["date"]}],
        }}}},
    });
    let cron_jobs = e.client.cron_jobs(ns);
    let created = cron_jobs
        .create(&CronJob::new(
            "nightly",
            serde_json::from_value(spec).unwrap(),
        ))
        .await
        .unwrap();

    // The operator starts the first run; kube-controller-manager's Job controller makes its
    // Pod, the kubelet runs it to success, the Job completes, and the operator takes it off
    // the CronJob's active list.
    let runs = kube::Api::<Job>::namespaced(e.client.clone(), ns);
    let selector = kube::api::ListParams::default().labels(&format!("{CRONJOB_LABEL}=nightly"));
    let mut done = None;
    for _ in 0..1500 {
        let cron_job = cron_jobs.get("nightly").await.unwrap();
        let status = cron_job.status.clone().unwrap_or_default();
        let listed = runs.list(&selector).await.unwrap().items;
        if status.last_schedule_time.is_some() && status.active.is_none() && listed.len() == 1 {
            done = Some(listed[0].clone());
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let run = done.expect("the CronJob's run completes and leaves its active list");
    let owner = &run.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(owner.uid, created.metadata.uid.unwrap());
    let status = run.status.unwrap();
    assert_eq!(status.succeeded, Some(1));
    let complete = (status.conditions.iter().flatten())
        .find(|c| c.type_ == "Complete")
        .unwrap();
    assert_eq!(complete.status, "True");
    assert!(status.completion_time.is_some());
    let pods = kube::Api::<Pod>::namespaced(e.client.clone(), ns)
        .list(&kube::api::ListParams::default().labels(&format!(
            "batch.kubernetes.io/job-name={}",
            run.metadata.name.unwrap()
        )))
        .await
        .unwrap()
        .items;
    assert_eq!(pods.len(), 1, "{pods:#?}");
    let phase = pods[0].status.as_ref().and_then(|s| s.phase.as_deref());
    assert_eq!(phase, Some("Succeeded"));
    stop.cancel();
    running.await.unwrap().unwrap();
}
// ANCHOR_END: with_the_cluster
