//! One HTTP/1.1 connection, served until its client closes it or the server stops: what the
//! webhook server and the metrics endpoint share once a connection is open (or, over TLS,
//! once the handshake is done).

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};

/// How long a client may take over the TLS handshake.
#[cfg(feature = "webhook")]
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `io` with `handle` until the client closes the connection or `stop` completes;
/// then the request in flight, if any, is answered first. A connection that ends with an
/// error is logged at debug level under `server`'s name.
pub(crate) async fn serve<I, F, R>(io: I, handle: F, stop: impl Future<Output = ()>, server: &str)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    F: Fn(Request<Incoming>) -> R + Send + 'static,
    R: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let service = service_fn(move |request| {
        let response = handle(request);
        async move { Ok::<_, Infallible>(response.await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let conn = builder.serve_connection(TokioIo::new(io), service);
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        result = conn.as_mut() => result,
        () = stop => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(error) = result {
        tracing::debug!(%error, "{server} connection ended with an error");
    }
}

/// [`serve`] over TLS: the handshake first, within ten seconds; a connection whose handshake
/// fails or times out is logged at debug level and dropped.
#[cfg(feature = "webhook")]
pub(crate) async fn serve_tls<F, R>(
    tcp: tokio::net::TcpStream,
    acceptor: &tokio_rustls::TlsAcceptor,
    handle: F,
    stop: impl Future<Output = ()>,
    server: &str,
) where
    F: Fn(Request<Incoming>) -> R + Send + 'static,
    R: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
        Ok(Ok(tls)) => serve(tls, handle, stop, server).await,
        Ok(Err(error)) => tracing::debug!(%error, "{server} TLS handshake failed"),
        Err(_) => tracing::debug!("{server} TLS handshake timed out"),
    }
}
