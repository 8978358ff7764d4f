//! Deletion as the apiserver's registry does it, with or without a garbage collector: the
//! `orphan` and `foregroundDeletion` finalizers a DELETE chooses (from its options, the
//! object's finalizers and the kind's default), a terminating object's finalizers changed by
//! a second DELETE, the Job warning, `orphanDependents`, a Pod's graceful deletion, and the
//! object removed once its last finalizer goes. No controller-manager runs here, so the
//! finalizers stay.

use http::Method;
use serde_json::{Value, json};

use super::{CONFIGMAPS, DEPLOYMENTS, SCALARS, SERVICE_ACCOUNTS};
use crate::conformance::script::{Case, JSON, MERGE, Res};

const PODS: Res = Res::new("", "v1", "pods", true);
const EVENTS: Res = Res::new("", "v1", "events", true);
const REPLICATION_CONTROLLERS: Res = Res::new("", "v1", "replicationcontrollers", true);
const JOBS: Res = Res::new("batch", "v1", "jobs", true);
const CRON_JOBS: Res = Res::new("batch", "v1", "cronjobs", true);

const HOLD: &str = "example.com/hold";

fn config_map(name: &str, finalizers: &[&str]) -> Value {
    json!({"metadata": {"name": name, "finalizers": finalizers}, "data": {"k": "v"}})
}

fn with_map(case: &str, finalizers: &[&str]) -> Case {
    Case::new(case).create(CONFIGMAPS, "ConfigMap", config_map("m", finalizers))
}

fn policy(p: &str) -> Value {
    json!({"propagationPolicy": p})
}

/// A Pod without a token volume (whose projected sources differ between apiserver builds),
/// bound to a node or not, after its namespace's `default` ServiceAccount.
fn with_pod(case: &str, name: &str, node: Option<&str>, finalizers: &[&str]) -> Case {
    let mut spec = json!({
        "automountServiceAccountToken": false,
        "containers": [{"name": "c", "image": "busybox:1.36"}],
    });
    if let Some(node) = node {
        spec["nodeName"] = json!(node);
    }
    Case::new(case)
        .create(
            SERVICE_ACCOUNTS,
            "ServiceAccount",
            json!({"metadata": {"name": "default"}}),
        )
        .create(
            PODS,
            "Pod",
            json!({"metadata": {"name": name, "finalizers": finalizers}, "spec": spec}),
        )
}

/// A Job nothing runs (no controller-manager here, and another manager named).
fn job(name: &str) -> Value {
    json!({
        "metadata": {"name": name, "labels": {"app": "batch"}},
        "spec": {
            "suspend": true,
            "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox:1.36"}],
            }},
        },
    })
}

pub fn cases() -> Vec<Case> {
    let mut cases = policies();
    cases.extend(defaults());
    cases.extend(pods());
    cases
}

/// The finalizers a DELETE of a ConfigMap chooses, and what a second one changes.
fn policies() -> Vec<Case> {
    vec![
        with_map("deletion: no policy, no finalizers: gone at once", &[]).delete(
            CONFIGMAPS,
            "m",
            json!({}),
        ),
        with_map("deletion: Background: gone at once", &[]).delete(
            CONFIGMAPS,
            "m",
            policy("Background"),
        ),
        with_map("deletion: Foreground sets foregroundDeletion", &[]).delete(
            CONFIGMAPS,
            "m",
            policy("Foreground"),
        ),
        with_map("deletion: Orphan sets orphan", &[]).delete(CONFIGMAPS, "m", policy("Orphan")),
        with_map("deletion: orphanDependents true sets orphan", &[]).delete(
            CONFIGMAPS,
            "m",
            json!({"orphanDependents": true}),
        ),
        with_map(
            "deletion: orphanDependents false on a held object answers 202",
            &[HOLD],
        )
        .delete(CONFIGMAPS, "m", json!({"orphanDependents": false})),
        with_map(
            "deletion: orphanDependents false takes an orphan finalizer off",
            &["orphan"],
        )
        .delete(CONFIGMAPS, "m", json!({"orphanDependents": false})),
        with_map(
            "deletion: orphanDependents and propagationPolicy together",
            &[],
        )
        .delete(
            CONFIGMAPS,
            "m",
            json!({"orphanDependents": true, "propagationPolicy": "Background"}),
        ),
        with_map(
            "deletion: an orphan finalizer decides without a policy",
            &["orphan"],
        )
        .delete(CONFIGMAPS, "m", json!({})),
        with_map(
            "deletion: Background takes the orphan finalizer off",
            &["orphan"],
        )
        .delete(CONFIGMAPS, "m", policy("Background")),
        with_map(
            "deletion: a foregroundDeletion finalizer decides without a policy",
            &["foregroundDeletion"],
        )
        .delete(CONFIGMAPS, "m", json!({})),
        with_map(
            "deletion: Orphan replaces foregroundDeletion",
            &["foregroundDeletion"],
        )
        .delete(CONFIGMAPS, "m", policy("Orphan")),
        with_map(
            "deletion: the policy's finalizer goes after the object's own",
            &[HOLD, "example.com/other"],
        )
        .delete(CONFIGMAPS, "m", policy("Foreground")),
        with_map(
            "deletion: a second DELETE changes the policy's finalizer",
            &[HOLD],
        )
        .delete(CONFIGMAPS, "m", policy("Background"))
        .delete(CONFIGMAPS, "m", policy("Orphan"))
        .delete(CONFIGMAPS, "m", policy("Foreground"))
        .delete(CONFIGMAPS, "m", json!({}))
        .delete(CONFIGMAPS, "m", policy("Background")),
        with_map(
            "deletion: the last finalizer removed deletes the object",
            &[HOLD],
        )
        .watch(CONFIGMAPS, "")
        .events(1)
        .delete(CONFIGMAPS, "m", policy("Foreground"))
        .merge(
            CONFIGMAPS,
            "m",
            json!({"metadata": {"finalizers": ["foregroundDeletion"]}}),
        )
        .merge(CONFIGMAPS, "m", json!({"metadata": {"finalizers": null}}))
        .events(3),
        with_map("deletion: a dry run marks nothing", &[])
            .raw(
                Method::DELETE,
                "/api/v1/namespaces/{ns}/configmaps/m?dryRun=All&propagationPolicy=Foreground",
                None,
                b"",
            )
            .get(CONFIGMAPS, "m", None),
        with_map("deletion: a negative grace period on a ConfigMap", &[]).delete(
            CONFIGMAPS,
            "m",
            json!({"gracePeriodSeconds": -5}),
        ),
        Case::new("deletion: a custom resource with Foreground")
            .create(
                SCALARS,
                "Scalar",
                json!({"metadata": {"name": "s"}, "spec": {}}),
            )
            .delete(SCALARS, "s", policy("Foreground"))
            .delete(SCALARS, "s", policy("Background")),
        Case::new("deletion: a collection with a policy answers the list before")
            .create(
                CONFIGMAPS,
                "ConfigMap",
                json!({"metadata": {"name": "a", "labels": {"x": "1"}}}),
            )
            .create(
                CONFIGMAPS,
                "ConfigMap",
                json!({"metadata": {"name": "b", "labels": {"x": "1"}}}),
            )
            .create(CONFIGMAPS, "ConfigMap", json!({"metadata": {"name": "c"}}))
            .raw(
                Method::DELETE,
                "/api/v1/namespaces/{ns}/configmaps?labelSelector=x&propagationPolicy=Orphan",
                None,
                b"",
            )
            .list(CONFIGMAPS, ""),
        Case::new("deletion: a collection with a limit deletes one page")
            .create(CONFIGMAPS, "ConfigMap", json!({"metadata": {"name": "a"}}))
            .create(CONFIGMAPS, "ConfigMap", json!({"metadata": {"name": "b"}}))
            .raw(
                Method::DELETE,
                "/api/v1/namespaces/{ns}/configmaps?limit=1",
                None,
                b"",
            )
            .list(CONFIGMAPS, ""),
    ]
}

/// The default policy of each kind, and the Job's warning.
fn defaults() -> Vec<Case> {
    let rc = json!({
        "metadata": {"name": "rc"},
        "spec": {
            "replicas": 0,
            // Set: the in-memory server writes an unset one as 0, which Go omits.
            "minReadySeconds": 3,
            "selector": {"app": "rc"},
            "template": {
                "metadata": {"labels": {"app": "rc"}},
                "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
            },
        },
    });
    let deployment = json!({
        "metadata": {"name": "d"},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "d"}},
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
            },
        },
    });
    let cron_job = json!({
        "metadata": {"name": "cj"},
        "spec": {
            "schedule": "0 0 * * *",
            "suspend": true,
            "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox:1.36"}],
            }}}},
        },
    });
    let event = json!({
        "metadata": {"name": "e", "finalizers": ["orphan"]},
        "involvedObject": {"kind": "ConfigMap", "name": "m", "namespace": "{ns}"},
        "reason": "Testing",
        "message": "a test",
        "type": "Normal",
    });
    vec![
        Case::new("deletion: a ReplicationController orphans by default")
            .create(REPLICATION_CONTROLLERS, "ReplicationController", rc.clone())
            .delete(REPLICATION_CONTROLLERS, "rc", json!({})),
        Case::new("deletion: a ReplicationController with orphanDependents false")
            .create(REPLICATION_CONTROLLERS, "ReplicationController", rc)
            .delete(
                REPLICATION_CONTROLLERS,
                "rc",
                json!({"orphanDependents": false}),
            ),
        Case::new("deletion: a Job orphans by default, with a warning")
            .create(JOBS, "Job", job("j"))
            .delete(JOBS, "j", json!({})),
        Case::new("deletion: a Job deleted with a policy gets no warning")
            .create(JOBS, "Job", job("a"))
            .create(JOBS, "Job", job("b"))
            .create(JOBS, "Job", job("c"))
            .delete(JOBS, "a", policy("Orphan"))
            .delete(JOBS, "b", policy("Background"))
            .delete(JOBS, "c", json!({"orphanDependents": true})),
        Case::new("deletion: a Job with orphanDependents=false in the query")
            .create(JOBS, "Job", job("j"))
            .raw(
                Method::DELETE,
                "/apis/batch/v1/namespaces/{ns}/jobs/j?orphanDependents=false",
                None,
                b"",
            ),
        Case::new("deletion: a missing Job is still warned about").delete(
            JOBS,
            "missing",
            json!({}),
        ),
        Case::new("deletion: a collection of Jobs is warned about once")
            .create(JOBS, "Job", job("a"))
            .create(JOBS, "Job", job("b"))
            .raw(
                Method::DELETE,
                "/apis/batch/v1/namespaces/{ns}/jobs",
                None,
                b"",
            )
            .list(JOBS, ""),
        Case::new("deletion: a Deployment and a CronJob go at once by default")
            .create(DEPLOYMENTS, "Deployment", deployment)
            .create(CRON_JOBS, "CronJob", cron_job)
            .delete(DEPLOYMENTS, "d", json!({}))
            .delete(CRON_JOBS, "cj", json!({})),
        Case::new("deletion: an Event never keeps the garbage collector's finalizers")
            .create(EVENTS, "Event", event)
            .delete(EVENTS, "e", policy("Foreground")),
    ]
}

/// A Pod's graceful deletion.
fn pods() -> Vec<Case> {
    vec![
        with_pod("deletion: an unscheduled Pod goes at once", "p", None, &[])
            .watch(PODS, "")
            .events(1)
            .delete(PODS, "p", json!({}))
            .events(2),
        with_pod(
            "deletion: a scheduled Pod waits its grace period",
            "p",
            Some("node-1"),
            &[],
        )
        .delete(PODS, "p", json!({}))
        .delete(PODS, "p", json!({}))
        .delete(PODS, "p", json!({"gracePeriodSeconds": 40}))
        .delete(PODS, "p", json!({"gracePeriodSeconds": 10}))
        .delete(PODS, "p", json!({"gracePeriodSeconds": 20}))
        .delete(PODS, "p", policy("Orphan"))
        .delete(PODS, "p", json!({"gracePeriodSeconds": 0})),
        with_pod(
            "deletion: a scheduled Pod's own grace period",
            "p",
            Some("node-1"),
            &[],
        )
        .merge(PODS, "p", json!({"metadata": {"labels": {"a": "b"}}}))
        .delete(PODS, "p", json!({"gracePeriodSeconds": -3})),
        with_pod(
            "deletion: a finished Pod goes at once",
            "p",
            Some("node-1"),
            &[],
        )
        .patch(
            PODS,
            "p",
            Some("status"),
            MERGE,
            None,
            json!({"status": {"phase": "Succeeded"}}),
        )
        .delete(PODS, "p", json!({})),
        with_pod("deletion: a Pod held by a finalizer", "p", None, &[HOLD])
            .delete(PODS, "p", json!({}))
            .delete(PODS, "p", json!({"gracePeriodSeconds": 0}))
            .merge(PODS, "p", json!({"metadata": {"finalizers": null}})),
        with_pod(
            "deletion: a scheduled Pod held by a finalizer keeps its grace period",
            "p",
            Some("node-1"),
            &[HOLD],
        )
        .delete(PODS, "p", policy("Foreground"))
        .merge(
            PODS,
            "p",
            json!({"metadata": {"finalizers": ["foregroundDeletion"]}}),
        )
        .merge(PODS, "p", json!({"metadata": {"finalizers": null}})),
        with_pod(
            "deletion: a scheduled Pod with Orphan",
            "p",
            Some("node-1"),
            &[],
        )
        .delete(PODS, "p", policy("Orphan"))
        .merge(PODS, "p", json!({"metadata": {"finalizers": null}})),
        with_pod("deletion: a Pod's dry-run delete", "p", Some("node-1"), &[]).raw(
            Method::DELETE,
            "/api/v1/namespaces/{ns}/pods/p?dryRun=All",
            Some(JSON),
            b"{}",
        ),
    ]
}
