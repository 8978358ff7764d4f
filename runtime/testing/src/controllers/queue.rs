//! A controller's work queue, as client-go's rate-limited delaying queue behaves for one
//! worker: a key is queued once however often it is added, keys wait their turn in order,
//! and a key can be added after a delay on the cluster's [`Clock`](crate::Clock).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

/// How many times in a row a failing key is retried at once before its retries wait on
/// wall time (5 ms, 10 ms, ... as client-go's per-item backoff) without holding up
/// [`ApiServer::settle`](crate::ApiServer::settle).
pub(super) const QUICK_RETRIES: u32 = 5;

/// The keys one controller has to work on.
#[derive(Default)]
pub(crate) struct Queue {
    ready: VecDeque<String>,
    queued: HashSet<String>,
    /// Keys due at a time of the cluster's clock, in order (the counter keeps equal times
    /// apart).
    timers: BTreeMap<(Timestamp, u64), String>,
    /// Each key's entry in `timers`: a key waits once, for its earliest time.
    waiting: HashMap<String, (Timestamp, u64)>,
    /// Keys waiting out an error backoff, due at a wall-clock instant, each with whether it
    /// was one of the key's quick retries. That is fixed when the retry is queued: a sync of
    /// the key that succeeds meanwhile forgets its failures, but the retry still runs, as
    /// client-go's delayed add does, and is still work `settle` waits for.
    backoff: BTreeMap<(tokio::time::Instant, u64), (String, bool)>,
    /// How many times in a row each key failed.
    failures: HashMap<String, u32>,
    sequence: u64,
}

impl Queue {
    /// Queues `key` unless it is queued already.
    pub(crate) fn add(&mut self, key: impl Into<String>) {
        let key = key.into();
        if self.queued.insert(key.clone()) {
            self.ready.push_back(key);
        }
    }

    /// Queues `key` once `delay` has passed on the cluster's clock (`now` being its time).
    pub(crate) fn add_after(&mut self, key: impl Into<String>, now: Timestamp, delay: Duration) {
        let delay = SignedDuration::try_from(delay).unwrap_or(SignedDuration::MAX);
        let due = now.saturating_add(delay).unwrap_or(Timestamp::MAX);
        self.add_at(key, due);
    }

    /// Queues `key` at `due` on the cluster's clock. A key already waiting keeps the earlier
    /// of its two times, as client-go's delaying queue keeps one entry per key.
    pub(crate) fn add_at(&mut self, key: impl Into<String>, due: Timestamp) {
        let key = key.into();
        if let Some(&(waiting, sequence)) = self.waiting.get(&key) {
            if waiting <= due {
                return;
            }
            self.timers.remove(&(waiting, sequence));
        }
        self.sequence += 1;
        self.waiting.insert(key.clone(), (due, self.sequence));
        self.timers.insert((due, self.sequence), key);
    }

    /// Forgets `key`'s failures (after a successful sync).
    pub(super) fn forget(&mut self, key: &str) {
        self.failures.remove(key);
    }

    /// Queues a key whose sync failed again, after client-go's per-item backoff (5 ms
    /// doubling, at most 1000 s). The first [`QUICK_RETRIES`] retries count as pending work.
    pub(super) fn retry(&mut self, key: String) -> bool {
        let failures = self.failures.entry(key.clone()).or_insert(0);
        *failures += 1;
        let exponent = (*failures - 1).min(20);
        let delay = Duration::from_millis(5u64 << exponent).min(Duration::from_secs(1000));
        let quick = *failures <= QUICK_RETRIES;
        self.sequence += 1;
        self.backoff.insert(
            (tokio::time::Instant::now() + delay, self.sequence),
            (key, quick),
        );
        quick
    }

    /// Moves what fell due by `now` (the cluster's clock) and by the wall clock into the
    /// ready keys.
    pub(super) fn promote(&mut self, now: Timestamp) {
        while let Some(entry) = self.timers.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let key = entry.remove();
            self.waiting.remove(&key);
            self.add(key);
        }
        let instant = tokio::time::Instant::now();
        while let Some(entry) = self.backoff.first_entry() {
            if entry.key().0 > instant {
                break;
            }
            let (key, _) = entry.remove();
            self.add(key);
        }
    }

    /// The next key to work on.
    pub(super) fn pop(&mut self) -> Option<String> {
        let key = self.ready.pop_front()?;
        self.queued.remove(&key);
        Some(key)
    }

    /// Whether a key is ready now.
    pub(super) fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The earliest time on the cluster's clock a key falls due.
    pub(super) fn next_timer(&self) -> Option<Timestamp> {
        self.timers.keys().next().map(|(t, _)| *t)
    }

    /// The earliest wall-clock instant a failed key is retried, and whether any retry
    /// waiting counts as pending work (a quick one).
    pub(super) fn next_backoff(&self) -> Option<(tokio::time::Instant, bool)> {
        let (instant, _) = self.backoff.keys().next()?;
        let quick = self.backoff.values().any(|(_, quick)| *quick);
        Some((*instant, quick))
    }

    /// How many keys wait in any way.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.ready.len() + self.timers.len() + self.backoff.len()
    }

    /// Whether no key waits.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub(crate) use crate::feed::key;

/// The namespace and name of a [`key`].
pub(crate) fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_queued_once_and_timers_fall_due_in_order() {
        let mut q = Queue::default();
        q.add("a");
        q.add("a");
        q.add("b");
        assert_eq!(q.pop().as_deref(), Some("a"));
        q.add("a");
        assert_eq!(q.pop().as_deref(), Some("b"));
        assert_eq!(q.pop().as_deref(), Some("a"));
        assert_eq!(q.pop(), None);

        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        q.add_after("late", t0, Duration::from_secs(20));
        q.add_after("early", t0, Duration::from_secs(10));
        q.promote(t0);
        assert!(!q.has_ready());
        assert_eq!(
            q.next_timer(),
            Some("2026-01-01T00:00:10Z".parse().unwrap())
        );
        q.promote("2026-01-01T00:00:15Z".parse().unwrap());
        assert_eq!(q.pop().as_deref(), Some("early"));
        assert_eq!(q.pop(), None);
        q.promote("2026-01-01T00:00:20Z".parse().unwrap());
        assert_eq!(q.pop().as_deref(), Some("late"));
        assert!(q.is_empty());
    }

    #[test]
    fn a_key_waits_once_for_its_earliest_time() {
        let mut q = Queue::default();
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        q.add_after("a", t0, Duration::from_secs(8));
        q.add_after("a", t0, Duration::from_secs(5));
        q.add_after("a", t0, Duration::from_secs(16));
        assert_eq!(q.len(), 1);
        assert_eq!(
            q.next_timer(),
            Some("2026-01-01T00:00:05Z".parse().unwrap())
        );
        q.promote("2026-01-01T00:00:20Z".parse().unwrap());
        assert_eq!(q.pop().as_deref(), Some("a"));
        assert_eq!(q.pop(), None);
        // Once it fell due, the key may wait again.
        q.add_after("a", t0, Duration::from_secs(30));
        assert_eq!(q.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_quick_retry_stays_pending_work_after_the_key_succeeds() {
        let mut q = Queue::default();
        assert!(q.retry("a".into()), "the first retry is quick");
        // The key is synced again (a change queued it) and succeeds: its failures are
        // forgotten, but the retry queued before still runs, and settle still waits for it.
        q.forget("a");
        assert!(q.next_backoff().is_some_and(|(_, quick)| quick));
        tokio::time::advance(Duration::from_millis(5)).await;
        q.promote("2026-01-01T00:00:00Z".parse().unwrap());
        assert_eq!(q.pop().as_deref(), Some("a"));
        assert_eq!(q.next_backoff(), None);

        // A slow retry does not hold settle up, but a quick one behind it does.
        for _ in 0..=QUICK_RETRIES {
            q.retry("b".into());
        }
        q.backoff.retain(|_, (key, quick)| key == "b" && !*quick);
        assert!(q.next_backoff().is_some_and(|(_, quick)| !quick));
        assert!(q.retry("c".into()));
        assert!(q.next_backoff().is_some_and(|(_, quick)| quick));
    }

    #[test]
    fn keys_split_as_client_go_writes_them() {
        assert_eq!(key("ns", "a"), "ns/a");
        assert_eq!(key("", "a"), "a");
        assert_eq!(split_key("ns/a"), ("ns", "a"));
        assert_eq!(split_key("a"), ("", "a"));
    }
}
