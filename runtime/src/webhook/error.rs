//! Why the webhook server could not start.

use std::path::PathBuf;

/// Why a [`WebhookServer`](super::WebhookServer) or its TLS configuration could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// A certificate or key file could not be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A certificate or key file could not be written.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The certificate chain or the key is not usable PEM, or they do not belong together.
    #[error("the TLS certificate or key {what} is unusable: {reason}")]
    Certificate {
        /// Which: the file names, or `PEM` for in-memory PEM.
        what: String,
        /// Why.
        reason: String,
    },
    /// The self-signed certificate could not be generated.
    #[error("generating the self-signed certificate: {0}")]
    Generate(#[source] rcgen::Error),
    /// rustls refused the configuration.
    #[error("configuring TLS: {0}")]
    Tls(#[from] rustls::Error),
    /// The listening socket could not be bound.
    #[error("binding {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The I/O error.
        source: std::io::Error,
    },
}
