//! What every namespace gets, and the test's kubelet.

use kubegen::testing::PodFate;
use serde_json::json;

use crate::cluster::behaviour::script::{CONFIG_MAPS, PODS, SERVICE_ACCOUNTS, Scenario};

fn pod(name: &str, restart: &str) -> serde_json::Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": "busybox:1.36"}]},
    })
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "basics: a namespace gets its default service account, made again when deleted",
        )
        .delete(SERVICE_ACCOUNTS, "default"),
        Scenario::new("basics: kube-root-ca.crt is put back when changed or deleted")
            .patch(
                CONFIG_MAPS,
                "kube-root-ca.crt",
                json!({"data": {"ca.crt": "changed"}, "metadata": {"annotations": null}}),
            )
            .delete(CONFIG_MAPS, "kube-root-ca.crt"),
        Scenario::new("basics: the kubelet runs pods to their fate")
            .create(pod("web", "Always"))
            .create(pod("task", "Never"))
            .create(pod("broken", "Never"))
            .pods("app=web", PodFate::Ready)
            .pods("app=task", PodFate::Succeeded)
            .pods("app=broken", PodFate::Failed { exit_code: 3 })
            .delete(PODS, "web"),
    ]
}
