//! A TLS client for tests of servers on 127.0.0.1 (the webhook server), shared by
//! `tests/webhook.rs` and the fuzzer's `tests/fuzz/webhook.rs`.

use std::net::SocketAddr;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// A TLS connection to `addr` that trusts only the `trusted` CAs.
pub async fn tls_stream(
    addr: SocketAddr,
    trusted: &[&str],
) -> tokio_rustls::client::TlsStream<TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    for pem in trusted {
        roots
            .add(CertificateDer::from_pem_slice(pem.as_bytes()).unwrap())
            .unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .expect("the TLS handshake succeeds with the generated CA")
}
