//! `manageJob`: as many active Pods as the Job wants — none while suspended, never more
//! than its parallelism or the completions left — creating them (after the failure
//! backoff, in slow-start batches) or deleting the surplus.

use std::time::Duration;

use super::backoff;
use super::indexes;
use super::pods::{self, Pod};
use super::{Job, State};
use crate::controllers::{Cx, Refused};

/// `MaxPodCreateDeletePerSync`.
const MAX_PER_SYNC: usize = 500;
/// `syncJobBatchPeriod`: a delayed sync never comes sooner.
const MIN_DELAY: Duration = Duration::from_secs(1);

/// Creates or deletes Pods; the number active afterwards (0 while a failure backoff holds
/// replacements back, as the controller reports it) and the first error.
pub(super) fn manage(
    cx: &mut Cx<'_>,
    key: &str,
    job: &Job,
    st: &mut State,
) -> (i64, Option<Refused>) {
    let active_pods: Vec<&Pod> = st.pods.iter().filter(|p| p.is_active()).collect();
    let mut active = active_pods.len() as i64;
    if job.suspended() {
        let victims = for_removal(job, &active_pods, active_pods.len());
        let (removed, ready, error) = pods::delete_uncounted(cx, job, &victims);
        st.terminating += removed;
        st.ready -= ready;
        return (active - removed, error);
    }
    let parallelism = job.parallelism();
    let want = match job.completions() {
        None if st.succeeded > 0 => active,
        None => parallelism,
        Some(completions) => (completions - st.succeeded).min(parallelism).max(0),
    };
    let surplus = (active - want).max(0) as usize;
    let mut victims = for_removal(job, &active_pods, surplus);
    victims.truncate(MAX_PER_SYNC);
    if !victims.is_empty() {
        let (removed, ready, error) = pods::delete_uncounted(cx, job, &victims);
        st.terminating += removed;
        st.ready -= ready;
        // Deleting takes precedence: nothing is created in the same sync.
        return (active - removed, error);
    }
    let terminating = if job.only_replace_failed_pods() {
        st.terminating
    } else {
        0
    };
    let mut diff = want - terminating - active;
    if diff <= 0 {
        return (active, None);
    }
    let now = cx.clock.now();
    if job.backoff_limit_per_index().is_none() {
        let remaining = st.record.remaining(now);
        if remaining > Duration::ZERO {
            cx.queue.add_after(key, now, remaining.max(MIN_DELAY));
            return (0, None);
        }
    }
    diff = diff.min(MAX_PER_SYNC as i64);
    let mut indexes_to_add: Vec<i64> = Vec::new();
    if job.indexed() {
        indexes_to_add = indexes::first_pending(
            job,
            &st.pods,
            &active_pods,
            &st.succeeded_indexes,
            st.failed_indexes.as_ref(),
            diff,
        );
        if job.backoff_limit_per_index().is_some() {
            // Each index waits out its own backoff.
            let delays: Vec<(i64, Duration)> = indexes_to_add
                .iter()
                .map(|ix| (*ix, backoff::remaining_for_index(st.delayed.get(ix), now)))
                .collect();
            let ready: Vec<i64> = delays
                .iter()
                .filter(|(_, d)| d.is_zero())
                .map(|(ix, _)| *ix)
                .collect();
            if ready.is_empty()
                && let Some(least) = delays.iter().map(|(_, d)| *d).min()
            {
                cx.queue.add_after(key, now, least.max(MIN_DELAY));
                return (0, None);
            }
            indexes_to_add = ready;
        }
        diff = indexes_to_add.len() as i64;
    }
    active += diff;
    let mut error: Option<Refused> = None;
    let mut next_index = indexes_to_add.into_iter();
    // Slow start: batches of 1, 2, 4, ...; a batch with errors ends the creations.
    let mut batch = diff.min(1);
    while diff > 0 {
        let mut failed = false;
        for _ in 0..batch {
            let index = next_index.next();
            let counts = index
                .filter(|_| job.backoff_limit_per_index().is_some())
                .map(|ix| indexes::failure_counts(job, st.delayed.get(&ix)));
            let pod = pods::from_template(job, index, counts);
            match pods::create(cx, job, &pod) {
                Ok(()) => {}
                // The namespace is going away: the Pod counts as created (Go's quirk).
                Err(e) if pods::namespace_terminating(&e) => {}
                Err(e) => {
                    active -= 1;
                    failed = true;
                    error.get_or_insert(e);
                }
            }
        }
        let skipped = diff - batch;
        if failed && skipped > 0 {
            active -= skipped;
            break;
        }
        diff -= batch;
        batch = (2 * batch).min(diff);
    }
    (active, error)
}

/// `activePodsForRemoval`: an Indexed Job's Pods that repeat an index or have none
/// valid, then as many more as `at_least` asks, in the order to delete them.
fn for_removal<'p>(job: &Job, active: &[&'p Pod], at_least: usize) -> Vec<&'p Pod> {
    let (mut remove, mut left) = if job.indexed() {
        indexes::duplicates(active, job.completions().unwrap_or(0))
    } else {
        (Vec::new(), active.to_vec())
    };
    if remove.len() < at_least {
        left.sort_by(|a, b| pods::deletion_order(a, b));
        let more = at_least - remove.len();
        remove.extend(left.into_iter().take(more));
    }
    remove
}
