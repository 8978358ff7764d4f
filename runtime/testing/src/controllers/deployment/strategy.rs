//! What a Deployment's strategy allows (`deployment/util`): its surge and unavailability
//! resolved against the replicas (`ResolveFenceposts`), the new ReplicaSet's size
//! (`NewRSNewReplicas`), and whether the new ReplicaSet is saturated.

use serde_json::Value;

use super::replicas;

/// Whether the Deployment rolls (`IsRollingUpdate`).
pub(super) fn is_rolling(d: &Value) -> bool {
    d["spec"]["strategy"]["type"] == "RollingUpdate"
}

/// `GetScaledValueFromIntOrPercent`: an int, or a percentage of `total` rounded up or down.
/// `None` for a string that is no percentage.
fn scaled(value: &Value, total: i64, round_up: bool) -> Option<i64> {
    match value {
        Value::Null => Some(0),
        Value::Number(n) => n.as_i64(),
        Value::String(s) => {
            let percent: i64 = s.strip_suffix('%')?.parse().ok()?;
            let exact = percent as f64 * total as f64 / 100.0;
            Some(if round_up {
                exact.ceil()
            } else {
                exact.floor()
            } as i64)
        }
        _ => None,
    }
}

/// `ResolveFenceposts`: the surge and unavailability (at least one of them not 0).
fn fenceposts(d: &Value) -> (i64, i64) {
    let rolling = &d["spec"]["strategy"]["rollingUpdate"];
    let desired = replicas(d);
    let surge = scaled(&rolling["maxSurge"], desired, true).unwrap_or(0);
    let unavailable = scaled(&rolling["maxUnavailable"], desired, false).unwrap_or(0);
    match (surge, unavailable) {
        (0, 0) => (0, 1),
        pair => pair,
    }
}

/// `MaxSurge`: 0 unless rolling.
pub(super) fn max_surge(d: &Value) -> i64 {
    if !is_rolling(d) {
        return 0;
    }
    fenceposts(d).0
}

/// `MaxUnavailable`: 0 unless rolling with replicas, at most the replicas.
pub(super) fn max_unavailable(d: &Value) -> i64 {
    if !is_rolling(d) || replicas(d) == 0 {
        return 0;
    }
    fenceposts(d).1.min(replicas(d))
}

/// `NewRSNewReplicas`: what the new ReplicaSet may grow to — within the surge when rolling,
/// all the replicas when recreating.
/// `all` is every ReplicaSet of the Deployment, the new one included.
pub(super) fn new_rs_new_replicas<'a>(
    d: &Value,
    all: impl IntoIterator<Item = &'a Value>,
    new_rs: &Value,
) -> i64 {
    if !is_rolling(d) {
        return replicas(d);
    }
    let surge = scaled(
        &d["spec"]["strategy"]["rollingUpdate"]["maxSurge"],
        replicas(d),
        true,
    )
    .unwrap_or(0);
    let current: i64 = all.into_iter().map(replicas).sum();
    let max_total = replicas(d) + surge;
    if current >= max_total {
        return replicas(new_rs);
    }
    let up = (max_total - current).min(replicas(d) - replicas(new_rs));
    replicas(new_rs) + up
}

/// `IsSaturated`: the new ReplicaSet has (and is meant to have) every replica, all
/// available.
pub(super) fn is_saturated(d: &Value, rs: Option<&Value>) -> bool {
    let Some(rs) = rs else { return false };
    let desired = rs["metadata"]["annotations"][super::history::DESIRED_REPLICAS]
        .as_str()
        .and_then(|s| s.parse::<i64>().ok());
    replicas(rs) == replicas(d)
        && desired == Some(replicas(d))
        && super::int(rs, "status", "availableReplicas") == replicas(d)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rolling(replicas: i64, surge: Value, unavailable: Value) -> Value {
        json!({"spec": {"replicas": replicas, "strategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}}})
    }

    #[test]
    fn percentages_round_surge_up_and_unavailability_down() {
        let d = rolling(3, json!("25%"), json!("25%"));
        assert_eq!((max_surge(&d), max_unavailable(&d)), (1, 0));
        let d = rolling(4, json!("25%"), json!("25%"));
        assert_eq!((max_surge(&d), max_unavailable(&d)), (1, 1));
        let d = rolling(10, json!(0), json!(0));
        assert_eq!((max_surge(&d), max_unavailable(&d)), (0, 1));
        let d = rolling(2, json!(0), json!(5));
        assert_eq!(max_unavailable(&d), 2);
        let recreate = json!({"spec": {"replicas": 3, "strategy": {"type": "Recreate"}}});
        assert_eq!((max_surge(&recreate), max_unavailable(&recreate)), (0, 0));
    }
}
