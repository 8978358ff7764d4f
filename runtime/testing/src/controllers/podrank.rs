//! Which Pods a ReplicaSet removes first when it has too many
//! (`controller.ActivePodsWithRanks`): unscheduled before scheduled, Pending before Unknown
//! before Running, not Ready before Ready, a lower `pod-deletion-cost` first, Pods doubled up
//! on a node with their relatives first, then the most recently Ready, the most restarted,
//! the newest — times compared on a logarithmic scale, ties broken by uid.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::Value;

use super::podutil::{is_ready, meta, phase};

const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// `podPhaseToOrdinal` (phases it does not name count as Pending).
fn phase_ordinal(pod: &Value) -> u8 {
    match phase(pod) {
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    }
}

fn node(pod: &Value) -> &str {
    pod["spec"]["nodeName"].as_str().unwrap_or("")
}

/// `GetDeletionCostFromPodAnnotations`: the annotation as an int32, 0 when missing or not
/// one.
fn deletion_cost(pod: &Value) -> i32 {
    pod["metadata"]["annotations"][DELETION_COST]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// `podReadyTime`: when a Ready Pod became Ready.
fn ready_time(pod: &Value) -> Option<Timestamp> {
    if !is_ready(pod) {
        return None;
    }
    pod["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Ready" && c["status"] == "True")?["lastTransitionTime"]
        .as_str()?
        .parse()
        .ok()
}

fn created(pod: &Value) -> Option<Timestamp> {
    meta(pod, "creationTimestamp").parse().ok()
}

/// `maxContainerRestarts`: the most restarts of a container, and of a sidecar (an init
/// container that restarts always).
fn max_restarts(pod: &Value) -> (i64, i64) {
    let restarts = |statuses: &Value, only: &dyn Fn(&str) -> bool| {
        statuses
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| only(s["name"].as_str().unwrap_or("")))
            .map(|s| s["restartCount"].as_i64().unwrap_or(0))
            .max()
            .unwrap_or(0)
    };
    let sidecars: Vec<&str> = pod["spec"]["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["restartPolicy"] == "Always")
        .filter_map(|c| c["name"].as_str())
        .collect();
    (
        restarts(&pod["status"]["containerStatuses"], &|_| true),
        restarts(&pod["status"]["initContainerStatuses"], &|n| {
            sidecars.contains(&n)
        }),
    )
}

/// `afterOrZero`: whether `a` is after `b`, a missing time counting as after any.
fn after_or_zero(a: Option<Timestamp>, b: Option<Timestamp>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a > b,
        (a, _) => a.is_none(),
    }
}

/// `logarithmicRankDiff`: the difference of the base-2 logarithms of the two ages.
fn log_rank_diff(a: Timestamp, b: Timestamp, now: Timestamp) -> i64 {
    let rank = |t: Timestamp| {
        let age = now.duration_since(t).as_nanos();
        if age > 0 {
            (age as f64).log2() as i64
        } else {
            -1
        }
    };
    rank(a) - rank(b)
}

/// Whether `i` (rank `ri`) is to go before `j` (rank `rj`) (`ActivePodsWithRanks.Less`).
fn less(i: &Value, ri: usize, j: &Value, rj: usize, now: Timestamp) -> bool {
    if node(i) != node(j) && (node(i).is_empty() || node(j).is_empty()) {
        return node(i).is_empty();
    }
    if phase_ordinal(i) != phase_ordinal(j) {
        return phase_ordinal(i) < phase_ordinal(j);
    }
    if is_ready(i) != is_ready(j) {
        return !is_ready(i);
    }
    if deletion_cost(i) != deletion_cost(j) {
        return deletion_cost(i) < deletion_cost(j);
    }
    if ri != rj {
        return ri > rj;
    }
    let by_age = |a: Option<Timestamp>, b: Option<Timestamp>| match (a, b) {
        (Some(a), Some(b)) => match log_rank_diff(a, b, now) {
            0 => meta(i, "uid") < meta(j, "uid"),
            diff => diff < 0,
        },
        _ => after_or_zero(a, b),
    };
    if is_ready(i) && is_ready(j) {
        let (a, b) = (ready_time(i), ready_time(j));
        if a != b {
            return by_age(a, b);
        }
    }
    let (ri, rj) = (max_restarts(i), max_restarts(j));
    if ri != rj {
        return if ri.0 != rj.0 {
            ri.0 > rj.0
        } else {
            ri.1 > rj.1
        };
    }
    let (a, b) = (created(i), created(j));
    if a != b {
        return by_age(a, b);
    }
    false
}

/// `getPodsToDelete`: the `count` Pods of `pods` to delete first, ranked by how many active
/// `related` Pods (of the ReplicaSets sharing the controller) share their node.
pub(crate) fn pods_to_delete<P: Borrow<Value>>(
    mut pods: Vec<P>,
    related: &[impl Borrow<Value>],
    count: usize,
    now: Timestamp,
) -> Vec<P> {
    if count < pods.len() {
        let mut on_node: HashMap<&str, usize> = HashMap::new();
        for p in related.iter().map(Borrow::borrow).filter(|p| is_active(p)) {
            *on_node.entry(node(p)).or_default() += 1;
        }
        let mut ranked: Vec<(P, usize)> = pods
            .into_iter()
            .map(|p| {
                let rank = on_node.get(node(p.borrow())).copied().unwrap_or(0);
                (p, rank)
            })
            .collect();
        ranked.sort_by(|(a, ra), (b, rb)| {
            let (a, b) = (a.borrow(), b.borrow());
            if less(a, *ra, b, *rb, now) {
                Ordering::Less
            } else if less(b, *rb, a, *ra, now) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
        pods = ranked.into_iter().map(|(p, _)| p).collect();
    }
    pods.truncate(count);
    pods
}

/// `IsPodActive`: not finished and not being deleted.
pub(crate) fn is_active(pod: &Value) -> bool {
    !matches!(phase(pod), "Succeeded" | "Failed")
        && !pod["metadata"]["deletionTimestamp"].is_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(name: &str, phase: &str, ready: Option<&str>, created: &str) -> Value {
        let mut p = json!({"metadata": {"name": name, "uid": name, "creationTimestamp": created},
            "spec": {}, "status": {"phase": phase}});
        if let Some(since) = ready {
            p["status"]["conditions"] =
                json!([{"type": "Ready", "status": "True", "lastTransitionTime": since}]);
        }
        p
    }

    #[test]
    fn pending_then_not_ready_then_the_most_recently_ready_go_first() {
        let now: Timestamp = "2026-01-01T01:00:00Z".parse().unwrap();
        let pods = vec![
            pod(
                "old-ready",
                "Running",
                Some("2026-01-01T00:00:00Z"),
                "2026-01-01T00:00:00Z",
            ),
            pod(
                "new-ready",
                "Running",
                Some("2026-01-01T00:59:00Z"),
                "2026-01-01T00:00:00Z",
            ),
            pod("running", "Running", None, "2026-01-01T00:00:00Z"),
            pod("pending", "Pending", None, "2026-01-01T00:00:00Z"),
        ];
        let names = |ps: Vec<Value>| -> Vec<String> {
            ps.iter().map(|p| meta(p, "name").to_owned()).collect()
        };
        assert_eq!(
            names(pods_to_delete(pods.clone(), &[] as &[Value], 3, now)),
            ["pending", "running", "new-ready"]
        );
        assert_eq!(
            names(pods_to_delete(pods, &[] as &[Value], 4, now)).len(),
            4
        );
    }
}
