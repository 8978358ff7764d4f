//! The Manager: one per operator process, as in controller-runtime.
//!
//! It owns the shared cache (a [`SharedInformerFactory`]: reads come from it, writes go to the
//! apiserver through the client), the controllers, the metrics registry and the
//! `/metrics`, `/healthz` and `/readyz` endpoints (with the `secure-metrics` feature, over
//! HTTPS and `/metrics` only for authorized callers), the event recorders, leader election, and
//! any other runnables such as the webhook server. [`Manager::run`] starts everything and
//! shuts it down in order:
//!
//! 1. the metrics and health endpoints, and the runnables (webhooks serve on every replica);
//! 2. the caches, on every replica, so a new leader starts warm; run waits until they synced;
//! 3. with leader election, the campaign for the Lease; the controllers' workers run only
//!    while this replica leads;
//! 4. on shutdown (SIGTERM through [`shutdown_on_signal`], or any cancelled token): no
//!    worker takes another key, in-flight reconciles get until the graceful-shutdown
//!    deadline (30 s by default) to finish, queued events are sent, the informers stop, the
//!    Lease is released so a successor takes over at once, and `run` returns `Ok`.
//!
//! A replica that cannot renew its Lease stops its controllers and `run` returns
//! [`ManagerError::LeadershipLost`]; controller-runtime exits the process then, and so
//! should the caller (its successor is already campaigning).
//!
//! Here a Manager runs one controller against the in-memory apiserver, serves its metrics on
//! a port of its own, names the RBAC rules it needs, and shuts down when its token is
//! cancelled:
//!
//! ```
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
//! use kubegen::manager::Manager;
//! use kubegen::rbac::Verb;
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! use tokio::sync::mpsc;
//! use tokio_util::sync::CancellationToken;
//!
//! /// Reports every ConfigMap it reconciles.
//! struct Seen(mpsc::UnboundedSender<String>);
//!
//! impl Reconciler<ConfigMap> for Seen {
//!     type Error = std::convert::Infallible;
//!
//!     async fn reconcile(&self, key: &ObjectKey, _: Option<Arc<ConfigMap>>) -> Result<Action, Self::Error> {
//!         let _ = self.0.send(key.name().to_owned());
//!         Ok(Action::Done)
//!     }
//! }
//!
//! /// One plain HTTP/1.1 GET; the response's text.
//! async fn get(address: std::net::SocketAddr, path: &str) -> String {
//!     let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
//!     let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
//!     stream.write_all(request.as_bytes()).await.unwrap();
//!     let mut response = String::new();
//!     stream.read_to_string(&mut response).await.unwrap();
//!     response
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let server = kubegen::testing::ApiServer::new();
//! server.create_namespace("demo").unwrap();
//! let (seen, mut reconciled) = mpsc::unbounded_channel();
//! let manager = Manager::new(server.client())
//!     .metrics_address("127.0.0.1:0".parse().unwrap()) // port 0: the OS picks one
//!     .unwrap()
//!     .add(Controller::<ConfigMap>::new("config-maps"), Seen(seen));
//!
//! // The controller's informer lists and watches ConfigMaps: its Role must allow that.
//! let rules = manager.rules();
//! assert!(rules.allows("", "configmaps", Verb::List) && rules.allows("", "configmaps", Verb::Watch));
//! let metrics = manager.metrics_local_address().unwrap();
//! let stop = CancellationToken::new();
//! let running = tokio::spawn(manager.run(stop.clone()));
//!
//! let config: ConfigMap = serde_json::from_value(serde_json::json!({"metadata": {"name": "settings"}})).unwrap();
//! let config_maps = kube::Api::<ConfigMap>::namespaced(server.client(), "demo");
//! config_maps.create(&Default::default(), &config).await.unwrap();
//! assert_eq!(reconciled.recv().await.as_deref(), Some("settings"));
//!
//! assert!(get(metrics, "/readyz").await.starts_with("HTTP/1.1 200"));
//! let text = get(metrics, "/metrics").await;
//! assert!(text.contains(r#"controller_runtime_reconcile_total{controller="config-maps",result="success"} 1"#));
//!
//! // Cancelling the token is a graceful shutdown: `run` returns Ok.
//! stop.cancel();
//! running.await.unwrap().unwrap();
//! # });
//! ```

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::controller::{Controller, Reconciler, Running};
use crate::events::{EventRecorder, EventRecorderConfig, Reporter};
use crate::informer::SyncError;
use crate::informer::{InformerKind, KindScope, SharedInformerFactory};
use crate::leaderelection::{LeaderElectionConfig, LeaderElectionError, LeaderElector, Stopped};
use crate::metrics::Metrics;
use crate::metrics::{HealthChecks, serve};
#[cfg(feature = "secure-metrics")]
use crate::metrics::{SecureServing, SecureServingError, serve_secure};
use crate::rbac::Rules;

/// Why [`Manager::run`] ended with an error.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// The caches did not sync in time.
    #[error("the caches did not sync within {0:?}")]
    CacheSync(Duration),
    /// A kind a controller reads is not served: its first list was answered 404 (a CRD
    /// not installed, a kind the server does not have). Reported at once, not after the
    /// cache-sync timeout.
    #[error("the caches cannot sync: {0}")]
    NotServed(#[from] crate::informer::NotServed),
    /// Leader election could not start or failed.
    #[error(transparent)]
    LeaderElection(#[from] LeaderElectionError),
    /// This replica could not renew its Lease in time and stopped leading.
    #[error("leader election lost")]
    LeadershipLost,
    /// The metrics and health endpoints could not be served.
    #[error("the metrics endpoint: {0}")]
    Serve(#[from] std::io::Error),
}

/// Leader election for a Manager: which Lease, who campaigns, with what timings.
#[derive(Clone, Debug)]
pub struct LeaderElection {
    /// The Lease's namespace.
    pub namespace: String,
    /// The Lease's name (controller-runtime's `LeaderElectionID`).
    pub name: String,
    /// This replica's identity, unique among the candidates
    /// ([`default_identity`](crate::leaderelection::default_identity) by default).
    pub identity: String,
    /// Lease duration, renew deadline, retry period; client-go's defaults.
    pub config: LeaderElectionConfig,
}

impl LeaderElection {
    /// Campaigns for the Lease `namespace/name` with this process's default identity and
    /// client-go's timings (15 s, 10 s, 2 s), releasing it on shutdown.
    pub fn new(namespace: &str, name: &str) -> Self {
        LeaderElection {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            identity: crate::leaderelection::default_identity(),
            config: LeaderElectionConfig::default(),
        }
    }

    /// The same, campaigning as `identity`.
    pub fn identity(mut self, identity: &str) -> Self {
        self.identity = identity.to_owned();
        self
    }

    /// The same, with other timings.
    pub fn config(mut self, config: LeaderElectionConfig) -> Self {
        self.config = config;
        self
    }
}

type Runnable = Box<dyn FnOnce(CancellationToken) -> BoxFuture<'static, ()> + Send>;

/// Owns an operator's cache, controllers, metrics, events and leader election; see the
/// [module documentation](self).
pub struct Manager {
    cache: Arc<SharedInformerFactory>,
    metrics: Metrics,
    health: HealthChecks,
    controllers: Vec<Running>,
    rules: Rules,
    runnables: Vec<Runnable>,
    recorders: Vec<EventRecorder>,
    leader_election: Option<LeaderElection>,
    metrics_listener: Option<std::net::TcpListener>,
    #[cfg(feature = "secure-metrics")]
    secure_metrics: Option<SecureServing>,
    graceful_shutdown: Duration,
    cache_sync_timeout: Duration,
}

impl Manager {
    /// A Manager whose cache watches every namespace.
    pub fn new(client: kube::Client) -> Self {
        Self::with_cache(SharedInformerFactory::new(client))
    }

    /// A Manager over a cache configured by the caller (one namespace, label selectors,
    /// managedFields stripped, resync).
    pub fn with_cache(cache: SharedInformerFactory) -> Self {
        Manager {
            cache: Arc::new(cache),
            metrics: Metrics::new(),
            health: HealthChecks::default(),
            controllers: Vec::new(),
            rules: Rules::new(),
            runnables: Vec::new(),
            recorders: Vec::new(),
            leader_election: None,
            metrics_listener: None,
            #[cfg(feature = "secure-metrics")]
            secure_metrics: None,
            graceful_shutdown: Duration::from_secs(30),
            cache_sync_timeout: Duration::from_secs(120),
        }
    }

    /// Runs the controllers only while this replica holds the Lease.
    pub fn leader_election(mut self, election: LeaderElection) -> Self {
        self.rules = std::mem::take(&mut self.rules).merge(Rules::leases());
        self.leader_election = Some(election);
        self
    }

    /// Serves `/metrics` (Prometheus text), `/healthz` and `/readyz` on `address`, bound
    /// now (`127.0.0.1:0` picks a free port: see
    /// [`metrics_local_address`](Self::metrics_local_address)).
    pub fn metrics_address(mut self, address: SocketAddr) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(address)?;
        listener.set_nonblocking(true)?;
        self.metrics_listener = Some(listener);
        Ok(self)
    }

    /// Serves the endpoint [`metrics_address`](Self::metrics_address) bound over HTTPS with
    /// `serving`'s certificate, and `/metrics` only to callers the apiserver authenticates
    /// (a TokenReview of their bearer token) and authorizes (a SubjectAccessReview for the
    /// request's lowercased method on the non-resource URL `/metrics`), as kubebuilder's
    /// scaffold serves it; `/healthz` and `/readyz` stay open for kubelet's probes. The
    /// reviews go through the manager's client unless `serving` names another, and
    /// [`rules`](Self::rules) grants what they need. See [`crate::metrics::SecureServing`].
    ///
    /// An error when no address was bound yet: call `metrics_address` first.
    #[cfg(feature = "secure-metrics")]
    pub fn secure_metrics(mut self, serving: SecureServing) -> Result<Self, SecureServingError> {
        if self.metrics_listener.is_none() {
            return Err(SecureServingError::NoAddress);
        }
        self.rules = std::mem::take(&mut self.rules).merge(Rules::metrics_auth());
        self.secure_metrics = Some(serving);
        Ok(self)
    }

    /// Where `/metrics` is served, once [`metrics_address`](Self::metrics_address) bound it.
    pub fn metrics_local_address(&self) -> Option<SocketAddr> {
        self.metrics_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
    }

    /// How long in-flight reconciles and queued events get after shutdown begins (30 s by
    /// default, as in controller-runtime).
    pub fn graceful_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.graceful_shutdown = timeout;
        self
    }

    /// How long `run` waits for the caches' first lists (2 minutes by default).
    pub fn cache_sync_timeout(mut self, timeout: Duration) -> Self {
        self.cache_sync_timeout = timeout;
        self
    }

    /// Adds a controller and its reconciler. Its informers are created now, so listers
    /// taken from [`cache`](Self::cache) afterwards read the same caches.
    pub fn add<K, R>(mut self, controller: Controller<K>, reconciler: R) -> Self
    where
        K: InformerKind,
        K::Scope: KindScope,
        R: Reconciler<K>,
    {
        self.rules = std::mem::take(&mut self.rules).merge(controller.rules());
        let running = controller.register(&self.cache, reconciler, &self.metrics);
        self.controllers.push(running);
        self
    }

    /// Adds something that runs on every replica, leader or not, from `run` until shutdown
    /// (the webhook server, for one). It gets the shutdown token and should return soon after
    /// it is cancelled.
    pub fn add_runnable<F, Fut>(mut self, runnable: F) -> Self
    where
        F: FnOnce(CancellationToken) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.runnables
            .push(Box::new(move |stop| runnable(stop).boxed()));
        self
    }

    /// The client: writes go to the apiserver with it; reads should come from
    /// [`cache`](Self::cache).
    pub fn client(&self) -> &kube::Client {
        self.cache.client()
    }

    /// The shared cache: `cache().informer::<K>().lister()`, or the generated accessors.
    pub fn cache(&self) -> &SharedInformerFactory {
        &self.cache
    }

    /// The metrics registry served on `/metrics`; register your own metrics here.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// An event recorder reporting as `controller` from this replica. Its queued events are
    /// sent before `run` returns.
    pub fn event_recorder(&mut self, controller: &str) -> EventRecorder {
        let instance = self
            .leader_election
            .as_ref()
            .map(|e| e.identity.clone())
            .unwrap_or_else(crate::leaderelection::default_identity);
        let reporter = Reporter {
            controller: controller.to_owned(),
            instance: Some(instance),
        };
        let config = EventRecorderConfig {
            metrics: Some(self.metrics.clone()),
            ..EventRecorderConfig::default()
        };
        let recorder = EventRecorder::with_config(self.client().clone(), reporter, config);
        self.rules = std::mem::take(&mut self.rules).merge(Rules::events());
        self.recorders.push(recorder.clone());
        recorder
    }

    /// The RBAC rules every part added so far needs: the controllers' reads and declared
    /// writes, the Lease with leader election, events with a recorder.
    pub fn rules(&self) -> Rules {
        self.rules.clone()
    }

    /// Runs until `shutdown` is cancelled, then stops gracefully; see the
    /// [module documentation](self) for the order.
    pub async fn run(self, shutdown: CancellationToken) -> Result<(), ManagerError> {
        let Manager {
            cache,
            metrics,
            health,
            controllers,
            rules: _,
            runnables,
            recorders,
            leader_election,
            metrics_listener,
            #[cfg(feature = "secure-metrics")]
            secure_metrics,
            graceful_shutdown,
            cache_sync_timeout,
        } = self;
        // The elector and the gauge saying whether it leads (0 from the start, so a replica
        // that never leads says so on /metrics).
        let election = match &leader_election {
            Some(e) => Some((
                LeaderElector::new(
                    cache.client().clone(),
                    &e.namespace,
                    &e.name,
                    &e.identity,
                    e.config.clone(),
                )?,
                metrics.leader_election(&e.name),
            )),
            None => None,
        };
        if let Some((elector, _)) = &election {
            let elector = elector.clone();
            // A fresh HealthChecks has no checks yet, so the names cannot collide. 20 s past
            // the lease duration is controller-runtime's healthz timeout.
            let _ = health.add_healthz("leaderElection", move || {
                elector
                    .check(Duration::from_secs(20))
                    .map_err(|e| e.to_string())
            });
        }
        {
            let cache = cache.clone();
            let _ = health.add_readyz("cache", move || match cache.has_synced() {
                true => Ok(()),
                false => Err("the caches have not synced".into()),
            });
        }
        let background = CancellationToken::new();
        let mut tasks = JoinSet::new();
        // A Manager whose run is aborted (a killed replica) takes its background tasks
        // with it.
        let _stop_background = background.clone().drop_guard();
        if let Some(listener) = metrics_listener {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            let address = listener.local_addr()?;
            let (metrics, stop) = (metrics.clone(), background.clone());
            #[cfg(feature = "secure-metrics")]
            let endpoint = match secure_metrics {
                Some(serving) => {
                    tracing::info!(%address, "serving /metrics over HTTPS to authorized callers, /healthz, /readyz");
                    let client = cache.client().clone();
                    serve_secure(listener, metrics, health, serving, client, stop).boxed()
                }
                None => {
                    tracing::info!(%address, "serving /metrics, /healthz, /readyz");
                    serve(listener, metrics, health, stop).boxed()
                }
            };
            #[cfg(not(feature = "secure-metrics"))]
            let endpoint = {
                tracing::info!(%address, "serving /metrics, /healthz, /readyz");
                serve(listener, metrics, health, stop)
            };
            tasks.spawn(endpoint.map(|r| {
                if let Err(error) = r {
                    tracing::error!(%error, "the metrics endpoint stopped");
                }
            }));
        }
        for runnable in runnables {
            tasks.spawn(runnable(background.clone()));
        }

        cache.start();
        let synced = tokio::select! {
            synced = cache.wait_for_sync(cache_sync_timeout) => synced,
            _ = shutdown.cancelled() => Ok(()),
        };
        let result = if let Err(e) = synced {
            Err(match e {
                SyncError::NotServed(unserved) => ManagerError::NotServed(unserved),
                SyncError::Timeout(timeout) => ManagerError::CacheSync(timeout),
            })
        } else {
            let lead =
                |stop: CancellationToken| run_controllers(controllers, stop, graceful_shutdown);
            match election {
                Some((elector, leading)) => {
                    let lead = move |stop: CancellationToken| {
                        leading.set_leading(true);
                        lead(stop).map(move |()| leading.set_leading(false))
                    };
                    match elector.run(shutdown.clone(), lead).await? {
                        Stopped::Shutdown => Ok(()),
                        Stopped::Lost => Err(ManagerError::LeadershipLost),
                    }
                }
                None => {
                    lead(shutdown.clone()).await;
                    Ok(())
                }
            }
        };

        let flushed = futures::future::join_all(recorders.iter().map(|r| r.flush()));
        if tokio::time::timeout(graceful_shutdown, flushed)
            .await
            .is_err()
        {
            tracing::warn!("events still queued at the graceful-shutdown deadline were dropped");
        }
        cache.shutdown();
        background.cancel();
        if tokio::time::timeout(graceful_shutdown, async {
            while tasks.join_next().await.is_some() {}
        })
        .await
        .is_err()
        {
            tracing::warn!(
                "runnables still running at the graceful-shutdown deadline were aborted"
            );
        }
        result
    }
}

/// Runs every controller's workers until `stop`, then gives the reconciles in flight until
/// `deadline` to finish before aborting them.
async fn run_controllers(controllers: Vec<Running>, stop: CancellationToken, deadline: Duration) {
    let mut running = JoinSet::new();
    for controller in controllers {
        tracing::info!(
            controller = controller.name(),
            workers = controller.workers(),
            "starting workers"
        );
        running.spawn(controller.run(stop.clone()));
    }
    stop.cancelled().await;
    let drained = tokio::time::timeout(deadline, async {
        while running.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            ?deadline,
            "reconciles still running at the graceful-shutdown deadline were aborted"
        );
        running.abort_all();
    }
}

/// A token cancelled on SIGTERM or SIGINT (Ctrl-C): what Kubernetes sends a pod it stops,
/// and what a terminal sends. Call inside a Tokio runtime.
pub fn shutdown_on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot listen for SIGTERM; only Ctrl-C stops the manager");
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::select! {
            _ = terminate => tracing::info!("SIGTERM: shutting down"),
            _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: shutting down"),
        }
        cancel.cancel();
    });
    token
}
