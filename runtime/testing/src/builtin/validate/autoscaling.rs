//! `autoscaling` v1 and v2: HorizontalPodAutoscaler (`pkg/apis/autoscaling/validation`).
//! A v1 object is validated as the internal (v2) one it converts to: its
//! `targetCPUUtilizationPercentage` is a CPU resource metric.

use serde_json::{Value, json};

use super::common::{get, int, list, nonnegative_field, set, text};
use super::{Meta, Write};
use kubegen_runtime::validation::field::{child, index};
use kubegen_runtime::validation::names::path_segment;
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    if kind == "Scale" {
        // `ValidateScale`, for every workload's `/scale`: metadata as on create.
        let mut errs = meta.create();
        if let Some(r) = int(get(object, "spec"), "replicas").filter(|r| *r < 0) {
            errs.push(FieldError::invalid(
                "spec.replicas",
                BadValue::Int(r),
                "must be greater than or equal to 0",
            ));
        }
        return Some(errs);
    }
    if kind != "HorizontalPodAutoscaler" {
        return None;
    }
    let own = match write {
        Write::Create | Write::Update(_) => spec(get(object, "spec")),
        Write::Status(_) => {
            let status = get(object, "status");
            ["currentReplicas", "desiredReplicas"]
                .iter()
                .filter_map(|k| nonnegative_field(status, k, "status"))
                .collect()
        }
    };
    Some(meta.first(write, own))
}

/// `validateHorizontalPodAutoscalerSpec` (scale to zero is off: at least 1 replica).
fn spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let min = int(spec, "minReplicas");
    let max = int(spec, "maxReplicas").unwrap_or(0);
    if let Some(m) = min.filter(|m| *m < 1) {
        errs.push(FieldError::invalid(
            "spec.minReplicas",
            BadValue::Int(m),
            "must be greater than or equal to 1",
        ));
    }
    if max < 1 {
        errs.push(FieldError::invalid(
            "spec.maxReplicas",
            BadValue::Int(max),
            "must be greater than 0",
        ));
    }
    if min.is_some_and(|m| max < m) {
        errs.push(FieldError::invalid(
            "spec.maxReplicas",
            BadValue::Int(max),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    errs.extend(target_ref(
        get(spec, "scaleTargetRef"),
        "spec.scaleTargetRef",
    ));
    let metrics: Vec<Value> = if set(spec, "metrics") {
        list(spec, "metrics").to_vec()
    } else if let Some(cpu) = int(spec, "targetCPUUtilizationPercentage") {
        vec![
            json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu}}}),
        ]
    } else {
        Vec::new()
    };
    let mut object_or_external = false;
    for (i, metric) in metrics.iter().enumerate() {
        let t = text(metric, "type");
        object_or_external |= t == "Object" || t == "External";
        if ![
            "Object",
            "Pods",
            "Resource",
            "ContainerResource",
            "External",
        ]
        .contains(&t)
        {
            let p = child(&index("spec.metrics", i), "type");
            if t.is_empty() {
                errs.push(FieldError::required(
                    &p,
                    "must specify a metric source type",
                ));
            } else {
                errs.push(FieldError::invalid(
                    &p,
                    BadValue::str(t),
                    "must be either External, Object, Pods, Resource or ContainerResource",
                ));
            }
        }
    }
    if min == Some(0) && !object_or_external {
        errs.push(FieldError::forbidden(
            "spec.metrics",
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
    errs
}

/// `ValidateCrossVersionObjectReference`.
fn target_ref(reference: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["kind", "name"] {
        let value = text(reference, key);
        let p = child(path, key);
        if value.is_empty() {
            errs.push(FieldError::required(&p, ""));
        } else {
            for msg in path_segment(value, false) {
                errs.push(FieldError::invalid(&p, BadValue::str(value), msg));
            }
        }
    }
    let api_version = text(reference, "apiVersion");
    let p = child(path, "apiVersion");
    match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [_] if api_version.is_empty() || !api_version.contains('/') => {
            errs.push(FieldError::invalid(
                &p,
                BadValue::str(api_version),
                "apiVersion must specify API group",
            ));
        }
        [group, version] if !group.is_empty() && !version.is_empty() => {}
        ["", _] => errs.push(FieldError::invalid(
            &p,
            BadValue::str(api_version),
            "apiVersion must specify API group",
        )),
        _ => errs.push(FieldError::invalid(
            &p,
            BadValue::str(api_version),
            "invalid apiVersion format",
        )),
    }
    errs
}
