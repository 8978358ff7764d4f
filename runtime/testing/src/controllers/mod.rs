//! What kube-controller-manager does, in memory: the garbage collector, namespace deletion,
//! the workload controllers and the service-account and root-CA publishers, run by the
//! in-memory server itself once a test asks for them.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use kubegen_testing::{ApiServer, Controllers};
//! let server = ApiServer::new();
//! server.start_controllers(Controllers::all());
//! // ... requests ...
//! server.settle().await; // every controller has done what the requests called for
//! # }
//! ```
//!
//! Each controller follows its kube-controller-manager v1.36.2 counterpart: it watches the
//! same kinds, writes the same objects, status, conditions and events through the same API
//! (with the controller-manager's user agent, so `managedFields` name
//! `kube-controller-manager`), and its differences are listed in the guide
//! (`docs/src/cluster.md`). They run on one task of the runtime that started them, one sync
//! at a time, reading the server's current objects: a run is deterministic, and
//! [`ApiServer::settle`] knows when they are done. Times come from the server's
//! [`Clock`](crate::Clock), which a test can freeze and advance.

mod api;
mod cronjob;
mod daemonset;
mod deployment;
mod driver;
mod events;
mod gc;
mod history;
mod job;
mod kubelet;
mod namespace;
mod ownership;
mod podrank;
mod podutil;
mod queue;
mod replicaset;
mod rootca;
mod serviceaccount;
mod statefulset;
mod ttlafterfinished;

use std::collections::BTreeSet;
use std::time::Duration;

pub(crate) use self::api::{Api, Patch, Refused, Resource};
pub(crate) use self::driver::{Controller as Run, Cx, Driver, Outcome, SyncError};
pub(crate) use self::events::EventType;
pub(crate) use self::queue::Queue;
use super::ApiServer;
pub(crate) use crate::feed::{Change, ChangeType, Feed};

/// How long [`ApiServer::settle`] waits before it gives up (and panics naming the busy
/// controller): far longer than any scenario takes, short of a test harness's timeout.
const SETTLE_LIMIT: Duration = Duration::from_secs(60);

/// One of kube-controller-manager's controllers that the in-memory server runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Controller {
    /// Creates the `default` ServiceAccount in every namespace (and again when it is deleted).
    ServiceAccount,
    /// Publishes the cluster's CA bundle as the `kube-root-ca.crt` ConfigMap in every
    /// namespace.
    RootCaPublisher,
    /// Rolls Deployments out through their ReplicaSets and reports their progress.
    Deployment,
    /// Keeps each ReplicaSet's Pods at its replicas and reports their readiness.
    ReplicaSet,
    /// Keeps each ReplicationController's Pods at its replicas, as
    /// [`ReplicaSet`](Controller::ReplicaSet) does (its events' component is
    /// `replication-controller`).
    ReplicationController,
    /// Runs StatefulSets: ordered Pods, their claims, revisions and rolling updates.
    StatefulSet,
    /// Runs DaemonSets: a Pod on every eligible Node, revisions and rolling updates.
    DaemonSet,
    /// Deletes objects whose owners are gone, and the dependents of owners deleted in the
    /// background or foreground; orphans those of owners deleted with `orphan`.
    GarbageCollector,
    /// Runs a Job's Pods to its completions, replacing failed ones after a backoff, and
    /// finishes it (`Complete` or `Failed`).
    Job,
    /// Creates a CronJob's Jobs on its schedule, as its concurrency policy allows, and
    /// deletes finished ones past its history limits.
    CronJob,
    /// Deletes a finished Job once its `ttlSecondsAfterFinished` has passed.
    TtlAfterFinished,
    /// Deletes what a deleted namespace holds, then the namespace (its `kubernetes`
    /// finalizer).
    Namespace,
}

impl Controller {
    /// Every controller the in-memory server has.
    pub const ALL: &'static [Controller] = &[
        Controller::ServiceAccount,
        Controller::RootCaPublisher,
        Controller::Deployment,
        Controller::ReplicaSet,
        Controller::ReplicationController,
        Controller::StatefulSet,
        Controller::DaemonSet,
        Controller::GarbageCollector,
        Controller::Job,
        Controller::CronJob,
        Controller::TtlAfterFinished,
        Controller::Namespace,
    ];

    /// The controller's name in kube-controller-manager (its `--controllers` name, and the
    /// component its events name).
    pub fn name(self) -> &'static str {
        match self {
            Controller::ServiceAccount => "serviceaccount-controller",
            Controller::RootCaPublisher => "root-ca-certificate-publisher-controller",
            Controller::Deployment => "deployment-controller",
            Controller::ReplicaSet => "replicaset-controller",
            Controller::ReplicationController => "replicationcontroller-controller",
            Controller::StatefulSet => "statefulset-controller",
            Controller::DaemonSet => "daemonset-controller",
            Controller::GarbageCollector => "garbage-collector-controller",
            Controller::Job => "job-controller",
            Controller::CronJob => "cronjob-controller",
            Controller::TtlAfterFinished => "ttl-after-finished-controller",
            Controller::Namespace => "namespace-controller",
        }
    }

    fn build(self) -> Box<dyn Run> {
        match self {
            Controller::ServiceAccount => Box::new(serviceaccount::ServiceAccounts),
            Controller::RootCaPublisher => Box::new(rootca::RootCaPublisher),
            Controller::Deployment => Box::new(deployment::Deployments),
            Controller::ReplicaSet => Box::new(replicaset::ReplicaSets(replicaset::REPLICA_SET)),
            Controller::ReplicationController => {
                Box::new(replicaset::ReplicaSets(replicaset::REPLICATION_CONTROLLER))
            }
            Controller::StatefulSet => Box::new(statefulset::StatefulSets),
            Controller::DaemonSet => Box::new(daemonset::DaemonSets::default()),
            Controller::GarbageCollector => Box::<gc::GarbageCollector>::default(),
            Controller::Job => Box::<job::Jobs>::default(),
            Controller::CronJob => Box::new(cronjob::CronJobs),
            Controller::TtlAfterFinished => Box::new(ttlafterfinished::TtlAfterFinished),
            Controller::Namespace => Box::new(namespace::Namespaces),
        }
    }
}

/// Which controllers [`ApiServer::start_controllers`] runs, and the test's kubelet.
#[derive(Clone, Debug, Default)]
pub struct Controllers {
    enabled: BTreeSet<Controller>,
    kubelet: Option<crate::Kubelet>,
}

impl Controllers {
    /// Every controller the in-memory server has, as kube-controller-manager runs all of its
    /// default ones.
    pub fn all() -> Self {
        Controllers {
            enabled: Controller::ALL.iter().copied().collect(),
            kubelet: None,
        }
    }

    /// No controller (add some with [`with`](Controllers::with)).
    pub fn none() -> Self {
        Controllers::default()
    }

    /// Adds `controller`.
    pub fn with(mut self, controller: Controller) -> Self {
        self.enabled.insert(controller);
        self
    }

    /// Leaves `controller` out.
    pub fn without(mut self, controller: Controller) -> Self {
        self.enabled.remove(&controller);
        self
    }

    /// Runs `kubelet` too, so Pods leave `Pending` (see [`Kubelet`](crate::Kubelet)).
    pub fn kubelet(mut self, kubelet: crate::Kubelet) -> Self {
        self.kubelet = Some(kubelet);
        self
    }

    /// The test's kubelet, if any.
    pub fn kubelet_of(&self) -> Option<&crate::Kubelet> {
        self.kubelet.as_ref()
    }

    /// The controllers chosen.
    pub fn enabled(&self) -> impl Iterator<Item = Controller> + '_ {
        self.enabled.iter().copied()
    }
}

impl ApiServer {
    /// The server's clock, which every time it writes reads: wall time until a test freezes
    /// it.
    pub fn clock(&self) -> crate::Clock {
        self.inner.clock.clone()
    }

    /// Starts `controllers` on a task of the current Tokio runtime (call it inside one):
    /// from now on the server does what kube-controller-manager does with them. They first
    /// see every object that exists, as informers start with a list. Starting again adds
    /// nothing: the controllers of the first call keep running.
    pub fn start_controllers(&self, controllers: Controllers) {
        let mut driver = self.inner.driver.lock().unwrap_or_else(|e| e.into_inner());
        if driver.is_some() {
            return;
        }
        let feed = std::sync::Arc::new(Feed::default());
        self.inner.lock().start_feed(&feed);
        let mut runs: Vec<Box<dyn Run>> = controllers.enabled().map(Controller::build).collect();
        if let Some(kubelet) = controllers.kubelet {
            runs.push(Box::new(kubelet));
        }
        *driver = Some(Driver::start(&self.inner, feed, runs));
    }

    /// Waits until the controllers have done everything the requests so far call for: every
    /// change handed to them and no work ready. Work due later on the server's clock (a
    /// CronJob's next run, a Job's backoff, a requeue) is not waited for: advance the clock
    /// for it. Returns at once when no controllers run.
    ///
    /// # Panics
    ///
    /// When the controllers are still busy after a minute, naming what they were syncing.
    pub async fn settle(&self) {
        let driver = self
            .inner
            .driver
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(driver) = driver {
            driver.settle(&self.inner.clock, SETTLE_LIMIT).await;
        }
    }
}
