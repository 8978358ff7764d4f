//! The kubebuilder tutorial's CronJob, written for kubegen.

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kubegen::prelude::*;

/// CronJob runs a Job on a time-based schedule.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "batch.tutorial.kubebuilder.io",
    version = "v1",
    kind = "CronJob",
    status = "CronJobStatus",
    shortname = "cj",
    category = "all",
    printcolumn(name = "Schedule", json_path = ".spec.schedule", type = "string"),
    printcolumn(name = "Suspend", json_path = ".spec.suspend", type = "boolean"),
    printcolumn(
        name = "Last Schedule",
        json_path = ".status.lastScheduleTime",
        type = "date"
    ),
    selectable = ".spec.schedule"
)]
#[apply] // CronJobApplyConfiguration: the operator applies the status it owns
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
    #[validate(min_length = 1)]
    pub schedule: String,

    /// Optional deadline in seconds for starting the job if it misses scheduled
    /// time for any reason. Missed jobs executions will be counted as failed ones.
    #[validate(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,

    /// Specifies how to treat concurrent executions of a Job.
    #[default(ConcurrencyPolicy::Allow)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// This flag tells the controller to suspend subsequent executions, it does
    /// not apply to already started executions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,

    /// Specifies the job that will be created when executing a CronJob.
    pub job_template: JobTemplateSpec,

    /// The number of successful finished jobs to retain.
    #[default(3)]
    #[validate(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,

    /// The number of failed finished jobs to retain.
    #[default(1)]
    #[validate(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

/// ConcurrencyPolicy describes how the job will be handled.
#[derive(ApiType, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConcurrencyPolicy {
    /// Allows CronJobs to run concurrently.
    #[default]
    Allow,
    /// Forbids concurrent runs, skipping next run if previous hasn't finished yet.
    Forbid,
    /// Cancels currently running job and replaces it with a new one.
    Replace,
}

/// CronJobStatus defines the observed state of CronJob.
#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[apply]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// A list of pointers to currently running jobs.
    #[schema(list_type = "atomic")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<Vec<ObjectReference>>,

    /// Information when was the last time the job was successfully scheduled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,

    /// The latest available observations of the CronJob's state.
    #[schema(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
}
