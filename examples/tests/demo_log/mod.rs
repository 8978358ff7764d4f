//! What the example operator's demo logs for its CronJobs, shared by the tests that run it.

/// The lines the demo logs in namespace `ns` when every reconcile succeeds: the finalizer,
/// the Ready condition of a scheduled and of a suspended CronJob, and the clean-up of a
/// deleted one.
pub fn reconciled(ns: &str) -> [String; 5] {
    [
        format!("{ns}/nightly: added finalizer"),
        format!("{ns}/nightly: Ready=True (Scheduled)"),
        format!("{ns}/paused: Ready=False (Suspended)"),
        format!("{ns}/hourly: cleaning up its jobs before deletion"),
        format!("{ns}/hourly: deleted 1 jobs"),
    ]
}
