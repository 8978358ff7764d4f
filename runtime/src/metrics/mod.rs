//! Prometheus metrics for controllers, under the names controller-runtime exports, so the
//! dashboards and alerts written for Go operators work unchanged.
//!
//! One [`Metrics`] per manager holds one registry. [`Metrics::workqueue`] hands out the
//! handles a [`WorkQueue`](crate::workqueue::WorkQueue) updates (`workqueue_*`),
//! [`Metrics::reconcile`] the ones a controller updates around its reconciler
//! (`controller_runtime_reconcile_*`), [`Metrics::leader_election`] the
//! `leader_election_master_status` gauge. [`Metrics::registry`] takes a program's own
//! metrics; [`Metrics::encode`] renders everything as OpenMetrics text for `/metrics`
//! (served by `serve` with the `manager` feature; with `secure-metrics`, `serve_secure`
//! serves it over HTTPS to the callers the apiserver authenticates and authorizes, as
//! controller-runtime's `filters.WithAuthenticationAndAuthorization` does).
//!
//! ```
//! use std::time::Duration;
//! use kubegen_runtime::metrics::{Metrics, ReconcileOutcome};
//! use kubegen_runtime::workqueue::WorkQueue;
//!
//! let metrics = Metrics::new();
//! let queue: WorkQueue<String> = WorkQueue::new().with_metrics(metrics.workqueue("cronjob"));
//! queue.add("default/nightly".to_owned());
//! let reconcile = metrics.reconcile("cronjob");
//! reconcile.observe(ReconcileOutcome::Success, Duration::from_millis(12));
//!
//! let text = metrics.encode();
//! assert!(text.contains(r#"workqueue_depth{name="cronjob",controller="cronjob",priority=""} 1"#));
//! assert!(text.contains(r#"controller_runtime_reconcile_total{controller="cronjob",result="success"} 1"#));
//! ```

mod families;
#[cfg(feature = "manager")]
mod filter;
mod reconcile;
#[cfg(feature = "secure-metrics")]
mod secure;
#[cfg(feature = "manager")]
mod server;
mod workqueue;

use std::ops::DerefMut;
use std::sync::Arc;

use parking_lot::Mutex;
use prometheus_client::registry::Registry;

use families::{ControllerLabels, Families, NameLabels, QueueLabels};
#[cfg(feature = "manager")]
pub use filter::{AuthenticationAndAuthorization, Rejection};
pub use reconcile::{ActiveWorker, ReconcileMetrics, ReconcileOutcome};
#[cfg(feature = "secure-metrics")]
pub use secure::{SecureServing, SecureServingError, serve_secure};
#[cfg(feature = "manager")]
pub use server::{Check, DuplicateCheck, HealthChecks, serve};
pub use workqueue::WorkQueueMetrics;

/// One registry of controller metrics: the work-queue, reconcile, leader-election and
/// event-recorder families, and whatever a program registers itself. Cheap to clone; clones
/// share the registry.
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Mutex<Registry>,
    families: Families,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// The `Content-Type` of [`Metrics::encode`]'s output.
    pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// A registry with every controller family registered (and no series yet).
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let families = Families::register(&mut registry);
        Metrics {
            inner: Arc::new(Inner {
                registry: Mutex::new(registry),
                families,
            }),
        }
    }

    /// The work-queue metrics of `controller`'s queue, labelled `name` = `controller` =
    /// `controller` as controller-runtime labels them. Asking twice returns handles on the
    /// same series.
    pub fn workqueue(&self, controller: &str) -> WorkQueueMetrics {
        let labels = QueueLabels {
            name: controller.to_owned(),
            controller: controller.to_owned(),
        };
        WorkQueueMetrics::new(&self.inner.families.workqueue, &labels)
    }

    /// The reconcile metrics of `controller`. Its four `controller_runtime_reconcile_total`
    /// results exist (at 0) from this call on, as controller-runtime creates them.
    pub fn reconcile(&self, controller: &str) -> ReconcileMetrics {
        let labels = ControllerLabels {
            controller: controller.to_owned(),
        };
        ReconcileMetrics::new(&self.inner.families.reconcile, &labels)
    }

    /// The `leader_election_master_status{name}` gauge of the lease `name`.
    pub fn leader_election(&self, name: &str) -> LeaderMetrics {
        let status = self
            .inner
            .families
            .leader_status
            .get_or_create_owned(&NameLabels {
                name: name.to_owned(),
            });
        LeaderMetrics { status }
    }

    /// The `kubegen_events_dropped_total{reporter, reason}` counter of an event recorder:
    /// events it did not send because of its spam filter (`spam`), a full queue
    /// (`queue_full`) or an error from the apiserver (`error`).
    pub(crate) fn events_dropped(&self, reporter: &str, reason: &str) -> Counter {
        self.inner
            .families
            .events_dropped
            .get_or_create_owned(&families::DroppedLabels {
                reporter: reporter.to_owned(),
                reason: reason.to_owned(),
            })
    }

    /// The registry, to register a program's own metrics beside the controller ones.
    ///
    /// ```
    /// use prometheus_client::metrics::counter::Counter;
    /// let metrics = kubegen_runtime::metrics::Metrics::new();
    /// let jobs: Counter = Counter::default();
    /// metrics.registry().register("cronjob_jobs_started", "Jobs the operator started", jobs.clone());
    /// jobs.inc();
    /// assert!(metrics.encode().contains("cronjob_jobs_started_total 1"));
    /// ```
    pub fn registry(&self) -> impl DerefMut<Target = Registry> + '_ {
        self.inner.registry.lock()
    }

    /// Every metric as OpenMetrics text, ending in `# EOF` (serve it as
    /// [`Metrics::CONTENT_TYPE`]).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry()) {
            // Writing into a String cannot fail; a program's own metric type can refuse to
            // encode. Serve what was written rather than nothing.
            tracing::error!(%error, "encoding metrics");
        }
        text
    }
}

/// The `leader_election_master_status{name}` gauge: 1 while this process holds the lease.
#[derive(Clone, Debug)]
pub struct LeaderMetrics {
    status: Gauge,
}

impl LeaderMetrics {
    /// Records whether this process leads.
    pub fn set_leading(&self, leading: bool) {
        self.status.set(i64::from(leading));
    }
}

type Counter = prometheus_client::metrics::counter::Counter;
type Gauge = prometheus_client::metrics::gauge::Gauge;

#[cfg(test)]
mod tests;
