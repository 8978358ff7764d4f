//! Bare ReplicaSets: the Pods they claim, create, replace and delete.

use kubegen::testing::PodFate;
use serde_json::{Value, json};

use crate::cluster::behaviour::script::{PODS, REPLICA_SETS, Scenario};

/// A ReplicaSet `cache` of `replicas` Pods labelled `app: cache`.
fn replica_set(replicas: i64) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "cache"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "cache"}},
            "template": {
                "metadata": {"labels": {"app": "cache"}},
                "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
            },
        },
    })
}

/// A bare Pod `stray` labelled `app: cache`.
fn stray() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "stray", "labels": {"app": "cache"}},
        "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
    })
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("replicaset: a ReplicaSet adopts a matching orphan Pod and releases it when its labels stop matching")
            .create(stray())
            .create(replica_set(2))
            .pods("app=cache", PodFate::Ready)
            .patch(PODS, "stray", json!({"metadata": {"labels": {"app": "other"}}})),
        Scenario::new("replicaset: a deleted Pod is replaced")
            .create(stray())
            .create(replica_set(2))
            .pods("app=cache", PodFate::Ready)
            .delete(PODS, "stray"),
        Scenario::new("replicaset: scaled down, Pending Pods go before Ready ones")
            .create(replica_set(2))
            .pods("app=cache", PodFate::Ready)
            .patch(REPLICA_SETS, "cache", json!({"spec": {"replicas": 4}}))
            .patch(REPLICA_SETS, "cache", json!({"spec": {"replicas": 2}})),
        Scenario::new("replicaset: a Failed Pod is replaced and kept")
            .create(replica_set(1))
            .pods("app=cache", PodFate::Failed { exit_code: 1 })
            .pods("app=cache", PodFate::Ready),
    ]
}
