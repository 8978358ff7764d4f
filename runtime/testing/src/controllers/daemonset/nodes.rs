//! Which Nodes a DaemonSet runs on (`NodeShouldRunDaemonPod`, `daemon/util`): the Pod it
//! would make there — its template with the daemon tolerations added — must fit the Node's
//! name, the template's node selector and required node affinity, and tolerate the Node's
//! `NoSchedule` and `NoExecute` taints. An untolerated `NoExecute` taint also evicts a Pod
//! already there. Node conditions are not read (the node-lifecycle controller turns them
//! into taints).

use serde_json::{Value, json};

use crate::controllers::podutil::meta;

/// The tolerations every daemon Pod gets (`AddOrUpdateDaemonPodTolerations`), in order;
/// the last only with `hostNetwork`.
const DAEMON_TOLERATIONS: [(&str, &str); 7] = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ("node.kubernetes.io/network-unavailable", "NoSchedule"),
];

/// `AddOrUpdateDaemonPodTolerations` on a Pod spec: each daemon toleration appended, or put
/// in place of one with the same key, operator, value and effect.
pub(super) fn add_daemon_tolerations(spec: &mut Value) {
    let host_network = spec["hostNetwork"] == true;
    let count = if host_network { 7 } else { 6 };
    for (key, effect) in &DAEMON_TOLERATIONS[..count] {
        let toleration = json!({"key": key, "operator": "Exists", "effect": effect});
        let mut tolerations = spec["tolerations"].as_array().cloned().unwrap_or_default();
        let same = |t: &Value| {
            t["key"] == *key
                && t["operator"] == "Exists"
                && t["effect"] == *effect
                && t["value"].as_str().unwrap_or("").is_empty()
        };
        match tolerations.iter().position(same) {
            Some(i) if tolerations[i] == toleration => continue,
            Some(i) => tolerations[i] = toleration,
            None => tolerations.push(toleration),
        }
        spec["tolerations"] = Value::Array(tolerations);
    }
}

/// Whether a toleration tolerates a taint (`ToleratesTaint`, without the comparison
/// operators of an alpha gate).
fn tolerates(toleration: &Value, taint: &Value) -> bool {
    let field = |v: &Value, k: &str| v[k].as_str().unwrap_or("").to_owned();
    let effect = field(toleration, "effect");
    if !effect.is_empty() && effect != field(taint, "effect") {
        return false;
    }
    let key = field(toleration, "key");
    if !key.is_empty() && key != field(taint, "key") {
        return false;
    }
    match toleration["operator"].as_str().unwrap_or("") {
        "" | "Equal" => field(toleration, "value") == field(taint, "value"),
        "Exists" => true,
        _ => false,
    }
}

/// Whether a Node's taints with one of `effects` include one no toleration tolerates.
fn untolerated(node: &Value, tolerations: &[Value], effects: &[&str]) -> bool {
    node["spec"]["taints"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| effects.contains(&t["effect"].as_str().unwrap_or("")))
        .any(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// One node selector requirement against a Node's labels, or (`fields`) its name.
fn requirement_matches(requirement: &Value, node: &Value, fields: bool) -> bool {
    let key = requirement["key"].as_str().unwrap_or("");
    let values: Vec<&str> = requirement["values"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let value = if fields {
        // Only metadata.name is a field a node selector may name, with one value.
        if key != "metadata.name" || values.len() != 1 {
            return false;
        }
        Some(meta(node, "name"))
    } else {
        node["metadata"]["labels"][key].as_str()
    };
    let integer = |v: Option<&str>| v.and_then(|v| v.parse::<i64>().ok());
    match requirement["operator"].as_str().unwrap_or("") {
        "In" => !values.is_empty() && value.is_some_and(|v| values.contains(&v)),
        "NotIn" => !values.is_empty() && value.is_none_or(|v| !values.contains(&v)),
        "Exists" if !fields => values.is_empty() && value.is_some(),
        "DoesNotExist" if !fields => values.is_empty() && value.is_none(),
        "Gt" | "Lt" if !fields && values.len() == 1 => {
            match (integer(value), values[0].parse::<i64>().ok()) {
                (Some(v), Some(bound)) if requirement["operator"] == "Gt" => v > bound,
                (Some(v), Some(bound)) => v < bound,
                _ => false,
            }
        }
        _ => false,
    }
}

/// `RequiredNodeAffinity.Match`: the node selector's labels, and one of the required
/// affinity's terms (an empty term matches nothing).
fn fits_node_affinity(spec: &Value, node: &Value) -> bool {
    let labels = &node["metadata"]["labels"];
    let selector_fits = spec["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| labels[k] == *v);
    if !selector_fits {
        return false;
    }
    let required =
        &spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    if required.is_null() {
        return true;
    }
    required["nodeSelectorTerms"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|term| {
            let expressions = term["matchExpressions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let fields = term["matchFields"].as_array().cloned().unwrap_or_default();
            (!expressions.is_empty() || !fields.is_empty())
                && expressions
                    .iter()
                    .all(|r| requirement_matches(r, node, false))
                && fields.iter().all(|r| requirement_matches(r, node, true))
        })
}

/// `NodeShouldRunDaemonPod`: whether the DaemonSet should run a Pod on the Node, and
/// whether a Pod already there may stay.
pub(super) fn should_run(node: &Value, daemon_set: &Value) -> (bool, bool) {
    let mut spec = daemon_set["spec"]["template"]["spec"].clone();
    let node_name = meta(node, "name");
    match spec["nodeName"].as_str() {
        Some(name) if !name.is_empty() && name != node_name => return (false, false),
        _ => {}
    }
    add_daemon_tolerations(&mut spec);
    if !fits_node_affinity(&spec, node) {
        return (false, false);
    }
    let tolerations = spec["tolerations"].as_array().cloned().unwrap_or_default();
    if untolerated(node, &tolerations, &["NoSchedule", "NoExecute"]) {
        return (false, !untolerated(node, &tolerations, &["NoExecute"]));
    }
    (true, true)
}

/// `GetTargetNodeName`: the Node a daemon Pod is for — its `nodeName`, or the name its
/// required node affinity's `matchFields` pins it to.
pub(super) fn target_node(pod: &Value) -> Option<String> {
    if let Some(name) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        return Some(name.to_owned());
    }
    let terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"]
        .as_array()?;
    for term in terms {
        for requirement in term["matchFields"].as_array().into_iter().flatten() {
            if requirement["key"] == "metadata.name" && requirement["operator"] == "In" {
                let values = requirement["values"].as_array()?;
                return match values.as_slice() {
                    [one] => one.as_str().map(str::to_owned),
                    _ => None,
                };
            }
        }
    }
    None
}

/// `ReplaceDaemonSetPodNodeNameNodeAffinity`: the Pod's required node affinity pinned to
/// the Node by name (replacing any required terms; the rest of the affinity kept).
pub(super) fn pin_to_node(spec: &mut Value, node_name: &str) {
    let terms = json!([{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}
    ]}]);
    if !spec["affinity"].is_object() {
        spec["affinity"] = json!({});
    }
    if !spec["affinity"]["nodeAffinity"].is_object() {
        spec["affinity"]["nodeAffinity"] = json!({});
    }
    let required =
        &mut spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    if !required.is_object() {
        *required = json!({});
    }
    required["nodeSelectorTerms"] = terms;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemon_set(spec: Value) -> Value {
        json!({"spec": {"template": {"spec": spec}}})
    }

    #[test]
    fn taints_and_selectors_decide_where_daemons_run() {
        let node = |labels: Value, taints: Value| json!({"metadata": {"name": "n1", "labels": labels}, "spec": {"taints": taints}});
        let plain = daemon_set(json!({"containers": []}));
        assert_eq!(
            should_run(&node(json!({}), json!([])), &plain),
            (true, true)
        );
        let no_schedule = json!([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]);
        assert_eq!(
            should_run(&node(json!({}), no_schedule), &plain),
            (false, true)
        );
        let no_execute = json!([{"key": "evict", "value": "y", "effect": "NoExecute"}]);
        assert_eq!(
            should_run(&node(json!({}), no_execute), &plain),
            (false, false)
        );
        let cordoned = json!([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]);
        assert_eq!(should_run(&node(json!({}), cordoned), &plain), (true, true));
        let unreachable =
            json!([{"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}]);
        assert_eq!(
            should_run(&node(json!({}), unreachable), &plain),
            (false, true)
        );
        let ssd = daemon_set(json!({"nodeSelector": {"disk": "ssd"}}));
        assert_eq!(
            should_run(&node(json!({}), json!([])), &ssd),
            (false, false)
        );
        assert_eq!(
            should_run(&node(json!({"disk": "ssd"}), json!([])), &ssd),
            (true, true)
        );
        let tolerant = daemon_set(
            json!({"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "x"}]}),
        );
        let tainted = node(
            json!({}),
            json!([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
        );
        assert_eq!(should_run(&tainted, &tolerant), (true, true));
    }

    #[test]
    fn a_daemon_pod_is_pinned_by_match_fields() {
        let mut spec = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}}}});
        pin_to_node(&mut spec, "n2");
        let pod = json!({"spec": spec});
        assert_eq!(target_node(&pod).as_deref(), Some("n2"));
        let mut spec = json!({});
        add_daemon_tolerations(&mut spec);
        assert_eq!(spec["tolerations"].as_array().map(Vec::len), Some(6));
        add_daemon_tolerations(&mut spec);
        assert_eq!(spec["tolerations"].as_array().map(Vec::len), Some(6));
    }
}
