//! The metric families, their labels and buckets, registered once per [`Metrics`](super::Metrics).

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// A gauge of seconds.
pub(super) type SecondsGauge = Gauge<f64, AtomicU64>;
/// A family of histograms built by a plain function.
pub(super) type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// `name` and `controller`, both the controller's name, as controller-runtime labels its queues.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct QueueLabels {
    pub name: String,
    pub controller: String,
}

/// controller-runtime's depth labels: a queue's, and its priority (always empty here: kubegen's
/// queue has no priorities).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct DepthLabels {
    pub name: String,
    pub controller: String,
    pub priority: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct ControllerLabels {
    pub controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct ResultLabels {
    pub controller: String,
    pub result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct NameLabels {
    pub name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct DroppedLabels {
    pub reporter: String,
    pub reason: String,
}

/// client-go's queue-latency and work-duration buckets (`ExponentialBuckets(10e-9, 10, 12)`):
/// 10 ns to 1000 s.
fn queue_histogram() -> Histogram {
    Histogram::new(exponential_buckets(10e-9, 10.0, 12))
}

/// controller-runtime's reconcile-time buckets: fine below a second, coarse up to a minute.
pub(super) const RECONCILE_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

fn reconcile_histogram() -> Histogram {
    Histogram::new(RECONCILE_BUCKETS)
}

/// The work-queue families (`workqueue_*`).
pub(super) struct WorkQueueFamilies {
    pub depth: Family<DepthLabels, Gauge>,
    pub adds: Family<QueueLabels, Counter>,
    pub queue_duration: HistogramFamily<QueueLabels>,
    pub work_duration: HistogramFamily<QueueLabels>,
    pub unfinished_work: Family<QueueLabels, SecondsGauge>,
    pub longest_running: Family<QueueLabels, SecondsGauge>,
    pub retries: Family<QueueLabels, Counter>,
}

/// The reconcile families (`controller_runtime_*`).
pub(super) struct ReconcileFamilies {
    pub total: Family<ResultLabels, Counter>,
    pub errors: Family<ControllerLabels, Counter>,
    pub terminal_errors: Family<ControllerLabels, Counter>,
    pub timeouts: Family<ControllerLabels, Counter>,
    pub panics: Family<ControllerLabels, Counter>,
    pub time: HistogramFamily<ControllerLabels>,
    pub max_concurrent: Family<ControllerLabels, Gauge>,
    pub active_workers: Family<ControllerLabels, Gauge>,
}

/// Every family a [`Metrics`](super::Metrics) serves.
pub(super) struct Families {
    pub workqueue: WorkQueueFamilies,
    pub reconcile: ReconcileFamilies,
    pub leader_status: Family<NameLabels, Gauge>,
    pub events_dropped: Family<DroppedLabels, Counter>,
}

impl Families {
    /// Creates the families and registers them in `registry`. Counters are registered without
    /// `_total`: the OpenMetrics encoder appends it.
    pub(super) fn register(registry: &mut Registry) -> Self {
        let families = Families {
            workqueue: WorkQueueFamilies {
                depth: Family::default(),
                adds: Family::default(),
                queue_duration: Family::new_with_constructor(queue_histogram),
                work_duration: Family::new_with_constructor(queue_histogram),
                unfinished_work: Family::default(),
                longest_running: Family::default(),
                retries: Family::default(),
            },
            reconcile: ReconcileFamilies {
                total: Family::default(),
                errors: Family::default(),
                terminal_errors: Family::default(),
                timeouts: Family::default(),
                panics: Family::default(),
                time: Family::new_with_constructor(reconcile_histogram),
                max_concurrent: Family::default(),
                active_workers: Family::default(),
            },
            leader_status: Family::default(),
            events_dropped: Family::default(),
        };
        let wq = &families.workqueue;
        registry.register(
            "workqueue_depth",
            "Items waiting in the work queue, including items added again while being processed",
            wq.depth.clone(),
        );
        registry.register(
            "workqueue_adds",
            "Items added to the work queue (an item already waiting is not counted again)",
            wq.adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "Seconds an item waited in the work queue before a worker took it",
            wq.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            "Seconds a worker spent on an item, from taking it to marking it done",
            wq.work_duration.clone(),
        );
        registry.register(
            "workqueue_unfinished_work_seconds",
            "Seconds spent so far on the items workers hold now, summed; \
             growth without completions points at stuck workers",
            wq.unfinished_work.clone(),
        );
        registry.register(
            "workqueue_longest_running_processor_seconds",
            "Seconds the longest-held item has been with its worker",
            wq.longest_running.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Items added to the work queue after a delay or a backoff",
            wq.retries.clone(),
        );
        let rc = &families.reconcile;
        registry.register(
            "controller_runtime_reconcile",
            "Reconciles per controller and result (success, error, requeue, requeue_after)",
            rc.total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Reconciles that returned an error",
            rc.errors.clone(),
        );
        registry.register(
            "controller_runtime_terminal_reconcile_errors",
            "Reconciles that returned a terminal error, which is not retried",
            rc.terminal_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_timeouts",
            "Reconciles stopped at the controller's reconcile timeout",
            rc.timeouts.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_panics",
            "Reconciles that panicked",
            rc.panics.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Seconds each reconcile took, whatever its result",
            rc.time.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "How many reconciles a controller runs at once at most",
            rc.max_concurrent.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Workers of a controller reconciling an item right now",
            rc.active_workers.clone(),
        );
        registry.register(
            "leader_election_master_status",
            "1 while this process holds the named leader-election lease, 0 otherwise",
            families.leader_status.clone(),
        );
        registry.register(
            "kubegen_events_dropped",
            "Events the recorder did not send: spam-filtered, queue full, or refused by the apiserver",
            families.events_dropped.clone(),
        );
        families
    }
}
