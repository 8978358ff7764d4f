//! What tests/controller.rs and tests/manager.rs share: a child kind, reconcilers that record
//! what they were called with, and a Manager on a test's backend.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kubegen::controller::{Action, ObjectKey, Reconciler};
use kubegen::informer::SharedInformerFactory;
use kubegen::leaderelection::LeaderElectionConfig;
use kubegen::manager::{LeaderElection, Manager, ManagerError};
use kubegen::prelude::*;
use kubegen::testing::{Eventually, TestEnv};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::common::api::{Gadget, GadgetSpec};

/// A Part belongs to a Gadget (through a controller owner reference).
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(group = "manager.kubegen.dev", version = "v1", kind = "Part")]
pub struct PartSpec {
    /// Which gadget it is for, as a plain field (the mapped watch reads it).
    pub gadget: String,
}

pub fn gadget(name: &str) -> Gadget {
    Gadget::new(
        name,
        GadgetSpec {
            replicas: Some(1),
            color: "red".into(),
            size: None,
            ports: vec![],
            extra: None,
            note: None,
        },
    )
}

/// Every reconcile, in order: the key and when.
pub type Calls = Arc<Mutex<Vec<(ObjectKey, Instant)>>>;

/// Records a reconcile of `key` now; how many `key` has had, this one included.
pub fn note(calls: &Calls, key: &ObjectKey) -> usize {
    let mut calls = calls.lock().unwrap();
    calls.push((key.clone(), Instant::now()));
    calls.iter().filter(|(k, _)| k == key).count()
}

pub fn calls_for(calls: &Calls, key: &ObjectKey) -> Vec<Instant> {
    let calls = calls.lock().unwrap();
    calls
        .iter()
        .filter(|(k, _)| k == key)
        .map(|(_, t)| *t)
        .collect()
}

/// Polls `check` every 20 ms for up to 30 s (kubegen's `Eventually`, with a synchronous
/// check).
pub async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    Eventually::default()
        .timeout(Duration::from_secs(30))
        .until(what, || std::future::ready(check()))
        .await;
}

pub fn manager(e: &TestEnv) -> Manager {
    Manager::with_cache(SharedInformerFactory::new(e.client.clone()).namespace(&e.namespace))
        .cache_sync_timeout(Duration::from_secs(60))
}

pub fn start(manager: Manager) -> (CancellationToken, JoinHandle<Result<(), ManagerError>>) {
    let stop = CancellationToken::new();
    (stop.clone(), tokio::spawn(manager.run(stop)))
}

/// Records calls and does nothing else.
pub struct Record(pub Calls);

impl Reconciler<Gadget> for Record {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        _: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        note(&self.0, key);
        Ok(Action::Done)
    }
}

/// Leader election on Lease `manager-test` with timings short enough for tests.
pub fn fast_election(e: &TestEnv, identity: &str) -> LeaderElection {
    LeaderElection::new(&e.namespace, "manager-test")
        .identity(identity)
        .config(LeaderElectionConfig {
            lease_duration: Duration::from_secs(2),
            renew_deadline: Duration::from_secs(1),
            retry_period: Duration::from_millis(200),
            ..LeaderElectionConfig::default()
        })
}
