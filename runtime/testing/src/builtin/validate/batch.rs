//! `batch/v1`: Job and CronJob (`pkg/apis/batch/validation`, `pkg/registry/batch`).
//!
//! A Job's strategy generates its selector and template labels inside `Validate` (it needs
//! the UID, which is set after `PrepareForCreate`): [`generate_selector`] is that step, and
//! [`validate`] runs it on a copy of a Job being created, so the server must run it on the
//! object it stores too.

use serde_json::{Map, Value, json};

use super::apps::mismatch;
use super::common::{
    Selector, get, immutable, int, label_selector, marshal_selector, nonnegative_field, set, text,
};
use super::cron;
use super::pod;
use super::{Meta, Write};
use kubegen_runtime::validation::field::child;
use kubegen_runtime::validation::{BadValue, FieldError};

const LEGACY_UID: &str = "controller-uid";
const LEGACY_NAME: &str = "job-name";
const UID: &str = "batch.kubernetes.io/controller-uid";
const NAME: &str = "batch.kubernetes.io/job-name";

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    Some(match (kind, write) {
        ("Job", Write::Create) => {
            let mut job = object.clone();
            if get(get(&job, "spec"), "manualSelector") != &Value::Bool(true) {
                generate_selector(&mut job);
            }
            let mut errs = meta.create();
            errs.extend(job_create(&job));
            errs
        }
        // The strategy validates the new Job as on create, then the update.
        ("Job", Write::Update(old)) => {
            let mut errs = meta.create();
            errs.extend(job_create(object));
            errs.extend(meta.update(old));
            errs.extend(job_spec_update(get(object, "spec"), get(old, "spec")));
            errs
        }
        ("Job", Write::Status(_)) => meta.first(write, job_status(get(object, "status"))),
        ("CronJob", Write::Create) => meta.first(write, cron_job(object, None)),
        ("CronJob", Write::Update(old)) => {
            meta.first(write, cron_job(object, Some(get(old, "spec"))))
        }
        _ => return None,
    })
}

/// The strategy's `generateSelector`: the job-name and controller-uid labels (legacy and
/// `batch.kubernetes.io/` ones) on the template where missing, and the controller-uid label
/// in the selector.
pub(crate) fn generate_selector(job: &mut Value) {
    let name = text(get(job, "metadata"), "name").to_owned();
    let uid = text(get(job, "metadata"), "uid").to_owned();
    let spec = object_at(job, "spec");
    let template = object_at(spec, "template");
    let labels = object_at(object_at(template, "metadata"), "labels");
    if let Value::Object(m) = labels {
        for (key, value) in [
            (LEGACY_NAME, &name),
            (NAME, &name),
            (LEGACY_UID, &uid),
            (UID, &uid),
        ] {
            m.entry(key).or_insert_with(|| Value::String(value.clone()));
        }
    }
    let selector = object_at(object_at(job, "spec"), "selector");
    if let Value::Object(m) = object_at(selector, "matchLabels") {
        m.entry(UID).or_insert(Value::String(uid));
    }
}

/// `value[key]` as an object, created (or replacing a non-object) where needed.
fn object_at<'v>(value: &'v mut Value, key: &str) -> &'v mut Value {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    let slot = value
        .as_object_mut()
        .map(|m| m.entry(key).or_insert(Value::Null));
    match slot {
        Some(slot) => {
            if !slot.is_object() {
                *slot = json!({});
            }
            slot
        }
        // `value` was made an object above.
        None => unreachable!("value is an object"),
    }
}

/// `ValidateJob` after object metadata.
fn job_create(job: &Value) -> Vec<FieldError> {
    let spec = get(job, "spec");
    let mut errs = generated_selector(job);
    errs.extend(job_spec(spec));
    let meta = get(job, "metadata");
    if text(spec, "completionMode") == "Indexed"
        && let Some(completions) = int(spec, "completions").filter(|c| *c > 0)
    {
        let name = text(meta, "name");
        let hostname = format!("{name}-{}", completions - 1);
        if !kubegen_runtime::validation::names::dns1123_label(&hostname).is_empty() {
            errs.push(FieldError::invalid(
                "metadata.name",
                BadValue::str(name),
                format!("will not able to create pod with invalid DNS label: {hostname}"),
            ));
        }
    }
    errs
}

/// `validateGeneratedSelector`.
fn generated_selector(job: &Value) -> Vec<FieldError> {
    let spec = get(job, "spec");
    let selector = get(spec, "selector");
    if get(spec, "manualSelector") == &Value::Bool(true) || selector.is_null() {
        return Vec::new();
    }
    let meta = get(job, "metadata");
    let (name, uid) = (text(meta, "name"), text(meta, "uid"));
    let mut errs = Vec::new();
    if uid.is_empty() {
        errs.push(FieldError::required("metadata.uid", ""));
    }
    let template_meta = get(get(spec, "template"), "metadata");
    let template_labels = get(template_meta, "labels");
    let prefixed = template_labels.get(UID).is_some();
    let mut expected = Map::new();
    let mut pairs = vec![(LEGACY_UID, uid), (LEGACY_NAME, name)];
    if prefixed {
        pairs.extend([(UID, uid), (NAME, name)]);
    }
    for (key, value) in &pairs {
        errs.extend(has_label(template_labels, key, value));
        expected.insert((*key).to_owned(), Value::String((*value).to_owned()));
    }
    if let Some(s) = Selector::parse(selector)
        && !s.matches(&Value::Object(expected))
    {
        errs.push(FieldError::invalid(
            "spec.selector",
            marshal_selector(selector),
            "`selector` not auto-generated",
        ));
    }
    errs
}

/// `ValidateHasLabel` on the template's metadata.
fn has_label(labels: &Value, key: &str, expected: &str) -> Option<FieldError> {
    let path = format!("spec.template.metadata.labels[{key}]");
    match labels.get(key).and_then(Value::as_str) {
        None => Some(FieldError::required(&path, format!("must be '{expected}'"))),
        Some(v) if v != expected => Some(FieldError::invalid(
            &path,
            BadValue::Json(labels.clone()),
            format!("must be '{expected}'"),
        )),
        Some(_) => None,
    }
}

/// `ValidateJobSpec`: the spec, then the selector and that it matches the template.
fn job_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = job_spec_fields(spec, "spec");
    let selector = get(spec, "selector");
    if selector.is_null() {
        errs.push(FieldError::required("spec.selector", ""));
    } else {
        errs.extend(label_selector(selector, "spec.selector"));
    }
    if let Some(s) = Selector::parse(selector) {
        let template_labels = get(get(get(spec, "template"), "metadata"), "labels");
        if !s.matches(template_labels) {
            errs.push(mismatch(template_labels));
        }
    }
    errs
}

/// `validateJobSpec` at `path` (`spec`, or `spec.jobTemplate.spec` of a CronJob).
fn job_spec_fields(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
    ] {
        errs.extend(nonnegative_field(spec, key, path));
    }
    let indexed = text(spec, "completionMode") == "Indexed";
    if set(spec, "backoffLimitPerIndex") && !indexed {
        errs.push(FieldError::invalid(
            &child(path, "completionMode"),
            BadValue::of(get(spec, "completionMode")),
            "requires indexed completion mode when backoffLimitPerIndex is set",
        ));
    }
    if let Some(mode) = spec.get("completionMode").and_then(Value::as_str) {
        if mode != "NonIndexed" && mode != "Indexed" {
            errs.push(FieldError::not_supported(
                &child(path, "completionMode"),
                BadValue::str(mode),
                &["NonIndexed".to_owned(), "Indexed".to_owned()],
            ));
        }
        if indexed {
            if !set(spec, "completions") {
                errs.push(FieldError::required(
                    &child(path, "completions"),
                    "when completion mode is Indexed",
                ));
            }
            if let Some(p) = int(spec, "parallelism").filter(|p| *p > 100_000) {
                errs.push(FieldError::invalid(
                    &child(path, "parallelism"),
                    BadValue::Int(p),
                    "must be less than or equal to 100000 when completion mode is Indexed",
                ));
            }
        }
    }
    if let Some(policy) = spec.get("podReplacementPolicy").and_then(Value::as_str)
        && policy != "TerminatingOrFailed"
        && policy != "Failed"
    {
        errs.push(FieldError::not_supported(
            &child(path, "podReplacementPolicy"),
            BadValue::str(policy),
            &["Failed".to_owned(), "TerminatingOrFailed".to_owned()],
        ));
    }
    let template_path = child(path, "template");
    errs.extend(pod::template(get(spec, "template"), &template_path));
    let restart_path = format!("{template_path}.spec.restartPolicy");
    let restart = text(get(get(spec, "template"), "spec"), "restartPolicy");
    match restart {
        "Always" | "" => errs.push(FieldError::required(
            &restart_path,
            "valid values: \"OnFailure\", \"Never\"",
        )),
        "OnFailure" | "Never" => {
            if set(spec, "podFailurePolicy") && restart != "Never" {
                errs.push(FieldError::invalid(
                    &restart_path,
                    BadValue::str(restart),
                    "only \"Never\" is supported when podFailurePolicy is specified",
                ));
            }
        }
        other => errs.push(FieldError::not_supported(
            &restart_path,
            BadValue::str(other),
            &["OnFailure".to_owned(), "Never".to_owned()],
        )),
    }
    errs
}

/// `ValidateJobSpecUpdate` (after `ValidateJobSpec` of the new spec, which
/// [`job_create`] already reported once and Go reports again).
fn job_spec_update(spec: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = job_spec(spec);
    let (completions, old_completions) = (get(spec, "completions"), get(old, "completions"));
    if text(spec, "completionMode") != "Indexed" {
        errs.extend(immutable(
            completions,
            old_completions,
            "spec.completions",
            BadValue::of(completions),
        ));
    } else if completions != old_completions
        && !completions.is_null()
        && completions != get(spec, "parallelism")
    {
        errs.push(FieldError::invalid(
            "spec.completions",
            BadValue::of(completions),
            "can only be modified in tandem with spec.parallelism",
        ));
    }
    let selector = get(spec, "selector");
    errs.extend(immutable(
        selector,
        get(old, "selector"),
        "spec.selector",
        marshal_selector(selector),
    ));
    let template = get(spec, "template");
    errs.extend(immutable(
        template,
        get(old, "template"),
        "spec.template",
        BadValue::Json(template.clone()),
    ));
    for key in [
        "completionMode",
        "podFailurePolicy",
        "backoffLimitPerIndex",
        "managedBy",
        "successPolicy",
    ] {
        let v = get(spec, key);
        errs.extend(immutable(
            v,
            get(old, key),
            &child("spec", key),
            BadValue::of(v),
        ));
    }
    errs
}

/// The counts of a Job's status are not negative.
fn job_status(status: &Value) -> Vec<FieldError> {
    ["active", "succeeded", "failed", "ready", "terminating"]
        .iter()
        .filter_map(|key| nonnegative_field(status, key, "status"))
        .collect()
}

/// `ValidateCronJobCreate` / `ValidateCronJobUpdate` after object metadata.
fn cron_job(cron_job: &Value, old_spec: Option<&Value>) -> Vec<FieldError> {
    let spec = get(cron_job, "spec");
    let mut errs = Vec::new();
    let schedule = text(spec, "schedule");
    let time_zone = spec.get("timeZone").and_then(Value::as_str);
    if schedule.is_empty() {
        errs.push(FieldError::required("spec.schedule", ""));
    } else {
        if let Err(e) = cron::parse_standard(schedule) {
            errs.push(FieldError::invalid(
                "spec.schedule",
                BadValue::str(schedule),
                e,
            ));
        }
        let allow_tz = old_spec.is_some_and(|o| text(o, "schedule").contains("TZ"));
        if allow_tz && schedule.contains("TZ") && time_zone.is_some() {
            errs.push(FieldError::invalid(
                "spec.schedule",
                BadValue::str(schedule),
                "cannot use both timeZone field and TZ or CRON_TZ in schedule",
            ));
        } else if !allow_tz && schedule.contains("TZ") {
            errs.push(FieldError::invalid(
                "spec.schedule",
                BadValue::str(schedule),
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ));
        }
    }
    errs.extend(nonnegative_field(spec, "startingDeadlineSeconds", "spec"));
    if old_spec.is_none_or(|o| get(o, "timeZone") != get(spec, "timeZone"))
        && let Some(tz) = time_zone
    {
        errs.extend(cron::time_zone(tz, "spec.timeZone"));
    }
    match text(spec, "concurrencyPolicy") {
        "Allow" | "Forbid" | "Replace" => {}
        "" => errs.push(FieldError::required("spec.concurrencyPolicy", "")),
        other => errs.push(FieldError::not_supported(
            "spec.concurrencyPolicy",
            BadValue::str(other),
            &[
                "Allow".to_owned(),
                "Forbid".to_owned(),
                "Replace".to_owned(),
            ],
        )),
    }
    let template = get(spec, "jobTemplate");
    let template_spec = get(template, "spec");
    errs.extend(super::common::labels(
        get(get(template, "metadata"), "labels"),
        "spec.jobTemplate.metadata.labels",
    ));
    errs.extend(job_spec_fields(template_spec, "spec.jobTemplate.spec"));
    let selector = get(template_spec, "selector");
    if !selector.is_null() {
        errs.push(FieldError::invalid(
            "spec.jobTemplate.spec.selector",
            marshal_selector(selector),
            "`selector` will be auto-generated",
        ));
    }
    if get(template_spec, "manualSelector") == &Value::Bool(true) {
        errs.push(FieldError::not_supported(
            "spec.jobTemplate.spec.manualSelector",
            BadValue::Bool(true),
            &["nil".to_owned(), "false".to_owned()],
        ));
    }
    for key in ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"] {
        errs.extend(nonnegative_field(spec, key, "spec"));
    }
    let name = text(get(cron_job, "metadata"), "name");
    if old_spec.is_none() && name.len() > 52 {
        errs.push(FieldError::invalid(
            "metadata.name",
            BadValue::str(name),
            "must be no more than 52 characters",
        ));
    }
    errs
}
