//! The HTTPS server: TLS, routing, body limits and graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::error::WebhookError;
use super::registry::{Webhooks, parse_admission_path};
use super::response::{Body, HttpError, json, text};
use super::tls::Tls;
use super::{CONVERT_PATH, admission, convert};

/// The largest admission review body accepted by default: the apiserver's 3 MiB request
/// limit for the object, plus room for the old object's envelope fields.
pub const DEFAULT_ADMISSION_BODY_LIMIT: usize = 3 * 1024 * 1024 + 512 * 1024;

/// The largest conversion review body accepted by default. A review carries every object of
/// a list page the apiserver converts, so it can be far larger than one object.
pub const DEFAULT_CONVERSION_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// The webhook server, configured but not yet listening.
///
/// ```no_run
/// # async fn run(webhooks: kubegen_runtime::webhook::Webhooks) -> Result<(), kubegen_runtime::webhook::WebhookError> {
/// use kubegen_runtime::webhook::{SelfSigned, WebhookServer};
/// let cert = SelfSigned::generate(&["127.0.0.1"])?;
/// let server = WebhookServer::new(webhooks, cert.tls()?)?
///     .bind("127.0.0.1:0".parse().unwrap())
///     .await?;
/// println!("listening on {}; caBundle:\n{}", server.local_addr(), cert.ca_pem);
/// // Serve until the process is told to stop (any future: a signal, a token, a channel).
/// server.serve(std::future::pending()).await
/// # }
/// ```
#[derive(Debug)]
pub struct WebhookServer {
    webhooks: Webhooks,
    tls: Arc<rustls::ServerConfig>,
    admission_body_limit: usize,
    conversion_body_limit: usize,
    drain_timeout: Duration,
}

impl WebhookServer {
    /// A server for `webhooks` with the certificate `tls`.
    pub fn new(webhooks: Webhooks, tls: Tls) -> Result<Self, WebhookError> {
        Ok(WebhookServer {
            webhooks,
            tls: tls.server_config()?,
            admission_body_limit: DEFAULT_ADMISSION_BODY_LIMIT,
            conversion_body_limit: DEFAULT_CONVERSION_BODY_LIMIT,
            drain_timeout: Duration::from_secs(30),
        })
    }

    /// Refuses admission review bodies over `bytes` with 413 (default
    /// [`DEFAULT_ADMISSION_BODY_LIMIT`]).
    pub fn admission_body_limit(mut self, bytes: usize) -> Self {
        self.admission_body_limit = bytes;
        self
    }

    /// Refuses conversion review bodies over `bytes` with 413 (default
    /// [`DEFAULT_CONVERSION_BODY_LIMIT`]).
    pub fn conversion_body_limit(mut self, bytes: usize) -> Self {
        self.conversion_body_limit = bytes;
        self
    }

    /// How long shutdown waits for requests in flight before closing their connections
    /// (default 30 s).
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// Binds the listening socket (port 0 picks a free port; see
    /// [`BoundServer::local_addr`]).
    pub async fn bind(self, addr: SocketAddr) -> Result<BoundServer, WebhookError> {
        let bind_error = |source| WebhookError::Bind { addr, source };
        let listener = TcpListener::bind(addr).await.map_err(bind_error)?;
        let local_addr = listener.local_addr().map_err(bind_error)?;
        Ok(BoundServer {
            server: self,
            listener,
            local_addr,
        })
    }
}

/// A [`WebhookServer`] bound to its address, ready to [`serve`](BoundServer::serve).
#[derive(Debug)]
pub struct BoundServer {
    server: WebhookServer,
    listener: TcpListener,
    local_addr: SocketAddr,
}

/// What every request handler shares.
struct Shared {
    webhooks: Webhooks,
    admission_body_limit: usize,
    conversion_body_limit: usize,
    ready: AtomicBool,
}

impl BoundServer {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves until `shutdown` completes, then stops accepting connections, lets requests in
    /// flight finish (up to the drain timeout) and returns. `/readyz` answers 503 from the
    /// moment shutdown begins.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Result<(), WebhookError> {
        let BoundServer {
            server, listener, ..
        } = self;
        let acceptor = TlsAcceptor::from(server.tls);
        let shared = Arc::new(Shared {
            webhooks: server.webhooks,
            admission_body_limit: server.admission_body_limit,
            conversion_body_limit: server.conversion_body_limit,
            ready: AtomicBool::new(true),
        });
        let (stop, stopping) = watch::channel(false);
        let mut connections = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                accepted = listener.accept() => match accepted {
                    Ok((tcp, _)) => {
                        connections.spawn(connection(tcp, acceptor.clone(), shared.clone(), stopping.clone()));
                    }
                    Err(error) => {
                        // Out of file descriptors and the like: wait a little rather than spin.
                        tracing::warn!(%error, "accepting a webhook connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }
        drop(listener);
        shared.ready.store(false, Ordering::SeqCst);
        // Receivers live in the connection tasks; none left is fine.
        let _ = stop.send(true);
        let drained = tokio::time::timeout(server.drain_timeout, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                open = connections.len(),
                "closing webhook connections still busy after the drain timeout"
            );
            connections.shutdown().await;
        }
        Ok(())
    }
}

/// Serves one connection: TLS handshake, then HTTP/1.1 until the client closes it or the
/// server shuts down (after the request in flight, if any).
async fn connection(
    tcp: TcpStream,
    acceptor: TlsAcceptor,
    shared: Arc<Shared>,
    mut stopping: watch::Receiver<bool>,
) {
    let handle = move |request| {
        let shared = shared.clone();
        async move { route(&shared, request).await }
    };
    let stop = async move {
        // An error means the server is gone: stop as well.
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    crate::connection::serve_tls(tcp, &acceptor, handle, stop, "webhook").await;
}

async fn route(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    let result = match path.as_str() {
        "/healthz" | "/readyz" if method == Method::GET => Ok(health(shared, &path)),
        CONVERT_PATH if method == Method::POST => {
            match read_body(request, shared.conversion_body_limit).await {
                Ok(body) => guarded(|| convert::review(&shared.webhooks, &body)),
                Err(e) => Err(e),
            }
        }
        "/healthz" | "/readyz" | CONVERT_PATH => Err(method_not_allowed(&method, &path)),
        _ => match parse_admission_path(&path) {
            Some((admission, kind)) if method == Method::POST => {
                match read_body(request, shared.admission_body_limit).await {
                    Ok(body) => {
                        guarded(|| admission::review(&shared.webhooks, admission, &kind, &body))
                    }
                    Err(e) => Err(e),
                }
            }
            Some(_) => Err(method_not_allowed(&method, &path)),
            None => Err(HttpError::new(
                StatusCode::NOT_FOUND,
                format!("no webhook is served at {path}"),
            )),
        },
    };
    result.unwrap_or_else(|error| {
        tracing::debug!(%path, status = %error.status, message = %error.message, "webhook request refused");
        error.into_response()
    })
}

fn health(shared: &Shared, path: &str) -> Response<Body> {
    if path == "/readyz" && !shared.ready.load(Ordering::SeqCst) {
        text(StatusCode::SERVICE_UNAVAILABLE, "shutting down")
    } else {
        text(StatusCode::OK, "ok")
    }
}

fn method_not_allowed(method: &Method, path: &str) -> HttpError {
    HttpError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not served at {path}"),
    )
}

/// Runs a review handler; a panic in a registered converter or admission function is a 500
/// for this request, not a dead connection. Handlers are synchronous and may take their
/// time: on a multi-threaded runtime the worker hands its other tasks (the accept loop,
/// other connections, shutdown) to another thread while one runs.
fn guarded<T: serde::Serialize>(
    review: impl FnOnce() -> Result<T, HttpError>,
) -> Result<Response<Body>, HttpError> {
    let run = || catch_unwind(AssertUnwindSafe(review));
    let outcome = match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(run),
        _ => run(),
    };
    match outcome {
        Ok(answer) => answer.map(|review| json(StatusCode::OK, &review)),
        Err(_) => Err(HttpError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the webhook handler panicked",
        )),
    }
}

/// How far past its limit a body with a Content-Length is still read (and dropped) before
/// the 413, and for how long at most.
const OVER_LIMIT_DRAIN: usize = 256 * 1024;
const OVER_LIMIT_DRAIN_TIME: Duration = Duration::from_secs(5);

/// Reads the whole body, refusing one over `limit` bytes with 413 (by its Content-Length
/// before reading, or while reading when it has none).
async fn read_body(request: Request<Incoming>, limit: usize) -> Result<bytes::Bytes, HttpError> {
    let too_large = || {
        HttpError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {limit} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(len) = declared.filter(|len| *len > limit as u64) {
        // As Go's net/http does, a body a little over the limit is read and dropped first,
        // so that the client, still writing it, gets the 413 rather than a broken pipe and
        // the connection stays usable; a larger one is refused at once.
        if len <= (limit + OVER_LIMIT_DRAIN) as u64 {
            let drain = Limited::new(request.into_body(), limit + OVER_LIMIT_DRAIN).collect();
            let _ = tokio::time::timeout(OVER_LIMIT_DRAIN_TIME, drain).await;
        }
        return Err(too_large());
    }
    let mut body = request.into_body();
    let mut read = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| {
            HttpError::new(
                StatusCode::BAD_REQUEST,
                format!("reading the request body: {error}"),
            )
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if read.len() + data.len() > limit {
            // Without a length the client is still writing: read a little further and drop
            // it, as above, so that it gets the 413 rather than a connection reset.
            let drain = Limited::new(body, OVER_LIMIT_DRAIN).collect();
            let _ = tokio::time::timeout(OVER_LIMIT_DRAIN_TIME, drain).await;
            return Err(too_large());
        }
        read.extend_from_slice(&data);
    }
    Ok(bytes::Bytes::from(read))
}
