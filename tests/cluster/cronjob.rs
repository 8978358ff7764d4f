//! The CronJob controller in memory on a frozen clock, where the behaviour scenarios (which
//! run on a real cluster's wall clock) cannot go: when each Job is created, missed times
//! and the starting deadline, the concurrency policies across minutes, history limits.

use std::time::Duration;

use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kubegen::testing::{ApiServer, Kubelet, PodFate};
use serde_json::{Value, json};

use super::behaviour::scenarios;
use super::support::advance;

/// Half a minute past the hour; `2030-01-01T00:00:00Z` is minute 31557600 of the Unix
/// epoch, so the Job of `00:MM` is `<cronjob>-315576MM`.
const T0: &str = "2030-01-01T00:00:30Z";

/// A server whose clock stands at [`T0`], its controllers running without a kubelet.
async fn cluster() -> ApiServer {
    super::job::cluster_at(T0).await
}

/// Creates CronJob `cron` whose Jobs run `busybox` Pods labelled `app: cron`, with `spec`
/// merged in, and settles.
async fn create_cron_job(server: &ApiServer, spec: Value) {
    let cron_job = serde_json::from_value(scenarios::cronjob::cron_job("cron", spec)).unwrap();
    cron_jobs(server)
        .create(&PostParams::default(), &cron_job)
        .await
        .unwrap();
    server.settle().await;
}

fn cron_jobs(server: &ApiServer) -> Api<CronJob> {
    Api::namespaced(server.client(), "default")
}

async fn patch(server: &ApiServer, patch: Value) {
    cron_jobs(server)
        .patch("cron", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    server.settle().await;
}

/// The CronJob's status as JSON.
async fn status(server: &ApiServer) -> Value {
    let cron_job = cron_jobs(server).get("cron").await.unwrap();
    serde_json::to_value(cron_job.status.unwrap_or_default()).unwrap()
}

/// The names of the Jobs in `status.active`.
async fn active(server: &ApiServer) -> Vec<String> {
    let status = status(server).await;
    status["active"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| r["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The names of the Jobs there are, sorted.
async fn jobs(server: &ApiServer) -> Vec<String> {
    let jobs: Api<Job> = Api::namespaced(server.client(), "default");
    let mut names: Vec<String> = jobs
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|j| j.metadata.name)
        .collect();
    names.sort();
    names
}

/// The reasons and messages of the events on the CronJob, oldest first.
async fn events(server: &ApiServer) -> Vec<(String, String)> {
    let events: Api<Event> = Api::namespaced(server.client(), "default");
    let mut list = events.list(&ListParams::default()).await.unwrap().items;
    list.retain(|e| e.involved_object.kind.as_deref() == Some("CronJob"));
    list.sort_by_key(|e| (e.first_timestamp.clone(), e.metadata.name.clone()));
    list.into_iter()
        .map(|e| (e.reason.unwrap_or_default(), e.message.unwrap_or_default()))
        .collect()
}

fn reasons(events: &[(String, String)]) -> Vec<&str> {
    events.iter().map(|(r, _)| r.as_str()).collect()
}

const MINUTE: Duration = Duration::from_secs(60);

/// To 100 ms past the next minute (the controller syncs 100 ms after each scheduled time).
async fn to_next_minute(server: &ApiServer) {
    let now = server.clock().now().as_millisecond();
    let next = (now.div_euclid(60_000) + 1) * 60_000 + 100;
    advance(server, Duration::from_millis((next - now) as u64)).await;
}

/// Every Pod of the CronJob's Jobs not yet finished Succeeds now (the server's clock).
async fn succeed_pods(server: &ApiServer) {
    let pods: Api<Pod> = Api::namespaced(server.client(), "default");
    let kubelet = Kubelet::new();
    let now = server.clock().rfc3339();
    for pod in pods
        .list(&ListParams::default().labels("app=cron"))
        .await
        .unwrap()
        .items
    {
        let phase = pod.status.and_then(|s| s.phase).unwrap_or_default();
        if phase == "Pending" {
            let name = pod.metadata.name.unwrap();
            kubelet
                .set_at(&server.client(), "default", &name, PodFate::Succeeded, &now)
                .await
                .unwrap();
        }
    }
    server.settle().await;
}

#[tokio::test]
async fn a_job_is_created_100_ms_after_its_scheduled_time() {
    let server = cluster().await;
    create_cron_job(&server, json!({"schedule": "*/5 * * * *"})).await;
    advance(&server, Duration::from_secs(270)).await;
    assert_eq!(
        jobs(&server).await,
        Vec::<String>::new(),
        "00:05:00: not yet"
    );
    advance(&server, Duration::from_millis(100)).await;
    assert_eq!(jobs(&server).await, ["cron-31557605"]);
    let job: Api<Job> = Api::namespaced(server.client(), "default");
    let job = job.get("cron-31557605").await.unwrap();
    assert_eq!(
        job.metadata.annotations.unwrap()["batch.kubernetes.io/cronjob-scheduled-timestamp"],
        "2030-01-01T00:05:00Z"
    );
    let s = status(&server).await;
    assert_eq!(s["lastScheduleTime"], "2030-01-01T00:05:00Z");
    assert_eq!(active(&server).await, ["cron-31557605"]);
    assert_eq!(
        events(&server).await,
        [(
            "SuccessfulCreate".to_owned(),
            "Created job cron-31557605".to_owned()
        )]
    );
    // The next one five minutes later, beside the first (Allow).
    advance(&server, 5 * MINUTE).await;
    assert_eq!(active(&server).await, ["cron-31557605", "cron-31557610"]);
}

#[tokio::test]
async fn a_job_is_started_in_the_schedules_time_zone() {
    let server = cluster().await;
    // 09:00 in Tokyo is midnight UTC: the next is a day later.
    create_cron_job(
        &server,
        json!({"schedule": "0 9 * * *", "timeZone": "Asia/Tokyo"}),
    )
    .await;
    advance(&server, Duration::from_secs(24 * 3600 - 30)).await;
    assert_eq!(jobs(&server).await, Vec::<String>::new());
    advance(&server, Duration::from_millis(100)).await;
    let job: Api<Job> = Api::namespaced(server.client(), "default");
    let job = job.get("cron-31559040").await.unwrap();
    assert_eq!(
        job.metadata.annotations.unwrap()["batch.kubernetes.io/cronjob-scheduled-timestamp"],
        "2030-01-02T09:00:00+09:00"
    );
}

#[tokio::test]
async fn only_the_most_recent_missed_time_is_started() {
    let server = cluster().await;
    create_cron_job(&server, json!({"schedule": "* * * * *", "suspend": true})).await;
    advance(&server, 10 * MINUTE).await;
    assert_eq!(jobs(&server).await, Vec::<String>::new(), "suspended");
    patch(&server, json!({"spec": {"suspend": false}})).await;
    assert_eq!(
        jobs(&server).await,
        ["cron-31557610"],
        "00:10, not ten Jobs"
    );
    assert_eq!(
        status(&server).await["lastScheduleTime"],
        "2030-01-01T00:10:00Z"
    );
    assert_eq!(reasons(&events(&server).await), ["SuccessfulCreate"]);

    // More than a hundred missed: a warning, and still only the most recent.
    patch(&server, json!({"spec": {"suspend": true}})).await;
    advance(&server, 200 * MINUTE).await;
    patch(&server, json!({"spec": {"suspend": false}})).await;
    assert_eq!(jobs(&server).await, ["cron-31557610", "cron-31557810"]);
    let events = events(&server).await;
    assert_eq!(
        reasons(&events),
        ["SuccessfulCreate", "TooManyMissedTimes", "SuccessfulCreate"]
    );
    assert_eq!(
        events[1].1,
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
    );
}

#[tokio::test]
async fn a_time_missed_by_more_than_the_starting_deadline_is_skipped() {
    let server = cluster().await;
    create_cron_job(
        &server,
        json!({"schedule": "0 * * * *", "suspend": true, "startingDeadlineSeconds": 60}),
    )
    .await;
    // 01:02: the 01:00 run is 2 minutes late, past the deadline.
    advance(&server, Duration::from_secs(3690)).await;
    patch(&server, json!({"spec": {"suspend": false}})).await;
    assert_eq!(jobs(&server).await, Vec::<String>::new());
    assert_eq!(status(&server).await["lastScheduleTime"], Value::Null);
    assert_eq!(reasons(&events(&server).await), Vec::<&str>::new());
    // Within it, the 01:00 run still starts.
    patch(&server, json!({"spec": {"startingDeadlineSeconds": 180}})).await;
    assert_eq!(jobs(&server).await, ["cron-31557660"]);
    to_next_minute(&server).await;
    advance(&server, 57 * MINUTE).await;
    assert_eq!(jobs(&server).await, ["cron-31557660", "cron-31557720"]);
}

#[tokio::test]
async fn forbid_holds_a_due_run_while_a_job_runs_and_starts_it_late() {
    let server = cluster().await;
    create_cron_job(
        &server,
        json!({"schedule": "* * * * *", "concurrencyPolicy": "Forbid"}),
    )
    .await;
    to_next_minute(&server).await;
    assert_eq!(active(&server).await, ["cron-31557601"]);
    to_next_minute(&server).await;
    assert_eq!(jobs(&server).await, ["cron-31557601"], "00:02 is held");
    assert_eq!(
        status(&server).await["lastScheduleTime"],
        "2030-01-01T00:01:00Z"
    );
    assert_eq!(
        events(&server).await.last().unwrap(),
        &(
            "JobAlreadyActive".to_owned(),
            "Not starting job because prior execution is running and concurrency policy is Forbid"
                .to_owned()
        )
    );
    advance(&server, Duration::from_secs(30)).await;
    succeed_pods(&server).await;
    assert_eq!(
        jobs(&server).await,
        ["cron-31557601", "cron-31557602"],
        "00:02's run started at 00:02:30, when the first finished"
    );
    assert_eq!(active(&server).await, ["cron-31557602"]);
    let s = status(&server).await;
    assert_eq!(s["lastScheduleTime"], "2030-01-01T00:02:00Z");
    assert_eq!(s["lastSuccessfulTime"], "2030-01-01T00:02:30Z");
    let events = events(&server).await;
    assert!(events.contains(&(
        "SawCompletedJob".to_owned(),
        "Saw completed job: cron-31557601, condition: Complete".to_owned()
    )));
}

#[tokio::test]
async fn replace_deletes_the_running_job_for_the_next() {
    let server = cluster().await;
    create_cron_job(
        &server,
        json!({"schedule": "* * * * *", "concurrencyPolicy": "Replace"}),
    )
    .await;
    to_next_minute(&server).await;
    to_next_minute(&server).await;
    assert_eq!(active(&server).await, ["cron-31557602"]);
    assert_eq!(jobs(&server).await, ["cron-31557602"]);
    let events = events(&server).await;
    assert_eq!(
        &events[1..],
        [
            (
                "SuccessfulDelete".to_owned(),
                "Deleted job cron-31557601".to_owned()
            ),
            (
                "SuccessfulCreate".to_owned(),
                "Created job cron-31557602".to_owned()
            ),
        ]
    );
}

#[tokio::test]
async fn finished_jobs_past_the_history_limits_are_deleted_oldest_first() {
    let server = cluster().await;
    // Jobs of no completions are Complete as soon as they start.
    create_cron_job(
        &server,
        json!({
            "schedule": "* * * * *", "successfulJobsHistoryLimit": 2,
            "jobTemplate": {"spec": {"completions": 0, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "main", "image": "busybox:1.36"}],
            }}}},
        }),
    )
    .await;
    for _ in 0..5 {
        to_next_minute(&server).await;
    }
    assert_eq!(jobs(&server).await, ["cron-31557604", "cron-31557605"]);
    assert_eq!(active(&server).await, Vec::<String>::new());
    assert_eq!(
        status(&server).await["lastSuccessfulTime"],
        "2030-01-01T00:05:00Z"
    );
    let deleted: Vec<String> = events(&server)
        .await
        .into_iter()
        .filter(|(r, _)| r == "SuccessfulDelete")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(
        deleted,
        [
            "Deleted job cron-31557601",
            "Deleted job cron-31557602",
            "Deleted job cron-31557603"
        ]
    );
}
