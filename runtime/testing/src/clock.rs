//! The in-memory cluster's clock: wall time by default, or a virtual time a test sets and
//! advances.
//!
//! Everything the server and its controllers write as a time reads this clock: creation and
//! deletion timestamps, managedFields times, conditions' transition times, events, a Job's
//! start and completion, a CronJob's schedule. Frozen, time moves only when the test says,
//! so a CronJob's next run, a Job's pod backoff or a Deployment's progress deadline come
//! exactly when the test advances past them, and never while it is not looking:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::time::Duration;
//! let server = kubegen_testing::ApiServer::new();
//! let clock = server.clock();
//! clock.freeze_at("2026-01-01T00:00:00Z".parse().unwrap());
//! clock.advance(Duration::from_secs(90));
//! assert_eq!(clock.now().to_string(), "2026-01-01T00:01:30Z");
//! # }
//! ```

use std::sync::Arc;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use parking_lot::Mutex;
use tokio::sync::watch;

/// The clock of one [`ApiServer`](super::ApiServer). Cheap to clone; clones share it.
#[derive(Clone)]
pub struct Clock {
    inner: Arc<Inner>,
}

struct Inner {
    /// `Some(t)`: frozen at `t`; `None`: the wall clock.
    frozen: Mutex<Option<Timestamp>>,
    /// Bumped on every change of a frozen time, so waiters see it.
    changes: watch::Sender<u64>,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            inner: Arc::new(Inner {
                frozen: Mutex::new(None),
                changes: watch::Sender::new(0),
            }),
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self.inner.frozen.lock() {
            Some(t) => write!(f, "Clock(frozen at {t})"),
            None => f.write_str("Clock(wall time)"),
        }
    }
}

impl Clock {
    /// The current time.
    pub fn now(&self) -> Timestamp {
        self.inner.frozen.lock().unwrap_or_else(Timestamp::now)
    }

    /// The current time as the apiserver writes `metav1.Time`: UTC, whole seconds.
    pub fn rfc3339(&self) -> String {
        self.now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    }

    /// Whether the clock is frozen (virtual).
    pub fn is_frozen(&self) -> bool {
        self.inner.frozen.lock().is_some()
    }

    /// Freezes the clock at the current time: from now on it moves only by
    /// [`advance`](Clock::advance).
    pub fn freeze(&self) {
        let mut frozen = self.inner.frozen.lock();
        if frozen.is_none() {
            *frozen = Some(Timestamp::now());
        }
    }

    /// Freezes the clock at `time` (which may be in the past or the future).
    pub fn freeze_at(&self, time: Timestamp) {
        *self.inner.frozen.lock() = Some(time);
        self.inner.changes.send_modify(|n| *n += 1);
    }

    /// Moves a frozen clock forward by `by` (freezing it first if it runs): work that falls
    /// due meanwhile (a CronJob's schedule, a Job's backoff, a requeue) becomes ready, and
    /// [`ApiServer::settle`](super::ApiServer::settle) waits for it.
    pub fn advance(&self, by: Duration) {
        {
            let mut frozen = self.inner.frozen.lock();
            let now = frozen.unwrap_or_else(Timestamp::now);
            let by = SignedDuration::try_from(by).unwrap_or(SignedDuration::MAX);
            *frozen = Some(now.saturating_add(by).unwrap_or(Timestamp::MAX));
        }
        self.inner.changes.send_modify(|n| *n += 1);
    }

    /// Lets the clock run with wall time again.
    pub fn unfreeze(&self) {
        *self.inner.frozen.lock() = None;
        self.inner.changes.send_modify(|n| *n += 1);
    }

    /// How many times a frozen clock was set or advanced: a waiter that saw this number has
    /// seen every change up to it.
    pub(crate) fn epoch(&self) -> u64 {
        *self.inner.changes.borrow()
    }

    /// Changes of a frozen time, as they happen.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Waits until `deadline` has passed on this clock: on the wall clock a sleep, on a
    /// frozen one until a test advances it far enough.
    pub(crate) async fn sleep_until(&self, deadline: Timestamp) {
        let mut changes = self.inner.changes.subscribe();
        loop {
            let (now, frozen) = {
                let frozen = *self.inner.frozen.lock();
                (frozen.unwrap_or_else(Timestamp::now), frozen.is_some())
            };
            if now >= deadline {
                return;
            }
            if frozen {
                if changes.changed().await.is_err() {
                    return;
                }
            } else {
                let left = deadline.duration_since(now).unsigned_abs();
                tokio::select! {
                    _ = tokio::time::sleep(left) => {}
                    _ = changes.changed() => {}
                }
            }
        }
    }
}
