//! A registered controller's workers: keys off the queue, one reconcile each, the outcome
//! back onto the queue and into the metrics.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::sources::Keys;
use super::{Action, Controller, ObjectKey, Reconciler};
use crate::cache::Store;
use crate::informer::{Handlers, InformerKind, KindScope, SharedInformerFactory};
use crate::metrics::{Metrics, ReconcileMetrics, ReconcileOutcome};
use crate::workqueue::{AddOptions, WorkQueue};

/// A controller wired to its informers, its workers not started yet.
pub struct Running {
    name: String,
    workers: usize,
    run: Box<dyn FnOnce(CancellationToken) -> BoxFuture<'static, ()> + Send>,
}

impl Running {
    /// The controller's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many workers it runs.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Runs the workers until `stop` is cancelled; then no worker takes another key, and the
    /// future ends once every reconcile in flight has finished. Dropping the future aborts
    /// the workers, in-flight reconciles included.
    pub fn run(self, stop: CancellationToken) -> BoxFuture<'static, ()> {
        (self.run)(stop)
    }
}

struct Shared<K, R> {
    name: String,
    queue: WorkQueue<ObjectKey>,
    store: Arc<Store<K>>,
    reconciler: R,
    metrics: ReconcileMetrics,
    timeout: Option<Duration>,
}

pub(super) fn register<K, R>(
    controller: Controller<K>,
    factory: &SharedInformerFactory,
    reconciler: R,
    metrics: &Metrics,
) -> Running
where
    K: InformerKind,
    K::Scope: KindScope,
    R: Reconciler<K>,
{
    let Controller {
        name,
        sources,
        predicates,
        concurrency,
        backoff: (base, max),
        timeout,
        prioritize,
        rules: _,
    } = controller;
    let queue = WorkQueue::with_backoff(base, max).with_metrics(metrics.workqueue(&name));
    let informer = factory.informer::<K>();
    let keys = Keys {
        queue: queue.clone(),
        prioritize,
    };
    let (on_add, on_update, on_delete) = (keys.clone(), keys.clone(), keys.clone());
    let (add, update, delete) = (predicates.clone(), predicates.clone(), predicates);
    informer.add_event_handler(
        Handlers::new()
            .on_add(move |o: &Arc<K>, initial| {
                if add.create(o) {
                    on_add.added(ObjectKey::of(o.as_ref()), initial);
                }
            })
            .on_update(move |old: &Arc<K>, new: &Arc<K>| {
                if update.update(old, new) {
                    on_update.updated(ObjectKey::of(new.as_ref()), old.as_ref(), new.as_ref());
                }
            })
            .on_delete(move |o: &Arc<K>| {
                if delete.delete(o) {
                    on_delete.deleted(ObjectKey::of(o.as_ref()));
                }
            }),
    );
    for source in &sources {
        source.attach(factory, keys.clone());
    }
    let reconcile_metrics = metrics.reconcile(&name);
    reconcile_metrics.set_max_concurrent(concurrency);
    let shared = Arc::new(Shared {
        name: name.clone(),
        queue,
        store: informer.store().clone(),
        reconciler,
        metrics: reconcile_metrics,
        timeout,
    });
    Running {
        name,
        workers: concurrency,
        run: Box::new(move |stop| {
            async move {
                let mut workers = tokio::task::JoinSet::new();
                for _ in 0..concurrency {
                    workers.spawn(work(shared.clone(), stop.clone()));
                }
                while workers.join_next().await.is_some() {}
                shared.queue.shut_down();
            }
            .boxed()
        }),
    }
}

/// One worker: takes keys until `stop`, reconciles each, and files the outcome.
async fn work<K, R>(shared: Arc<Shared<K, R>>, stop: CancellationToken)
where
    K: InformerKind,
    R: Reconciler<K>,
{
    let Shared {
        name,
        queue,
        store,
        reconciler,
        metrics,
        timeout,
    } = &*shared;
    loop {
        let (key, priority) = tokio::select! {
            biased;
            _ = stop.cancelled() => return,
            key = queue.get_with_priority() => match key {
                Some(key) => key,
                None => return,
            },
        };
        // A key that comes back keeps the priority it was queued at.
        let again = |options: AddOptions| AddOptions {
            priority,
            ..options
        };
        let backoff = again(AddOptions {
            rate_limited: true,
            ..AddOptions::default()
        });
        let _active = metrics.worker_started();
        let started = Instant::now();
        let object = store.get_by_key(key.as_str());
        let span = reconcile_span::<K>(name, &key);
        let reconcile = AssertUnwindSafe(reconciler.reconcile(&key, object))
            .catch_unwind()
            .instrument(span.clone());
        let result = match timeout {
            Some(limit) => tokio::time::timeout(*limit, reconcile).await.ok(),
            None => Some(reconcile.await),
        };
        let Some(result) = result else {
            tracing::warn!(controller = %name, %key, "reconcile timed out; retrying with backoff");
            metrics.timed_out();
            span.record("result", "timeout");
            queue.add_with(key.clone(), backoff);
            metrics.observe(ReconcileOutcome::Error, started.elapsed());
            queue.done(&key);
            continue;
        };
        let outcome = match result {
            Ok(Ok(Action::Done)) => {
                queue.forget(&key);
                ReconcileOutcome::Success
            }
            Ok(Ok(Action::Requeue)) => {
                queue.add_with(key.clone(), backoff);
                ReconcileOutcome::Requeue
            }
            Ok(Ok(Action::RequeueAfter(delay))) => {
                queue.forget(&key);
                let after = again(AddOptions {
                    after: Some(delay),
                    ..AddOptions::default()
                });
                queue.add_with(key.clone(), after);
                ReconcileOutcome::RequeueAfter
            }
            Ok(Err(error)) if reconciler.is_terminal(&error) => {
                tracing::error!(controller = %name, %key, %error, "reconcile failed for good; not retrying");
                metrics.terminal_error();
                ReconcileOutcome::Error
            }
            Ok(Err(error)) => {
                tracing::warn!(controller = %name, %key, %error, "reconcile failed; retrying with backoff");
                queue.add_with(key.clone(), backoff);
                ReconcileOutcome::Error
            }
            Err(_) => {
                tracing::error!(controller = %name, %key, "reconcile panicked; retrying with backoff");
                metrics.panicked();
                queue.add_with(key.clone(), backoff);
                ReconcileOutcome::Error
            }
        };
        span.record("result", outcome.as_str());
        metrics.observe(outcome, started.elapsed());
        queue.done(&key);
    }
}

/// One span per reconcile, for any tracing subscriber (an OpenTelemetry exporter among them)
/// to time and export; its `result` is the metrics' result label. Without the
/// `reconcile-spans` feature, a disabled span.
fn reconcile_span<K: kube::Resource<DynamicType = ()>>(
    controller: &str,
    key: &ObjectKey,
) -> tracing::Span {
    if cfg!(feature = "reconcile-spans") {
        tracing::info_span!(
            "reconcile",
            controller = %controller,
            kind = %K::kind(&()),
            namespace = key.namespace().unwrap_or(""),
            name = key.name(),
            result = tracing::field::Empty,
        )
    } else {
        tracing::Span::none()
    }
}
