//! `apps/v1`: Deployment, ReplicaSet, StatefulSet, DaemonSet (`pkg/apis/apps/validation`
//! and the strategies in `pkg/registry/apps`), ControllerRevision.

use serde_json::Value;

use super::common::{
    Selector, get, immutable, int, int_or_percent_value, int_or_string, label_selector,
    marshal_map, marshal_selector, nonnegative, nonnegative_field, not_more_than_100_percent,
    positive_int_or_percent, set, text,
};
use super::pod;
use super::{Meta, Write};
use kubegen_runtime::validation::field::child;
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    let spec = get(object, "spec");
    let own = match (kind, write) {
        ("Deployment", Write::Create) => deployment_spec(spec),
        ("Deployment", Write::Update(old)) => {
            let mut errs = deployment_spec(spec);
            errs.extend(selector_immutable(spec, get(old, "spec")));
            errs
        }
        ("Deployment", Write::Status(old)) => deployment_status(object, old),
        ("ReplicaSet", Write::Create) => replica_set_spec(spec),
        ("ReplicaSet", Write::Update(old)) => {
            let mut errs = replica_set_spec(spec);
            errs.extend(selector_immutable(spec, get(old, "spec")));
            errs
        }
        ("ReplicaSet", Write::Status(_)) => replica_set_status(get(object, "status")),
        ("StatefulSet", Write::Create) => stateful_set_spec(spec),
        ("StatefulSet", Write::Update(old)) => {
            let mut errs = stateful_set_spec(spec);
            errs.extend(stateful_set_update(spec, get(old, "spec")));
            errs
        }
        ("StatefulSet", Write::Status(old)) => {
            // The status before the metadata, as `ValidateStatefulSetStatusUpdate` has it.
            let mut errs = stateful_set_status(object, old);
            errs.extend(meta.update(old));
            return Some(errs);
        }
        ("DaemonSet", Write::Create) => daemon_set_spec(spec),
        ("DaemonSet", Write::Update(old)) => {
            let mut errs = daemon_set_spec(spec);
            errs.extend(selector_immutable(spec, get(old, "spec")));
            errs
        }
        ("DaemonSet", Write::Status(old)) => daemon_set_status(object, old),
        ("ControllerRevision", Write::Create | Write::Update(_)) => {
            let mut errs = Vec::new();
            if !set(object, "data") {
                errs.push(FieldError::required("data", "data is mandatory"));
            }
            errs.extend(nonnegative_field(object, "revision", ""));
            if let Write::Update(old) = write {
                errs.extend(immutable(
                    get(object, "data"),
                    get(old, "data"),
                    "data",
                    BadValue::Json(get(object, "data").clone()),
                ));
            }
            errs
        }
        _ => return None,
    };
    Some(meta.first(write, own))
}

/// The selector of apps/v1 workloads may not change (the strategies' `ValidateUpdate`).
fn selector_immutable(spec: &Value, old_spec: &Value) -> Option<FieldError> {
    let (new, old) = (get(spec, "selector"), get(old_spec, "selector"));
    immutable(new, old, "spec.selector", marshal_selector(new))
}

/// The selector checks of Deployments and ReplicaSets: required, valid, not empty, then the
/// template (`ValidatePodTemplateSpecForReplicaSet`) when the selector converts.
fn selector_and_template(spec: &Value, workload: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let selector = get(spec, "selector");
    if selector.is_null() {
        errs.push(FieldError::required("spec.selector", ""));
    } else {
        errs.extend(label_selector(selector, "spec.selector"));
        if empty_selector(selector) {
            errs.push(FieldError::invalid(
                "spec.selector",
                marshal_selector(selector),
                format!("empty selector is invalid for {workload}"),
            ));
        }
    }
    match Selector::parse(selector) {
        None => errs.push(FieldError::invalid(
            "spec.selector",
            marshal_selector(selector),
            "invalid label selector",
        )),
        Some(s) => errs.extend(template_for_replica_set(
            get(spec, "template"),
            &s,
            "ReplicaSet",
        )),
    }
    errs
}

fn empty_selector(selector: &Value) -> bool {
    let count = |k: &str| {
        selector.get(k).map_or(0, |v| {
            v.as_object().map_or(0, |m| m.len()) + v.as_array().map_or(0, Vec::len)
        })
    };
    count("matchLabels") + count("matchExpressions") == 0
}

/// The template matches the selector, is a valid pod template, restarts always and has no
/// deadline.
fn template_for_replica_set(template: &Value, selector: &Selector, owner: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let template_labels = get(get(template, "metadata"), "labels");
    if !selector.is_empty() && !selector.matches(template_labels) {
        errs.push(mismatch(template_labels));
    }
    errs.extend(pod::template(template, "spec.template"));
    errs.extend(restart_always(template, owner));
    errs
}

fn restart_always(template: &Value, owner: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = get(template, "spec");
    let policy = text(spec, "restartPolicy");
    if policy != "Always" {
        errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            BadValue::str(policy),
            &["Always".to_owned()],
        ));
    }
    if set(spec, "activeDeadlineSeconds") {
        errs.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            format!("activeDeadlineSeconds in {owner} is not Supported"),
        ));
    }
    errs
}

/// `selector` does not match template `labels`, showing the template's labels.
pub(super) fn mismatch(template_labels: &Value) -> FieldError {
    FieldError::invalid(
        "spec.template.metadata.labels",
        marshal_map(template_labels),
        "`selector` does not match template `labels`",
    )
}

/// `ValidateDeploymentSpec`.
fn deployment_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> =
        nonnegative(int(spec, "replicas").unwrap_or(0), "spec.replicas")
            .into_iter()
            .collect();
    errs.extend(selector_and_template(spec, "deployment"));
    errs.extend(deployment_strategy(get(spec, "strategy")));
    errs.extend(nonnegative_field(spec, "minReadySeconds", "spec"));
    errs.extend(nonnegative_field(spec, "revisionHistoryLimit", "spec"));
    if let Some(deadline) = int(spec, "progressDeadlineSeconds") {
        errs.extend(nonnegative(deadline, "spec.progressDeadlineSeconds"));
        if deadline <= int(spec, "minReadySeconds").unwrap_or(0) {
            errs.push(FieldError::invalid(
                "spec.progressDeadlineSeconds",
                BadValue::Int(deadline),
                "must be greater than minReadySeconds",
            ));
        }
    }
    errs
}

/// `ValidateDeploymentStrategy`.
fn deployment_strategy(strategy: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rolling = get(strategy, "rollingUpdate");
    match text(strategy, "type") {
        "Recreate" => {
            if !rolling.is_null() {
                errs.push(FieldError::forbidden(
                    "spec.strategy.rollingUpdate",
                    "may not be specified when strategy `type` is 'Recreate'",
                ));
            }
        }
        "RollingUpdate" => {
            if rolling.is_null() {
                errs.push(FieldError::required(
                    "spec.strategy.rollingUpdate",
                    "this should be defaulted and never be nil",
                ));
            } else {
                let p = "spec.strategy.rollingUpdate";
                let unavailable = get(rolling, "maxUnavailable");
                let surge = get(rolling, "maxSurge");
                errs.extend(positive_int_or_percent(
                    unavailable,
                    &child(p, "maxUnavailable"),
                ));
                errs.extend(positive_int_or_percent(surge, &child(p, "maxSurge")));
                if int_or_percent_value(unavailable) == 0 && int_or_percent_value(surge) == 0 {
                    errs.push(FieldError::invalid(
                        &child(p, "maxUnavailable"),
                        int_or_string(unavailable),
                        "may not be 0 when `maxSurge` is 0",
                    ));
                }
                errs.extend(not_more_than_100_percent(
                    unavailable,
                    &child(p, "maxUnavailable"),
                ));
            }
        }
        _ => errs.push(FieldError::not_supported(
            "spec.strategy",
            strategy_value(strategy),
            &["Recreate".to_owned(), "RollingUpdate".to_owned()],
        )),
    }
    errs
}

/// A `DeploymentStrategy` struct as Go marshals it.
fn strategy_value(strategy: &Value) -> BadValue {
    let mut out = String::from("{\"type\":");
    kubegen_core::go_print::json_string(text(strategy, "type"), &mut out);
    if let Some(r) = strategy.get("rollingUpdate").filter(|r| !r.is_null()) {
        out.push_str(",\"rollingUpdate\":");
        out.push_str(&kubegen_core::go_print::marshal(r));
    }
    out.push('}');
    BadValue::Marshalled(out)
}

/// The replica counts of a workload's status, each not negative and none above `replicas`
/// (`ValidateDeploymentStatus` and its siblings): `counts` in Go's order of the
/// non-negative checks, `bounded` in the order of the upper-bound checks.
fn status_counts(status: &Value, counts: &[&str], bounded: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in counts {
        errs.extend(nonnegative(
            int(status, key).unwrap_or(0),
            &child("status", key),
        ));
    }
    errs.extend(nonnegative_field(status, "collisionCount", "status"));
    let replicas = int(status, "replicas").unwrap_or(0);
    for key in bounded {
        let v = int(status, key).unwrap_or(0);
        if v > replicas {
            errs.push(FieldError::invalid(
                &child("status", key),
                BadValue::Int(v),
                "cannot be greater than status.replicas",
            ));
        }
    }
    errs
}

fn available_not_above_ready(status: &Value, message: &str) -> Option<FieldError> {
    let available = int(status, "availableReplicas").unwrap_or(0);
    (available > int(status, "readyReplicas").unwrap_or(0)).then(|| {
        FieldError::invalid(
            "status.availableReplicas",
            BadValue::Int(available),
            message,
        )
    })
}

fn collision_count_decremented(object: &Value, old: &Value) -> Option<FieldError> {
    let new = int(get(object, "status"), "collisionCount");
    let before = int(get(old, "status"), "collisionCount");
    let decremented = match (new, before) {
        (None, Some(_)) => true,
        (Some(n), Some(o)) => n < o,
        _ => false,
    };
    decremented.then(|| {
        FieldError::invalid(
            "status.collisionCount",
            BadValue::Int(new.unwrap_or(0)),
            "cannot be decremented",
        )
    })
}

/// `ValidateDeploymentStatusUpdate` after the metadata.
fn deployment_status(object: &Value, old: &Value) -> Vec<FieldError> {
    let status = get(object, "status");
    let mut errs = status_counts(
        status,
        &[
            "observedGeneration",
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
        ],
        &["updatedReplicas", "readyReplicas", "availableReplicas"],
    );
    errs.extend(available_not_above_ready(
        status,
        "cannot be greater than readyReplicas",
    ));
    errs.extend(collision_count_decremented(object, old));
    errs
}

/// `ValidateReplicaSetSpec`.
fn replica_set_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> =
        nonnegative(int(spec, "replicas").unwrap_or(0), "spec.replicas")
            .into_iter()
            .collect();
    errs.extend(nonnegative_field(spec, "minReadySeconds", "spec"));
    errs.extend(selector_and_template(spec, "deployment"));
    errs
}

/// `ValidateReplicaSetStatus`.
fn replica_set_status(status: &Value) -> Vec<FieldError> {
    let mut errs = status_counts(
        status,
        &[
            "replicas",
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
            "observedGeneration",
        ],
        &["fullyLabeledReplicas", "readyReplicas", "availableReplicas"],
    );
    errs.extend(available_not_above_ready(
        status,
        "cannot be greater than readyReplicas",
    ));
    errs
}

/// `ValidateStatefulSetSpec`.
fn stateful_set_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match text(spec, "podManagementPolicy") {
        "" => errs.push(FieldError::required("spec.podManagementPolicy", "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(FieldError::invalid(
            "spec.podManagementPolicy",
            BadValue::str(other),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    let strategy = get(spec, "updateStrategy");
    let rolling = get(strategy, "rollingUpdate");
    match text(strategy, "type") {
        "" => errs.push(FieldError::required("spec.updateStrategy", "")),
        "OnDelete" => {
            if !rolling.is_null() {
                errs.push(FieldError::invalid(
                    "spec.updateStrategy.rollingUpdate",
                    BadValue::Json(rolling.clone()),
                    "only allowed for updateStrategy 'RollingUpdate'",
                ));
            }
        }
        "RollingUpdate" => {
            if !rolling.is_null() {
                let p = "spec.updateStrategy.rollingUpdate";
                errs.extend(nonnegative(
                    int(rolling, "partition").unwrap_or(0),
                    &child(p, "partition"),
                ));
                let unavailable = get(rolling, "maxUnavailable");
                if !unavailable.is_null() {
                    let up = child(p, "maxUnavailable");
                    errs.extend(positive_int_or_percent(unavailable, &up));
                    if int_or_percent_value(unavailable) == 0 {
                        errs.push(FieldError::invalid(
                            &up,
                            int_or_string(unavailable),
                            "cannot be 0",
                        ));
                    }
                    errs.extend(not_more_than_100_percent(unavailable, &up));
                }
            }
        }
        _ => errs.push(FieldError::invalid(
            "spec.updateStrategy",
            BadValue::Json(strategy.clone()),
            "must be 'RollingUpdate' or 'OnDelete'",
        )),
    }
    let retention = get(spec, "persistentVolumeClaimRetentionPolicy");
    if !retention.is_null() {
        for key in ["whenDeleted", "whenScaled"] {
            let v = text(retention, key);
            if v != "Retain" && v != "Delete" {
                errs.push(FieldError::not_supported(
                    &format!("spec.persistentVolumeClaimRetentionPolicy.{key}"),
                    BadValue::str(v),
                    &["Retain".to_owned(), "Delete".to_owned()],
                ));
            }
        }
    }
    errs.extend(nonnegative(
        int(spec, "replicas").unwrap_or(0),
        "spec.replicas",
    ));
    errs.extend(nonnegative_field(spec, "minReadySeconds", "spec"));
    if let Some(start) = int(get(spec, "ordinals"), "start") {
        errs.extend(nonnegative(start, "spec.ordinals.start"));
    }
    let selector = get(spec, "selector");
    if selector.is_null() {
        errs.push(FieldError::required("spec.selector", ""));
    } else {
        errs.extend(label_selector(selector, "spec.selector"));
        if empty_selector(selector) {
            errs.push(FieldError::invalid(
                "spec.selector",
                marshal_selector(selector),
                "empty selector is invalid for statefulset",
            ));
        }
    }
    let template = get(spec, "template");
    match Selector::parse(selector) {
        None => errs.push(FieldError::invalid(
            "spec.selector",
            marshal_selector(selector),
            "",
        )),
        Some(s) => {
            let template_labels = get(get(template, "metadata"), "labels");
            if !s.is_empty() && !s.matches(template_labels) {
                errs.push(mismatch(template_labels));
            }
            let meta = get(template, "metadata");
            errs.extend(super::common::labels(
                get(meta, "labels"),
                "spec.template.labels",
            ));
        }
    }
    let template_spec = get(template, "spec");
    let policy = text(template_spec, "restartPolicy");
    if policy != "Always" {
        errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            BadValue::str(policy),
            &["Always".to_owned()],
        ));
    }
    if set(template_spec, "activeDeadlineSeconds") {
        errs.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            "activeDeadlineSeconds in StatefulSet is not Supported",
        ));
    }
    errs
}

/// `ValidateStatefulSetUpdate` after the spec: only some fields may change.
fn stateful_set_update(spec: &Value, old_spec: &Value) -> Option<FieldError> {
    let mut new = spec.clone();
    if let Value::Object(m) = &mut new {
        for key in [
            "replicas",
            "ordinals",
            "template",
            "updateStrategy",
            "revisionHistoryLimit",
            "persistentVolumeClaimRetentionPolicy",
            "minReadySeconds",
        ] {
            match old_spec.get(key) {
                Some(v) => {
                    m.insert(key.to_owned(), v.clone());
                }
                None => {
                    m.remove(key);
                }
            }
        }
    }
    (&new != old_spec).then(|| {
        FieldError::forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        )
    })
}

/// `ValidateStatefulSetStatusUpdate` after the metadata.
fn stateful_set_status(object: &Value, old: &Value) -> Vec<FieldError> {
    let status = get(object, "status");
    let mut errs = status_counts(
        status,
        &[
            "replicas",
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
            "availableReplicas",
            "observedGeneration",
        ],
        &[
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
            "availableReplicas",
        ],
    );
    errs.extend(available_not_above_ready(
        status,
        "cannot be greater than status.readyReplicas",
    ));
    errs.extend(collision_count_decremented(object, old));
    errs
}

/// `ValidateDaemonSetSpec`.
fn daemon_set_spec(spec: &Value) -> Vec<FieldError> {
    let selector = get(spec, "selector");
    let mut errs = label_selector(selector, "spec.selector");
    let template = get(spec, "template");
    let template_labels = get(get(template, "metadata"), "labels");
    if let Some(s) = Selector::parse(selector)
        && !s.matches(template_labels)
    {
        errs.push(mismatch(template_labels));
    }
    if !selector.is_null() && empty_selector(selector) {
        errs.push(FieldError::invalid(
            "spec.selector",
            marshal_selector(selector),
            "empty selector is invalid for daemonset",
        ));
    }
    errs.extend(pod::template(template, "spec.template"));
    errs.extend(restart_always(template, "DaemonSet"));
    errs.extend(nonnegative_field(spec, "minReadySeconds", "spec"));
    errs.extend(nonnegative_field(spec, "templateGeneration", "spec"));
    let strategy = get(spec, "updateStrategy");
    match text(strategy, "type") {
        "OnDelete" => {}
        "RollingUpdate" => {
            let rolling = get(strategy, "rollingUpdate");
            if rolling.is_null() {
                errs.push(FieldError::required(
                    "spec.updateStrategy.rollingUpdate",
                    "",
                ));
            } else {
                let p = "spec.updateStrategy.rollingUpdate";
                let unavailable = get(rolling, "maxUnavailable");
                let surge = get(rolling, "maxSurge");
                errs.extend(positive_int_or_percent(
                    unavailable,
                    &child(p, "maxUnavailable"),
                ));
                errs.extend(positive_int_or_percent(surge, &child(p, "maxSurge")));
                errs.extend(not_more_than_100_percent(
                    unavailable,
                    &child(p, "maxUnavailable"),
                ));
                errs.extend(not_more_than_100_percent(surge, &child(p, "maxSurge")));
                let has_unavailable = int_or_percent_value(unavailable) != 0;
                let has_surge = int_or_percent_value(surge) != 0;
                if has_unavailable && has_surge {
                    errs.push(FieldError::invalid(
                        &child(p, "maxSurge"),
                        int_or_string(surge),
                        "may not be set when maxUnavailable is non-zero",
                    ));
                } else if !has_unavailable && !has_surge {
                    errs.push(FieldError::required(
                        &child(p, "maxUnavailable"),
                        "cannot be 0 when maxSurge is 0",
                    ));
                }
            }
        }
        _ => errs.push(FieldError::not_supported(
            "spec.updateStrategy",
            BadValue::Json(strategy.clone()),
            &["RollingUpdate".to_owned(), "OnDelete".to_owned()],
        )),
    }
    errs.extend(nonnegative_field(spec, "revisionHistoryLimit", "spec"));
    errs
}

/// `ValidateDaemonSetStatusUpdate` after the metadata.
fn daemon_set_status(object: &Value, old: &Value) -> Vec<FieldError> {
    let status = get(object, "status");
    let mut errs = Vec::new();
    for key in [
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    ] {
        errs.extend(nonnegative(
            int(status, key).unwrap_or(0),
            &child("status", key),
        ));
    }
    errs.extend(nonnegative_field(status, "collisionCount", "status"));
    errs.extend(collision_count_decremented(object, old));
    errs
}
