//! CronJobs: a Job at the next scheduled minute, concurrency policies, history limits.
//!
//! Only the first scenario waits for a real minute. The others make a schedule due at
//! once: a suspended CronJob's `status.lastScheduleTime` set long ago, then resumed (or its
//! schedule changed and the status set again) — the most recent missed time is started
//! at once, with a warning that many were missed.

use std::time::Duration;

use kubegen::testing::PodFate;
use serde_json::{Value, json};

use crate::cluster::behaviour::script::{CRON_JOBS, Scenario};

/// A CronJob whose Jobs run `busybox` Pods labelled `app: <name>`, with `spec` merged in.
pub fn cron_job(name: &str, spec: Value) -> Value {
    let mut cron_job = json!({
        "apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {"jobTemplate": {
            "metadata": {"labels": {"from": name}, "annotations": {"note": "templated"}},
            "spec": {"template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox:1.36"}],
                },
            }},
        }},
    });
    if let (Some(target), Value::Object(extra)) = (cron_job["spec"].as_object_mut(), spec) {
        target.extend(extra);
    }
    cron_job
}

/// A status patch making every schedule since 2020 missed.
fn long_ago() -> Value {
    json!({"status": {"lastScheduleTime": "2020-01-01T00:00:00Z"}})
}

fn suspend(on: bool) -> Value {
    json!({"spec": {"suspend": on}})
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("cronjob: the next minute's Job is created and runs to completion")
            .within_minute(2, 30)
            .create(cron_job("every", json!({"schedule": "* * * * *"})))
            .wait(Duration::from_secs(60))
            .pods("app=every", PodFate::Succeeded)
            .patch(CRON_JOBS, "every", suspend(true)),
        Scenario::new("cronjob: Forbid holds a due run while its Job runs, and starts it after")
            .create(cron_job(
                "forbid",
                json!({"schedule": "0 0 * * *", "suspend": true, "concurrencyPolicy": "Forbid"}),
            ))
            .patch_status(CRON_JOBS, "forbid", long_ago())
            .patch(CRON_JOBS, "forbid", suspend(false))
            .patch(
                CRON_JOBS,
                "forbid",
                json!({"spec": {"schedule": "0 1 * * *"}}),
            )
            .patch_status(CRON_JOBS, "forbid", long_ago())
            .pods("app=forbid", PodFate::Succeeded)
            .patch(CRON_JOBS, "forbid", suspend(true)),
        Scenario::new("cronjob: finished Jobs past the history limit are deleted, oldest first")
            .create(cron_job(
                "history",
                json!({
                    "schedule": "0 0 * * *", "suspend": true, "successfulJobsHistoryLimit": 1,
                    "timeZone": "Asia/Tokyo",
                    "jobTemplate": {"spec": {"completions": 0, "template": {"spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "main", "image": "busybox:1.36"}],
                    }}}},
                }),
            ))
            .patch_status(CRON_JOBS, "history", long_ago())
            .patch(CRON_JOBS, "history", suspend(false))
            .wait(Duration::from_secs(2))
            .patch(
                CRON_JOBS,
                "history",
                json!({"spec": {"schedule": "0 1 * * *"}}),
            )
            .patch_status(CRON_JOBS, "history", long_ago())
            .patch(CRON_JOBS, "history", suspend(true)),
    ]
}
