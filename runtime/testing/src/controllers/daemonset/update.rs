//! A DaemonSet's rolling update (`daemon/update.go` `rollingUpdate`): without surge, old
//! Pods deleted while fewer than `maxUnavailable` Nodes are unavailable (their replacement
//! made by the next sync); with `maxSurge`, a new Pod made beside the old one and the old
//! one deleted once the new one is available. Nodes are visited in name order (Go's map
//! order is random; which Node goes first is all that differs).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::nodes::should_run;
use super::pods::{Plan, sync_nodes};
use super::revisions::{is_pod_updated, template_generation};
use crate::controllers::Cx;
use crate::controllers::podutil::{is_available, is_terminating, meta};

/// `GetScaledValueFromIntOrPercent` rounding up.
fn scaled(value: &Value, total: i64) -> Result<i64, String> {
    match value {
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| format!("invalid value for IntOrString: {n}")),
        Value::String(s) => {
            let percent = s
                .strip_suffix('%')
                .and_then(|p| p.parse::<i64>().ok())
                .ok_or_else(|| {
                    "invalid value for IntOrString: invalid type: string is not a percentage"
                        .to_owned()
                })?;
            Ok((percent * total + 99) / 100)
        }
        Value::Null => Err("nil value for IntOrString".into()),
        _ => Err("invalid value for IntOrString: invalid type".into()),
    }
}

fn rolling(ds: &Value) -> Option<&Value> {
    let strategy = &ds["spec"]["updateStrategy"];
    (strategy["type"] == "RollingUpdate" && !strategy["rollingUpdate"].is_null())
        .then_some(&strategy["rollingUpdate"])
}

/// `SurgeCount`.
fn surge_count(ds: &Value, total: i64) -> Result<i64, String> {
    match rolling(ds) {
        Some(r) if !r["maxSurge"].is_null() => scaled(&r["maxSurge"], total),
        _ => Ok(0),
    }
}

/// `UnavailableCount`.
fn unavailable_count(ds: &Value, total: i64) -> Result<i64, String> {
    match rolling(ds) {
        Some(r) => scaled(&r["maxUnavailable"], total),
        None => Ok(0),
    }
}

/// `AllowsSurge`.
pub(super) fn allows_surge(ds: &Value) -> bool {
    surge_count(ds, 1).is_ok_and(|n| n > 0)
}

/// `findUpdatedPodsOnNode`: the Node's one new and one old Pod (`None` when it has more).
fn updated_pods_on_node<'p>(
    ds: &Value,
    pods: &'p [Value],
    hash: &str,
) -> Option<(Option<&'p Value>, Option<&'p Value>)> {
    let generation = template_generation(ds);
    let (mut new, mut old) = (None, None);
    for pod in pods.iter().filter(|p| !is_terminating(p)) {
        let slot = if is_pod_updated(pod, hash, generation) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(pod);
    }
    Some((new, old))
}

/// `rollingUpdate`.
pub(super) fn rolling_update(
    cx: &mut Cx<'_>,
    ds: &Value,
    nodes: &[Arc<Value>],
    mut by_node: BTreeMap<String, Vec<Value>>,
    hash: &str,
) -> Result<(), String> {
    let now = cx.clock.now();
    let min_ready = ds["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
    let available = |pod: &Value| is_available(pod, min_ready, now);
    // updatedDesiredNodeCounts
    let mut desired = 0;
    for node in nodes {
        if should_run(node, ds).0 {
            desired += 1;
            by_node.entry(meta(node, "name").to_owned()).or_default();
        }
    }
    let mut max_unavailable = unavailable_count(ds, desired).map_err(|e| {
        format!("couldn't get unavailable numbers: invalid value for MaxUnavailable: {e}")
    })?;
    let max_surge = surge_count(ds, desired).map_err(|e| {
        format!("couldn't get unavailable numbers: invalid value for MaxSurge: {e}")
    })?;
    if desired > 0 && max_unavailable == 0 && max_surge == 0 {
        max_unavailable = 1;
    }
    let node_named = |name: &str| nodes.iter().find(|n| meta(n, "name") == name);
    let mut plan = Plan::default();

    if max_surge == 0 {
        let mut unavailable = 0;
        let mut candidates = Vec::new();
        for pods in by_node.values() {
            let Some((new, old)) = updated_pods_on_node(ds, pods, hash) else {
                unavailable += 1;
                continue;
            };
            match (new, old) {
                (None, None) | (Some(_), Some(_)) => unavailable += 1,
                (Some(new), None) => {
                    if !available(new) {
                        unavailable += 1;
                    }
                }
                (None, Some(old)) => {
                    if !available(old) {
                        plan.delete.push(meta(old, "name").to_owned());
                        unavailable += 1;
                    } else if unavailable < max_unavailable {
                        candidates.push(meta(old, "name").to_owned());
                    }
                }
            }
        }
        let room = (max_unavailable - unavailable).clamp(0, candidates.len() as i64) as usize;
        plan.delete.extend(candidates.into_iter().take(room));
        return sync_nodes(cx, ds, &plan, hash).1;
    }

    let (mut should_not_run, mut candidate_nodes) = (Vec::new(), Vec::new());
    let (mut surging, mut available_count) = (0, 0);
    for (node_name, pods) in &by_node {
        let Some((new, old)) = updated_pods_on_node(ds, pods, hash) else {
            surging += 1;
            continue;
        };
        if let Some(pod) = old.or(new)
            && available(pod)
        {
            available_count += 1;
        }
        let Some(old) = old else { continue };
        let runs_here = || {
            node_named(node_name)
                .map(|n| should_run(n, ds).0)
                .ok_or_else(|| {
                    format!(
                        "couldn't get node for nodeName {node_name:?}: node {node_name:?} not found"
                    )
                })
        };
        match new {
            None if !available(old) => {
                if !runs_here()? {
                    plan.delete.push(meta(old, "name").to_owned());
                    continue;
                }
                plan.create_on.push(node_name.clone());
            }
            None => {
                if !runs_here()? {
                    should_not_run.push(meta(old, "name").to_owned());
                    continue;
                }
                if surging >= max_surge {
                    continue;
                }
                candidate_nodes.push(node_name.clone());
            }
            Some(new) => {
                if !available(new) {
                    surging += 1;
                    continue;
                }
                plan.delete.push(meta(old, "name").to_owned());
            }
        }
    }
    let deletable = (available_count - desired).clamp(0, should_not_run.len() as i64) as usize;
    plan.delete
        .extend(should_not_run.into_iter().take(deletable));
    let room = (max_surge - surging).clamp(0, candidate_nodes.len() as i64) as usize;
    plan.create_on
        .extend(candidate_nodes.into_iter().take(room));
    sync_nodes(cx, ds, &plan, hash).1
}
