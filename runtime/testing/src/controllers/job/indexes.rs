//! An Indexed Job's indexes (`indexed_job_utils.go`): sets of indexes as ordered intervals
//! written `"0-2,4,6,7"`, which have succeeded or failed, which to start next, which Pods
//! repeat an index, and the failure counts a replacement carries.

use std::collections::{BTreeMap, BTreeSet};

use super::Job;
use super::pods::Pod;
use super::policies;

/// Indexes as ordered, non-overlapping, non-adjacent intervals (`orderedIntervals`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Intervals(Vec<(i64, i64)>);

impl Intervals {
    /// `parseIndexesFromString`: intervals below `completions` (a corrupt one is skipped,
    /// one reaching past `completions` is cut there).
    pub(super) fn parse(text: &str, completions: i64) -> Intervals {
        let mut result: Vec<(i64, i64)> = Vec::new();
        if text.is_empty() {
            return Intervals(result);
        }
        for part in text.split(',') {
            let mut limits = part.split('-');
            let Some(Ok(first)) = limits.next().map(str::parse::<i64>) else {
                continue;
            };
            if first >= completions {
                break;
            }
            let last = match limits.next() {
                Some(l) => match l.parse::<i64>() {
                    Ok(l) => l.min(completions - 1),
                    Err(_) => continue,
                },
                None => first,
            };
            match result.last_mut() {
                Some(previous) if previous.1 == first - 1 => previous.1 = last,
                _ => result.push((first, last)),
            }
        }
        Intervals(result)
    }

    /// `withOrderedIndexes`: these intervals and `indexes` (in increasing order).
    pub(super) fn with(&self, indexes: impl IntoIterator<Item = i64>) -> Intervals {
        let added = Intervals(indexes.into_iter().map(|i| (i, i)).collect());
        self.merge(&added)
    }

    /// `merge`: the union of two sets of intervals.
    pub(super) fn merge(&self, other: &Intervals) -> Intervals {
        let mut all: Vec<(i64, i64)> = self.0.iter().chain(&other.0).copied().collect();
        all.sort_by_key(|i| i.0);
        let mut result: Vec<(i64, i64)> = Vec::new();
        for interval in all {
            match result.last_mut() {
                Some(last) if interval.0 <= last.1 + 1 => last.1 = last.1.max(interval.1),
                _ => result.push(interval),
            }
        }
        Intervals(result)
    }

    /// How many indexes the intervals hold.
    pub(super) fn total(&self) -> i64 {
        self.0.iter().map(|(a, b)| b - a + 1).sum()
    }

    pub(super) fn has(&self, index: i64) -> bool {
        self.0.iter().any(|(a, b)| (*a..=*b).contains(&index))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn intervals(&self) -> &[(i64, i64)] {
        &self.0
    }
}

impl std::fmt::Display for Intervals {
    /// `"0-2,4"`; two neighbours are written `"5,6"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (first, last)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{first}")?;
            if last > first {
                let sep = if *last == first + 1 { "," } else { "-" };
                write!(f, "{sep}{last}")?;
            }
        }
        Ok(())
    }
}

/// `calculateSucceededIndexes`: the indexes `status.completedIndexes` holds, and those
/// with the Succeeded Pods not counted yet added.
pub(super) fn succeeded(job: &Job, pods: &[Pod]) -> (Intervals, Intervals) {
    let completions = job.completions().unwrap_or(0);
    let previous = Intervals::parse(job.status_str("completedIndexes"), completions);
    let new: BTreeSet<i64> = pods
        .iter()
        .filter(|p| p.succeeded() && p.has_finalizer())
        .filter_map(|p| p.valid_index(completions))
        .collect();
    let all = previous.with(new);
    (previous, all)
}

/// `calculateFailedIndexes`: `status.failedIndexes` and the indexes whose not yet
/// counted Pods failed them.
pub(super) fn failed(job: &Job, pods: &[Pod]) -> Intervals {
    let completions = job.completions().unwrap_or(0);
    let previous = Intervals::parse(job.status_str("failedIndexes"), completions);
    let new: BTreeSet<i64> = pods
        .iter()
        .filter(|p| p.has_finalizer() && index_failed(job, p))
        .filter_map(|p| p.valid_index(completions))
        .collect();
    previous.with(new)
}

/// `isIndexFailed`: the Pod failed its index — a `FailIndex` rule matched it, or it
/// counts and its index has failed as often as the backoff limit per index allows.
fn index_failed(job: &Job, pod: &Pod) -> bool {
    if !pod.is_failed(job) {
        return false;
    }
    let counted = match job.pod_failure_policy() {
        Some(policy) => {
            let verdict = policies::match_pod_failure_policy(policy, pod);
            if verdict.action == Some("FailIndex") {
                return true;
            }
            verdict.counts
        }
        None => true,
    };
    counted && pod.failure_count() >= job.backoff_limit_per_index().unwrap_or(0)
}

/// `firstPendingIndexes`: the `count` lowest indexes below `completions` with no active
/// Pod that have neither succeeded nor failed (nor have a terminating Pod, when only
/// failed Pods are replaced).
pub(super) fn first_pending(
    job: &Job,
    pods: &[Pod],
    active: &[&Pod],
    succeeded: &Intervals,
    failed: Option<&Intervals>,
    count: i64,
) -> Vec<i64> {
    let completions = job.completions().unwrap_or(0);
    let mut taken = succeeded.with(indexes(active.iter().copied()));
    if job.only_replace_failed_pods() {
        taken = taken.with(indexes(pods.iter().filter(|p| p.is_terminating())));
    }
    if let Some(failed) = failed {
        taken = taken.merge(failed);
    }
    (0..completions)
        .filter(|i| !taken.has(*i))
        .take(count.max(0) as usize)
        .collect()
}

/// `getIndexes`: the indexes of Pods, in order.
pub(super) fn indexes<'p>(pods: impl Iterator<Item = &'p Pod>) -> BTreeSet<i64> {
    pods.filter_map(Pod::index).collect()
}

/// `appendDuplicatedIndexPodsForRemoval`: of active Pods, those without an index or with
/// one out of range, and all but the best of those sharing an index, are to be removed;
/// the rest stay.
pub(super) fn duplicates<'p>(pods: &[&'p Pod], completions: i64) -> (Vec<&'p Pod>, Vec<&'p Pod>) {
    let mut by_index: BTreeMap<Option<i64>, Vec<&'p Pod>> = BTreeMap::new();
    for pod in pods {
        by_index.entry(pod.index()).or_default().push(pod);
    }
    let (mut remove, mut keep) = (Vec::new(), Vec::new());
    for (index, mut group) in by_index {
        match index {
            None => remove.extend(group),
            Some(i) if i >= completions => remove.extend(group),
            Some(_) => {
                group.sort_by(|a, b| super::pods::deletion_order(a, b));
                if let Some(best) = group.pop() {
                    keep.push(best);
                }
                remove.extend(group);
            }
        }
    }
    (remove, keep)
}

/// `getPodsWithDelayedDeletionPerIndex`: for each index with no active Pod that has
/// neither succeeded nor failed, its latest failed Pod still holding the finalizer — kept
/// until its replacement carries its failure count on.
pub(super) fn delayed_deletion(
    job: &Job,
    pods: &[Pod],
    active: &[&Pod],
    succeeded: &Intervals,
    failed: &Intervals,
) -> BTreeMap<i64, Pod> {
    let completions = job.completions().unwrap_or(0);
    let active = indexes(active.iter().copied());
    let mut delayed: BTreeMap<i64, Pod> = BTreeMap::new();
    for pod in pods {
        if !pod.has_finalizer() || !pod.is_failed(job) {
            continue;
        }
        let Some(ix) = pod.valid_index(completions) else {
            continue;
        };
        if succeeded.has(ix) || failed.has(ix) || active.contains(&ix) {
            continue;
        }
        let replace = match delayed.get(&ix) {
            Some(last) => {
                last.absolute_failure_count() <= pod.absolute_failure_count()
                    && pod.finished_time() >= last.finished_time()
            }
            None => true,
        };
        if replace {
            delayed.insert(ix, pod.clone());
        }
    }
    delayed
}

/// `getNewIndexFailureCounts`: the failure counts of the Pod replacing `replaced` (none:
/// 0 and 0).
pub(super) fn failure_counts(job: &Job, replaced: Option<&Pod>) -> (i64, i64) {
    let Some(pod) = replaced else {
        return (0, 0);
    };
    let (mut failed, mut ignored) = (pod.failure_count(), pod.ignored_failure_count());
    let counts = job
        .pod_failure_policy()
        .is_none_or(|p| policies::match_pod_failure_policy(p, pod).counts);
    if counts {
        failed += 1;
    } else {
        ignored += 1;
    }
    (failed, ignored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_read_and_write_as_the_job_controller_does() {
        let i = Intervals::parse("0-2,4,6,7", 10);
        assert_eq!(i.total(), 6);
        assert_eq!(i.to_string(), "0-2,4,6,7");
        assert_eq!(Intervals::parse("1,2", 10).to_string(), "1,2");
        assert_eq!(Intervals::parse("0-9", 3).to_string(), "0-2");
        assert_eq!(Intervals::parse("x,1", 3).to_string(), "1");
        assert_eq!(Intervals::default().with([1, 2, 3]).to_string(), "1-3");
        assert_eq!(
            Intervals::parse("0", 5)
                .with([1])
                .merge(&Intervals::parse("3", 5)),
            Intervals(vec![(0, 1), (3, 3)])
        );
        assert!(i.has(7) && !i.has(5));
    }
}
