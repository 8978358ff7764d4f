//! The loop that runs the in-memory controllers: it hands every change the server commits
//! to each controller (as kube-controller-manager's informers do), runs the keys they queue
//! one at a time, and tells [`ApiServer::settle`](crate::ApiServer::settle) when
//! nothing is left to do.
//!
//! Controllers run one sync at a time on one task, each reading the server's current
//! objects, so a run is deterministic for a given sequence of requests: no informer lag, no
//! races between controllers, no expectations to track.

use std::sync::{Arc, Weak};
use std::time::Duration;

use jiff::Timestamp;
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::watch;

use super::api::Api;
use super::events::{EventType, Recorder};
use super::queue::Queue;
use crate::feed::{Change, Feed};
use crate::{Clock, Inner};

/// What a controller's sync asks for.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Done with the key until something changes.
    Done,
    /// Sync the key again once this much time has passed on the cluster's clock.
    After(Duration),
    /// Sync the key again at this time of the cluster's clock.
    At(Timestamp),
}

/// A failed sync: retried with client-go's per-item backoff.
pub(crate) type SyncError = String;

/// One of kube-controller-manager's controllers, in memory.
pub(crate) trait Controller: Send {
    /// The controller's name, as kube-controller-manager's event sources and user agents
    /// carry it (`deployment-controller`).
    fn name(&self) -> &'static str;

    /// The user agent of its requests (which names the `managedFields` manager): by
    /// default kube-controller-manager's, followed by the controller's name.
    fn user_agent(&self) -> String {
        format!("{}/{}", super::api::USER_AGENT, self.name())
    }

    /// Queues the keys a change concerns. Called for every change of every kind, in order;
    /// it runs while no sync does and must not write.
    fn observe(&mut self, change: &Change, queue: &mut Queue, api: &Api);

    /// Brings the object behind `key` to what it should be.
    fn sync(&mut self, key: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError>;
}

/// What a sync works with.
pub(crate) struct Cx<'a> {
    /// Reads and writes, as this controller.
    pub api: &'a Api,
    /// The cluster's clock.
    pub clock: &'a Clock,
    /// The controller's own queue (to queue other keys).
    pub queue: &'a mut Queue,
    /// The controller's event recorder.
    pub recorder: &'a mut Recorder,
}

impl Cx<'_> {
    /// Records an event about `object` (a stored object), as the controller's recorder does.
    pub(crate) fn event(&mut self, object: &Value, kind: EventType, reason: &str, message: &str) {
        self.recorder
            .record(self.api, object, kind, reason, message);
    }
}

/// Where the driver is, for `settle`.
#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    /// Whether the driver has nothing ready to run.
    idle: bool,
    /// The last change it handed to the controllers.
    seen: u64,
    /// The clock's epoch when it last looked for due timers.
    epoch: u64,
    /// Syncs run so far.
    syncs: u64,
}

/// The running controllers of one server.
pub(crate) struct Driver {
    pub(crate) feed: Arc<Feed>,
    progress: watch::Sender<Progress>,
    /// What each controller is syncing, for a settle that times out.
    busy: Mutex<Option<(&'static str, String)>>,
}

impl Driver {
    /// Starts `controllers` on a task of the current Tokio runtime.
    pub(crate) fn start(
        inner: &Arc<Inner>,
        feed: Arc<Feed>,
        controllers: Vec<Box<dyn Controller>>,
    ) -> Arc<Driver> {
        let driver = Arc::new(Driver {
            feed,
            progress: watch::Sender::new(Progress::default()),
            busy: Mutex::new(None),
        });
        let weak = Arc::downgrade(inner);
        let running = driver.clone();
        tokio::spawn(async move { running.run(weak, controllers).await });
        driver
    }

    async fn run(self: Arc<Self>, inner: Weak<Inner>, mut controllers: Vec<Box<dyn Controller>>) {
        let mut queues: Vec<Queue> = controllers.iter().map(|_| Queue::default()).collect();
        let mut recorders: Vec<Recorder> = controllers
            .iter()
            .map(|c| Recorder::new(c.name()))
            .collect();
        let clock = match inner.upgrade() {
            Some(inner) => inner.clock.clone(),
            None => return,
        };
        let mut clock_changes = clock.subscribe();
        let user_agents: Vec<Arc<str>> =
            controllers.iter().map(|c| c.user_agent().into()).collect();
        let mut seen = 0;
        let mut next = 0;
        let mut since_yield = 0;
        loop {
            let Some(server) = inner.upgrade() else {
                return;
            };
            let apis: Vec<Api> = (user_agents.iter())
                .map(|agent| Api::new(server.clone(), agent.clone()))
                .collect();
            // Hand out the changes committed so far, then look for due keys.
            let epoch = clock.epoch();
            for change in self.feed.drain() {
                seen = change.seq;
                for ((c, q), api) in controllers.iter_mut().zip(&mut queues).zip(&apis) {
                    c.observe(&change, q, api);
                }
            }
            let now = clock.now();
            for q in &mut queues {
                q.promote(now);
            }
            // Round robin over the controllers with a ready key.
            let ready = (0..controllers.len())
                .map(|i| (next + i) % controllers.len())
                .find(|&i| queues[i].has_ready());
            if let Some(i) = ready {
                next = i + 1;
                let Some(key) = queues[i].pop() else { continue };
                *self.busy.lock() = Some((controllers[i].name(), key.clone()));
                let outcome = {
                    let mut cx = Cx {
                        api: &apis[i],
                        clock: &clock,
                        queue: &mut queues[i],
                        recorder: &mut recorders[i],
                    };
                    controllers[i].sync(&key, &mut cx)
                };
                *self.busy.lock() = None;
                match outcome {
                    Ok(Outcome::Done) => queues[i].forget(&key),
                    Ok(Outcome::After(d)) => {
                        queues[i].forget(&key);
                        queues[i].add_after(key, clock.now(), d);
                    }
                    Ok(Outcome::At(t)) => {
                        queues[i].forget(&key);
                        queues[i].add_at(key, t);
                    }
                    Err(error) => {
                        tracing::debug!(controller = controllers[i].name(), %key, %error, "sync failed; retrying");
                        queues[i].retry(key);
                    }
                }
                self.progress.send_modify(|p| {
                    p.idle = false;
                    p.syncs += 1;
                });
                // A burst of work must not keep a single-threaded runtime from the test.
                since_yield += 1;
                if since_yield >= 64 {
                    since_yield = 0;
                    tokio::task::yield_now().await;
                }
                continue;
            }
            drop(apis);
            drop(server);
            // Nothing ready: pending means a quick retry is waiting.
            let backoffs: Vec<_> = queues.iter().filter_map(Queue::next_backoff).collect();
            let backoff = backoffs.iter().map(|(instant, _)| *instant).min();
            let quick = backoffs.iter().any(|(_, quick)| *quick);
            if self.feed.published() == seen {
                self.progress.send_modify(|p| {
                    p.idle = !quick;
                    p.seen = seen;
                    p.epoch = epoch;
                });
            }
            let timer = queues.iter().filter_map(Queue::next_timer).min();
            since_yield = 0;
            tokio::select! {
                _ = self.feed.wake.notified() => {}
                _ = clock_changes.changed() => {}
                _ = async {
                    match timer {
                        Some(t) => clock.sleep_until(t).await,
                        None => std::future::pending().await,
                    }
                } => {}
                _ = async {
                    match backoff {
                        Some(instant) => tokio::time::sleep_until(instant).await,
                        None => std::future::pending().await,
                    }
                } => {}
            }
        }
    }

    /// Waits until every change committed before the call has been handed to the
    /// controllers and no key is ready to run (timers on the clock may remain), or panics
    /// naming the busy controller after `limit`.
    pub(crate) async fn settle(&self, clock: &Clock, limit: Duration) {
        let published = self.feed.published();
        let epoch = clock.epoch();
        let mut progress = self.progress.subscribe();
        let settled = progress.wait_for(|p| p.idle && p.seen >= published && p.epoch >= epoch);
        if tokio::time::timeout(limit, settled).await.is_err() {
            let busy = self.busy.lock().clone();
            let syncs = self.progress.borrow().syncs;
            match busy {
                Some((controller, key)) => panic!(
                    "the in-memory controllers did not settle within {limit:?}: {controller} is syncing {key} ({syncs} syncs so far)"
                ),
                None => panic!(
                    "the in-memory controllers did not settle within {limit:?} ({syncs} syncs so far; keys keep being queued)"
                ),
            }
        }
    }
}
