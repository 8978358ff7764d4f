//! The delayed items of a queue and the one task that queues them when they are due
//! (client-go's delaying queue).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Arc, Weak};

use tokio::sync::Notify;
use tokio::time::Instant;

use super::Inner;

/// Items waiting for their deadline: ordered by deadline (then by arrival, so equal deadlines
/// come out in the order they went in), and indexed by item so a second delayed add finds
/// the first.
pub(super) struct Waiting<T> {
    by_deadline: BTreeMap<(Instant, u64), T>,
    deadlines: HashMap<T, (Instant, u64)>,
    next_seq: u64,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            by_deadline: BTreeMap::new(),
            deadlines: HashMap::new(),
            next_seq: 0,
        }
    }
}

impl<T: Clone + Eq + Hash> Waiting<T> {
    /// Holds `item` until `deadline`, or until its current deadline if that is earlier.
    /// Returns whether `deadline` became the earliest of all (the waiting loop must wake).
    pub(super) fn insert(&mut self, item: T, deadline: Instant) -> bool {
        if let Some(&current) = self.deadlines.get(&item) {
            if current.0 <= deadline {
                return false;
            }
            self.by_deadline.remove(&current);
        }
        let key = (deadline, self.next_seq);
        self.next_seq += 1;
        self.by_deadline.insert(key, item.clone());
        self.deadlines.insert(item, key);
        self.by_deadline.first_key_value().map(|(first, _)| *first) == Some(key)
    }

    /// The first item due at `now`, removed.
    pub(super) fn pop_due(&mut self, now: Instant) -> Option<T> {
        let entry = self.by_deadline.first_entry()?;
        if entry.key().0 > now {
            return None;
        }
        let item = entry.remove();
        self.deadlines.remove(&item);
        Some(item)
    }

    /// When the next item is due.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.by_deadline.first_key_value().map(|(key, _)| key.0)
    }

    /// How many items wait.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.by_deadline.len()
    }

    /// Drops every waiting item.
    pub(super) fn clear(&mut self) {
        self.by_deadline.clear();
        self.deadlines.clear();
    }
}

/// Queues waiting items as they fall due, sleeping until the next deadline or a wake-up (an
/// earlier deadline, shutdown, the queue dropped). It holds the queue weakly, so a queue
/// dropped without `shut_down` still ends it.
pub(super) async fn waiting_loop<T: Clone + Eq + Hash>(queue: Weak<Inner<T>>, wake: Arc<Notify>) {
    loop {
        // Created before the state is read, so a wake-up sent meanwhile is not lost.
        let woken = wake.notified();
        let next = {
            let Some(inner) = queue.upgrade() else {
                return;
            };
            let mut s = inner.state();
            if s.shutting_down {
                return;
            }
            let now = Instant::now();
            let mut queued = 0usize;
            while let Some(item) = s.waiting.pop_due(now) {
                let priority = s.delayed.remove(&item).unwrap_or(0);
                if inner.insert(&mut s, item, priority) {
                    queued += 1;
                }
            }
            let next = s.waiting.next_deadline();
            drop(s);
            match queued {
                0 => {}
                1 => inner.ready.notify_one(),
                // Workers register before they look at the queue, so waking every waiting
                // one is enough for a batch.
                _ => inner.ready.notify_waiters(),
            }
            next
        };
        match next {
            Some(deadline) => {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = woken => {}
                }
            }
            None => woken.await,
        }
    }
}
