//! Deployments: rollouts by either strategy, scaling, pausing, history, rollback, progress
//! deadline and minReadySeconds (the Deployment and ReplicaSet controllers together).

use std::time::Duration;

use kubegen::testing::PodFate;
use serde_json::{Value, json};

use crate::cluster::behaviour::script::{DEPLOYMENTS, Scenario};

/// A Deployment `web` of `replicas` Pods labelled `app: web`, with `spec` merged in (the
/// direct tests' too).
pub fn deployment(replicas: i64, spec: Value) -> Value {
    let mut d = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
            },
        },
    });
    for (k, v) in spec.as_object().into_iter().flatten() {
        d["spec"][k] = v.clone();
    }
    d
}

/// A merge patch of the template's image.
fn image(tag: &str) -> Value {
    json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": format!("busybox:{tag}")}]}}}})
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("deployment: a Deployment of 3 makes a ReplicaSet and its Pods, Available once they are Ready")
            .create(deployment(3, json!({})))
            .pods("app=web", PodFate::Ready),
        // Scenarios with a template change run without a progress deadline: no Progressing
        // condition, whose reason right after the change depends on whether
        // kube-controller-manager saw the new ReplicaSet before its first Pod (it varies from
        // run to run: a race of its informers).
        Scenario::new("deployment: a template change rolls with maxSurge and maxUnavailable of 25%, one Pod at a time")
            .create(deployment(3, json!({"progressDeadlineSeconds": i32::MAX})))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", image("1.37"))
            .pods("app=web", PodFate::Ready)
            .pods("app=web", PodFate::Ready)
            .pods("app=web", PodFate::Ready),
        Scenario::new("deployment: Recreate scales the old ReplicaSet to 0 before the new one up")
            .create(deployment(2, json!({"strategy": {"type": "Recreate"}, "progressDeadlineSeconds": i32::MAX})))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", image("1.37"))
            .pods("app=web", PodFate::Ready),
        Scenario::new("deployment: scaled up and down, the Pods not Ready go first")
            .create(deployment(2, json!({})))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", json!({"spec": {"replicas": 4}}))
            .patch(DEPLOYMENTS, "web", json!({"spec": {"replicas": 2}}))
            .patch(DEPLOYMENTS, "web", json!({"spec": {"replicas": 0}})),
        Scenario::new("deployment: paused, a template change waits for the resume")
            .create(deployment(2, json!({})))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", json!({"spec": {"paused": true}}))
            .patch(DEPLOYMENTS, "web", image("1.37"))
            .patch(DEPLOYMENTS, "web", json!({"spec": {"paused": null}}))
            .pods("app=web", PodFate::Ready),
        Scenario::new("deployment: revisionHistoryLimit 1 keeps one old ReplicaSet over three rollouts")
            .create(deployment(1, json!({"revisionHistoryLimit": 1, "progressDeadlineSeconds": i32::MAX})))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", image("1.37"))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", image("1.35"))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", image("1.34"))
            .pods("app=web", PodFate::Ready),
        Scenario::new("deployment: Pods never Ready exceed progressDeadlineSeconds, then progress once Ready")
            .create(deployment(2, json!({"progressDeadlineSeconds": 5})))
            .wait(Duration::from_secs(7))
            .pods("app=web", PodFate::Ready),
        Scenario::new("deployment: minReadySeconds keeps Ready Pods unavailable until they have been Ready long enough")
            .create(deployment(2, json!({"minReadySeconds": 6})))
            .pods("app=web", PodFate::Ready)
            .wait(Duration::from_secs(7)),
        Scenario::new("deployment: the deprecated rollback annotation brings an earlier template back as a new revision")
            .create(deployment(1, json!({"progressDeadlineSeconds": i32::MAX})))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", image("1.37"))
            .pods("app=web", PodFate::Ready)
            .patch(DEPLOYMENTS, "web", json!({"metadata": {"annotations": {"deprecated.deployment.rollback.to": "1"}}}))
            .pods("app=web", PodFate::Ready),
    ]
}
