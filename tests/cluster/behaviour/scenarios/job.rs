//! Jobs: their Pods run to completion, fail and are replaced after a backoff, and the Job
//! finishes — completions reached, a policy, its backoff limit or its deadline.

use std::time::Duration;

use kubegen::testing::PodFate;
use serde_json::{Value, json};

use crate::cluster::behaviour::script::{JOBS, PODS, Scenario};

/// A Job running `busybox` with `spec` merged in.
pub fn job(name: &str, spec: Value) -> Value {
    let mut job = json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox:1.36"}],
        }}},
    });
    if let (Some(target), Value::Object(extra)) = (job["spec"].as_object_mut(), spec) {
        target.extend(extra);
    }
    job
}

/// The Pods of an Indexed Job's indexes.
fn index(job: &str, indexes: &str) -> String {
    format!("job-name={job},batch.kubernetes.io/job-completion-index in ({indexes})")
}

const FAILED: PodFate = PodFate::Failed { exit_code: 1 };
/// Longer than the first failure backoff (10 s).
const BACKOFF: Duration = Duration::from_secs(12);

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("job: pods succeed one after another until the completions are reached")
            .create(job("basic", json!({"completions": 2, "parallelism": 1})))
            .pods("job-name=basic", PodFate::Succeeded)
            .pods("job-name=basic", PodFate::Succeeded),
        Scenario::new("job: a failed pod is replaced after the backoff, until the backoff limit")
            .create(job("fail", json!({"backoffLimit": 1})))
            .pods("job-name=fail", FAILED)
            .wait(BACKOFF)
            .pods("job-name=fail", FAILED),
        Scenario::new("job: an Indexed job runs every index, a failed one again after the backoff")
            .create(job(
                "idx",
                json!({"completionMode": "Indexed", "completions": 3, "parallelism": 2}),
            ))
            .pods(&index("idx", "1"), PodFate::Succeeded)
            .pods(&index("idx", "0"), FAILED)
            .wait(BACKOFF)
            .pods("job-name=idx", PodFate::Succeeded),
        Scenario::new("job: a pod failure policy fails the job on an exit code")
            .create(job(
                "pfp",
                json!({
                    "completionMode": "Indexed", "completions": 2, "parallelism": 2,
                    "podFailurePolicy": {"rules": [
                        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
                        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                    ]},
                }),
            ))
            .pods(&index("pfp", "0"), PodFate::Failed { exit_code: 42 }),
        // The deadline leaves the real cluster time to settle after the create even on a
        // loaded machine: with 4 s, the real side once differed from its recording in CI.
        Scenario::new("job: a job running past its active deadline fails")
            .create(job("deadline", json!({"activeDeadlineSeconds": 10, "parallelism": 2})))
            .wait(Duration::from_secs(12)),
        Scenario::new("job: a suspended job starts when resumed and stops its pods when suspended")
            .create(job(
                "susp",
                json!({"suspend": true, "completions": 4, "parallelism": 2}),
            ))
            .patch(JOBS, "susp", json!({"spec": {"suspend": false}}))
            .pods("job-name=susp", PodFate::Succeeded)
            .patch(JOBS, "susp", json!({"spec": {"suspend": true}}))
            .patch(JOBS, "susp", json!({"spec": {"suspend": false}})),
        Scenario::new("job: an index failing past its backoff limit per index fails the job")
            .create(job(
                "perindex",
                json!({
                    "completionMode": "Indexed", "completions": 3, "parallelism": 3,
                    "backoffLimitPerIndex": 1,
                }),
            ))
            .pods(&index("perindex", "0"), FAILED)
            .wait(BACKOFF)
            .pods(&index("perindex", "0"), FAILED)
            .pods("job-name=perindex", PodFate::Succeeded),
        Scenario::new("job: a success policy completes an Indexed job before every index ran")
            .create(job(
                "early",
                json!({
                    "completionMode": "Indexed", "completions": 3, "parallelism": 3,
                    "successPolicy": {"rules": [{"succeededIndexes": "0-1"}]},
                }),
            ))
            .pods(&index("early", "0"), PodFate::Succeeded)
            .pods(&index("early", "1"), PodFate::Succeeded),
        Scenario::new("job: a finished job is deleted with its pods once its TTL has passed")
            .create(job("ttl", json!({"ttlSecondsAfterFinished": 8})))
            .pods("job-name=ttl", PodFate::Succeeded)
            .wait(Duration::from_secs(10)),
        Scenario::new("job: a job adopts a pod its selector matches and releases it when it stops")
            .create(json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "stray", "labels": {"app": "stray"}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox:1.36"}]},
            }))
            .create(json!({
                "apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "adopter"},
                "spec": {
                    "manualSelector": true,
                    "selector": {"matchLabels": {"app": "stray"}},
                    "completions": 2, "parallelism": 2,
                    "template": {
                        "metadata": {"labels": {"app": "stray"}},
                        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox:1.36"}]},
                    },
                },
            }))
            .patch(PODS, "stray", json!({"metadata": {"labels": {"app": "other"}}}))
            .pods("app=stray", PodFate::Succeeded),
    ]
}
