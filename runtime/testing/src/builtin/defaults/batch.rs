//! batch/v1 defaults (`pkg/apis/batch/v1/defaults.go`).

use serde_json::Value;

use super::core::pod_template_in;
use super::{child, child_or_insert, each, empty, set_if_unset, set_if_zero};

/// `SetDefaults_Job`, and the template's PodSpec defaults.
pub(super) fn job(job: &mut Value) {
    if let Some(spec) = child(job, "spec") {
        job_spec(spec);
    }
    copy_template_labels(job);
}

fn job_spec(spec: &mut Value) {
    let unset = |spec: &Value, key: &str| spec.get(key).is_none_or(Value::is_null);
    if unset(spec, "completions") && unset(spec, "parallelism") {
        spec["completions"] = 1.into();
    }
    set_if_unset(spec, "parallelism", 1);
    if unset(spec, "backoffLimit") {
        let limit = if unset(spec, "backoffLimitPerIndex") {
            6
        } else {
            i32::MAX
        };
        spec["backoffLimit"] = limit.into();
    }
    set_if_unset(spec, "completionMode", "NonIndexed");
    set_if_unset(spec, "suspend", false);
    set_if_unset(spec, "manualSelector", false);
    if let Some(policy) = child(spec, "podFailurePolicy") {
        each(policy, "rules", |rule| {
            each(rule, "onPodConditions", |pattern| {
                set_if_zero(pattern, "status", "True");
            });
        });
    }
    let replacement = if unset(spec, "podFailurePolicy") {
        "TerminatingOrFailed"
    } else {
        "Failed"
    };
    set_if_unset(spec, "podReplacementPolicy", replacement);
    pod_template_in(spec, "template");
}

/// A Job without labels takes its template's labels. The apiserver does this on decode,
/// so also when it reads the Job back from storage after the strategy generated the
/// selector labels: the registry strategy calls this again.
pub(crate) fn copy_template_labels(job: &mut Value) {
    let Some(labels) = job
        .pointer("/spec/template/metadata/labels")
        .filter(|l| l.is_object())
        .cloned()
    else {
        return;
    };
    if let Some(metadata) = child_or_insert(job, "metadata")
        && empty(metadata, "labels")
    {
        metadata["labels"] = labels;
    }
}

/// `SetDefaults_CronJob`, and the PodSpec defaults of its job template (not the Job
/// defaults: a CronJob's job template is a JobTemplateSpec, which has none).
pub(super) fn cron_job(cron_job: &mut Value) {
    let Some(spec) = child(cron_job, "spec") else {
        return;
    };
    set_if_zero(spec, "concurrencyPolicy", "Allow");
    set_if_unset(spec, "suspend", false);
    set_if_unset(spec, "successfulJobsHistoryLimit", 3);
    set_if_unset(spec, "failedJobsHistoryLimit", 1);
    if let Some(template) = child(spec, "jobTemplate")
        && let Some(job_spec) = child(template, "spec")
    {
        pod_template_in(job_spec, "template");
    }
}
