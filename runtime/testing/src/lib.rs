//! `ApiServer`: an in-memory Kubernetes API server for kubegen kinds (feature `testing`).
//!
//! It speaks the Kubernetes REST protocol for every registered kind, as a tower service
//! (`kube::Client::new(server.service(), "default")`, or simply `server.client()`) and on a
//! loopback TCP port (`server.listen().await`), so `kubectl --server http://127.0.0.1:PORT`
//! works too. It implements the semantics operators depend on — resourceVersions and
//! conflicts, generation, uid, finalizers, status and scale subresources, selectors,
//! pagination, watches with bookmarks and 410 Gone, merge/JSON patch and server-side apply,
//! schema defaulting, pruning and validation — and can inject faults.
//!
//! A kind with registered conversions ([`kubegen_runtime::convert`]) is stored at its storage
//! version and served at every version through them, as the apiserver serves a CRD with a
//! conversion webhook; other kinds are relabelled (the `None` strategy). With the `webhook`
//! feature, [`ApiServer::admission`] runs a kind's mutator and validator in process, in the
//! apiserver's order (mutating, schema and CEL validation, validating), and
//! [`ApiServer::admission_unavailable`] simulates a webhook that cannot be reached. Beside
//! the CRDs it serves the built-in API of kube-apiserver v1.36.2 (Deployments, Jobs,
//! Services, ConfigMaps, Namespaces, ... with the apiserver's defaulting, admission,
//! strategies and validation; see `builtin`), and namespaces are objects. What differs from
//! the apiserver is listed in the guide's testing chapter (`docs/src/testing.md`).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let server = kubegen_testing::ApiServer::new();
//! let client = server.client();
//! # let _ = client; }
//! ```

// docs.rs (and CI's docs build) mark what each feature gates.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub)]

pub mod backend;
mod builtin;
mod clock;
pub mod controllers;
mod decode;
mod duration;
#[cfg(feature = "envtest")]
pub mod envtest;
mod eventually;
mod feed;
pub mod generate;
mod gostring;
mod http;
mod jsonpatch;
pub mod kubelet;
mod smp;
mod stack;
mod state;
mod status;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

pub use self::backend::{Backend, TestEnv, TestEnvError, TestSetup};
pub use self::clock::Clock;
pub use self::controllers::{Controller, Controllers};
#[cfg(feature = "envtest")]
pub use self::envtest::{Envtest, EnvtestBuilder, EnvtestError};
pub use self::eventually::{Eventually, Outcome, eventually};
pub use self::http::ResponseBody;
pub use self::kubelet::{Kubelet, KubeletTask, PodFate};
pub use self::status::ApiError;
/// A webhook configuration's `failurePolicy`, for [`ApiServer::admission_unavailable`]: with
/// `Fail` the request fails (500 InternalError), with `Ignore` it is admitted as if the
/// webhook had allowed it.
#[cfg(feature = "webhook")]
pub use kubegen_runtime::crd::webhooks::FailurePolicy;
use state::{Builtin, KindEntry, State};

use kubegen_runtime::registry;
use kubegen_runtime::resource::ResourceInfo;

/// The server's shared state.
pub(crate) struct Inner {
    state: Mutex<State>,
    clock: Clock,
    /// The in-memory controllers, once started.
    driver: Mutex<Option<Arc<controllers::Driver>>>,
    faults: FaultState,
    ticker: AtomicBool,
    bookmark_interval_ms: AtomicU64,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-written in a way later
        // requests would misread, so a poisoned lock is still used.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn start_bookmark_ticker(self: &Arc<Self>) {
        if self.ticker.swap(true, Ordering::SeqCst) {
            return;
        }
        let weak: Weak<Inner> = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let interval = match weak.upgrade() {
                    Some(inner) => {
                        Duration::from_millis(inner.bookmark_interval_ms.load(Ordering::Relaxed))
                    }
                    None => return,
                };
                tokio::time::sleep(interval).await;
                let Some(inner) = weak.upgrade() else { return };
                inner.lock().send_bookmarks();
            }
        });
    }
}

/// Injected faults, shared by every request.
#[derive(Default)]
pub(crate) struct FaultState {
    failures: Mutex<(u32, u16, Option<u64>)>,
    watch_failures: AtomicU64,
    latency_ms: AtomicU64,
}

impl FaultState {
    fn take_failure(&self) -> Option<ApiError> {
        let mut f = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if f.0 == 0 {
            return None;
        }
        f.0 -= 1;
        Some(ApiError::injected(f.1, f.2))
    }

    fn take_watch_failure(&self) -> bool {
        self.watch_failures
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    fn latency(&self) -> Option<Duration> {
        match self.latency_ms.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }
}

/// An in-memory Kubernetes API server. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct ApiServer {
    inner: Arc<Inner>,
}

/// The entry of a custom resource kind of these versions, established, as a fresh copy of the
/// one built the first time (like the built-in kinds' entries, its compiled schemas and
/// validators are the same for every server, and costly: a few milliseconds a kind).
fn custom_entry(versions: Vec<&'static ResourceInfo>) -> KindEntry {
    // The versions' addresses: every ResourceInfo is a static of the derive's.
    type Key = Vec<usize>;
    static BUILT: LazyLock<Mutex<HashMap<Key, KindEntry>>> = LazyLock::new(Default::default);
    let key: Key = versions
        .iter()
        .map(|v| std::ptr::from_ref(*v).addr())
        .collect();
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    built
        .entry(key)
        .or_insert_with(|| {
            let mut crd = kubegen_runtime::crd::build(&versions)
                .ok()
                .and_then(|c| serde_json::to_value(c).ok())
                .unwrap_or_default();
            let storage: Vec<&str> = versions.iter().filter(|v| v.storage).map(|v| v.version).collect();
            crd["status"] = serde_json::json!({
                "acceptedNames": crd["spec"]["names"].clone(),
                "storedVersions": storage,
                "conditions": [
                    {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found"},
                    {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"},
                ],
            });
            KindEntry::from_versions(&versions, crd)
        })
        .clone()
}

impl Default for ApiServer {
    fn default() -> Self {
        Self::new()
    }
}

impl ApiServer {
    /// A server for every kind registered in this binary.
    pub fn new() -> Self {
        let kinds: Vec<Vec<&'static ResourceInfo>> = registry::by_kind().into_values().collect();
        Self::with_versions(kinds)
    }

    /// A server for the given kinds only (each slice: the versions of one kind).
    pub fn with_kinds(kinds: &[&[&'static ResourceInfo]]) -> Self {
        Self::with_versions(kinds.iter().map(|k| k.to_vec()).collect())
    }

    /// The server for `kinds`, and the built-in kinds every server serves.
    fn with_versions(kinds: Vec<Vec<&'static ResourceInfo>>) -> Self {
        let mut entries: Vec<Arc<KindEntry>> = kinds
            .into_iter()
            .filter(|versions| !versions.is_empty())
            // Each server owns its entries (a CRD's status is written in place); the
            // compiled versions inside are built once per process.
            .map(|versions| Arc::new(custom_entry(versions)))
            .collect();
        entries.extend(Builtin::entries());
        let clock = Clock::default();
        ApiServer {
            inner: Arc::new(Inner {
                state: Mutex::new(State::new(entries, clock.clone())),
                clock,
                driver: Mutex::new(None),
                faults: FaultState::default(),
                ticker: AtomicBool::new(false),
                bookmark_interval_ms: AtomicU64::new(1000),
            }),
        }
    }

    /// The server as a tower service, for `kube::Client::new(service, "default")`.
    pub fn service(&self) -> ApiService {
        ApiService {
            inner: self.inner.clone(),
        }
    }

    /// A kube client talking to this server, with default namespace `default`. Like any
    /// `kube::Client`, it must be created inside a Tokio runtime.
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.service(), "default")
    }

    /// Serves on a new loopback port until the server (every clone) is dropped.
    pub async fn listen(&self) -> std::io::Result<SocketAddr> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let Some(inner) = weak.upgrade() else { return };
                let service = hyper::service::service_fn(move |req| {
                    let inner = inner.clone();
                    async move {
                        Ok::<_, std::convert::Infallible>(
                            stack::DeepStack::new(http::handle(inner, req)).await,
                        )
                    }
                });
                tokio::spawn(async move {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    // Go's server: headers limited by their size alone (1 MiB and its
                    // 4096 bytes of slack), however many they are.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .max_headers(http::MAX_HEADERS)
                        .max_header_size(http::MAX_HEADER_BYTES)
                        .max_buf_size(http::MAX_HEADER_BYTES + 64 * 1024)
                        .serve_connection(io, service)
                        .await;
                });
            }
        });
        Ok(addr)
    }

    /// Fault injection.
    pub fn faults(&self) -> Faults<'_> {
        Faults { server: self }
    }

    /// How many events are kept for watches resuming from a resourceVersion (default 1000).
    pub fn set_watch_window(&self, events: usize) {
        self.inner.lock().window = events.max(1);
    }

    /// How often watches that asked for bookmarks get one (default 1 s).
    pub fn set_bookmark_interval(&self, interval: Duration) {
        self.inner
            .bookmark_interval_ms
            .store(interval.as_millis().max(1) as u64, Ordering::Relaxed);
    }

    /// How many events a watch may have queued before the server drops it (default 1024).
    pub fn set_watch_queue(&self, events: usize) {
        self.inner.lock().watch_queue = events.max(1);
    }

    /// The number of open watches.
    pub fn open_watches(&self) -> usize {
        let mut state = self.inner.lock();
        state.watchers.retain(|w| !w.tx.is_closed());
        state.watchers.len()
    }

    /// Creates namespace `name` if it does not exist, as `kubectl create namespace` would:
    /// objects can only be created in a namespace that exists (`default`, `kube-system`,
    /// `kube-public` and `kube-node-lease` do from the start). `#[kubegen::test]` creates each
    /// test's namespace this way.
    pub fn create_namespace(&self, name: &str) -> Result<(), ApiError> {
        self.inner.lock().create_namespace(name)
    }

    /// The current resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.inner.lock().resource_version()
    }

    /// Runs `webhooks`' mutators and validators in process, where the apiserver calls
    /// admission webhooks (replacing webhooks set before): on create, update, patch and
    /// apply of a kind's main resource the mutator, then defaulting, schema and CEL
    /// validation, then the validator; on delete the validator with the old object. Dry
    /// runs call them too. A handler registered at another version of the kind sees the
    /// object converted to its version (`matchPolicy: Equivalent`); denials answer as the
    /// apiserver answers a webhook's (`admission webhook "<name>" denied the request: ...`,
    /// named by [`kubegen_runtime::webhook::webhook_name`]), warnings become `Warning` headers.
    ///
    /// Handlers run while the server holds its state: they must not wait for the server.
    #[cfg(feature = "webhook")]
    pub fn admission(&self, webhooks: kubegen_runtime::webhook::Webhooks) {
        self.inner.lock().webhooks = Some(webhooks);
    }

    /// Makes the `admission` webhook of `kind` unreachable, as when its service is down:
    /// with [`FailurePolicy::Fail`] its requests fail with the apiserver's 500 `failed
    /// calling webhook "<name>": ...`, with [`FailurePolicy::Ignore`] they are admitted
    /// without it. [`ApiServer::admission_available`] undoes it.
    #[cfg(feature = "webhook")]
    pub fn admission_unavailable(
        &self,
        admission: kubegen_runtime::webhook::AdmissionType,
        kind: kubegen_runtime::webhook::WebhookKind,
        policy: FailurePolicy,
    ) {
        let mut state = self.inner.lock();
        state
            .unavailable
            .retain(|(a, k, _)| !(*a == admission && *k == kind));
        state.unavailable.push((admission, kind, policy));
    }

    /// Makes the `admission` webhook of `kind` reachable again.
    #[cfg(feature = "webhook")]
    pub fn admission_available(
        &self,
        admission: kubegen_runtime::webhook::AdmissionType,
        kind: &kubegen_runtime::webhook::WebhookKind,
    ) {
        let mut state = self.inner.lock();
        state
            .unavailable
            .retain(|(a, k, _)| !(*a == admission && k == kind));
    }
}

/// Fault injection for tests: what a flaky apiserver does to its clients.
pub struct Faults<'a> {
    server: &'a ApiServer,
}

impl Faults<'_> {
    /// Fails the next `n` requests with `code` (500, 503, 410, ...).
    pub fn fail_next(&self, n: u32, code: u16) {
        *self
            .server
            .inner
            .faults
            .failures
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = (n, code, None);
    }

    /// Fails the next `n` requests with 429 Too Many Requests and a Retry-After header.
    pub fn throttle_next(&self, n: u32, retry_after_seconds: u64) {
        *self
            .server
            .inner
            .faults
            .failures
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = (n, 429, Some(retry_after_seconds));
    }

    /// Fails the next `n` watch requests with 500 (other requests succeed): a client's
    /// watch stays down while the test changes objects, as in a network partition.
    pub fn fail_watches(&self, n: u64) {
        self.server
            .inner
            .faults
            .watch_failures
            .store(n, Ordering::SeqCst);
    }

    /// Ends every open watch (clients see the stream close and re-watch).
    pub fn drop_watches(&self) {
        self.server.inner.lock().watchers.clear();
    }

    /// Forgets the event history, so resuming a watch from any earlier resourceVersion
    /// gets 410 Gone, as after etcd compaction.
    pub fn expire_history(&self) {
        self.server.inner.lock().compact();
    }

    /// A restart that loses watch state: open watches end and history is gone.
    pub fn restart(&self) {
        let mut state = self.server.inner.lock();
        state.watchers.clear();
        state.compact();
    }

    /// Delays every response by `latency` (zero to stop).
    pub fn set_latency(&self, latency: Duration) {
        self.server
            .inner
            .faults
            .latency_ms
            .store(latency.as_millis() as u64, Ordering::Relaxed);
    }
}

/// The server as a tower service. Never fails: errors are `Status` responses.
#[derive(Clone)]
pub struct ApiService {
    inner: Arc<Inner>,
}

impl<B> tower::Service<::http::Request<B>> for ApiService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = ::http::Response<ResponseBody>;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: ::http::Request<B>) -> Self::Future {
        let inner = self.inner.clone();
        Box::pin(async move { Ok(stack::DeepStack::new(http::handle(inner, req)).await) })
    }
}
