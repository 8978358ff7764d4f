//! The Job and ttl-after-finished controllers in memory, where the behaviour scenarios do not
//! show them well: times on a frozen clock (the failure backoff and its growth, the active
//! deadline, a finished Job's TTL) and what the Job's status says while it waits.

use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, ListParams, PostParams};
use kubegen::testing::{ApiServer, Controllers, Kubelet, PodFate};
use serde_json::{Value, json};

use super::behaviour::scenarios;
use super::support::advance;

const T0: &str = "2030-01-01T00:00:00Z";
const FAILED: PodFate = PodFate::Failed { exit_code: 1 };

/// A server whose clock stands at [`T0`], its controllers running (no kubelet: the tests
/// decide each Pod's fate), settled.
async fn cluster() -> ApiServer {
    cluster_at(T0).await
}

/// A server whose clock stands at `time`, its controllers running without a kubelet,
/// settled.
pub async fn cluster_at(time: &str) -> ApiServer {
    let server = ApiServer::new();
    server.clock().freeze_at(time.parse().unwrap());
    server.start_controllers(Controllers::all());
    server.settle().await; // the default ServiceAccount, which Pods need
    server
}

/// Creates Job `work` running `busybox`, with `spec` merged in, and settles.
async fn create_job(server: &ApiServer, spec: Value) {
    let job = serde_json::from_value(scenarios::job::job("work", spec)).unwrap();
    jobs(server)
        .create(&PostParams::default(), &job)
        .await
        .unwrap();
    server.settle().await;
}

fn jobs(server: &ApiServer) -> Api<Job> {
    Api::namespaced(server.client(), "default")
}

/// The Job's status as JSON.
async fn status(server: &ApiServer) -> Value {
    let job = jobs(server).get("work").await.unwrap();
    serde_json::to_value(job.status.unwrap_or_default()).unwrap()
}

/// The types, statuses and reasons of the Job's conditions, in order.
async fn conditions(server: &ApiServer) -> Vec<(String, String, String)> {
    let status = status(server).await;
    status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let field = |f: &str| c[f].as_str().unwrap_or("").to_owned();
            (field("type"), field("status"), field("reason"))
        })
        .collect()
}

/// The Job's Pods: names and phases (`Pending` until the test decides), oldest first.
async fn pods(server: &ApiServer) -> Vec<(String, String)> {
    let pods: Api<Pod> = Api::namespaced(server.client(), "default");
    let mut list = pods
        .list(&ListParams::default().labels("job-name=work"))
        .await
        .unwrap()
        .items;
    list.sort_by_key(|p| {
        (
            p.metadata.creation_timestamp.clone(),
            p.metadata.name.clone(),
        )
    });
    list.into_iter()
        .map(|p| {
            let phase = p.status.and_then(|s| s.phase).unwrap_or_default();
            (p.metadata.name.unwrap_or_default(), phase)
        })
        .collect()
}

/// Every Pod of the Job not yet finished meets `fate` now (the server's clock).
async fn finish_pods(server: &ApiServer, fate: PodFate) {
    let kubelet = Kubelet::new();
    let now = server.clock().rfc3339();
    for (name, phase) in pods(server).await {
        if phase != "Succeeded" && phase != "Failed" {
            kubelet
                .set_at(&server.client(), "default", &name, fate, &now)
                .await
                .unwrap();
        }
    }
    server.settle().await;
}

/// The reasons of the events on the Job, oldest first.
async fn events(server: &ApiServer) -> Vec<String> {
    let events: Api<Event> = Api::namespaced(server.client(), "default");
    let mut list = events.list(&ListParams::default()).await.unwrap().items;
    list.retain(|e| e.involved_object.kind.as_deref() == Some("Job"));
    list.sort_by_key(|e| (e.first_timestamp.clone(), e.metadata.name.clone()));
    list.into_iter().filter_map(|e| e.reason).collect()
}

#[tokio::test]
async fn a_failed_pod_is_replaced_after_a_backoff_that_doubles() {
    let server = cluster().await;
    create_job(&server, json!({"backoffLimit": 3})).await;
    assert_eq!(pods(&server).await.len(), 1);
    finish_pods(&server, FAILED).await;
    let s = status(&server).await;
    assert_eq!(s["failed"], 1);
    // kube-controller-manager writes no active Pods while a replacement waits.
    assert_eq!(s["active"], Value::Null);
    advance(&server, Duration::from_secs(9)).await;
    assert_eq!(pods(&server).await.len(), 1, "9 s: still backing off");
    advance(&server, Duration::from_secs(1)).await;
    assert_eq!(
        pods(&server).await.len(),
        2,
        "replaced 10 s after the failure"
    );
    assert_eq!(status(&server).await["active"], 1);

    finish_pods(&server, FAILED).await;
    advance(&server, Duration::from_secs(19)).await;
    assert_eq!(pods(&server).await.len(), 2, "the second delay is 20 s");
    advance(&server, Duration::from_secs(1)).await;
    assert_eq!(pods(&server).await.len(), 3);

    finish_pods(&server, FAILED).await;
    advance(&server, Duration::from_secs(40)).await;
    assert_eq!(pods(&server).await.len(), 4, "then 40 s");
    finish_pods(&server, FAILED).await;
    assert_eq!(
        conditions(&server).await,
        [
            (
                "FailureTarget".into(),
                "True".into(),
                "BackoffLimitExceeded".into()
            ),
            (
                "Failed".into(),
                "True".into(),
                "BackoffLimitExceeded".into()
            ),
        ],
        "the fourth failure is past backoffLimit 3"
    );
    assert_eq!(status(&server).await["failed"], 4);
    assert_eq!(
        events(&server).await.last().map(String::as_str),
        Some("BackoffLimitExceeded")
    );
}

#[tokio::test]
async fn the_backoff_is_capped_at_ten_minutes() {
    let server = cluster().await;
    create_job(&server, json!({"backoffLimit": 20, "parallelism": 8})).await;
    assert_eq!(pods(&server).await.len(), 8);
    // Eight failures at once: 10 s × 2⁷ = 1280 s, capped.
    finish_pods(&server, FAILED).await;
    advance(&server, Duration::from_secs(599)).await;
    assert_eq!(pods(&server).await.len(), 8);
    advance(&server, Duration::from_secs(1)).await;
    assert_eq!(pods(&server).await.len(), 16, "all replaced at 600 s");
}

#[tokio::test]
async fn a_success_resets_the_backoff() {
    let server = cluster().await;
    create_job(&server, json!({"completions": 3, "backoffLimit": 5})).await;
    finish_pods(&server, FAILED).await;
    advance(&server, Duration::from_secs(10)).await;
    finish_pods(&server, FAILED).await;
    advance(&server, Duration::from_secs(20)).await;
    assert_eq!(pods(&server).await.len(), 3);
    finish_pods(&server, PodFate::Succeeded).await;
    assert_eq!(
        pods(&server).await.len(),
        4,
        "a success is followed by a new Pod at once"
    );
    advance(&server, Duration::from_secs(1)).await;
    finish_pods(&server, FAILED).await;
    advance(&server, Duration::from_secs(9)).await;
    assert_eq!(pods(&server).await.len(), 4);
    advance(&server, Duration::from_secs(1)).await;
    assert_eq!(
        pods(&server).await.len(),
        5,
        "the failures before the success no longer count: 10 s again"
    );
}

#[tokio::test]
async fn a_job_fails_when_its_active_deadline_passes() {
    let server = cluster().await;
    create_job(
        &server,
        json!({"activeDeadlineSeconds": 30, "parallelism": 2}),
    )
    .await;
    assert_eq!(status(&server).await["startTime"], T0);
    advance(&server, Duration::from_secs(29)).await;
    assert_eq!(conditions(&server).await, []);
    assert_eq!(status(&server).await["active"], 2);
    advance(&server, Duration::from_secs(1)).await;
    assert_eq!(
        conditions(&server).await,
        [
            (
                "FailureTarget".into(),
                "True".into(),
                "DeadlineExceeded".into()
            ),
            ("Failed".into(), "True".into(), "DeadlineExceeded".into()),
        ]
    );
    let s = status(&server).await;
    assert_eq!(
        (s["failed"].clone(), s["active"].clone()),
        (json!(2), Value::Null)
    );
    assert_eq!(
        s["completionTime"],
        Value::Null,
        "a failed Job never completes"
    );
    assert!(
        events(&server)
            .await
            .contains(&"DeadlineExceeded".to_owned()),
        "a Warning event says why"
    );
}

#[tokio::test]
async fn a_deadline_counts_from_the_time_a_suspended_job_resumes() {
    let server = cluster().await;
    create_job(
        &server,
        json!({"activeDeadlineSeconds": 30, "suspend": true}),
    )
    .await;
    assert_eq!(status(&server).await["startTime"], Value::Null);
    advance(&server, Duration::from_secs(100)).await;
    jobs(&server)
        .patch(
            "work",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(json!({"spec": {"suspend": false}})),
        )
        .await
        .unwrap();
    server.settle().await;
    assert_eq!(status(&server).await["startTime"], "2030-01-01T00:01:40Z");
    advance(&server, Duration::from_secs(29)).await;
    assert!(!conditions(&server).await.iter().any(|c| c.0 == "Failed"));
    advance(&server, Duration::from_secs(1)).await;
    assert!(conditions(&server).await.iter().any(|c| c.0 == "Failed"));
}

#[tokio::test]
async fn a_finished_job_is_deleted_once_its_ttl_has_passed() {
    let server = cluster().await;
    create_job(&server, json!({"ttlSecondsAfterFinished": 5})).await;
    finish_pods(&server, PodFate::Succeeded).await;
    assert_eq!(status(&server).await["completionTime"], T0);
    advance(&server, Duration::from_secs(4)).await;
    let job = jobs(&server).get("work").await.unwrap();
    assert_eq!(job.metadata.deletion_timestamp, None, "4 s: kept");
    advance(&server, Duration::from_secs(1)).await;
    // Deleted in the foreground: the garbage collector deletes its Pod, then the Job.
    assert!(
        jobs(&server).get_opt("work").await.unwrap().is_none(),
        "deleted at 5 s"
    );
    assert_eq!(pods(&server).await, []);
}
