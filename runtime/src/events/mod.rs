//! Kubernetes events from controllers, on kube-runtime's [`Recorder`], with what client-go's
//! recorders add: a per-object spam filter and publishing that never makes a reconcile wait.
//!
//! [`EventRecorder::publish`] checks the spam filter (25 events per object and type at once,
//! then one per 5 minutes: client-go's `EventSourceObjectSpamFilter`) and puts the event on a
//! bounded queue (1000, client-go's buffer); one background task sends queued events through
//! kube's [`Recorder`], which creates an `events.k8s.io/v1` Event or counts a repeat into the
//! existing one's `series`. Events dropped by the filter, a full queue or an error from the
//! apiserver are counted in `kubegen_events_dropped_total` when the recorder has a
//! [`Metrics`]. [`EventRecorder::flush`] waits until everything queued so far was sent.
//!
//! ```no_run
//! # async fn run(client: kube::Client, job: k8s_openapi::api::batch::v1::Job) {
//! use kubegen_runtime::events::{EventRecorder, EventType};
//! let recorder = EventRecorder::new(client, "cronjob-operator".into());
//! recorder.publish_for(&job, EventType::Normal, "Created", "Create", Some("created the run".into()));
//! recorder.flush().await; // before exiting
//! # }
//! ```
//!
//! The recorder needs `create` and `patch` on `events.k8s.io` `events`.

mod spam;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use k8s_openapi::api::core::v1::ObjectReference;
use kube::Resource;
use parking_lot::Mutex;
use prometheus_client::metrics::counter::Counter;
use tokio::sync::{mpsc, oneshot};

pub use kube::runtime::events::{Event, EventType, Recorder, Reporter};
pub use spam::SpamFilterConfig;

use crate::metrics::Metrics;
use spam::SpamFilter;

/// client-go's event buffer: events beyond it are dropped rather than waited for.
pub const DEFAULT_QUEUE_CAPACITY: usize = 1000;

/// How an [`EventRecorder`] filters and queues.
#[derive(Clone, Debug)]
pub struct EventRecorderConfig {
    /// The per-object spam filter.
    pub spam_filter: SpamFilterConfig,
    /// Events waiting to be sent at most; more are dropped (at least 1).
    pub queue_capacity: usize,
    /// Where to count dropped events (`kubegen_events_dropped_total`); none counts nowhere.
    pub metrics: Option<Metrics>,
}

impl Default for EventRecorderConfig {
    fn default() -> Self {
        EventRecorderConfig {
            spam_filter: SpamFilterConfig::default(),
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            metrics: None,
        }
    }
}

/// What [`EventRecorder::publish`] did with an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Published {
    /// Queued; the background task sends it.
    Queued,
    /// Held back by the spam filter: the object had its burst of events of this type.
    SpamFiltered,
    /// Dropped: the queue was full (the apiserver is slower than the events come).
    QueueFull,
}

enum Message {
    Event(Box<(Event, ObjectReference)>),
    /// Answered once every message before it was handled.
    Flush(oneshot::Sender<()>),
}

/// Dropped-event counters, by reason.
struct Dropped {
    spam: Counter,
    queue_full: Counter,
    error: Counter,
}

impl Dropped {
    fn new(metrics: Option<&Metrics>, reporter: &str) -> Self {
        let counter = |reason| match metrics {
            Some(metrics) => metrics.events_dropped(reporter, reason),
            None => Counter::default(),
        };
        Dropped {
            spam: counter("spam"),
            queue_full: counter("queue_full"),
            error: counter("error"),
        }
    }
}

/// Publishes events without blocking the caller: spam-filtered, queued, and sent by a
/// background task through kube's [`Recorder`]. Cheap to clone; clones share the filter and
/// the queue. The task ends once every clone is dropped and the queue is sent.
#[derive(Clone)]
pub struct EventRecorder {
    queue: mpsc::Sender<Message>,
    filter: Arc<Mutex<SpamFilter>>,
    dropped: Arc<Dropped>,
}

impl std::fmt::Debug for EventRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventRecorder").finish_non_exhaustive()
    }
}

impl EventRecorder {
    /// A recorder sending as `reporter`, with client-go's filter and queue sizes.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime (it spawns its sending task).
    pub fn new(client: kube::Client, reporter: Reporter) -> Self {
        Self::with_config(client, reporter, EventRecorderConfig::default())
    }

    /// A recorder sending as `reporter`, filtering and queueing as `config` says.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime (it spawns its sending task).
    pub fn with_config(
        client: kube::Client,
        reporter: Reporter,
        config: EventRecorderConfig,
    ) -> Self {
        let dropped = Arc::new(Dropped::new(config.metrics.as_ref(), &reporter.controller));
        let (queue, receiver) = mpsc::channel(config.queue_capacity.max(1));
        tokio::spawn(send_events(
            Recorder::new(client, reporter),
            receiver,
            dropped.clone(),
        ));
        EventRecorder {
            queue,
            filter: Arc::new(Mutex::new(SpamFilter::new(config.spam_filter))),
            dropped,
        }
    }

    /// Queues `event` about `regarding` unless the spam filter holds it back or the queue is
    /// full; never waits.
    pub fn publish(&self, event: Event, regarding: ObjectReference) -> Published {
        let now = tokio::time::Instant::now();
        if !self.filter.lock().allow(&regarding, event.type_, now) {
            self.dropped.spam.inc();
            tracing::debug!(reason = %event.reason, object = ?regarding.name, "event spam-filtered");
            return Published::SpamFiltered;
        }
        match self
            .queue
            .try_send(Message::Event(Box::new((event, regarding))))
        {
            Ok(()) => Published::Queued,
            Err(mpsc::error::TrySendError::Full(_) | mpsc::error::TrySendError::Closed(_)) => {
                self.dropped.queue_full.inc();
                tracing::warn!("event queue full; dropping an event");
                Published::QueueFull
            }
        }
    }

    /// Publishes an event about `object` (its reference built from its metadata), related
    /// to no second object.
    pub fn publish_for<K: Resource<DynamicType = ()>>(
        &self,
        object: &K,
        type_: EventType,
        reason: impl Into<String>,
        action: impl Into<String>,
        note: Option<String>,
    ) -> Published {
        let event = Event {
            type_,
            reason: reason.into(),
            note,
            action: action.into(),
            secondary: None,
        };
        self.publish(event, object.object_ref(&()))
    }

    /// Waits until every event queued before this call was sent (or failed): before a
    /// graceful exit, or in tests.
    pub async fn flush(&self) {
        let (done, sent) = oneshot::channel();
        if self.queue.send(Message::Flush(done)).await.is_ok() {
            // The task answers every flush it receives; an error means it is gone, and with
            // it anything left to wait for.
            let _ = sent.await;
        }
    }
}

/// Sends queued events one at a time until every sender is gone.
async fn send_events(
    recorder: Recorder,
    mut queue: mpsc::Receiver<Message>,
    dropped: Arc<Dropped>,
) {
    while let Some(message) = queue.recv().await {
        match message {
            Message::Event(event) => {
                let (event, regarding) = *event;
                if let Err(error) = recorder.publish(&event, &regarding).await {
                    dropped.error.inc();
                    tracing::warn!(%error, reason = %event.reason, object = ?regarding.name, "sending an event");
                }
            }
            Message::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}
