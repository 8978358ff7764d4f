//! Controllers: kubebuilder's reconciler pattern over kubegen's informers and work queue.
//!
//! ```
//! # mod api {
//! #     use kubegen::prelude::*;
//! #     #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #     #[resource(group = "controllers.example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
//! #     pub struct WidgetSpec {
//! #         pub size: i32,
//! #     }
//! #     #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct WidgetStatus {
//! #         pub seen: i32,
//! #     }
//! # }
//! # use api::*;
//! use std::sync::Arc;
//! use kubegen::client::{Patch, PatchParams};
//! use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
//! use kubegen::manager::Manager;
//!
//! /// Writes what it saw of each Widget's spec into its status.
//! struct Observer(kube::Client);
//!
//! impl Reconciler<Widget> for Observer {
//!     type Error = kubegen::client::ClientError;
//!
//!     async fn reconcile(&self, key: &ObjectKey, widget: Option<Arc<Widget>>) -> Result<Action, Self::Error> {
//!         let Some(widget) = widget else { return Ok(Action::Done) }; // deleted
//!         let status = serde_json::json!({"status": {"seen": widget.spec.size}});
//!         let widgets = self.0.widgets(key.namespace().unwrap_or_default());
//!         widgets.patch_status(key.name(), &PatchParams::default(), &Patch::Merge(status)).await?;
//!         Ok(Action::Done)
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let server = kubegen::testing::ApiServer::new();
//! server.create_namespace("demo").unwrap();
//! let client = server.client();
//! let stop = tokio_util::sync::CancellationToken::new();
//! let manager = Manager::new(client.clone())
//!     .add(Controller::<Widget>::new("observer"), Observer(client.clone()));
//! let running = tokio::spawn(manager.run(stop.clone()));
//!
//! client.widgets("demo").create(&Widget::new("w", WidgetSpec { size: 4 })).await.unwrap();
//! kubegen::testing::eventually("the status follows", || async {
//!     let w = client.widgets("demo").get("w").await.ok()?;
//!     (w.status?.seen == 4).then_some(())
//! })
//! .await;
//! stop.cancel();
//! running.await.unwrap().unwrap();
//! # });
//! ```
//!
//!
//! A [`Controller`] is declared for one kind, with what it owns and what else it watches;
//! a [`Reconciler`] brings one object's world to its desired state and answers with an
//! [`Action`]. Informer events become keys on a deduplicating work queue, a fixed number of
//! workers take keys off it, and each key is reconciled by at most one worker at a time.
//! Errors back off per key (client-go's exponential limiter); success forgets the key.
//!
//! Controllers run inside a [`Manager`](crate::manager::Manager), which owns the shared
//! cache, leader election, metrics and shutdown; the declaration itself needs no client, so
//! the RBAC rules it implies can be printed without a cluster ([`Controller::rules`]).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kube::Resource;

use crate::informer::{InformerKind, KindScope, SharedInformerFactory};
use crate::rbac::{Rules, Verb};

pub mod conditions;
pub mod predicate;
mod run;
mod sources;
pub mod util;

use predicate::{Funcs, Predicate, Predicates};
pub use run::Running;
use sources::Source;

/// Which object a reconcile is for: its cache key, `namespace/name` (or `name` for
/// cluster-scoped objects). Cheap to clone.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey(Arc<str>);

impl ObjectKey {
    /// The key of an object in `namespace` (`None` for cluster-scoped objects).
    pub fn new(namespace: Option<&str>, name: &str) -> Self {
        match namespace {
            Some(ns) if !ns.is_empty() => ObjectKey(format!("{ns}/{name}").into()),
            _ => ObjectKey(name.into()),
        }
    }

    /// The key of `object`.
    pub fn of<K: Resource>(object: &K) -> Self {
        ObjectKey(crate::cache::key_of(object))
    }

    /// The namespace, `None` for cluster-scoped objects.
    pub fn namespace(&self) -> Option<&str> {
        self.0.split_once('/').map(|(ns, _)| ns)
    }

    /// The name.
    pub fn name(&self) -> &str {
        self.0.split_once('/').map_or(&*self.0, |(_, name)| name)
    }

    /// The key as the cache spells it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// What to do with a key after a successful reconcile (controller-runtime's `Result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing more until the next event: the key's backoff is forgotten.
    Done,
    /// Again soon, after the key's backoff (which grows with every `Requeue`).
    Requeue,
    /// Again after this delay; the key's backoff is forgotten.
    RequeueAfter(Duration),
}

/// Brings one object's world to the state its spec asks for.
///
/// Called with the object's key and its cached state (`None` once it is gone from the
/// cache: deleted, with no finalizer left). Reads come from the cache, writes go to the
/// apiserver; a reconcile must be idempotent, because a key is reconciled again after every
/// event and after every error. Errors are retried with per-key exponential backoff, unless
/// they are terminal ([`is_terminal`](Self::is_terminal)).
pub trait Reconciler<K>: Send + Sync + 'static {
    /// Why a reconcile failed; logged, counted, and retried with backoff.
    type Error: fmt::Display + Send + 'static;

    /// One pass for one key.
    fn reconcile(
        &self,
        key: &ObjectKey,
        object: Option<Arc<K>>,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send;

    /// Whether `error` is one retrying cannot fix (controller-runtime's `TerminalError`):
    /// the key is not requeued, only its next event brings it back, and
    /// `controller_runtime_terminal_reconcile_errors_total` counts it besides the error
    /// counts. By default a [`TerminalError`] is terminal and nothing else is; a reconciler
    /// with its own error type says which of its errors are.
    fn is_terminal(&self, error: &Self::Error) -> bool {
        (error as &dyn std::any::Any).is::<TerminalError>()
    }
}

/// An error retrying cannot fix: an invalid spec the user must change, a reference to
/// something that will not appear. A reconciler whose `Error` is this type returns
/// `Err(TerminalError::new(..))` and the key is not retried (see
/// [`Reconciler::is_terminal`]).
#[derive(Debug)]
pub struct TerminalError(Box<dyn std::error::Error + Send + Sync>);

impl TerminalError {
    /// A terminal error for `cause` (any error, or a message).
    pub fn new(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        TerminalError(cause.into())
    }
}

impl fmt::Display for TerminalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "terminal error: {}", self.0)
    }
}

impl std::error::Error for TerminalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

/// A controller for kind `K`: what it watches, how many workers reconcile, and how keys back
/// off. Declaring it needs no client; [`Manager::add`](crate::manager::Manager::add) starts
/// it.
pub struct Controller<K> {
    name: String,
    sources: Vec<Box<dyn Source>>,
    predicates: Predicates<K>,
    concurrency: usize,
    backoff: (Duration, Duration),
    timeout: Option<Duration>,
    prioritize: bool,
    rules: Rules,
}

impl<K> Controller<K>
where
    K: InformerKind,
    K::Scope: KindScope,
{
    /// A controller named `name` (its metrics' `controller` label and its work queue's
    /// name) reconciling `K`. It reads `K` through the shared cache, so it needs `list` and
    /// `watch` on it (what its informer calls; a reconciler that also GETs declares it with
    /// [`writes`](Self::writes)).
    pub fn new(name: &str) -> Self {
        Controller {
            name: name.to_owned(),
            sources: Vec::new(),
            predicates: Predicates::new(),
            concurrency: 1,
            backoff: (Duration::from_millis(5), Duration::from_secs(1000)),
            timeout: None,
            prioritize: true,
            rules: Rules::new().grant::<K>(&[Verb::List, Verb::Watch]),
        }
    }

    /// The controller's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reconciles the controlling owner of every `C` whose events arrive: a child's add,
    /// update or delete queues the `K` named by its `controller: true` owner reference
    /// (controller-runtime's `Owns`). Grants `list` and `watch` on `C`, and `update` on
    /// `K`'s `finalizers`, which setting a reference with `blockOwnerDeletion`
    /// ([`util::set_controller_reference`]) needs.
    pub fn owns<C>(self) -> Self
    where
        C: InformerKind,
        C::Scope: KindScope,
    {
        self.owns_with::<C>(Funcs::new())
    }

    /// [`owns`](Self::owns), for the events of `C` that `predicate` passes.
    pub fn owns_with<C>(mut self, predicate: impl Predicate<C>) -> Self
    where
        C: InformerKind,
        C::Scope: KindScope,
    {
        self.sources
            .push(Box::new(sources::Owned::<K, C>::new(predicate)));
        // A controller reference blocks the owner's deletion, which
        // OwnerReferencesPermissionEnforcement lets only those who may update the owner's
        // finalizers set (kubebuilder scaffolds the same rule).
        self.rules = self
            .rules
            .grant::<C>(&[Verb::List, Verb::Watch])
            .grant_subresource::<K>("finalizers", &[Verb::Update]);
        self
    }

    /// Reconciles the keys `map` names for every `W` whose events arrive
    /// (controller-runtime's `Watches` with `EnqueueRequestsFromMapFunc`).
    pub fn watches<W>(self, map: impl Fn(&W) -> Vec<ObjectKey> + Send + Sync + 'static) -> Self
    where
        W: InformerKind,
        W::Scope: KindScope,
    {
        self.watches_with(map, Funcs::new())
    }

    /// [`watches`](Self::watches), for the events of `W` that `predicate` passes.
    pub fn watches_with<W>(
        mut self,
        map: impl Fn(&W) -> Vec<ObjectKey> + Send + Sync + 'static,
        predicate: impl Predicate<W>,
    ) -> Self
    where
        W: InformerKind,
        W::Scope: KindScope,
    {
        self.sources
            .push(Box::new(sources::Mapped::<W>::new(map, predicate)));
        self.rules = self.rules.grant::<W>(&[Verb::List, Verb::Watch]);
        self
    }

    /// Only the events of `K` that `predicate` passes are reconciled (controller-runtime's
    /// `For(.., WithPredicates(..))`); given more than once, all must pass. See
    /// [`predicate`] for the usual ones.
    pub fn with_predicate(mut self, predicate: impl Predicate<K>) -> Self {
        self.predicates.push(predicate);
        self
    }

    /// Only updates of `K` for which `filter(old, new)` holds are reconciled; the rest (a
    /// status write coming back, a resync) are skipped. The same as
    /// [`with_predicate`](Self::with_predicate) with
    /// [`Funcs::update`](predicate::Funcs::update).
    pub fn filter_updates(self, filter: impl Fn(&K, &K) -> bool + Send + Sync + 'static) -> Self
    where
        K: 'static,
    {
        self.with_predicate(Funcs::new().update(filter))
    }

    /// How many keys are reconciled at once (controller-runtime's
    /// `MaxConcurrentReconciles`; 1 by default). At least 1.
    pub fn concurrency(mut self, workers: usize) -> Self {
        self.concurrency = workers.max(1);
        self
    }

    /// The per-key backoff after errors and `Action::Requeue`: `base`, doubling up to `max`
    /// (client-go's default is 5 ms up to 1000 s).
    pub fn backoff(mut self, base: Duration, max: Duration) -> Self {
        self.backoff = (base, max);
        self
    }

    /// Whether the work queue serves users' changes before the informers' first lists and
    /// resyncs (controller-runtime's priority queue, its default since v0.23; on by default
    /// here too). Off, every event queues at the same priority: client-go's FIFO.
    pub fn priority_queue(mut self, on: bool) -> Self {
        self.prioritize = on;
        self
    }

    /// How long one reconcile may take (controller-runtime's `ReconciliationTimeout`; none
    /// by default). A reconcile still running then is dropped at its next `.await`: it
    /// counts as an error in the metrics and in `controller_runtime_reconcile_timeouts_total`,
    /// and the key is retried with backoff. (Go cancels the reconcile's context and waits
    /// for it to notice; a Rust future stops where it is.)
    pub fn reconcile_timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Declares what the reconciler calls beyond the cache's list and watch, so
    /// [`rules`](Self::rules) grants it: e.g.
    /// `.writes(Rules::new().grant_subresource::<K>("status", &[Verb::Patch]))`.
    pub fn writes(mut self, rules: Rules) -> Self {
        self.rules = self.rules.merge(rules);
        self
    }

    /// The RBAC rules this controller needs: reads of every kind it watches, and what it
    /// declared it writes.
    pub fn rules(&self) -> Rules {
        self.rules.clone()
    }

    /// Wires the controller to `factory`'s informers (its kind's, its owned and watched
    /// kinds') through a fresh work queue whose metrics, and the reconciles', go to `metrics`;
    /// [`Running::run`] then runs the workers. [`Manager::add`](crate::manager::Manager::add)
    /// does this; call it directly to run a controller without a Manager (start the factory
    /// and wait for its caches yourself).
    pub fn register<R: Reconciler<K>>(
        self,
        factory: &SharedInformerFactory,
        reconciler: R,
        metrics: &crate::metrics::Metrics,
    ) -> Running {
        run::register(self, factory, reconciler, metrics)
    }
}
