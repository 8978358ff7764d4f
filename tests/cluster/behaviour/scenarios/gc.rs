//! The garbage collector: dependents deleted with their owners in the background or the
//! foreground, orphaned, or kept while another owner lives; references that cannot be
//! right (an owner that never existed, a wrong uid, another namespace, a kind nobody
//! serves); a Job's and a scheduled Pod's deletion.

use serde_json::{Value, json};

use crate::cluster::behaviour::script::{CLUSTER_ROLES, CONFIG_MAPS, GIZMOS, JOBS, PODS, Scenario};

/// A finalizer nobody removes but the scenario.
const HOLD: &str = "example.com/hold";

/// A reference to `name` of `kind` (a kind of the scenario's resources).
fn owner(api_version: &str, kind: &str, plural: &str, name: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": format!("{{uid:{plural}/{name}}}"),
    })
}

/// A reference to the ConfigMap `name`.
fn map(name: &str) -> Value {
    owner("v1", "ConfigMap", "configmaps", name)
}

/// `reference` as a controller reference that blocks its owner's foreground deletion.
fn controlling(mut reference: Value) -> Value {
    reference["controller"] = json!(true);
    reference["blockOwnerDeletion"] = json!(true);
    reference
}

/// `reference` with `blockOwnerDeletion` set.
fn blocking(mut reference: Value, block: bool) -> Value {
    reference["blockOwnerDeletion"] = json!(block);
    reference
}

/// A ConfigMap with owner references and finalizers.
fn config_map(name: &str, owners: Vec<Value>, finalizers: &[&str]) -> Value {
    let mut metadata = json!({"name": name});
    if !owners.is_empty() {
        metadata["ownerReferences"] = json!(owners);
    }
    if !finalizers.is_empty() {
        metadata["finalizers"] = json!(finalizers);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"k": "v"}})
}

fn plain(name: &str) -> Value {
    config_map(name, Vec::new(), &[])
}

/// A Pod owned by `owners`, bound to `node` if any.
fn pod(name: &str, owners: Vec<Value>, node: Option<&str>) -> Value {
    let mut spec = json!({
        "restartPolicy": "Never",
        "containers": [{"name": "main", "image": "busybox:1.36"}],
    });
    if let Some(node) = node {
        spec["nodeName"] = json!(node);
    }
    let mut metadata = json!({"name": name});
    if !owners.is_empty() {
        metadata["ownerReferences"] = json!(owners);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
}

fn gizmo(name: &str, owners: Vec<Value>) -> Value {
    let mut metadata = json!({"name": name});
    if !owners.is_empty() {
        metadata["ownerReferences"] = json!(owners);
    }
    json!({"apiVersion": "cluster.kubegen.dev/v1", "kind": "Gizmo", "metadata": metadata, "spec": {"size": 1}})
}

fn gizmo_ref(name: &str) -> Value {
    owner("cluster.kubegen.dev/v1", "Gizmo", "gizmos", name)
}

/// The patch letting go of a held object.
fn release() -> Value {
    json!({"metadata": {"finalizers": null}})
}

/// Owner → dependents (two levels below a Gizmo: a ConfigMap and its Pods), for each policy.
fn chain(policy: &'static str) -> Scenario {
    Scenario::new(&format!(
        "gc: a Gizmo → ConfigMap → Pods chain deleted with {policy}"
    ))
    .create(gizmo("top", Vec::new()))
    .create(config_map(
        "middle",
        vec![controlling(gizmo_ref("top"))],
        &[],
    ))
    .create(pod("leaf-a", vec![controlling(map("middle"))], None))
    .create(pod("leaf-b", vec![controlling(map("middle"))], None))
    .delete_with(GIZMOS, "top", policy)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("gc: a ConfigMap deleted in the background takes its dependents")
            .create(plain("owner"))
            .create(config_map("dep-ctrl", vec![controlling(map("owner"))], &[]))
            .create(config_map("dep-plain", vec![map("owner")], &[]))
            .delete_with(CONFIG_MAPS, "owner", "Background"),
        Scenario::new("gc: a ConfigMap deleted without a policy is deleted in the background")
            .create(plain("owner"))
            .create(config_map("dep", vec![map("owner")], &[]))
            .delete(CONFIG_MAPS, "owner"),
        Scenario::new("gc: a ConfigMap deleted in the foreground goes after its dependents")
            .create(plain("owner"))
            .create(config_map("dep-ctrl", vec![controlling(map("owner"))], &[]))
            .create(config_map("dep-plain", vec![map("owner")], &[]))
            .delete_with(CONFIG_MAPS, "owner", "Foreground"),
        Scenario::new("gc: a foreground owner waits for a blocking dependent held by a finalizer")
            .create(plain("owner"))
            .create(config_map(
                "dep-block",
                vec![blocking(map("owner"), true)],
                &[HOLD],
            ))
            .create(config_map(
                "dep-noblock",
                vec![blocking(map("owner"), false)],
                &[HOLD],
            ))
            .create(config_map("dep-plain", vec![map("owner")], &[]))
            .delete_with(CONFIG_MAPS, "owner", "Foreground")
            .patch(CONFIG_MAPS, "dep-noblock", release())
            .patch(CONFIG_MAPS, "dep-block", release()),
        Scenario::new("gc: unblocking the last blocking dependent lets the foreground owner go")
            .create(plain("owner"))
            .create(config_map("dep", vec![controlling(map("owner"))], &[HOLD]))
            .delete_with(CONFIG_MAPS, "owner", "Foreground")
            .patch(
                CONFIG_MAPS,
                "dep",
                json!({"metadata": {"ownerReferences": [blocking(map("owner"), false)]}}),
            )
            .patch(CONFIG_MAPS, "dep", release()),
        Scenario::new("gc: an orphaned ConfigMap's dependents lose their reference")
            .create(plain("owner"))
            .create(plain("other"))
            .create(config_map("dep-ctrl", vec![controlling(map("owner"))], &[]))
            .create(config_map(
                "dep-two",
                vec![map("owner"), controlling(map("other"))],
                &[],
            ))
            .create(config_map("dep-fin", vec![map("owner")], &[HOLD]))
            .delete_with(CONFIG_MAPS, "owner", "Orphan")
            .patch(CONFIG_MAPS, "dep-fin", release()),
        Scenario::new("gc: a terminating owner deleted again with another policy")
            .create(config_map("owner", Vec::new(), &[HOLD]))
            .create(config_map("owner2", Vec::new(), &[HOLD]))
            .create(config_map("dep", vec![controlling(map("owner"))], &[]))
            .create(config_map("dep2", vec![controlling(map("owner2"))], &[]))
            .delete_with(CONFIG_MAPS, "owner", "Background")
            .delete_with(CONFIG_MAPS, "owner2", "Background")
            .delete_with(CONFIG_MAPS, "owner", "Orphan")
            .delete_with(CONFIG_MAPS, "owner2", "Foreground")
            .patch(CONFIG_MAPS, "owner", release())
            .patch(CONFIG_MAPS, "owner2", release()),
        chain("Background"),
        chain("Foreground"),
        chain("Orphan"),
        Scenario::new(
            "gc: a dependent held by a finalizer is left terminating by a background delete",
        )
        .create(plain("top"))
        .create(config_map("middle", vec![controlling(map("top"))], &[]))
        .create(config_map(
            "leaf",
            vec![controlling(map("middle"))],
            &[HOLD],
        ))
        .delete_with(CONFIG_MAPS, "top", "Background")
        .patch(CONFIG_MAPS, "leaf", release()),
        Scenario::new("gc: a Job deleted without a policy orphans its Pods, with a warning")
            .create(json!({
                "apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "job"},
                "spec": {
                    // Nobody in the cluster runs it: the scenario makes its Pods.
                    "managedBy": "example.com/elsewhere",
                    "template": {"spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "main", "image": "busybox:1.36"}],
                    }},
                },
            }))
            .create(pod(
                "job-a",
                vec![controlling(owner("batch/v1", "Job", "jobs", "job"))],
                None,
            ))
            .create(pod(
                "job-b",
                vec![controlling(owner("batch/v1", "Job", "jobs", "job"))],
                None,
            ))
            .delete(JOBS, "job"),
        Scenario::new("gc: a dependent of two owners loses the reference to the one deleted")
            .create(plain("owner-a"))
            .create(plain("owner-b"))
            .create(plain("owner-c"))
            .create(config_map(
                "dep-ab",
                vec![controlling(map("owner-a")), map("owner-b")],
                &[],
            ))
            .create(config_map(
                "dep-cb",
                vec![controlling(map("owner-c")), blocking(map("owner-b"), true)],
                &[],
            ))
            .delete_with(CONFIG_MAPS, "owner-a", "Background")
            .delete_with(CONFIG_MAPS, "owner-c", "Foreground")
            .delete_with(CONFIG_MAPS, "owner-b", "Background"),
        Scenario::new("gc: a dependent of an owner that never existed is deleted")
            .create(plain("owner"))
            .create(config_map("dep-good", vec![map("owner")], &[]))
            .create(config_map(
                "dep-never",
                vec![json!({
                    "apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
                    "uid": "3f1b6a2e-0d5c-4b8e-9a7f-5c2d1e0f4a6b",
                })],
                &[],
            )),
        Scenario::new("gc: a dependent naming its owner with a wrong uid, name or kind is deleted")
            .create(plain("owner"))
            .create(config_map(
                "dep-wrong-uid",
                vec![json!({
                    "apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                    "uid": "7a4e2c1d-9b3f-4e6a-8d2c-1f0e9b8a7c6d",
                })],
                &[],
            ))
            .create(config_map(
                "dep-wrong-name",
                vec![json!({
                    "apiVersion": "v1", "kind": "ConfigMap", "name": "not-the-owner",
                    "uid": "{uid:configmaps/owner}",
                })],
                &[],
            ))
            .create(config_map(
                "dep-wrong-kind",
                vec![json!({
                    "apiVersion": "v1", "kind": "Secret", "name": "owner",
                    "uid": "{uid:configmaps/owner}",
                })],
                &[],
            ))
            .create(config_map("dep-good", vec![map("owner")], &[])),
        Scenario::new("gc: a ClusterRole owns a namespaced ConfigMap")
            .create(json!({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "{ns}-owner"}, "rules": [],
            }))
            .create(config_map(
                "dep",
                vec![controlling(owner(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRole",
                    "clusterroles",
                    "{ns}-owner",
                ))],
                &[],
            ))
            .create(config_map(
                "dep-of-missing",
                vec![json!({
                    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                    "name": "{ns}-missing", "uid": "0c9e8d7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f",
                })],
                &[],
            ))
            .delete_with(CLUSTER_ROLES, "{ns}-owner", "Background"),
        Scenario::new("gc: a reference to an owner in another namespace")
            .create(plain("local"))
            .create(config_map(
                "dep-cross",
                vec![owner(
                    "v1",
                    "ConfigMap",
                    "configmaps/default",
                    "kube-root-ca.crt",
                )],
                &[],
            ))
            .create(config_map(
                "dep-cross-and-local",
                vec![
                    owner("v1", "ConfigMap", "configmaps/default", "kube-root-ca.crt"),
                    map("local"),
                ],
                &[],
            )),
        Scenario::new("gc: an owner of a kind nobody serves is never resolved")
            .create(config_map(
                "dep-unknown-group",
                vec![json!({
                    "apiVersion": "example.com/v1", "kind": "Widget", "name": "w",
                    "uid": "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716",
                })],
                &[],
            ))
            .create(config_map(
                "dep-unserved-version",
                vec![json!({
                    "apiVersion": "apps/v1beta1", "kind": "Deployment", "name": "d",
                    "uid": "6f5e4d3c-2b1a-4098-9e8d-7c6b5a493827",
                })],
                &[],
            ))
            .create(config_map(
                "dep-mixed",
                vec![
                    json!({
                        "apiVersion": "example.com/v1", "kind": "Widget", "name": "w",
                        "uid": "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716",
                    }),
                    json!({
                        "apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
                        "uid": "7081f6e5-d4c3-4b2a-9180-f7e6d5c4b3a2",
                    }),
                ],
                &[],
            )),
        Scenario::new("gc: Gizmos lose references by a merge patch")
            .create(plain("owner-gone"))
            .create(plain("owner-keep"))
            .create(plain("owner-orphan"))
            .create(gizmo("two", vec![map("owner-gone"), map("owner-keep")]))
            .create(gizmo("orphan", vec![controlling(map("owner-orphan"))]))
            .delete_with(CONFIG_MAPS, "owner-gone", "Background")
            .delete_with(CONFIG_MAPS, "owner-orphan", "Orphan"),
        Scenario::new("gc: a scheduled Pod deleted by the collector keeps its owner waiting")
            .create(plain("owner"))
            .create(pod(
                "bound",
                vec![controlling(map("owner"))],
                Some("{ns}-node"),
            ))
            .create(pod("unbound", vec![controlling(map("owner"))], None))
            .create(pod("lone", Vec::new(), Some("{ns}-node")))
            .delete_with(CONFIG_MAPS, "owner", "Foreground")
            // Already terminating: a DELETE with no shorter grace period changes nothing.
            .delete(PODS, "bound")
            .delete(PODS, "lone"),
    ]
}
