//! StatefulSets: ordered and parallel Pods, claims from templates and their retention
//! policy, scaling, rolling updates with a partition, OnDelete.
//!
//! No scenario deletes a StatefulSet or scales one down under `whenScaled: Delete`: what
//! follows is the garbage collector's work, not the StatefulSet controller's. Nor does one
//! change the claims' retention policy: kube-controller-manager's claim informer lags its own
//! writes, so a sync right after it gave a claim its owner references reads the old claim and
//! its update conflicts (a Warning `FailedUpdate` that comes and goes with timing); the
//! policy's references are tested directly (`tests/cluster/statefulset.rs`).

use kubegen::testing::PodFate;
use serde_json::{Value, json};

use crate::cluster::behaviour::script::{PODS, STATEFUL_SETS, Scenario};

/// A StatefulSet `name` of `replicas` Pods (label `app: <name>`), with `policy`
/// (`OrderedReady` or `Parallel`) and a `data` claim template when `claims`.
fn set(name: &str, replicas: i64, policy: &str, claims: bool) -> Value {
    let mut set = json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name, "annotations": {"note": "hello"}},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "podManagementPolicy": policy,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    });
    if claims {
        set["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] =
            json!([{"name": "data", "mountPath": "/data"}]);
        set["spec"]["volumeClaimTemplates"] = json!([{
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }]);
    }
    set
}

fn image(image: &str) -> Value {
    json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}})
}

fn with(mut set: Value, path: &str, value: Value) -> Value {
    set["spec"][path] = value;
    set
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "statefulset: OrderedReady makes each pod and its claim once the one before is Ready, scales down from the highest ordinal keeping the claims",
        )
        .create(set("web", 3, "OrderedReady", true))
        .pods("app=web", PodFate::Ready)
        .pods("app=web", PodFate::Ready)
        .pods("app=web", PodFate::Ready)
        .patch(STATEFUL_SETS, "web", json!({"spec": {"replicas": 1}}))
        .patch(STATEFUL_SETS, "web", json!({"spec": {"replicas": 2}}))
        .pods("app=web", PodFate::Ready),
        Scenario::new(
            "statefulset: Parallel makes every pod at once, scales down at once, replaces a failed pod",
        )
        .create(set("par", 3, "Parallel", false))
        .patch(STATEFUL_SETS, "par", json!({"spec": {"replicas": 1}}))
        .pods("app=par", PodFate::Failed { exit_code: 1 })
        .patch(STATEFUL_SETS, "par", json!({"spec": {"replicas": 2}}))
        .pods("app=par", PodFate::Ready),
        Scenario::new(
            "statefulset: a template update rolls from the highest ordinal one Ready pod at a time, a rollback renumbers the old revision",
        )
        .create(set("roll", 2, "OrderedReady", false))
        .pods("app=roll", PodFate::Ready)
        .pods("app=roll", PodFate::Ready)
        .patch(STATEFUL_SETS, "roll", image("nginx:2"))
        .pods("app=roll", PodFate::Ready)
        .pods("app=roll", PodFate::Ready)
        .patch(STATEFUL_SETS, "roll", image("nginx"))
        .pods("app=roll", PodFate::Ready)
        .pods("app=roll", PodFate::Ready),
        Scenario::new(
            "statefulset: a partition keeps the lower ordinals at the current revision, old revisions go past the history limit",
        )
        .create(with(set("part", 3, "Parallel", false), "revisionHistoryLimit", json!(0)))
        .pods("app=part", PodFate::Ready)
        .patch(
            STATEFUL_SETS,
            "part",
            json!({"spec": {
                "updateStrategy": {"rollingUpdate": {"partition": 2}},
                "template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}},
            }}),
        )
        .pods("app=part", PodFate::Ready)
        .delete(PODS, "part-0")
        .pods("app=part", PodFate::Ready)
        .patch(
            STATEFUL_SETS,
            "part",
            json!({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}}),
        )
        .pods("app=part", PodFate::Ready)
        .pods("app=part", PodFate::Ready),
        Scenario::new(
            "statefulset: OnDelete replaces only the pods deleted, the current revision stays",
        )
        .create(with(set("od", 2, "Parallel", false), "updateStrategy", json!({"type": "OnDelete"})))
        .pods("app=od", PodFate::Ready)
        .patch(STATEFUL_SETS, "od", image("nginx:2"))
        .delete(PODS, "od-1")
        .pods("app=od", PodFate::Ready),
        Scenario::new(
            "statefulset: an orphan pod named after the set is adopted and replaced, another left alone",
        )
        .create(orphan("adopt-1"))
        .create(orphan("stranger"))
        .create(set("adopt", 2, "Parallel", false)),
    ]
}

fn orphan(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "adopt"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    })
}
