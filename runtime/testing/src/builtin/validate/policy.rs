//! `policy/v1`: PodDisruptionBudget (`pkg/apis/policy/validation`). Its strategy checks
//! the spec only; object metadata is left to the generic checks every write gets.

use serde_json::Value;

use super::Write;
use super::common::{
    get, int_or_string, label_selector, marshal_selector, not_more_than_100_percent,
    positive_int_or_percent, set,
};
use kubegen_core::go_print;
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks; `None` for another kind.
pub(super) fn validate(kind: &str, object: &Value, write: Write<'_>) -> Option<Vec<FieldError>> {
    if kind != "PodDisruptionBudget" {
        return None;
    }
    Some(match write {
        Write::Create | Write::Update(_) => spec(get(object, "spec")),
        Write::Status(_) => status(get(object, "status")),
    })
}

/// `ValidatePodDisruptionBudgetSpec`.
fn spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (min, max) = (get(spec, "minAvailable"), get(spec, "maxUnavailable"));
    if set(spec, "minAvailable") && set(spec, "maxUnavailable") {
        errs.push(FieldError::invalid(
            "spec",
            spec_struct(spec),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (key, value) in [("minAvailable", min), ("maxUnavailable", max)] {
        if !value.is_null() {
            let p = format!("spec.{key}");
            errs.extend(positive_int_or_percent(value, &p));
            errs.extend(not_more_than_100_percent(value, &p));
        }
    }
    errs.extend(label_selector(get(spec, "selector"), "spec.selector"));
    if let Some(Value::String(policy)) = spec.get("unhealthyPodEvictionPolicy")
        && policy != "IfHealthyBudget"
        && policy != "AlwaysAllow"
    {
        errs.push(FieldError::not_supported(
            "spec.unhealthyPodEvictionPolicy",
            BadValue::str(policy.as_str()),
            &["AlwaysAllow".to_owned(), "IfHealthyBudget".to_owned()],
        ));
    }
    errs
}

/// The internal `PodDisruptionBudgetSpec` as Go marshals it (Go field names).
fn spec_struct(spec: &Value) -> BadValue {
    let int_or_string_json = |v: &Value| match int_or_string(v) {
        BadValue::Str(s) => go_print::marshal(&Value::String(s)),
        BadValue::Int(i) => i.to_string(),
        _ => "null".to_owned(),
    };
    let selector = match marshal_selector(get(spec, "selector")) {
        BadValue::Marshalled(s) => s,
        _ => "null".to_owned(),
    };
    let policy = match spec
        .get("unhealthyPodEvictionPolicy")
        .and_then(Value::as_str)
    {
        Some(p) => go_print::marshal(&Value::String(p.to_owned())),
        None => "null".to_owned(),
    };
    BadValue::Marshalled(format!(
        "{{\"MinAvailable\":{},\"Selector\":{selector},\"MaxUnavailable\":{},\"UnhealthyPodEvictionPolicy\":{policy}}}",
        int_or_string_json(get(spec, "minAvailable")),
        int_or_string_json(get(spec, "maxUnavailable")),
    ))
}

/// `ValidatePodDisruptionBudgetStatus`: the counts are not negative.
fn status(status: &Value) -> Vec<FieldError> {
    [
        "disruptionsAllowed",
        "currentHealthy",
        "desiredHealthy",
        "expectedPods",
    ]
    .iter()
    .filter_map(|key| super::common::nonnegative_field(status, key, "status"))
    .collect()
}
