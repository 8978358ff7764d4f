//! The handles a work queue updates: client-go's queue metrics under controller-runtime's names.

use std::time::Duration;

use prometheus_client::metrics::histogram::Histogram;

use super::families::{DepthLabels, QueueLabels, SecondsGauge, WorkQueueFamilies};
use super::{Counter, Gauge};

/// One queue's `workqueue_*` series, from [`Metrics::workqueue`](super::Metrics::workqueue);
/// give it to [`WorkQueue::with_metrics`](crate::workqueue::WorkQueue::with_metrics).
/// Cheap to clone; clones update the same series.
#[derive(Clone, Debug)]
pub struct WorkQueueMetrics {
    depth: Gauge,
    adds: Counter,
    queue_duration: Histogram,
    work_duration: Histogram,
    unfinished_work: SecondsGauge,
    longest_running: SecondsGauge,
    retries: Counter,
}

impl WorkQueueMetrics {
    pub(super) fn new(families: &WorkQueueFamilies, labels: &QueueLabels) -> Self {
        let depth_labels = DepthLabels {
            name: labels.name.clone(),
            controller: labels.controller.clone(),
            priority: String::new(),
        };
        WorkQueueMetrics {
            depth: families.depth.get_or_create_owned(&depth_labels),
            adds: families.adds.get_or_create_owned(labels),
            queue_duration: families.queue_duration.get_or_create_owned(labels),
            work_duration: families.work_duration.get_or_create_owned(labels),
            unfinished_work: families.unfinished_work.get_or_create_owned(labels),
            longest_running: families.longest_running.get_or_create_owned(labels),
            retries: families.retries.get_or_create_owned(labels),
        }
    }

    /// An item became dirty (queued, or marked to be queued again after its worker is done).
    pub(crate) fn added(&self) {
        self.adds.inc();
        self.depth.inc();
    }

    /// A worker took an item that had waited `waited` (unknown if it was added before the
    /// metrics were set).
    pub(crate) fn got(&self, waited: Option<Duration>) {
        self.depth.dec();
        if let Some(waited) = waited {
            self.queue_duration.observe(waited.as_secs_f64());
        }
    }

    /// A worker finished an item it had held for `worked`.
    pub(crate) fn done(&self, worked: Duration) {
        self.work_duration.observe(worked.as_secs_f64());
    }

    /// An item was added after a delay or backoff.
    pub(crate) fn retried(&self) {
        self.retries.inc();
    }

    /// What the items held by workers now have cost so far: the sum and the longest.
    pub(crate) fn unfinished(&self, total: Duration, longest: Duration) {
        self.unfinished_work.set(total.as_secs_f64());
        self.longest_running.set(longest.as_secs_f64());
    }
}
