//! The lock a leader election holds: a `coordination.k8s.io/v1` Lease, as client-go's
//! `resourcelock.LeaseLock` uses it.

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::Api;
use kube::api::PostParams;
use tokio::sync::Mutex;

/// What a Lease says about its holder: client-go's `LeaderElectionRecord`, without the
/// coordinated-election fields (the apiserver drops them unless a feature gate is on).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderElectionRecord {
    /// Who holds the lease; empty when it was released.
    pub holder_identity: String,
    /// How long the holder's claim lasts after each renewal, in whole seconds.
    pub lease_duration_seconds: i32,
    /// When the holder acquired the lease.
    pub acquire_time: Option<MicroTime>,
    /// When the holder last renewed it.
    pub renew_time: Option<MicroTime>,
    /// How many times the lease changed hands.
    pub leader_transitions: i32,
}

impl LeaderElectionRecord {
    fn from_spec(spec: Option<&LeaseSpec>) -> Self {
        let Some(spec) = spec else {
            return Self::default();
        };
        LeaderElectionRecord {
            holder_identity: spec.holder_identity.clone().unwrap_or_default(),
            lease_duration_seconds: spec.lease_duration_seconds.unwrap_or(0),
            acquire_time: spec.acquire_time.clone(),
            renew_time: spec.renew_time.clone(),
            leader_transitions: spec.lease_transitions.unwrap_or(0),
        }
    }

    fn to_spec(&self) -> LeaseSpec {
        LeaseSpec {
            // Always written, empty when released, as client-go writes it.
            holder_identity: Some(self.holder_identity.clone()),
            lease_duration_seconds: Some(self.lease_duration_seconds),
            acquire_time: self.acquire_time.clone(),
            renew_time: self.renew_time.clone(),
            lease_transitions: Some(self.leader_transitions),
            ..LeaseSpec::default()
        }
    }
}

/// A Lease used as a lock. It keeps the Lease it last read or wrote: updates send that
/// object back with a new spec, so its `resourceVersion` makes every write conditional
/// on nobody having written since (a 409 Conflict otherwise).
pub struct LeaseLock {
    api: Api<Lease>,
    name: String,
    namespace: String,
    cached: Mutex<Option<Lease>>,
}

impl LeaseLock {
    /// The Lease `name` in `namespace`.
    pub fn new(client: kube::Client, namespace: &str, name: &str) -> Self {
        LeaseLock {
            api: Api::namespaced(client, namespace),
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            cached: Mutex::new(None),
        }
    }

    /// `namespace/name`, for messages.
    pub fn describe(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// The lease's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads the Lease, keeping it for the next update.
    pub async fn get(&self) -> Result<LeaderElectionRecord, kube::Error> {
        let lease = self.api.get(&self.name).await?;
        let record = LeaderElectionRecord::from_spec(lease.spec.as_ref());
        *self.cached.lock().await = Some(lease);
        Ok(record)
    }

    /// Creates the Lease with `record` (409 AlreadyExists if another candidate was first).
    pub async fn create(&self, record: &LeaderElectionRecord) -> Result<(), kube::Error> {
        let lease = Lease {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                namespace: Some(self.namespace.clone()),
                ..ObjectMeta::default()
            },
            spec: Some(record.to_spec()),
        };
        let created = self.api.create(&PostParams::default(), &lease).await?;
        *self.cached.lock().await = Some(created);
        Ok(())
    }

    /// Writes `record` over the Lease last read or written, conditional on its
    /// resourceVersion.
    pub async fn update(&self, record: &LeaderElectionRecord) -> Result<(), UpdateError> {
        let mut cached = self.cached.lock().await;
        let Some(lease) = cached.as_mut() else {
            return Err(UpdateError::NotInitialized);
        };
        let mut desired = lease.clone();
        desired.spec = Some(record.to_spec());
        let updated = self
            .api
            .replace(&self.name, &PostParams::default(), &desired)
            .await?;
        *lease = updated;
        Ok(())
    }
}

/// Why an update of the lock failed.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// Nothing was read or created yet: there is no resourceVersion to write against.
    #[error("lease not initialized, call get or create first")]
    NotInitialized,
    /// The request failed (409 Conflict when another candidate wrote first).
    #[error(transparent)]
    Api(#[from] kube::Error),
}

impl UpdateError {
    /// Whether another writer changed the Lease since it was read.
    pub fn is_conflict(&self) -> bool {
        matches!(self, UpdateError::Api(kube::Error::Api(s)) if s.is_conflict())
    }
}
