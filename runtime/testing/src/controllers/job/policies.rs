//! A Job's policies: the pod failure policy (`pod_failure_policy.go`: a failed Pod fails
//! the Job or its index, is ignored, or counts) and the success policy
//! (`success_policy.go`: which succeeded indexes are enough).

use serde_json::Value;

use super::indexes::Intervals;
use super::pods::Pod;

/// What the pod failure policy makes of a failed Pod.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Verdict {
    /// The Job's failure message, when a `FailJob` rule matched.
    pub fail_job: Option<String>,
    /// Whether the failure counts towards the backoff limits (not for `Ignore`).
    pub counts: bool,
    /// The action of the rule that matched.
    pub action: Option<&'static str>,
}

/// `matchPodFailurePolicy`: the first rule that matches the failed Pod decides.
pub(super) fn match_pod_failure_policy(policy: &Value, pod: &Pod) -> Verdict {
    let counted = |action| Verdict {
        fail_job: None,
        counts: true,
        action,
    };
    for (index, rule) in policy["rules"].as_array().into_iter().flatten().enumerate() {
        let action = rule["action"].as_str().unwrap_or("");
        let matched = if rule["onExitCodes"].is_object() {
            exit_code_match(&pod.0["status"], &rule["onExitCodes"]).map(|(name, code)| {
                format!(
                    "Container {name} for pod {}/{} failed with exit code {code} matching {action} rule at index {index}",
                    pod.namespace(),
                    pod.name()
                )
            })
        } else if rule["onPodConditions"].is_array() {
            condition_match(&pod.0["status"], &rule["onPodConditions"]).map(|kind| {
                format!(
                    "Pod {}/{} has condition {kind} matching {action} rule at index {index}",
                    pod.namespace(),
                    pod.name()
                )
            })
        } else {
            None
        };
        let Some(message) = matched else {
            continue;
        };
        match action {
            "Ignore" => {
                return Verdict {
                    fail_job: None,
                    counts: false,
                    action: Some("Ignore"),
                };
            }
            "FailIndex" => return counted(Some("FailIndex")),
            "Count" => return counted(Some("Count")),
            "FailJob" => {
                return Verdict {
                    fail_job: Some(message),
                    counts: true,
                    action: Some("FailJob"),
                };
            }
            // An unknown action matches nothing (Go falls through its switch).
            _ => {}
        }
    }
    counted(None)
}

/// `matchOnExitCodes`: the first terminated container (then init container) with a
/// non-zero exit code the requirement names: its name and code.
fn exit_code_match(status: &Value, requirement: &Value) -> Option<(String, i64)> {
    let values: Vec<i64> = requirement["values"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    let operator = requirement["operator"].as_str().unwrap_or("");
    let container = requirement["containerName"].as_str();
    ["containerStatuses", "initContainerStatuses"]
        .iter()
        .flat_map(|k| status[k].as_array().into_iter().flatten())
        .find_map(|s| {
            let terminated = s["state"]["terminated"].as_object()?;
            let name = s["name"].as_str().unwrap_or("");
            if container.is_some_and(|c| c != name) {
                return None;
            }
            let code = terminated
                .get("exitCode")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let listed = values.contains(&code);
            let matches = match operator {
                "In" => listed,
                "NotIn" => !listed,
                _ => false,
            };
            (code != 0 && matches).then(|| (name.to_owned(), code))
        })
}

/// `matchOnPodConditions`: the type of the first Pod condition a pattern matches.
fn condition_match(status: &Value, patterns: &Value) -> Option<String> {
    let patterns = patterns.as_array()?;
    status["conditions"]
        .as_array()?
        .iter()
        .find(|c| {
            patterns
                .iter()
                .any(|p| c["type"] == p["type"] && c["status"] == p["status"])
        })
        .and_then(|c| c["type"].as_str().map(str::to_owned))
}

/// `matchSuccessPolicy`: the message of the first rule the succeeded indexes meet.
pub(super) fn match_success_policy(
    policy: &Value,
    completions: i64,
    succeeded: &Intervals,
) -> Option<String> {
    if policy.is_null() || succeeded.is_empty() {
        return None;
    }
    for (index, rule) in policy["rules"].as_array().into_iter().flatten().enumerate() {
        let count = rule["succeededCount"].as_i64();
        let met = match rule["succeededIndexes"].as_str() {
            Some(indexes) => {
                let required = Intervals::parse(indexes, completions);
                if required.is_empty() {
                    continue;
                }
                let contained = overlap(&required, succeeded);
                contained == required.total() || count.is_some_and(|c| contained >= c)
            }
            None => count.is_some_and(|c| succeeded.total() >= c),
        };
        if met {
            return Some(format!("Matched rules at index {index}"));
        }
    }
    None
}

/// How many of `required`'s indexes `succeeded` holds.
fn overlap(required: &Intervals, succeeded: &Intervals) -> i64 {
    let mut count = 0;
    for (a, b) in required.intervals() {
        for (c, d) in succeeded.intervals() {
            let n = (*b).min(*d) - (*a).max(*c) + 1;
            if n > 0 {
                count += n;
            }
        }
    }
    count
}
