//! The Pod strategy's status on create (`pkg/registry/core/pod/strategy.go`): phase
//! `Pending`, the QoS class (`qos.GetPodQOS`), and the `PodScheduled` condition of a pod
//! held back by scheduling gates.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The status a created Pod starts with.
pub(super) fn status_on_create(pod: &Value) -> Value {
    let mut status = json!({"phase": "Pending", "qosClass": qos_class(pod)});
    let gated = pod
        .pointer("/spec/schedulingGates")
        .and_then(Value::as_array)
        .is_some_and(|g| !g.is_empty());
    if gated {
        status["conditions"] = json!([{
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": null,
            "lastTransitionTime": null,
            "reason": "SchedulingGated",
            "message": "Scheduling is blocked due to non-empty scheduling gates",
        }]);
    }
    status
}

/// `BestEffort` without any CPU or memory request or limit; `Guaranteed` when every
/// container (or the pod, when it states pod-level resources) limits both and requests
/// equal limits; `Burstable` otherwise. Ephemeral containers do not count.
pub(super) fn qos_class(pod: &Value) -> &'static str {
    let mut requests = BTreeMap::new();
    let mut limits = BTreeMap::new();
    let mut guaranteed = true;
    let pod_level = pod.pointer("/spec/resources").filter(|r| r.is_object());
    let sets: Vec<&Value> = match pod_level {
        Some(resources) => vec![resources],
        None => ["containers", "initContainers"]
            .iter()
            .filter_map(|list| pod.pointer(&format!("/spec/{list}"))?.as_array())
            .flatten()
            .filter_map(|c| c.get("resources"))
            .collect(),
    };
    for resources in sets {
        add_positive(&mut requests, resources.get("requests"));
        let found = add_positive(&mut limits, resources.get("limits"));
        if !(found.contains(&"cpu") && found.contains(&"memory")) {
            guaranteed = false;
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    guaranteed = guaranteed
        && requests.len() == limits.len()
        && requests
            .iter()
            .all(|(name, request)| limits.get(name) == Some(request));
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// Adds each positive CPU and memory quantity of `list` into `sums`; the names added.
fn add_positive(
    sums: &mut BTreeMap<&'static str, i128>,
    list: Option<&Value>,
) -> Vec<&'static str> {
    let mut found = Vec::new();
    let Some(Value::Object(list)) = list else {
        return found;
    };
    for name in ["cpu", "memory"] {
        let Some(quantity) = list.get(name).and_then(nano_units) else {
            continue;
        };
        if quantity > 0 {
            *sums.entry(name).or_insert(0) += quantity;
            found.push(name);
        }
    }
    found
}

/// A resource quantity (`500m`, `1.5Gi`, `2e3`, or a JSON number) in billionths, rounded
/// up; `None` when it does not parse. Saturates far beyond any real resource amount.
pub(super) fn nano_units(quantity: &Value) -> Option<i128> {
    let text = match quantity {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text.strip_prefix('+').unwrap_or(&text)),
    };
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // The value as digits × 10^exponent, then × the suffix's multiplier.
    let digits: String = format!("{whole}{fraction}");
    let mut exponent = -(fraction.len() as i32);
    let mut multiplier: i128 = 1;
    match suffix {
        "" => {}
        "n" => exponent -= 9,
        "u" => exponent -= 6,
        "m" => exponent -= 3,
        "k" => exponent += 3,
        "M" => exponent += 6,
        "G" => exponent += 9,
        "T" => exponent += 12,
        "P" => exponent += 15,
        "E" => exponent += 18,
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
            let power = match suffix {
                "Ki" => 10,
                "Mi" => 20,
                "Gi" => 30,
                "Ti" => 40,
                "Pi" => 50,
                _ => 60,
            };
            multiplier = 1 << power;
        }
        _ => {
            let e = suffix.strip_prefix(['e', 'E'])?;
            exponent += e.parse::<i32>().ok()?;
        }
    }
    let mut value: i128 = 0;
    for d in digits.bytes() {
        value = value
            .saturating_mul(10)
            .saturating_add(i128::from(d - b'0'));
    }
    value = value.saturating_mul(multiplier);
    let mut exponent = exponent + 9;
    while exponent > 0 {
        value = value.saturating_mul(10);
        exponent -= 1;
    }
    while exponent < 0 {
        // Round up what falls below a billionth, as the apiserver rounds up.
        value = value / 10 + i128::from(value % 10 != 0);
        exponent += 1;
    }
    Some(sign * value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_billionths() {
        let n = |s: &str| nano_units(&json!(s)).unwrap();
        assert_eq!(n("500m"), 500_000_000);
        assert_eq!(n("0.5"), 500_000_000);
        assert_eq!(n("1"), 1_000_000_000);
        assert_eq!(n("1Ki"), 1024 * 1_000_000_000);
        assert_eq!(n("1.5Gi"), 3 * (1 << 29) * 1_000_000_000);
        assert_eq!(n("2e3"), 2000 * 1_000_000_000);
        assert_eq!(n("128Mi"), n("134217728"));
        assert_eq!(n("1000m"), n("1"));
        assert_eq!(nano_units(&json!(2)), Some(2_000_000_000));
        assert_eq!(nano_units(&json!("x")), None);
        assert_eq!(nano_units(&json!("1Qi")), None);
    }

    #[test]
    fn qos_class_follows_requests_and_limits() {
        let pod = |resources: Value| json!({"spec": {"containers": [{"resources": resources}]}});
        assert_eq!(qos_class(&pod(json!({}))), "BestEffort");
        assert_eq!(
            qos_class(&pod(json!({"requests": {"cpu": "0"}}))),
            "BestEffort"
        );
        assert_eq!(
            qos_class(&pod(json!({"requests": {"cpu": "1"}}))),
            "Burstable"
        );
        let same = json!({"cpu": "1", "memory": "1Gi"});
        assert_eq!(
            qos_class(&pod(
                json!({"requests": same, "limits": {"cpu": "1000m", "memory": "1Gi"}})
            )),
            "Guaranteed"
        );
        assert_eq!(
            qos_class(&pod(
                json!({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": same})
            )),
            "Burstable"
        );
        // Only CPU limited: not guaranteed.
        assert_eq!(
            qos_class(&pod(
                json!({"requests": {"cpu": "1"}, "limits": {"cpu": "1"}})
            )),
            "Burstable"
        );
        // Other resources do not count.
        assert_eq!(
            qos_class(&pod(json!({"requests": {"nvidia.com/gpu": "1"}}))),
            "BestEffort"
        );
        // Pod-level resources take the place of the containers'.
        let pod_level = json!({"spec": {
            "resources": {"requests": same, "limits": same},
            "containers": [{"resources": {"requests": {"cpu": "100m"}}}],
        }});
        assert_eq!(qos_class(&pod_level), "Guaranteed");
    }

    #[test]
    fn a_gated_pod_is_not_scheduled() {
        let pod = json!({"spec": {"schedulingGates": [{"name": "g"}], "containers": []}});
        let status = status_on_create(&pod);
        assert_eq!(status["conditions"][0]["reason"], "SchedulingGated");
        assert_eq!(status["qosClass"], "BestEffort");
    }
}
