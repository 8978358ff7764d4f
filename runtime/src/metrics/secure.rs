//! The metrics endpoint over HTTPS, `/metrics` only for callers the apiserver authenticates
//! and authorizes: controller-runtime's `SecureServing: true` with
//! `FilterProvider: filters.WithAuthenticationAndAuthorization`, what kubebuilder scaffolds.
//!
//! The certificate is a [`Tls`] (files reloaded when they change, or PEM), or, by default, a
//! self-signed one for `localhost` and `127.0.0.1` generated at start, as controller-runtime
//! generates one when its certificate directory holds none: Prometheus in the cluster scrapes
//! with `insecureSkipVerify`, or with the CA of a certificate the operator mounts. Each
//! request to `/metrics` goes through [`AuthenticationAndAuthorization`]; `/healthz` and
//! `/readyz` stay open for kubelet's probes. [`SecureServing`] has an example.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use super::filter::AuthenticationAndAuthorization;
use super::server::{Endpoint, accept};
use super::{HealthChecks, Metrics};
use crate::webhook::{SelfSigned, Tls, WebhookError};

/// The names the default self-signed certificate is for: controller-runtime's.
const SELF_SIGNED_NAMES: &[&str] = &["localhost", "127.0.0.1"];

/// Why secure serving could not be configured.
#[derive(Debug, thiserror::Error)]
pub enum SecureServingError {
    /// The certificate or key could not be read, parsed, generated or served.
    #[error("the metrics endpoint's certificate: {0}")]
    Certificate(#[from] WebhookError),
    /// [`Manager::secure_metrics`](crate::manager::Manager::secure_metrics) was called
    /// before [`Manager::metrics_address`](crate::manager::Manager::metrics_address): there
    /// is no endpoint to secure yet.
    #[error("no metrics address to serve securely: call metrics_address before secure_metrics")]
    NoAddress,
    /// `cert_dir` holds no `tls.crt` and `tls.key`.
    #[error(
        "{} holds no tls.crt and tls.key: put the certificate there, or use \
         SecureServing::self_signed",
        dir.display()
    )]
    NoCertificate {
        /// The directory.
        dir: PathBuf,
    },
}

/// How the metrics endpoint is served securely: its certificate, and the client that reviews
/// tokens and access (the manager's unless [`client`](Self::client) sets another). Give it to
/// [`Manager::secure_metrics`](crate::manager::Manager::secure_metrics), or to
/// [`serve_secure`].
///
/// ```no_run
/// # async fn run(client: kube::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use kubegen_runtime::manager::Manager;
/// use kubegen_runtime::metrics::SecureServing;
///
/// let manager = Manager::new(client)
///     .metrics_address("0.0.0.0:8443".parse()?)?
///     .secure_metrics(SecureServing::self_signed()?)?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct SecureServing {
    tls: Arc<rustls::ServerConfig>,
    client: Option<kube::Client>,
}

impl std::fmt::Debug for SecureServing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecureServing")
            .field("own_client", &self.client.is_some())
            .finish_non_exhaustive()
    }
}

impl SecureServing {
    /// A new self-signed certificate for `localhost` and `127.0.0.1` (ECDSA P-256), as
    /// controller-runtime serves when given no certificate.
    pub fn self_signed() -> Result<Self, SecureServingError> {
        Self::with_tls(SelfSigned::generate(SELF_SIGNED_NAMES)?.tls()?)
    }

    /// The certificate `tls` serves (see [`Tls::from_files`] for one that is reloaded when
    /// cert-manager renews it).
    pub fn with_tls(tls: Tls) -> Result<Self, SecureServingError> {
        Ok(SecureServing {
            tls: tls.server_config()?,
            client: None,
        })
    }

    /// `tls.crt` and `tls.key` in `dir` (controller-runtime's `CertDir` with its default
    /// names; a mounted `kubernetes.io/tls` Secret), reloaded when they change.
    pub fn cert_dir(dir: impl Into<PathBuf>) -> Result<Self, SecureServingError> {
        let dir = dir.into();
        let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
        if !cert.exists() || !key.exists() {
            return Err(SecureServingError::NoCertificate { dir });
        }
        Self::with_tls(Tls::from_files(cert, key)?)
    }

    /// Reviews tokens and access with `client` rather than the manager's.
    pub fn client(mut self, client: kube::Client) -> Self {
        self.client = Some(client);
        self
    }
}

/// Serves `/metrics`, `/healthz` and `/readyz` as [`serve`](super::serve) does, over HTTPS
/// with `serving`'s certificate, and `/metrics` only to callers `client` (or `serving`'s own
/// client) authenticates and authorizes; see [`SecureServing`] and
/// [`AuthenticationAndAuthorization`].
pub async fn serve_secure(
    listener: TcpListener,
    metrics: Metrics,
    health: HealthChecks,
    serving: SecureServing,
    client: kube::Client,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let client = serving.client.unwrap_or(client);
    let acceptor = TlsAcceptor::from(serving.tls);
    let endpoint = Arc::new(Endpoint {
        metrics,
        health,
        filter: Some(AuthenticationAndAuthorization::new(client)),
    });
    accept(listener, shutdown, move |tcp, stop| {
        let (handle, acceptor) = (endpoint.handler(), acceptor.clone());
        async move {
            crate::connection::serve_tls(tcp, &acceptor, handle, stop.cancelled(), "metrics").await
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manager::Manager;

    #[test]
    fn a_certificate_directory_without_the_pair_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("kubegen-no-certs-{}", std::process::id()));
        let error = SecureServing::cert_dir(&dir).unwrap_err();
        assert!(matches!(&error, SecureServingError::NoCertificate { dir: d } if *d == dir));
        assert!(
            error.to_string().contains("holds no tls.crt and tls.key"),
            "{error}"
        );
        let cert = SelfSigned::generate(&["127.0.0.1"]).unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        cert.write(&dir.join("tls.crt"), &dir.join("tls.key"))
            .unwrap();
        assert!(SecureServing::cert_dir(&dir).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A client nothing calls.
    fn unused_client() -> kube::Client {
        let service = tower::service_fn(|_: http::Request<kube::client::Body>| async {
            Err::<http::Response<http_body_util::Full<bytes::Bytes>>, _>("unused")
        });
        kube::Client::new(service, "default")
    }

    #[tokio::test]
    async fn securing_the_endpoint_before_binding_it_is_an_error() {
        let serving = SecureServing::self_signed().unwrap();
        let error = Manager::new(unused_client())
            .secure_metrics(serving.clone())
            .err()
            .unwrap();
        assert!(matches!(error, SecureServingError::NoAddress));
        let bound = Manager::new(unused_client())
            .metrics_address("127.0.0.1:0".parse().unwrap())
            .unwrap();
        assert!(bound.secure_metrics(serving).is_ok());
    }
}
