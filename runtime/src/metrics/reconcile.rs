//! The handles a controller updates around its reconciler, under controller-runtime's names.

use std::time::Duration;

use prometheus_client::metrics::histogram::Histogram;

use super::families::{ControllerLabels, ReconcileFamilies, ResultLabels};
use super::{Counter, Gauge};

/// How a reconcile ended, as `controller_runtime_reconcile_total`'s `result` label names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReconcileOutcome {
    /// Done; the item is forgotten until something changes.
    Success,
    /// Failed; the item goes back with backoff.
    Error,
    /// Asked to run again with backoff.
    Requeue,
    /// Asked to run again after a given delay.
    RequeueAfter,
}

impl ReconcileOutcome {
    const ALL: [ReconcileOutcome; 4] = [
        ReconcileOutcome::Success,
        ReconcileOutcome::Error,
        ReconcileOutcome::Requeue,
        ReconcileOutcome::RequeueAfter,
    ];

    /// The `result` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReconcileOutcome::Success => "success",
            ReconcileOutcome::Error => "error",
            ReconcileOutcome::Requeue => "requeue",
            ReconcileOutcome::RequeueAfter => "requeue_after",
        }
    }
}

/// One controller's `controller_runtime_*` series, from
/// [`Metrics::reconcile`](super::Metrics::reconcile). Cheap to clone; clones update the same
/// series.
#[derive(Clone, Debug)]
pub struct ReconcileMetrics {
    /// Indexed like [`ReconcileOutcome::ALL`].
    total: [Counter; 4],
    errors: Counter,
    terminal_errors: Counter,
    timeouts: Counter,
    panics: Counter,
    time: Histogram,
    max_concurrent: Gauge,
    active_workers: Gauge,
}

impl ReconcileMetrics {
    pub(super) fn new(families: &ReconcileFamilies, labels: &ControllerLabels) -> Self {
        let total = ReconcileOutcome::ALL.map(|outcome| {
            families.total.get_or_create_owned(&ResultLabels {
                controller: labels.controller.clone(),
                result: outcome.as_str().to_owned(),
            })
        });
        ReconcileMetrics {
            total,
            errors: families.errors.get_or_create_owned(labels),
            terminal_errors: families.terminal_errors.get_or_create_owned(labels),
            timeouts: families.timeouts.get_or_create_owned(labels),
            panics: families.panics.get_or_create_owned(labels),
            time: families.time.get_or_create_owned(labels),
            max_concurrent: families.max_concurrent.get_or_create_owned(labels),
            active_workers: families.active_workers.get_or_create_owned(labels),
        }
    }

    /// Records a reconcile that ended with `outcome` after `took`: its result count, its time,
    /// and for [`ReconcileOutcome::Error`] the error count.
    pub fn observe(&self, outcome: ReconcileOutcome, took: Duration) {
        self.total[outcome as usize].inc();
        if outcome == ReconcileOutcome::Error {
            self.errors.inc();
        }
        self.time.observe(took.as_secs_f64());
    }

    /// Records a reconcile that failed with a terminal error: not retried (observe its
    /// outcome, an error, as well).
    pub fn terminal_error(&self) {
        self.terminal_errors.inc();
    }

    /// Records a reconcile stopped at the controller's reconcile timeout (observe its
    /// outcome, an error, as well).
    pub fn timed_out(&self) {
        self.timeouts.inc();
    }

    /// Records a reconcile that panicked (observe its outcome, usually an error, as well).
    pub fn panicked(&self) {
        self.panics.inc();
    }

    /// Records how many reconciles the controller runs at once at most.
    pub fn set_max_concurrent(&self, workers: usize) {
        self.max_concurrent
            .set(i64::try_from(workers).unwrap_or(i64::MAX));
    }

    /// Counts a worker as active until the returned guard is dropped (a panic unwinding
    /// through the worker drops it too).
    #[must_use = "the worker counts as active only while the guard lives"]
    pub fn worker_started(&self) -> ActiveWorker {
        self.active_workers.inc();
        ActiveWorker {
            active_workers: self.active_workers.clone(),
        }
    }
}

/// A worker counted in `controller_runtime_active_workers` while this lives; from
/// [`ReconcileMetrics::worker_started`].
#[derive(Debug)]
pub struct ActiveWorker {
    active_workers: Gauge,
}

impl Drop for ActiveWorker {
    fn drop(&mut self) {
        self.active_workers.dec();
    }
}
