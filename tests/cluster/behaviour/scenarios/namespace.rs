//! Namespace deletion: the namespace controller (content deleted 5 s after the DELETE, Pods
//! first; conditions while finalizers hold content; `kubernetes` taken off
//! `spec.finalizers`), NamespaceLifecycle's refusals while a namespace terminates, and the
//! service-account and root-CA controllers around it.
//!
//! Timing: the controller acts 5 s after it sees a namespace deleted, syncs again 5 s after
//! each status write, and every 8 s while finalizers hold content. A step on the real
//! cluster takes about 2.7 s to settle, so a scenario waits past each sync it needs
//! (`wait(6s)` after the DELETE, `wait(8s)` after a finalizer is taken off), and a step
//! whose change the controller reports (a finalizer taken off) comes right after such a
//! wait, well before the next sync: otherwise the real cluster may sync while that step
//! settles, where the in-memory clock does not move.

use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster::behaviour::script::{CONFIG_MAPS, GIZMOS, SECRETS, SERVICE_ACCOUNTS, Scenario};

/// Past the controller's first sync of a deleted namespace.
const FIRST_SYNC: Duration = Duration::from_secs(6);
/// Past its next sync while finalizers hold content.
const NEXT_SYNC: Duration = Duration::from_secs(8);

fn config_map(name: &str, finalizers: &[&str]) -> Value {
    let mut cm = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name}, "data": {"k": "v"},
    });
    if !finalizers.is_empty() {
        cm["metadata"]["finalizers"] = json!(finalizers);
    }
    cm
}

fn secret(name: &str, finalizers: &[&str]) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": name, "finalizers": finalizers}, "stringData": {"k": "v"},
    })
}

fn gizmo(name: &str, finalizers: &[&str]) -> Value {
    json!({
        "apiVersion": "cluster.kubegen.dev/v1", "kind": "Gizmo",
        "metadata": {"name": name, "finalizers": finalizers}, "spec": {"size": 1},
    })
}

fn pod(name: &str, restart: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": "busybox:1.36"}]},
    })
}

fn no_finalizers() -> Value {
    json!({"metadata": {"finalizers": null}})
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("namespace: an empty namespace goes 5 s after its DELETE, with its account and CA bundle")
            .delete_namespace()
            .wait(FIRST_SYNC),
        Scenario::new("namespace: ConfigMaps, Secrets, a ControllerRevision and a custom resource go with it")
            .create(config_map("a", &[]))
            .create(config_map("b", &[]))
            .create(secret("s", &[]))
            .create(json!({
                "apiVersion": "apps/v1", "kind": "ControllerRevision",
                "metadata": {"name": "r"}, "revision": 1,
            }))
            .create(gizmo("g", &[]))
            .delete_namespace()
            .wait(FIRST_SYNC),
        Scenario::new("namespace: a Deployment, its ReplicaSet and Pods go with it, Pods first")
            .create(json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web"},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
                    },
                },
            }))
            .create(config_map("c", &[]))
            .delete_namespace()
            .wait(FIRST_SYNC),
        // Pods stay Pending: the test's kubelet numbers addresses across scenarios, so a
        // recording of its Pods depends on which scenarios ran before.
        Scenario::new("namespace: its Pods go first")
            .create(pod("web", "Always"))
            .create(pod("task", "Never"))
            .create(config_map("c", &[]))
            .delete_namespace()
            .wait(FIRST_SYNC),
        Scenario::new("namespace: content with finalizers holds it terminating, the conditions say what is left")
            .create(config_map("held", &["example.com/b", "example.com/a"]))
            .create(secret("held", &["example.com/a"]))
            .create(config_map("plain", &[]))
            .delete_namespace()
            .wait(FIRST_SYNC)
            .patch(SECRETS, "held", no_finalizers())
            .wait(NEXT_SYNC)
            .patch(CONFIG_MAPS, "held", no_finalizers())
            .wait(NEXT_SYNC),
        Scenario::new("namespace: a custom resource's finalizer holds it too")
            .create(gizmo("held", &["example.com/hold"]))
            .create(gizmo("plain", &[]))
            .create(config_map("plain", &[]))
            .delete_namespace()
            .wait(FIRST_SYNC)
            .patch(GIZMOS, "held", no_finalizers())
            .wait(NEXT_SYNC),
        Scenario::new("namespace: the default ServiceAccount is made again, but not once it terminates")
            .delete(SERVICE_ACCOUNTS, "default")
            .create(config_map("held", &["example.com/hold"]))
            .delete_namespace()
            .wait(FIRST_SYNC)
            .patch(CONFIG_MAPS, "held", no_finalizers())
            .wait(NEXT_SYNC),
        // The patch that takes the finalizer off comes between two of the controller's
        // syncs on the real cluster (at about 10 s and 18 s after the DELETE).
        Scenario::new("namespace: kube-root-ca.crt is put back while it terminates, and not made again")
            .patch(
                CONFIG_MAPS,
                "kube-root-ca.crt",
                json!({"metadata": {"finalizers": ["example.com/hold"]}}),
            )
            .delete_namespace()
            .wait(FIRST_SYNC)
            .patch(
                CONFIG_MAPS,
                "kube-root-ca.crt",
                json!({"metadata": {"annotations": null}, "data": {"ca.crt": "changed", "extra": "x"}}),
            )
            .wait(Duration::from_secs(4))
            .patch(CONFIG_MAPS, "kube-root-ca.crt", no_finalizers())
            .wait(NEXT_SYNC),
        Scenario::new("namespace: other spec.finalizers are kept, sorted, and hold it until taken off")
            .finalize(&["z.example.com/b", "a.example.com/a", "kubernetes", "a.example.com/a"])
            .create(config_map("c", &[]))
            .delete_namespace()
            .wait(FIRST_SYNC)
            .finalize(&[]),
        // A namespace its spec alone holds is not synced again, so any number of steps fit.
        Scenario::new("namespace: nothing new is made in a terminating namespace")
            .finalize(&["example.com/keep", "kubernetes"])
            .delete_namespace()
            .wait(FIRST_SYNC)
            .create(config_map("new", &[]))
            .create(json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "new"}}))
            .create(gizmo("new", &[]))
            .delete_namespace()
            .finalize(&[]),
        Scenario::new("namespace: without spec.finalizers it is left alone until deleted again")
            .create(config_map("c", &[]))
            .finalize(&[])
            .delete_namespace()
            .wait(FIRST_SYNC)
            .delete_namespace(),
    ]
}
