//! The candidate: campaigning, leading while renewing, and releasing.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::lease_lock::{LeaderElectionRecord, LeaseLock};
use super::{LeaderElectionConfig, LeaderElectionError, jitter};

/// Why [`LeaderElector::run`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Leading ended on purpose: shutdown was requested, or the lead future returned (or
    /// shutdown came before this candidate ever led).
    Shutdown,
    /// The lease could not be renewed within the renew deadline: another candidate may
    /// lead now. controller-runtime exits the process here.
    Lost,
}

type Callback = Arc<dyn Fn(&str) + Send + Sync>;

/// What this candidate last saw in the Lease, and when (on its own clock).
struct Observed {
    record: Option<LeaderElectionRecord>,
    time: Instant,
}

struct Inner {
    lock: LeaseLock,
    identity: String,
    config: LeaderElectionConfig,
    observed: Mutex<Observed>,
    /// Whether the lead future is running (set before it starts, cleared after it ends).
    leading: AtomicBool,
    /// The holder last passed to `on_new_leader`.
    reported: Mutex<Option<String>>,
    on_new_leader: RwLock<Option<Callback>>,
}

/// A leader-election candidate. Cheap to clone; clones are the same candidate.
#[derive(Clone)]
pub struct LeaderElector {
    inner: Arc<Inner>,
}

/// Clears `leading` however the run ends, dropped future included.
struct LeadingGuard<'a>(&'a AtomicBool);

impl Drop for LeadingGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

fn now_micro() -> MicroTime {
    MicroTime(k8s_openapi::jiff::Timestamp::now())
}

impl LeaderElector {
    /// A candidate `identity` for the Lease `namespace/lease_name`, after checking `config`
    /// (see [`LeaderElectionConfig::validate`]).
    pub fn new(
        client: kube::Client,
        namespace: &str,
        lease_name: &str,
        identity: &str,
        config: LeaderElectionConfig,
    ) -> Result<Self, LeaderElectionError> {
        config.validate()?;
        if identity.is_empty() {
            return Err(LeaderElectionError::EmptyIdentity);
        }
        if namespace.is_empty() || lease_name.is_empty() {
            return Err(LeaderElectionError::EmptyLeaseName {
                namespace: namespace.to_owned(),
                name: lease_name.to_owned(),
            });
        }
        Ok(LeaderElector {
            inner: Arc::new(Inner {
                lock: LeaseLock::new(client, namespace, lease_name),
                identity: identity.to_owned(),
                config,
                observed: Mutex::new(Observed {
                    record: None,
                    time: Instant::now(),
                }),
                leading: AtomicBool::new(false),
                reported: Mutex::new(None),
                on_new_leader: RwLock::new(None),
            }),
        })
    }

    /// Calls `f` with the holder's identity whenever this candidate sees the holder change
    /// (the first holder it sees included; `""` when the lease was released). It runs on
    /// the election's task: it must return quickly.
    pub fn on_new_leader(self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        *self
            .inner
            .on_new_leader
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(f));
        self
    }

    /// This candidate's identity, as written into the Lease.
    pub fn identity(&self) -> &str {
        &self.inner.identity
    }

    /// Whether this candidate is leading: its lead future is running.
    pub fn is_leader(&self) -> bool {
        self.inner.leading.load(Ordering::SeqCst)
    }

    /// The record this candidate last saw in the Lease.
    pub fn observed_record(&self) -> Option<LeaderElectionRecord> {
        self.inner.observed().record.clone()
    }

    /// A health check (client-go's `Check`, controller-runtime's healthz adaptor): fails
    /// when this candidate leads but has not renewed for longer than the lease duration
    /// plus `timeout`, a leader stuck without noticing it lost the lease.
    pub fn check(&self, timeout: Duration) -> Result<(), LeaderElectionError> {
        if !self.is_leader() {
            return Ok(());
        }
        let since = self.inner.observed().time.elapsed();
        if since > self.inner.config.lease_duration + timeout {
            return Err(LeaderElectionError::NotRenewed {
                lease: self.inner.lock.describe(),
                since,
            });
        }
        Ok(())
    }

    /// Campaigns until this candidate leads or `shutdown` is cancelled; while leading, runs
    /// `lead(token)` and renews the lease in the same future.
    ///
    /// - Renewal fails (the renew deadline passed without a successful renewal): `token` is
    ///   cancelled, `lead` is awaited, the lease is released if it still names this
    ///   candidate and `release_on_cancel` is set, and the result is [`Stopped::Lost`].
    /// - `shutdown` is cancelled: `token` is cancelled, `lead` is awaited (the lease is
    ///   still renewed meanwhile), the lease released if `release_on_cancel`, and the
    ///   result is [`Stopped::Shutdown`].
    /// - `lead` returns on its own: the same, without waiting.
    ///
    /// Dropping the future (aborting its task) is a killed process: nothing is released,
    /// and the others take over when the lease expires.
    pub async fn run<F, Fut>(
        &self,
        shutdown: CancellationToken,
        lead: F,
    ) -> Result<Stopped, LeaderElectionError>
    where
        F: FnOnce(CancellationToken) -> Fut,
        Fut: Future<Output = ()>,
    {
        if !self.acquire(&shutdown).await {
            return Ok(Stopped::Shutdown);
        }
        tracing::info!(lease = %self.inner.lock.describe(), identity = %self.inner.identity, "became leader");
        let token = CancellationToken::new();
        self.inner.leading.store(true, Ordering::SeqCst);
        let _guard = LeadingGuard(&self.inner.leading);
        let lead = lead(token.clone());
        tokio::pin!(lead);
        let stopped = tokio::select! {
            () = &mut lead => Stopped::Shutdown,
            lost = self.renew(&shutdown) => {
                token.cancel();
                if lost {
                    tracing::warn!(lease = %self.inner.lock.describe(), "failed to renew lease: stopped leading");
                    lead.await;
                    Stopped::Lost
                } else {
                    // Keep the lease while the lead winds down, so nobody else starts
                    // before it has stopped.
                    let never = CancellationToken::new();
                    tokio::select! {
                        () = &mut lead => {}
                        _ = self.renew(&never) => lead.await,
                    }
                    Stopped::Shutdown
                }
            }
        };
        token.cancel();
        drop(_guard);
        if self.inner.config.release_on_cancel {
            self.release().await;
        }
        Ok(stopped)
    }

    /// client-go's `acquire`: tries at once, then after each failure waits a jittered
    /// retry period. False when `shutdown` came first.
    async fn acquire(&self, shutdown: &CancellationToken) -> bool {
        loop {
            let acquired = tokio::select! {
                acquired = self.try_acquire_or_renew() => acquired,
                () = shutdown.cancelled() => return false,
            };
            self.report_transition();
            if acquired {
                return true;
            }
            tokio::select! {
                () = tokio::time::sleep(jitter(self.inner.config.retry_period)) => {}
                () = shutdown.cancelled() => return false,
            }
        }
    }

    /// client-go's `renew`: every retry period a cycle that tries at once and then every
    /// retry period until one attempt succeeds or the renew deadline (from the cycle's
    /// start) passes, each attempt cut off at that deadline. True when a cycle failed
    /// (leadership lost), false when `shutdown` ended it.
    async fn renew(&self, shutdown: &CancellationToken) -> bool {
        let config = &self.inner.config;
        loop {
            let deadline = Instant::now() + config.renew_deadline;
            let renewed = loop {
                let attempt = tokio::select! {
                    attempt = tokio::time::timeout_at(deadline, self.try_acquire_or_renew()) => attempt,
                    () = shutdown.cancelled() => return false,
                };
                if matches!(attempt, Ok(true)) {
                    break true;
                }
                let next = Instant::now() + config.retry_period;
                tokio::select! {
                    () = tokio::time::sleep_until(next.min(deadline)) => {}
                    () = shutdown.cancelled() => return false,
                }
                if next >= deadline {
                    break false;
                }
            };
            self.report_transition();
            if !renewed {
                return true;
            }
            tokio::select! {
                () = tokio::time::sleep(config.retry_period) => {}
                () = shutdown.cancelled() => return false,
            }
        }
    }

    /// client-go's `tryAcquireOrRenew`: one attempt to take or keep the lease.
    async fn try_acquire_or_renew(&self) -> bool {
        let inner = &self.inner;
        let now = now_micro();
        let mut desired = LeaderElectionRecord {
            holder_identity: inner.identity.clone(),
            lease_duration_seconds: inner.config.lease_duration_seconds(),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            leader_transitions: 0,
        };

        // Fast path: the leader renews over the Lease it last wrote.
        let fast = {
            let observed = inner.observed();
            match &observed.record {
                Some(r) if r.holder_identity == inner.identity && inner.valid(&observed) => {
                    Some(r.clone())
                }
                _ => None,
            }
        };
        if let Some(old) = fast {
            desired.acquire_time = old.acquire_time;
            desired.leader_transitions = old.leader_transitions;
            if inner.lock.update(&desired).await.is_ok() {
                inner.set_observed(desired);
                return true;
            }
        }

        // Slow path: read the Lease, create it when missing.
        let current = match inner.lock.get().await {
            Ok(record) => record,
            Err(kube::Error::Api(s)) if s.is_not_found() => {
                if inner.lock.create(&desired).await.is_err() {
                    return false;
                }
                inner.set_observed(desired);
                return true;
            }
            Err(e) => {
                tracing::debug!(lease = %inner.lock.describe(), error = %e, "error retrieving lease");
                return false;
            }
        };
        let we_hold = {
            let mut observed = inner.observed();
            if observed.record.as_ref() != Some(&current) {
                observed.record = Some(current.clone());
                observed.time = Instant::now();
            }
            if !current.holder_identity.is_empty()
                && current.holder_identity != inner.identity
                && inner.valid(&observed)
            {
                return false;
            }
            current.holder_identity == inner.identity
        };
        if we_hold {
            desired.acquire_time = current.acquire_time;
            desired.leader_transitions = current.leader_transitions;
        } else {
            desired.leader_transitions = current.leader_transitions + 1;
        }
        if inner.lock.update(&desired).await.is_err() {
            return false;
        }
        inner.set_observed(desired);
        true
    }

    /// client-go's `release`, given the renew deadline: writes an empty holder with a
    /// one-second lease, retrying on conflict. Unlike client-go it checks the holder in the
    /// Lease it just read, not the last one it saw, so it never clears a lease someone else
    /// took meanwhile.
    async fn release(&self) {
        let inner = &self.inner;
        let attempt = async {
            loop {
                let current = match inner.lock.get().await {
                    Ok(record) => record,
                    Err(e) => {
                        tracing::warn!(lease = %inner.lock.describe(), error = %e, "could not release the lease");
                        return;
                    }
                };
                if current.holder_identity != inner.identity {
                    return;
                }
                let now = now_micro();
                let released = LeaderElectionRecord {
                    holder_identity: String::new(),
                    lease_duration_seconds: 1,
                    acquire_time: Some(now.clone()),
                    renew_time: Some(now),
                    leader_transitions: current.leader_transitions,
                };
                match inner.lock.update(&released).await {
                    Ok(()) => {
                        inner.set_observed(released);
                        return;
                    }
                    Err(e) if e.is_conflict() => continue,
                    Err(e) => {
                        tracing::warn!(lease = %inner.lock.describe(), error = %e, "could not release the lease");
                        return;
                    }
                }
            }
        };
        if tokio::time::timeout(inner.config.renew_deadline, attempt)
            .await
            .is_err()
        {
            tracing::warn!(lease = %inner.lock.describe(), "releasing the lease timed out");
        }
    }

    /// client-go's `maybeReportTransition`.
    fn report_transition(&self) {
        let inner = &self.inner;
        let Some(holder) = inner
            .observed()
            .record
            .as_ref()
            .map(|r| r.holder_identity.clone())
        else {
            return;
        };
        {
            let mut reported = inner.reported.lock().unwrap_or_else(|e| e.into_inner());
            if reported.as_deref() == Some(holder.as_str()) {
                return;
            }
            *reported = Some(holder.clone());
        }
        let callback = inner
            .on_new_leader
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(f) = callback {
            f(&holder);
        }
    }
}

impl Inner {
    fn observed(&self) -> MutexGuard<'_, Observed> {
        // The guarded data is two plain fields, consistent whenever a panic could strike.
        self.observed.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_observed(&self, record: LeaderElectionRecord) {
        let mut observed = self.observed();
        observed.record = Some(record);
        observed.time = Instant::now();
    }

    /// client-go's `isLeaseValid`: the record's own duration, from when this candidate saw
    /// it change.
    fn valid(&self, observed: &Observed) -> bool {
        let seconds = observed
            .record
            .as_ref()
            .map_or(0, |r| r.lease_duration_seconds.max(0));
        observed.time + Duration::from_secs(seconds as u64) > Instant::now()
    }
}
