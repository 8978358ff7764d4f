//! The delay before failed Pods are replaced (`backoff_utils.go`): 10 s after the last
//! failure, doubling with each failure since the last success, at most 10 minutes.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use super::pods::Pod;

/// `DefaultJobPodFailureBackOff`.
const FIRST_DELAY: Duration = Duration::from_secs(10);
/// `MaxJobPodFailureBackOff`.
const MAX_DELAY: Duration = Duration::from_secs(600);

/// A Job's failures since its last success (`backoffRecord`), kept in the controller's
/// memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Record {
    failures: i64,
    last_failure: Option<Timestamp>,
}

impl Record {
    /// `newBackoffRecord`: the record once the newly finished Pods are taken in. A success
    /// forgets the failures before it.
    pub(super) fn with(&self, succeeded: &[&Pod], failed: &[&Pod]) -> Record {
        let mut failed_times: Vec<Timestamp> = failed.iter().map(|p| p.finished_time()).collect();
        failed_times.sort();
        let last_success = succeeded.iter().map(|p| p.finished_time()).max();
        match last_success {
            None if failed_times.is_empty() => self.clone(),
            None => Record {
                failures: self.failures + failed_times.len() as i64,
                last_failure: failed_times.last().copied(),
            },
            Some(success) => {
                let after: Vec<&Timestamp> = failed_times
                    .iter()
                    .rev()
                    .take_while(|t| **t > success)
                    .collect();
                Record {
                    failures: after.len() as i64,
                    last_failure: after.first().map(|t| **t),
                }
            }
        }
    }

    /// `getRemainingTime`: how long until replacements may be created.
    pub(super) fn remaining(&self, now: Timestamp) -> Duration {
        remaining(self.failures, self.last_failure, now)
    }
}

/// `getRemainingTimeForFailuresCount`: `min(10 s × 2^(failures−1), 10 min)` after the last
/// failure, less the time since.
pub(super) fn remaining(failures: i64, last: Option<Timestamp>, now: Timestamp) -> Duration {
    let Some(last) = last.filter(|_| failures > 0) else {
        return Duration::ZERO;
    };
    let mut delay = FIRST_DELAY;
    for _ in 1..failures {
        delay *= 2;
        if delay >= MAX_DELAY {
            delay = MAX_DELAY;
            break;
        }
    }
    let elapsed = now.duration_since(last);
    let delay = SignedDuration::try_from(delay).unwrap_or(SignedDuration::MAX);
    if delay < elapsed {
        return Duration::ZERO;
    }
    (delay - elapsed).unsigned_abs()
}

/// `getRemainingTimePerIndex`: the delay of an index whose last failed Pod is `pod`.
pub(super) fn remaining_for_index(pod: Option<&Pod>, now: Timestamp) -> Duration {
    let Some(pod) = pod else {
        return Duration::ZERO;
    };
    remaining(
        pod.absolute_failure_count() + 1,
        Some(pod.finished_time()),
        now,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_doubles_from_ten_seconds_to_ten_minutes() {
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let at = |s: i64| t0.checked_add(SignedDuration::from_secs(s)).unwrap();
        assert_eq!(remaining(0, Some(t0), t0), Duration::ZERO);
        assert_eq!(remaining(1, Some(t0), t0), Duration::from_secs(10));
        assert_eq!(remaining(1, Some(t0), at(4)), Duration::from_secs(6));
        assert_eq!(remaining(1, Some(t0), at(11)), Duration::ZERO);
        assert_eq!(remaining(3, Some(t0), t0), Duration::from_secs(40));
        assert_eq!(remaining(7, Some(t0), t0), Duration::from_secs(600));
        assert_eq!(remaining(60, Some(t0), t0), Duration::from_secs(600));
    }
}
