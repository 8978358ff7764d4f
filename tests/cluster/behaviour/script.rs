//! Behavioural scenarios: what a test does to a cluster, step by step. After each step the
//! cluster is left to settle and what it holds is compared between the backends.
//!
//! Placeholders: `{ns}` in a body, selector or name is the scenario's namespace;
//! `{uid:<plural>/<name>}` in a body is the uid of that object (of the scenario's namespace,
//! or cluster-scoped), `{uid:<plural>/<namespace>/<name>}` of one in another namespace.

use std::time::Duration;

use kubegen::testing::PodFate;
use serde_json::Value;

/// One resource the scenarios touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Res {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
}

impl Res {
    pub const fn new(
        group: &'static str,
        version: &'static str,
        plural: &'static str,
        namespaced: bool,
    ) -> Self {
        Res {
            group,
            version,
            plural,
            namespaced,
        }
    }

    /// The collection's path in `namespace` (ignored for a cluster-scoped resource).
    pub fn collection(&self, namespace: &str) -> String {
        let root = match self.group {
            "" => format!("/api/{}", self.version),
            g => format!("/apis/{g}/{}", self.version),
        };
        match self.namespaced {
            true => format!("{root}/namespaces/{namespace}/{}", self.plural),
            false => format!("{root}/{}", self.plural),
        }
    }

    pub fn object(&self, namespace: &str, name: &str) -> String {
        format!("{}/{name}", self.collection(namespace))
    }
}

pub const NAMESPACES: Res = Res::new("", "v1", "namespaces", false);
pub const CONFIG_MAPS: Res = Res::new("", "v1", "configmaps", true);
pub const SECRETS: Res = Res::new("", "v1", "secrets", true);
pub const SERVICE_ACCOUNTS: Res = Res::new("", "v1", "serviceaccounts", true);
pub const PODS: Res = Res::new("", "v1", "pods", true);
pub const PVCS: Res = Res::new("", "v1", "persistentvolumeclaims", true);
pub const EVENTS: Res = Res::new("", "v1", "events", true);
pub const NODES: Res = Res::new("", "v1", "nodes", false);
pub const DEPLOYMENTS: Res = Res::new("apps", "v1", "deployments", true);
pub const REPLICA_SETS: Res = Res::new("apps", "v1", "replicasets", true);
pub const STATEFUL_SETS: Res = Res::new("apps", "v1", "statefulsets", true);
pub const DAEMON_SETS: Res = Res::new("apps", "v1", "daemonsets", true);
pub const CONTROLLER_REVISIONS: Res = Res::new("apps", "v1", "controllerrevisions", true);
pub const JOBS: Res = Res::new("batch", "v1", "jobs", true);
pub const CRON_JOBS: Res = Res::new("batch", "v1", "cronjobs", true);
pub const CLUSTER_ROLES: Res = Res::new("rbac.authorization.k8s.io", "v1", "clusterroles", false);
pub const GIZMOS: Res = Res::new("cluster.kubegen.dev", "v1", "gizmos", true);

/// The namespaced resources whose objects every snapshot holds.
pub const WATCHED: &[Res] = &[
    CONFIG_MAPS,
    SECRETS,
    SERVICE_ACCOUNTS,
    PODS,
    PVCS,
    DEPLOYMENTS,
    REPLICA_SETS,
    STATEFUL_SETS,
    DAEMON_SETS,
    CONTROLLER_REVISIONS,
    JOBS,
    CRON_JOBS,
    GIZMOS,
];

/// Every resource a scenario may name.
const ALL: &[Res] = &[
    NAMESPACES,
    CONFIG_MAPS,
    SECRETS,
    SERVICE_ACCOUNTS,
    PODS,
    PVCS,
    NODES,
    DEPLOYMENTS,
    REPLICA_SETS,
    STATEFUL_SETS,
    DAEMON_SETS,
    CONTROLLER_REVISIONS,
    JOBS,
    CRON_JOBS,
    CLUSTER_ROLES,
    GIZMOS,
];

/// The resource of a body's `apiVersion` and `kind`.
pub fn resource_of(body: &Value) -> Res {
    let api_version = body["apiVersion"].as_str().unwrap_or("");
    let kind = body["kind"].as_str().unwrap_or("");
    let plural = format!("{}s", kind.to_lowercase());
    ALL.iter()
        .copied()
        .find(|r| {
            let av = match r.group {
                "" => r.version.to_owned(),
                g => format!("{g}/{}", r.version),
            };
            av == api_version
                && (r.plural == plural
                    || (kind == "PersistentVolumeClaim" && r.plural == "persistentvolumeclaims"))
        })
        .unwrap_or_else(|| panic!("no scenario resource for {api_version} {kind}"))
}

/// The resource served at `plural`.
pub fn resource_named(plural: &str) -> Res {
    ALL.iter()
        .copied()
        .find(|r| r.plural == plural)
        .unwrap_or_else(|| panic!("no scenario resource {plural}"))
}

/// What a step does.
// Until every area's scenarios are in, some actions are not used yet.
#[allow(dead_code)]
#[derive(Clone, Debug)]
pub enum Action {
    /// POST of the object (in the scenario's namespace unless cluster-scoped).
    Create(Value),
    /// A merge patch of an object (or of its `subresource`).
    Patch {
        res: Res,
        name: String,
        subresource: Option<&'static str>,
        patch: Value,
    },
    /// DELETE, with a propagation policy or the kind's default.
    Delete {
        res: Res,
        name: String,
        propagation: Option<&'static str>,
    },
    /// The scenario's namespace is deleted.
    DeleteNamespace,
    /// The scenario's namespace's `spec.finalizers` are set through its `/finalize`.
    Finalize(Vec<&'static str>),
    /// Every Pending Pod matching the label selector meets `fate` (the test's kubelet).
    Pods { selector: String, fate: PodFate },
    /// Time passes: a wall-clock sleep on a real cluster, the clock advanced in memory.
    Wait(Duration),
    /// Time passes, if need be, until the clock is between these seconds of a minute (so
    /// that what happens at the next minute falls where the scenario expects it).
    WithinMinute(u64, u64),
}

/// A step: its action, then the cluster settles and its objects are compared.
#[derive(Clone, Debug)]
pub struct Step {
    pub action: Action,
}

/// A scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub steps: Vec<Step>,
    /// Cluster-scoped objects (resource, name) the snapshots hold besides the namespace's.
    pub cluster_objects: Vec<(Res, String)>,
    /// Whether the snapshots hold the scenario's Namespace object itself.
    pub namespace_object: bool,
}

#[allow(dead_code)]
impl Scenario {
    pub fn new(name: &str) -> Self {
        Scenario {
            name: name.to_owned(),
            steps: Vec::new(),
            cluster_objects: Vec::new(),
            namespace_object: false,
        }
    }

    fn step(mut self, action: Action) -> Self {
        self.steps.push(Step { action });
        self
    }

    pub fn create(mut self, body: Value) -> Self {
        let res = resource_of(&body);
        if !res.namespaced {
            let name = body["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            self.cluster_objects.push((res, name));
        }
        self.step(Action::Create(body))
    }

    pub fn patch(self, res: Res, name: &str, patch: Value) -> Self {
        self.step(Action::Patch {
            res,
            name: name.to_owned(),
            subresource: None,
            patch,
        })
    }

    pub fn patch_status(self, res: Res, name: &str, patch: Value) -> Self {
        self.step(Action::Patch {
            res,
            name: name.to_owned(),
            subresource: Some("status"),
            patch,
        })
    }

    pub fn delete(self, res: Res, name: &str) -> Self {
        self.step(Action::Delete {
            res,
            name: name.to_owned(),
            propagation: None,
        })
    }

    pub fn delete_with(self, res: Res, name: &str, propagation: &'static str) -> Self {
        self.step(Action::Delete {
            res,
            name: name.to_owned(),
            propagation: Some(propagation),
        })
    }

    pub fn delete_namespace(mut self) -> Self {
        self.namespace_object = true;
        self.step(Action::DeleteNamespace)
    }

    /// Sets the namespace's `spec.finalizers` (a PUT of its `/finalize`).
    pub fn finalize(mut self, finalizers: &[&'static str]) -> Self {
        self.namespace_object = true;
        self.step(Action::Finalize(finalizers.to_vec()))
    }

    pub fn pods(self, selector: &str, fate: PodFate) -> Self {
        self.step(Action::Pods {
            selector: selector.to_owned(),
            fate,
        })
    }

    pub fn wait(self, time: Duration) -> Self {
        self.step(Action::Wait(time))
    }

    /// Waits (as [`wait`](Scenario::wait)) until the clock is `from` to `to` seconds into a
    /// minute; not at all when it is already.
    pub fn within_minute(self, from: u64, to: u64) -> Self {
        self.step(Action::WithinMinute(from, to))
    }

    /// The snapshots hold the Namespace too.
    pub fn with_namespace(mut self) -> Self {
        self.namespace_object = true;
        self
    }
}
