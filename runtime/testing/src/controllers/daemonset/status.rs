//! A DaemonSet's status (`updateDaemonSetStatus`, `storeDaemonSetStatus`): per Node that
//! should run a daemon, whether it has one and whether the oldest is Ready, available and
//! updated; Pods on Nodes that should not run one are misscheduled.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::nodes::should_run;
use super::pods::oldest_first;
use super::revisions::{is_pod_updated, template_generation};
use crate::controllers::Cx;
use crate::controllers::api::DAEMON_SETS;
use crate::controllers::podutil::{is_available, is_ready, meta};

/// The counts, in `DaemonSetStatus` order.
const FIELDS: [&str; 7] = [
    "desiredNumberScheduled",
    "currentNumberScheduled",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
];
/// The counts Go leaves out when they are 0.
const OMITTED_WHEN_ZERO: [&str; 3] = [
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
];

/// Computes and writes the status; the delay after which it should be looked at again
/// (`minReadySeconds` with Pods Ready but not yet available).
pub(super) fn update(
    cx: &mut Cx<'_>,
    ds: &Value,
    nodes: &[Arc<Value>],
    mut by_node: BTreeMap<String, Vec<Value>>,
    hash: &str,
    observe_generation: bool,
) -> Result<Option<Duration>, String> {
    let now = cx.clock.now();
    let min_ready = ds["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
    let generation = template_generation(ds);
    let mut counts = [0i64; 7];
    let [desired, current, misscheduled, ready, updated, available, _] = &mut counts;
    for node in nodes {
        let (run, _) = should_run(node, ds);
        let pods = by_node
            .get_mut(meta(node, "name"))
            .filter(|p| !p.is_empty());
        match (run, pods) {
            (true, None) => *desired += 1,
            (true, Some(pods)) => {
                *desired += 1;
                *current += 1;
                oldest_first(pods);
                let pod = &pods[0];
                if is_ready(pod) {
                    *ready += 1;
                    if is_available(pod, min_ready, now) {
                        *available += 1;
                    }
                }
                if is_pod_updated(pod, hash, generation) {
                    *updated += 1;
                }
            }
            (false, Some(_)) => *misscheduled += 1,
            (false, None) => {}
        }
    }
    counts[6] = counts[0] - counts[5];
    store(cx, ds, &counts, observe_generation)?;
    let (ready, available) = (counts[3], counts[5]);
    Ok((min_ready > 0 && ready != available).then(|| Duration::from_secs(min_ready as u64)))
}

/// `storeDaemonSetStatus`: written unless every count is recorded already and the
/// generation observed; one retry on the set read anew.
fn store(
    cx: &mut Cx<'_>,
    ds: &Value,
    counts: &[i64; 7],
    observe_generation: bool,
) -> Result<(), String> {
    let status = &ds["status"];
    let generation = ds["metadata"]["generation"].as_i64().unwrap_or(0);
    let recorded = FIELDS
        .iter()
        .zip(counts)
        .all(|(field, n)| status[*field].as_i64().unwrap_or(0) == *n);
    if recorded && status["observedGeneration"].as_i64().unwrap_or(0) >= generation {
        return Ok(());
    }
    let (namespace, name) = (meta(ds, "namespace"), meta(ds, "name"));
    let mut body = ds.clone();
    let mut last = String::new();
    // StatusUpdateRetries: one retry.
    for attempt in 0..2 {
        if !body["status"].is_object() {
            body["status"] = json!({});
        }
        let status = &mut body["status"];
        if observe_generation {
            status["observedGeneration"] = json!(generation);
        }
        for (field, n) in FIELDS.iter().zip(counts) {
            if *n == 0 && OMITTED_WHEN_ZERO.contains(field) {
                if let Some(s) = status.as_object_mut() {
                    s.remove(*field);
                }
            } else {
                status[*field] = json!(n);
            }
        }
        if status["observedGeneration"] == 0
            && let Some(s) = status.as_object_mut()
        {
            s.remove("observedGeneration");
        }
        match cx.api.update_status(DAEMON_SETS, namespace, name, &body) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.message,
        }
        if attempt == 0 {
            body = cx
                .api
                .get_owned(DAEMON_SETS, namespace, name)
                .ok_or_else(|| format!("daemonsets.apps {name:?} not found"))?;
        }
    }
    Err(format!(
        "error storing status for daemon set {name}: {last}"
    ))
}
