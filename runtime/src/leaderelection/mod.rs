//! Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics
//! (`k8s.io/client-go/tools/leaderelection`), so a kubegen controller and a Go one can take
//! turns on the same Lease.
//!
//! Candidates race to write their identity into the Lease; every write carries the
//! resourceVersion last read, so exactly one wins. The leader renews every
//! [`retry_period`](LeaderElectionConfig::retry_period) and stops leading when a renewal has
//! not succeeded within [`renew_deadline`](LeaderElectionConfig::renew_deadline); the others
//! take over once the record has not changed for the lease duration *on their own clock*
//! (measured from when they saw it change, never from the timestamps in it, so clock skew
//! between machines does not matter, only clock rate).
//!
//! ```no_run
//! # async fn f(client: kube::Client) -> Result<(), kubegen_runtime::leaderelection::LeaderElectionError> {
//! use kubegen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector, default_identity};
//! use tokio_util::sync::CancellationToken;
//!
//! let elector = LeaderElector::new(
//!     client, "kube-system", "my-operator", &default_identity(), LeaderElectionConfig::default())?;
//! let shutdown = CancellationToken::new();
//! let stopped = elector
//!     .run(shutdown.clone(), |leading| async move {
//!         // Start the controllers; return when `leading` is cancelled.
//!         leading.cancelled().await;
//!     })
//!     .await?;
//! # let _ = stopped; Ok(()) }
//! ```

mod elector;
mod lease_lock;

use std::hash::BuildHasher;
use std::time::Duration;

pub use self::elector::{LeaderElector, Stopped};
pub use self::lease_lock::{LeaderElectionRecord, LeaseLock, UpdateError};

/// client-go's `JitterFactor`: retries wait a uniform `[RP, (1 + 1.2)·RP)`, and the renew
/// deadline must exceed `1.2·RP`.
pub const JITTER_FACTOR: f64 = 1.2;

/// How a candidate campaigns and leads. The defaults are the ones Kubernetes' own
/// components and controller-runtime use: 15 s, 10 s, 2 s, and the lease released on
/// shutdown (controller-runtime's `LeaderElectionReleaseOnCancel`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    /// How long a claim lasts: a candidate takes over a lease whose record it has seen
    /// unchanged for this long. A whole number of seconds (the Lease stores seconds).
    pub lease_duration: Duration,
    /// How long the leader keeps trying to renew before it stops leading.
    pub renew_deadline: Duration,
    /// How often candidates try to acquire (jittered up to `2.2×`) and the leader renews.
    pub retry_period: Duration,
    /// Whether to release the lease when leading ends on purpose (shutdown, or the lead
    /// future returning), so the next leader need not wait for it to expire.
    pub release_on_cancel: bool,
}

impl Default for LeaderElectionConfig {
    fn default() -> Self {
        LeaderElectionConfig {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            release_on_cancel: true,
        }
    }
}

impl LeaderElectionConfig {
    /// client-go's checks (`NewLeaderElector`): `lease_duration > renew_deadline >
    /// 1.2 × retry_period > 0`; and, because the Lease stores whole seconds (client-go
    /// truncates, and the apiserver refuses 0), `lease_duration` a whole number of seconds.
    pub fn validate(&self) -> Result<(), LeaderElectionError> {
        if self.lease_duration <= self.renew_deadline {
            return Err(LeaderElectionError::LeaseDurationNotAboveRenewDeadline {
                lease_duration: self.lease_duration,
                renew_deadline: self.renew_deadline,
            });
        }
        if self.retry_period.is_zero() {
            return Err(LeaderElectionError::ZeroRetryPeriod);
        }
        if self.renew_deadline <= self.retry_period.mul_f64(JITTER_FACTOR) {
            return Err(LeaderElectionError::RenewDeadlineTooShort {
                renew_deadline: self.renew_deadline,
                retry_period: self.retry_period,
            });
        }
        if self.lease_duration.subsec_nanos() != 0
            || self.lease_duration < Duration::from_secs(1)
            || i32::try_from(self.lease_duration.as_secs()).is_err()
        {
            return Err(LeaderElectionError::LeaseDurationNotWholeSeconds(
                self.lease_duration,
            ));
        }
        Ok(())
    }

    /// The lease duration as the Lease stores it.
    fn lease_duration_seconds(&self) -> i32 {
        // `validate` checked it fits.
        i32::try_from(self.lease_duration.as_secs()).unwrap_or(i32::MAX)
    }
}

/// What leader election refuses or reports.
#[derive(Debug, thiserror::Error)]
pub enum LeaderElectionError {
    /// The lease would expire before the leader gives up renewing it.
    #[error(
        "leaseDuration ({lease_duration:?}) must be greater than renewDeadline ({renew_deadline:?})"
    )]
    LeaseDurationNotAboveRenewDeadline {
        /// The configured lease duration.
        lease_duration: Duration,
        /// The configured renew deadline.
        renew_deadline: Duration,
    },
    /// The renew deadline leaves no room for a jittered retry.
    #[error(
        "renewDeadline ({renew_deadline:?}) must be greater than retryPeriod*JitterFactor ({retry_period:?} * {JITTER_FACTOR})"
    )]
    RenewDeadlineTooShort {
        /// The configured renew deadline.
        renew_deadline: Duration,
        /// The configured retry period.
        retry_period: Duration,
    },
    /// A zero retry period would spin.
    #[error("retryPeriod must be greater than zero")]
    ZeroRetryPeriod,
    /// The Lease stores whole seconds, at least one.
    #[error("leaseDuration must be a whole number of seconds, at least 1s, got {0:?}")]
    LeaseDurationNotWholeSeconds(Duration),
    /// A candidate needs a name to write into the Lease.
    #[error("the identity must not be empty")]
    EmptyIdentity,
    /// The Lease needs a name and a namespace.
    #[error("the lease needs a name and a namespace (got {namespace:?}/{name:?})")]
    EmptyLeaseName {
        /// The namespace given.
        namespace: String,
        /// The name given.
        name: String,
    },
    /// Health check: this process leads but has not renewed for longer than it may.
    #[error("failed election to renew leadership on lease {lease}: last renewed {since:?} ago")]
    NotRenewed {
        /// `namespace/name` of the Lease.
        lease: String,
        /// How long ago the last successful renewal was.
        since: Duration,
    },
}

/// A candidate identity unique to this process: the host name, `_`, and a random
/// UUID-shaped suffix, as controller-runtime makes it.
pub fn default_identity() -> String {
    let host = hostname::get()
        .ok()
        .and_then(|h| h.into_string().ok())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    let (a, b) = (random_u64(), random_u64());
    format!(
        "{host}_{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

/// A random number from the standard library's per-process random hash keys (seeded by the
/// OS, a new key for every `RandomState`): enough for jitter and identities, without a
/// random-number crate in every build.
fn random_u64() -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(0u8)
}

/// client-go's `wait.Jitter(d, 1.2)`: uniform in `[d, 2.2·d)`.
fn jitter(d: Duration) -> Duration {
    let unit = (random_u64() >> 11) as f64 / (1u64 << 53) as f64;
    d + d.mul_f64(JITTER_FACTOR * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(ld: f64, rd: f64, rp: f64) -> LeaderElectionConfig {
        LeaderElectionConfig {
            lease_duration: Duration::from_secs_f64(ld),
            renew_deadline: Duration::from_secs_f64(rd),
            retry_period: Duration::from_secs_f64(rp),
            release_on_cancel: true,
        }
    }

    #[test]
    fn defaults_are_valid_and_mistakes_are_named() {
        assert!(LeaderElectionConfig::default().validate().is_ok());
        assert!(config(2.0, 1.0, 0.4).validate().is_ok());
        assert!(matches!(
            config(10.0, 10.0, 2.0).validate(),
            Err(LeaderElectionError::LeaseDurationNotAboveRenewDeadline { .. })
        ));
        assert!(matches!(
            config(15.0, 2.4, 2.0).validate(),
            Err(LeaderElectionError::RenewDeadlineTooShort { .. })
        ));
        assert!(matches!(
            config(15.0, 10.0, 0.0).validate(),
            Err(LeaderElectionError::ZeroRetryPeriod)
        ));
        assert!(matches!(
            config(1.5, 1.0, 0.2).validate(),
            Err(LeaderElectionError::LeaseDurationNotWholeSeconds(_))
        ));
    }

    #[test]
    fn jitter_stays_in_client_gos_range() {
        let d = Duration::from_millis(100);
        let samples: Vec<Duration> = (0..1000).map(|_| jitter(d)).collect();
        assert!(
            samples
                .iter()
                .all(|s| *s >= d && *s < Duration::from_millis(220))
        );
        // Spread over the range, not one value.
        assert!(samples.iter().any(|s| *s < Duration::from_millis(130)));
        assert!(samples.iter().any(|s| *s > Duration::from_millis(190)));
    }

    #[test]
    fn identities_are_unique_and_name_the_host() {
        let (a, b) = (default_identity(), default_identity());
        assert_ne!(a, b);
        let (host, suffix) = a.rsplit_once('_').unwrap();
        assert!(!host.is_empty());
        assert_eq!(suffix.len(), 36);
    }
}
