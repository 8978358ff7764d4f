//! Defaults of the other groups: networking.k8s.io, autoscaling, rbac.authorization.k8s.io
//! and events.k8s.io.

use serde_json::{Value, json};

use super::{child, child_or_insert, each, empty, set_if_unset, set_if_zero};

/// `SetDefaults_NetworkPolicy` (`policyTypes` from which rules are given) and
/// `SetDefaults_NetworkPolicyPort` (protocol TCP).
pub(super) fn network_policy(policy: &mut Value) {
    let Some(spec) = child(policy, "spec") else {
        return;
    };
    for direction in ["ingress", "egress"] {
        each(spec, direction, |rule| {
            each(rule, "ports", |port| set_if_unset(port, "protocol", "TCP"));
        });
    }
    if empty(spec, "policyTypes") {
        let mut types = vec![json!("Ingress")];
        if !empty(spec, "egress") {
            types.push(json!("Egress"));
        }
        spec["policyTypes"] = Value::Array(types);
    }
}

/// autoscaling/v1 `SetDefaults_HorizontalPodAutoscaler`: one replica at least, and the
/// 80% CPU target the conversion to the internal (v2) form supplies when no metric is
/// given.
pub(super) fn hpa_v1(hpa: &mut Value) {
    let has_metrics = hpa
        .pointer("/metadata/annotations/autoscaling.alpha.kubernetes.io~1metrics")
        .is_some();
    let Some(spec) = child(hpa, "spec") else {
        return;
    };
    set_if_unset(spec, "minReplicas", 1);
    if !has_metrics {
        set_if_unset(spec, "targetCPUUtilizationPercentage", 80);
    }
}

/// autoscaling/v2 `SetDefaults_HorizontalPodAutoscaler`: one replica at least, an 80% CPU
/// utilization metric when none is given, and every unset field of a given behavior.
pub(super) fn hpa_v2(hpa: &mut Value) {
    if let Some(spec) = child(hpa, "spec") {
        set_if_unset(spec, "minReplicas", 1);
        if empty(spec, "metrics") {
            spec["metrics"] = json!([{"type": "Resource", "resource": {
                "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80},
            }}]);
        }
        if let Some(behavior) = child(spec, "behavior") {
            scaling_rules(
                behavior,
                "scaleUp",
                json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                    {"type": "Pods", "value": 4, "periodSeconds": 15},
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                ]}),
            );
            scaling_rules(
                behavior,
                "scaleDown",
                json!({"selectPolicy": "Max", "policies": [
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                ]}),
            );
        }
    }
    if let Some(status) = child(hpa, "status") {
        set_if_unset(status, "currentMetrics", Value::Null);
    }
}

/// `copyHPAScalingRules`: the given fields of `behavior[key]` over `defaults`.
fn scaling_rules(behavior: &mut Value, key: &str, mut defaults: Value) {
    if let Some(Value::Object(given)) = behavior.get(key) {
        for (name, value) in given {
            if !value.is_null() {
                defaults[name.as_str()] = value.clone();
            }
        }
    }
    behavior[key] = defaults;
}

/// `SetDefaults_RoleBinding`/`SetDefaults_ClusterRoleBinding` and `SetDefaults_Subject`:
/// users and groups are in the rbac API group.
pub(super) fn role_binding(binding: &mut Value) {
    if let Some(role_ref) = child_or_insert(binding, "roleRef") {
        set_if_zero(role_ref, "apiGroup", "rbac.authorization.k8s.io");
    }
    each(binding, "subjects", |subject| {
        let kind = subject.get("kind").and_then(Value::as_str);
        if matches!(kind, Some("User" | "Group")) {
            set_if_zero(subject, "apiGroup", "rbac.authorization.k8s.io");
        }
    });
}

/// A Role's or ClusterRole's `rules` has no `omitempty`: absent, it reads back `null`.
pub(super) fn role(role: &mut Value) {
    set_if_unset(role, "rules", Value::Null);
}

/// The events.k8s.io Event's timestamps Go always writes: unset, they read back `null`.
pub(super) fn event(event: &mut Value) {
    for key in [
        "eventTime",
        "deprecatedFirstTimestamp",
        "deprecatedLastTimestamp",
    ] {
        set_if_unset(event, key, Value::Null);
    }
}
