//! A manager's endpoint: `/metrics`, `/healthz` and `/readyz`, the health endpoints answering
//! as controller-runtime's `healthz` handler does; over plain HTTP here, over HTTPS with
//! `/metrics` filtered in `secure.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use parking_lot::RwLock;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::Metrics;
use super::filter::AuthenticationAndAuthorization;

/// How long shutdown waits for scrapes in flight.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// A health check: `Err` with a reason when unhealthy. The reason is logged, not served
/// (the endpoints are usually unauthenticated).
pub type Check = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// A second check under a name already taken.
#[derive(Debug, thiserror::Error)]
#[error("a {endpoint} check named {name:?} already exists")]
pub struct DuplicateCheck {
    /// `healthz` or `readyz`.
    pub endpoint: &'static str,
    /// The name taken.
    pub name: String,
}

/// The named checks behind `/healthz` (liveness) and `/readyz` (readiness). Cheap to clone;
/// clones share the checks, so checks added after [`serve`] started are served too.
///
/// With no checks an endpoint answers with a built-in `ping` check that always passes, as
/// controller-runtime does.
#[derive(Clone, Default)]
pub struct HealthChecks {
    healthz: Arc<RwLock<BTreeMap<String, Check>>>,
    readyz: Arc<RwLock<BTreeMap<String, Check>>>,
}

impl std::fmt::Debug for HealthChecks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HealthChecks")
            .field("healthz", &self.healthz.read().keys().collect::<Vec<_>>())
            .field("readyz", &self.readyz.read().keys().collect::<Vec<_>>())
            .finish()
    }
}

impl HealthChecks {
    /// No checks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a liveness check, served at `/healthz` and `/healthz/{name}`.
    pub fn add_healthz(
        &self,
        name: impl Into<String>,
        check: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    ) -> Result<(), DuplicateCheck> {
        add(&self.healthz, "healthz", name.into(), Arc::new(check))
    }

    /// Adds a readiness check, served at `/readyz` and `/readyz/{name}`.
    pub fn add_readyz(
        &self,
        name: impl Into<String>,
        check: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    ) -> Result<(), DuplicateCheck> {
        add(&self.readyz, "readyz", name.into(), Arc::new(check))
    }
}

fn add(
    checks: &RwLock<BTreeMap<String, Check>>,
    endpoint: &'static str,
    name: String,
    check: Check,
) -> Result<(), DuplicateCheck> {
    let mut checks = checks.write();
    if checks.contains_key(&name) {
        return Err(DuplicateCheck { endpoint, name });
    }
    checks.insert(name, check);
    Ok(())
}

/// Serves `/metrics` (`metrics` as OpenMetrics text), `/healthz` and `/readyz` (`health`) on
/// `listener` over plain HTTP/1.1 until `shutdown` is cancelled, then lets requests in flight
/// finish (a few seconds at most) and returns.
///
/// The health endpoints answer `200 ok`, or `500` listing every check as `[+]name ok` /
/// `[-]name failed: reason withheld` followed by `healthz check failed`; `?verbose` lists the
/// checks on success too, `?exclude=name` (repeatable) skips one, and `/healthz/{name}` runs
/// one check alone.
pub async fn serve(
    listener: TcpListener,
    metrics: Metrics,
    health: HealthChecks,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let endpoint = Arc::new(Endpoint {
        metrics,
        health,
        filter: None,
    });
    accept(listener, shutdown, move |tcp, stop| {
        let handle = endpoint.handler();
        async move { crate::connection::serve(tcp, handle, stop.cancelled(), "metrics").await }
    })
    .await
}

/// What the endpoint serves, and who may read `/metrics`.
pub(super) struct Endpoint {
    pub(super) metrics: Metrics,
    pub(super) health: HealthChecks,
    /// `None`: anyone.
    pub(super) filter: Option<AuthenticationAndAuthorization>,
}

impl Endpoint {
    /// A connection's request handler.
    pub(super) fn handler(
        self: &Arc<Self>,
    ) -> impl Fn(Request<Incoming>) -> BoxFuture<'static, Response<Body>> + Send + 'static + use<>
    {
        let endpoint = self.clone();
        move |request| {
            let endpoint = endpoint.clone();
            Box::pin(async move { endpoint.respond(request).await })
        }
    }

    /// Answers one request. Only `/metrics` is filtered: the health endpoints answer
    /// kubelet's probes, which carry no token (controller-runtime serves them on a port of
    /// their own, without authentication).
    pub(super) async fn respond(&self, request: Request<Incoming>) -> Response<Body> {
        if let Some(filter) = &self.filter
            && request.uri().path() == "/metrics"
            && let Err(rejection) = filter
                .check(request.method(), request.uri().path(), request.headers())
                .await
        {
            // Go's `http.Error`: the message and a line end, as plain text.
            return text(rejection.status, format!("{}\n", rejection.message));
        }
        route(&self.metrics, &self.health, &request)
    }
}

/// Accepts connections on `listener` until `shutdown` is cancelled, serving each with
/// `connection`, then gives the open ones [`DRAIN_TIMEOUT`] to finish.
pub(super) async fn accept<F, C>(
    listener: TcpListener,
    shutdown: CancellationToken,
    connection: F,
) -> std::io::Result<()>
where
    F: Fn(TcpStream, CancellationToken) -> C,
    C: Future<Output = ()> + Send + 'static,
{
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => {
                    connections.spawn(connection(tcp, shutdown.clone()));
                }
                Err(error) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!(%error, "accepting a metrics connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
    drop(listener);
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.shutdown().await;
    }
    Ok(())
}

type Body = Full<Bytes>;

fn route(metrics: &Metrics, health: &HealthChecks, request: &Request<Incoming>) -> Response<Body> {
    let path = request.uri().path();
    let (endpoint, checks, rest) = if path == "/metrics" {
        if request.method() != Method::GET && request.method() != Method::HEAD {
            return text(
                StatusCode::METHOD_NOT_ALLOWED,
                "method not allowed\n".into(),
            );
        }
        return response(StatusCode::OK, Metrics::CONTENT_TYPE, metrics.encode());
    } else if let Some(rest) = path.strip_prefix("/healthz") {
        ("healthz", &health.healthz, rest)
    } else if let Some(rest) = path.strip_prefix("/readyz") {
        ("readyz", &health.readyz, rest)
    } else {
        return text(StatusCode::NOT_FOUND, "404 page not found\n".into());
    };
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed\n".into(),
        );
    }
    let checks = checks.read();
    match rest.trim_end_matches('/') {
        "" => aggregated(endpoint, &checks, request.uri().query()),
        name => match name.strip_prefix('/') {
            Some("ping") if checks.is_empty() => text(StatusCode::OK, "ok".into()),
            Some(name) => match checks.get(name) {
                Some(check) => match check() {
                    Ok(()) => text(StatusCode::OK, "ok".into()),
                    Err(reason) => {
                        tracing::info!(endpoint, check = name, %reason, "health check failed");
                        text(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            format!("internal server error: {reason}\n"),
                        )
                    }
                },
                None => text(StatusCode::NOT_FOUND, "404 page not found\n".into()),
            },
            // `/healthzfoo`: not one of ours.
            None => text(StatusCode::NOT_FOUND, "404 page not found\n".into()),
        },
    }
}

/// Runs every check (but the excluded ones) and answers as controller-runtime's healthz
/// handler: `ok`, or the list of checks when one failed or `verbose` was asked for.
fn aggregated(
    endpoint: &str,
    checks: &BTreeMap<String, Check>,
    query: Option<&str>,
) -> Response<Body> {
    let mut verbose = false;
    let mut excluded = BTreeSet::new();
    for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        match &*key {
            "verbose" => verbose = true,
            "exclude" => {
                excluded.insert(value.into_owned());
            }
            _ => {}
        }
    }
    let mut lines = String::new();
    let mut failed = false;
    if checks.is_empty() {
        lines.push_str("[+]ping ok\n");
    }
    // A BTreeMap: checks come out sorted by name, as controller-runtime sorts them.
    for (name, check) in checks {
        if excluded.remove(name) {
            let _ = writeln!(lines, "[+]{name} excluded: ok");
            continue;
        }
        match check() {
            Ok(()) => {
                let _ = writeln!(lines, "[+]{name} ok");
            }
            Err(reason) => {
                tracing::info!(endpoint, check = %name, %reason, "health check failed");
                failed = true;
                let _ = writeln!(lines, "[-]{name} failed: reason withheld");
            }
        }
    }
    if !failed && !verbose {
        return text(StatusCode::OK, "ok".into());
    }
    if !excluded.is_empty() {
        let names: Vec<String> = excluded.iter().map(|name| format!("{name:?}")).collect();
        let _ = writeln!(
            lines,
            "warn: some health checks cannot be excluded: no matches for {}",
            names.join(",")
        );
    }
    if failed {
        lines.push_str(&format!("{endpoint} check failed\n"));
        text(StatusCode::INTERNAL_SERVER_ERROR, lines)
    } else {
        lines.push_str(&format!("{endpoint} check passed\n"));
        text(StatusCode::OK, lines)
    }
}

fn text(status: StatusCode, body: String) -> Response<Body> {
    response(status, "text/plain; charset=utf-8", body)
}

fn response(status: StatusCode, content_type: &'static str, body: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    response
}
