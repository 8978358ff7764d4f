//! client-go's rate-limited work queue, for controllers fed by informer handlers.
//!
//! An item waits in the queue at most once (adding it again while queued does nothing); an
//! item being processed is never handed to a second worker: added meanwhile, it is queued
//! again when the first worker calls [`WorkQueue::done`]. [`WorkQueue::add_rate_limited`]
//! delays an item exponentially per failure until [`WorkQueue::forget`] resets it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;

struct State<T> {
    queue: VecDeque<T>,
    queued: HashSet<T>,
    processing: HashSet<T>,
    dirty_while_processing: HashSet<T>,
    failures: HashMap<T, u32>,
    shutting_down: bool,
}

struct Inner<T> {
    state: Mutex<State<T>>,
    ready: Notify,
    base_delay: Duration,
    max_delay: Duration,
}

/// A deduplicating, rate-limited work queue. Cheap to clone; clones share the queue.
pub struct WorkQueue<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for WorkQueue<T> {
    fn clone(&self) -> Self {
        WorkQueue {
            inner: self.inner.clone(),
        }
    }
}

impl<T: Clone + Eq + Hash + Send + 'static> Default for WorkQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone + Eq + Hash + Send + 'static> WorkQueue<T> {
    /// A queue with client-go's default per-item backoff: 5 ms doubling up to 1000 s.
    pub fn new() -> Self {
        Self::with_backoff(Duration::from_millis(5), Duration::from_secs(1000))
    }

    /// A queue whose per-item backoff starts at `base` and doubles up to `max`.
    pub fn with_backoff(base: Duration, max: Duration) -> Self {
        WorkQueue {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    queued: HashSet::new(),
                    processing: HashSet::new(),
                    dirty_while_processing: HashSet::new(),
                    failures: HashMap::new(),
                    shutting_down: false,
                }),
                ready: Notify::new(),
                base_delay: base,
                max_delay: max,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        // Every critical section leaves the sets consistent before it can panic.
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `item` unless it is already queued; an item being processed is queued again
    /// when its worker calls `done`.
    pub fn add(&self, item: T) {
        let mut s = self.state();
        if s.shutting_down || s.queued.contains(&item) {
            return;
        }
        if s.processing.contains(&item) {
            s.dirty_while_processing.insert(item);
            return;
        }
        s.queued.insert(item.clone());
        s.queue.push_back(item);
        drop(s);
        self.inner.ready.notify_one();
    }

    /// Queues `item` after `delay`.
    pub fn add_after(&self, item: T, delay: Duration) {
        if delay.is_zero() {
            return self.add(item);
        }
        let queue = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            queue.add(item);
        });
    }

    /// Queues `item` after its per-item backoff, which doubles with every call until
    /// `forget`.
    pub fn add_rate_limited(&self, item: T) {
        let delay = {
            let mut s = self.state();
            let n = s.failures.entry(item.clone()).or_insert(0);
            let delay = self
                .inner
                .base_delay
                .saturating_mul(1u32 << (*n).min(31))
                .min(self.inner.max_delay);
            *n += 1;
            delay
        };
        self.add_after(item, delay);
    }

    /// How many times `item` was rate-limited since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.state().failures.get(item).copied().unwrap_or(0)
    }

    /// Resets `item`'s backoff (call after it was processed successfully).
    pub fn forget(&self, item: &T) {
        self.state().failures.remove(item);
    }

    /// The next item, waiting until there is one; `None` once shut down and drained.
    pub async fn get(&self) -> Option<T> {
        loop {
            let notified = self.inner.ready.notified();
            {
                let mut s = self.state();
                if let Some(item) = s.queue.pop_front() {
                    s.queued.remove(&item);
                    s.processing.insert(item.clone());
                    return Some(item);
                }
                if s.shutting_down {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Marks `item` processed; if it was added meanwhile, it is queued again now.
    pub fn done(&self, item: &T) {
        let mut s = self.state();
        s.processing.remove(item);
        if s.dirty_while_processing.remove(item) && !s.queued.contains(item) {
            s.queued.insert(item.clone());
            s.queue.push_back(item.clone());
            drop(s);
            self.inner.ready.notify_one();
        }
    }

    /// Items waiting (not counting those being processed).
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops accepting items; `get` returns `None` once the queue is drained.
    pub fn shut_down(&self) {
        self.state().shutting_down = true;
        self.inner.ready.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn deduplicates_and_never_hands_one_key_to_two_workers() {
        let q: WorkQueue<&str> = WorkQueue::new();
        q.add("a");
        q.add("a");
        q.add("b");
        assert_eq!(q.len(), 2);
        let first = q.get().await.unwrap();
        assert_eq!(first, "a");
        q.add("a"); // while "a" is processing: not queued again yet
        assert_eq!(q.len(), 1);
        assert_eq!(q.get().await, Some("b"));
        q.done(&"a");
        assert_eq!(q.len(), 1, "re-queued on done");
        assert_eq!(q.get().await, Some("a"));
        q.done(&"a");
        q.done(&"b");
        q.shut_down();
        assert_eq!(q.get().await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limiting_backs_off_exponentially_per_item() {
        let q: WorkQueue<&str> =
            WorkQueue::with_backoff(Duration::from_millis(10), Duration::from_millis(50));
        let start = tokio::time::Instant::now();
        for expected in [10u64, 20, 40, 50, 50] {
            q.add_rate_limited("x");
            let item = q.get().await.unwrap();
            q.done(&item);
            let waited = start.elapsed();
            assert!(
                waited >= Duration::from_millis(expected),
                "{waited:?} < {expected} ms"
            );
        }
        assert_eq!(q.num_requeues(&"x"), 5);
        q.forget(&"x");
        assert_eq!(q.num_requeues(&"x"), 0);
    }
}
