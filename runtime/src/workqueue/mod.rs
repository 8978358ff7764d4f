//! client-go's rate-limited work queue, for controllers fed by informer handlers.
//!
//! A [`Controller`](crate::controller::Controller) runs one for you; use it directly when
//! writing your own loop over keys (a batch job, a custom source).
//!
//! ```
//! use kubegen::workqueue::WorkQueue;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let queue = WorkQueue::new();
//! queue.add("default/a");
//! queue.add("default/a"); // already waiting: once
//! queue.add("default/b");
//! assert_eq!(queue.len(), 2);
//!
//! let key = queue.get().await.unwrap();
//! assert_eq!(key, "default/a");
//! // Failed: back off (5 ms, then 10 ms, ...), counted per key until it is forgotten.
//! queue.add_rate_limited(key);
//! assert_eq!(queue.num_requeues(&key), 1);
//! queue.done(&key);
//! assert_eq!(queue.get().await, Some("default/b"));
//! queue.done(&"default/b");
//! assert_eq!(queue.get().await, Some("default/a")); // after its backoff
//! queue.forget(&"default/a");
//! queue.done(&"default/a");
//! queue.shut_down();
//! assert_eq!(queue.get().await, None);
//! # });
//! ```
//!
//! An item waits in the queue at most once (adding it again while queued does nothing); an
//! item being processed is never handed to a second worker: added meanwhile, it is queued
//! again when the first worker calls [`WorkQueue::done`]. [`WorkQueue::add_after`] holds items
//! in one deadline-ordered set served by one background task per queue (client-go's delaying
//! queue), so ten thousand delayed items cost ten thousand map entries, not ten thousand
//! timers. [`WorkQueue::add_rate_limited`] delays an item exponentially per failure until
//! [`WorkQueue::forget`] resets it. [`WorkQueue::with_metrics`] turns on client-go's queue
//! metrics.
//!
//! Items carry a priority (controller-runtime's priority queue): [`WorkQueue::get`] hands out
//! the highest first, and items of one priority in the order they were added, so a queue
//! whose items all have the default priority 0 is client-go's FIFO. An item added again
//! with a higher priority than it waits with moves up. Controllers give the objects of an
//! informer's first list and its resyncs [`LOW_PRIORITY`], so a change a user makes is
//! reconciled first even while thousands of existing objects are being worked through.

mod delaying;
#[cfg(test)]
mod tests;

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::{Mutex, MutexGuard};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::metrics::WorkQueueMetrics;
use delaying::Waiting;

/// The priority controllers give the objects of an informer's first list and its resyncs
/// (controller-runtime's `handler.LowPriority`).
pub const LOW_PRIORITY: i32 = -100;

/// How an item is added ([`WorkQueue::add_with`]); the default adds it now, at priority 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddOptions {
    /// Higher is served first; 0 by default.
    pub priority: i32,
    /// Queue it after this delay.
    pub after: Option<Duration>,
    /// Queue it after its per-item backoff (which then grows), as
    /// [`WorkQueue::add_rate_limited`]; ignores `after`.
    pub rate_limited: bool,
}

/// The items ready to be handed out: by priority, then in the order they were added.
struct Ready<T> {
    order: BTreeMap<(Reverse<i32>, u64), T>,
    position: HashMap<T, (Reverse<i32>, u64)>,
    added: u64,
}

impl<T: Clone + Eq + Hash> Ready<T> {
    fn new() -> Self {
        Ready {
            order: BTreeMap::new(),
            position: HashMap::new(),
            added: 0,
        }
    }

    fn push(&mut self, item: T, priority: i32) {
        self.added += 1;
        let key = (Reverse(priority), self.added);
        self.position.insert(item.clone(), key);
        self.order.insert(key, item);
    }

    /// Moves a waiting `item` up to `priority` if that is higher; whether it waits here.
    fn raise(&mut self, item: &T, priority: i32) -> bool {
        let Some(key) = self.position.get_mut(item) else {
            return false;
        };
        if priority > key.0.0 {
            let item = self.order.remove(key).expect("positions match the order");
            key.0 = Reverse(priority);
            self.order.insert(*key, item);
        }
        true
    }

    fn pop(&mut self) -> Option<(T, i32)> {
        let ((Reverse(priority), _), item) = self.order.pop_first()?;
        self.position.remove(&item);
        Some((item, priority))
    }

    fn len(&self) -> usize {
        self.order.len()
    }
}

struct State<T> {
    queue: Ready<T>,
    /// The priority of items added while being processed: the highest they were added with.
    pending: HashMap<T, i32>,
    /// The priority of delayed items other than 0: the highest they were added with.
    delayed: HashMap<T, i32>,
    /// Items to be processed: those queued, and those added again while being processed
    /// (client-go's dirty set).
    dirty: HashSet<T>,
    processing: HashSet<T>,
    failures: HashMap<T, u32>,
    /// Items added with a delay, by deadline.
    waiting: Waiting<T>,
    waiting_loop_started: bool,
    shutting_down: bool,
    /// When each dirty item was added; kept only with metrics.
    added_at: HashMap<T, Instant>,
    /// When each item being processed was handed out; kept only with metrics.
    started_at: HashMap<T, Instant>,
    unfinished_loop_started: bool,
}

struct Inner<T> {
    state: Mutex<State<T>>,
    /// Wakes workers waiting in `get`.
    ready: Notify,
    /// Wakes the waiting loop: an earlier deadline, shutdown, or the queue dropped.
    wake_waiting: Arc<Notify>,
    base_delay: Duration,
    max_delay: Duration,
    metrics: OnceLock<WorkQueueMetrics>,
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        // The waiting loop holds only a weak reference: let it see the queue is gone.
        self.wake_waiting.notify_one();
    }
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

/// How often the unfinished-work gauges are brought up to date (client-go's period).
const UNFINISHED_WORK_UPDATE_PERIOD: Duration = Duration::from_millis(500);

/// A deadline for delays too long to add to now: further away than any process lives.
const FAR_FUTURE: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

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
                    queue: Ready::new(),
                    pending: HashMap::new(),
                    delayed: HashMap::new(),
                    dirty: HashSet::new(),
                    processing: HashSet::new(),
                    failures: HashMap::new(),
                    waiting: Waiting::default(),
                    waiting_loop_started: false,
                    shutting_down: false,
                    added_at: HashMap::new(),
                    started_at: HashMap::new(),
                    unfinished_loop_started: false,
                }),
                ready: Notify::new(),
                wake_waiting: Arc::new(Notify::new()),
                base_delay: base,
                max_delay: max,
                metrics: OnceLock::new(),
            }),
        }
    }

    /// Records client-go's queue metrics in `metrics` (from
    /// [`Metrics::workqueue`](crate::metrics::Metrics::workqueue)): adds, depth, queue
    /// latency, work duration, retries, and every 500 ms the unfinished work. Set it before
    /// the first item is added; a second call is ignored. Without it the queue keeps no
    /// timestamps and runs no metrics task.
    pub fn with_metrics(self, metrics: WorkQueueMetrics) -> Self {
        if self.inner.metrics.set(metrics).is_err() {
            tracing::warn!("WorkQueue::with_metrics called twice; keeping the first metrics");
        }
        self
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.inner.state()
    }

    /// Queues `item` unless it is already queued; an item being processed is queued again
    /// when its worker calls `done`.
    pub fn add(&self, item: T) {
        self.add_with(item, AddOptions::default());
    }

    /// Adds `item` as `options` say: now or later, at a priority (controller-runtime's
    /// `AddWithOpts`).
    pub fn add_with(&self, item: T, options: AddOptions) {
        if options.rate_limited {
            let delay = self.backoff(&item);
            return self.delay(item, delay, options.priority);
        }
        if let Some(after) = options.after {
            return self.delay(item, after, options.priority);
        }
        let mut s = self.state();
        if s.shutting_down {
            return;
        }
        let queued = self.inner.insert(&mut s, item, options.priority);
        drop(s);
        if queued {
            self.inner.ready.notify_one();
        }
    }

    /// Queues `item` after `delay`. An item already waiting keeps the earlier of its two
    /// deadlines. The first delayed add starts the queue's waiting task.
    ///
    /// # Panics
    ///
    /// A non-zero delay outside a tokio runtime panics (the waiting task is spawned on the
    /// current runtime).
    pub fn add_after(&self, item: T, delay: Duration) {
        self.delay(item, delay, 0);
    }

    fn delay(&self, item: T, delay: Duration, priority: i32) {
        let mut s = self.state();
        if s.shutting_down {
            return;
        }
        if let Some(metrics) = self.inner.metrics.get() {
            metrics.retried();
        }
        if delay.is_zero() {
            let queued = self.inner.insert(&mut s, item, priority);
            drop(s);
            if queued {
                self.inner.ready.notify_one();
            }
            return;
        }
        let now = Instant::now();
        let deadline = now.checked_add(delay).unwrap_or_else(|| now + FAR_FUTURE);
        if priority != 0 || s.delayed.contains_key(&item) {
            let delayed = s.delayed.entry(item.clone()).or_insert(priority);
            *delayed = (*delayed).max(priority);
        }
        let earliest = s.waiting.insert(item, deadline);
        let start = !std::mem::replace(&mut s.waiting_loop_started, true);
        drop(s);
        if start {
            tokio::spawn(delaying::waiting_loop(
                Arc::downgrade(&self.inner),
                self.inner.wake_waiting.clone(),
            ));
        } else if earliest {
            self.inner.wake_waiting.notify_one();
        }
    }

    /// Queues `item` after its per-item backoff, which doubles with every call until
    /// `forget`.
    pub fn add_rate_limited(&self, item: T) {
        let delay = self.backoff(&item);
        self.add_after(item, delay);
    }

    /// `item`'s next backoff, counting this failure.
    fn backoff(&self, item: &T) -> Duration {
        let mut s = self.state();
        let n = s.failures.entry(item.clone()).or_insert(0);
        let delay = self
            .inner
            .base_delay
            .saturating_mul(1u32 << (*n).min(31))
            .min(self.inner.max_delay);
        *n += 1;
        delay
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
        self.get_with_priority().await.map(|(item, _)| item)
    }

    /// [`get`](Self::get), with the priority the item was queued at (to add it back at).
    pub async fn get_with_priority(&self) -> Option<(T, i32)> {
        loop {
            let notified = self.inner.ready.notified();
            {
                let mut s = self.state();
                if let Some((item, priority)) = s.queue.pop() {
                    s.dirty.remove(&item);
                    s.processing.insert(item.clone());
                    if let Some(metrics) = self.inner.metrics.get() {
                        let now = Instant::now();
                        let waited = s.added_at.remove(&item).map(|at| now - at);
                        metrics.got(waited);
                        s.started_at.insert(item.clone(), now);
                        if !std::mem::replace(&mut s.unfinished_loop_started, true) {
                            tokio::spawn(update_unfinished_work(Arc::downgrade(&self.inner)));
                        }
                    }
                    return Some((item, priority));
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
        if !s.processing.remove(item) {
            return;
        }
        if let Some(metrics) = self.inner.metrics.get()
            && let Some(at) = s.started_at.remove(item)
        {
            metrics.done(Instant::now() - at);
        }
        if s.dirty.contains(item) {
            let priority = s.pending.remove(item).unwrap_or(0);
            s.queue.push(item.clone(), priority);
            drop(s);
            self.inner.ready.notify_one();
        }
    }

    /// Items waiting (not counting those being processed or delayed).
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops accepting items and drops the delayed ones; `get` returns `None` once the
    /// queue is drained. The queue's background tasks end.
    pub fn shut_down(&self) {
        {
            let mut s = self.state();
            s.shutting_down = true;
            s.waiting.clear();
            s.pending.clear();
            s.delayed.clear();
        }
        self.inner.ready.notify_waiters();
        self.inner.wake_waiting.notify_one();
    }
}

impl<T: Clone + Eq + Hash> Inner<T> {
    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock()
    }

    /// Marks `item` dirty unless it is, and queues it unless a worker holds it; returns
    /// whether it was queued (a worker should be woken). Metrics count every item that
    /// becomes dirty, as client-go counts them.
    fn insert(&self, s: &mut State<T>, item: T, priority: i32) -> bool {
        if s.dirty.contains(&item) {
            if !s.queue.raise(&item, priority) {
                let pending = s.pending.entry(item).or_insert(priority);
                *pending = (*pending).max(priority);
            }
            return false;
        }
        if let Some(metrics) = self.metrics.get() {
            metrics.added();
            s.added_at.entry(item.clone()).or_insert_with(Instant::now);
        }
        if s.processing.contains(&item) {
            s.pending.insert(item.clone(), priority);
            s.dirty.insert(item);
            return false;
        }
        s.dirty.insert(item.clone());
        s.queue.push(item, priority);
        true
    }
}

/// Brings the unfinished-work gauges up to date every 500 ms until the queue shuts down or
/// is dropped.
async fn update_unfinished_work<T: Clone + Eq + Hash>(queue: std::sync::Weak<Inner<T>>) {
    let mut ticks = tokio::time::interval(UNFINISHED_WORK_UPDATE_PERIOD);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(inner) = queue.upgrade() else {
            return;
        };
        let s = inner.state();
        if s.shutting_down {
            return;
        }
        let Some(metrics) = inner.metrics.get() else {
            return;
        };
        let now = Instant::now();
        let (total, longest) = s.started_at.values().map(|&at| now - at).fold(
            (Duration::ZERO, Duration::ZERO),
            |(total, longest), held| (total + held, longest.max(held)),
        );
        metrics.unfinished(total, longest);
    }
}
