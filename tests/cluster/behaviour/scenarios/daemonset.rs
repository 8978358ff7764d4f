//! DaemonSets on Nodes the scenario creates: a Pod per eligible Node (pinned by node
//! affinity, as there is no scheduler), node selectors and taints, rolling updates, failed
//! daemon Pods.
//!
//! Nodes are cluster-wide, so each scenario names its Nodes after itself and its
//! DaemonSets select only them (`nodeSelector` on the scenario label); the Nodes are
//! deleted at the end. A Node carries the TTL controller's annotation from the start (that
//! controller is not in memory) and no status: kube-controller-manager's node-lifecycle
//! controller taints a Node whose kubelet never reported only after a minute, longer than a
//! scenario lasts.

use kubegen::testing::PodFate;
use serde_json::{Value, json};

use crate::cluster::behaviour::script::{DAEMON_SETS, NODES, Scenario};

/// The label tying Nodes to their scenario.
const SCENARIO_LABEL: &str = "kubegen.dev/scenario";

/// Node `{ns}-<name>`, labelled for the scenario and with `labels`.
fn node(name: &str, labels: Value) -> Value {
    let mut all = json!({SCENARIO_LABEL: "{ns}"});
    for (k, v) in labels.as_object().into_iter().flatten() {
        all[k] = v.clone();
    }
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "name": format!("{{ns}}-{name}"),
            "labels": all,
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
    })
}

fn node_name(name: &str) -> String {
    format!("{{ns}}-{name}")
}

/// A DaemonSet `name` (label `app: <name>`) on the scenario's Nodes that also carry
/// `selector`.
fn daemon_set(name: &str, selector: Value) -> Value {
    let mut node_selector = json!({SCENARIO_LABEL: "{ns}"});
    for (k, v) in selector.as_object().into_iter().flatten() {
        node_selector[k] = v.clone();
    }
    json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "nodeSelector": node_selector,
                    "containers": [{"name": "c", "image": "busybox"}],
                },
            },
        },
    })
}

fn taints(taints: Value) -> Value {
    json!({"spec": {"taints": taints}})
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("daemonset: no nodes, then a pod on each of two nodes as they come")
            .create(daemon_set("agent", json!({})))
            .create(node("n1", json!({})))
            .create(node("n2", json!({})))
            .pods("app=agent", PodFate::Ready)
            .delete(NODES, &node_name("n1"))
            .delete(NODES, &node_name("n2")),
        Scenario::new(
            "daemonset: a node selector; a node losing its label keeps its pod until the set is synced",
        )
        .create(daemon_set("ssd", json!({"disk": "ssd"})))
        .create(node("n1", json!({})))
        .patch(NODES, &node_name("n1"), json!({"metadata": {"labels": {"disk": "ssd"}}}))
        .patch(NODES, &node_name("n1"), json!({"metadata": {"labels": {"disk": null}}}))
        .patch(DAEMON_SETS, "ssd", json!({"metadata": {"annotations": {"touched": "yes"}}}))
        .delete(NODES, &node_name("n1")),
        Scenario::new(
            "daemonset: a taint not tolerated keeps new pods off a node, a NoExecute one evicts at the next sync",
        )
        .create(node("n1", json!({})))
        .create(node("n2", json!({})))
        .patch(
            NODES,
            &node_name("n2"),
            taints(json!([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])),
        )
        .create(daemon_set("agent", json!({})))
        .patch(NODES, &node_name("n2"), taints(Value::Null))
        .patch(
            NODES,
            &node_name("n2"),
            taints(json!([{"key": "evict", "value": "y", "effect": "NoExecute"}])),
        )
        .patch(DAEMON_SETS, "agent", json!({"metadata": {"annotations": {"touched": "yes"}}}))
        .delete(NODES, &node_name("n1"))
        .delete(NODES, &node_name("n2")),
        // Which of two available Pods a rolling update replaces first is Go's map order
        // (random); with one of them unavailable it is that one, on both backends.
        Scenario::new(
            "daemonset: a rolling update replaces an unavailable pod at once, an available one once the last new one is Ready",
        )
        .create(node("n1", json!({})))
        .create(daemon_set("agent", json!({})))
        .pods("app=agent", PodFate::Ready)
        .create(node("n2", json!({})))
        .patch(
            DAEMON_SETS,
            "agent",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}}}}),
        )
        .pods("app=agent", PodFate::Ready)
        .pods("app=agent", PodFate::Ready)
        .delete(NODES, &node_name("n1"))
        .delete(NODES, &node_name("n2")),
        // With maxSurge an unavailable old Pod is replaced as soon as its new one exists. (An
        // available one stays beside the new one until that is Ready; which of the two the
        // status counts is the older, and the in-memory steps come within one second, where
        // creation times tie: tests/cluster/statefulset.rs shows it on a clock.)
        Scenario::new("daemonset: with maxSurge an unavailable pod is replaced as soon as its successor exists")
            .create(node("n1", json!({})))
            .create({
                let mut ds = daemon_set("surge", json!({}));
                ds["spec"]["updateStrategy"] =
                    json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}});
                ds
            })
            .patch(
                DAEMON_SETS,
                "surge",
                json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}}}}),
            )
            .pods("app=surge", PodFate::Ready)
            .delete(NODES, &node_name("n1")),
        Scenario::new("daemonset: a failed daemon pod is killed and made again")
            .create(node("n1", json!({})))
            .create(daemon_set("agent", json!({})))
            .pods("app=agent", PodFate::Failed { exit_code: 2 })
            .delete(NODES, &node_name("n1")),
    ]
}
