//! The server's certificate: from files that are reloaded when they change, from PEM, or
//! self-signed for development.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::Mutex;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use super::error::WebhookError;

/// How often certificate files are checked for changes by default: at most once a second, on
/// a TLS handshake.
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_secs(1);

/// Where the server's certificate comes from.
#[derive(Clone, Debug)]
pub struct Tls {
    resolver: Arc<dyn ResolvesServerCert>,
}

impl Tls {
    /// The certificate chain and key in PEM files (`tls.crt` and `tls.key` of a
    /// `kubernetes.io/tls` secret). The files are read now, and again on a handshake when
    /// their modification time, size or inode changed (at most once per
    /// [`DEFAULT_RELOAD_INTERVAL`]); a new pair that cannot be used is logged and the old one
    /// kept, so a rotation caught half-written does not take the server down.
    pub fn from_files(
        cert: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> Result<Self, WebhookError> {
        Self::from_files_checked_every(cert, key, DEFAULT_RELOAD_INTERVAL)
    }

    /// [`Tls::from_files`], checking the files at most once per `interval` (zero: on every
    /// handshake).
    pub fn from_files_checked_every(
        cert: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
        interval: Duration,
    ) -> Result<Self, WebhookError> {
        let (cert, key) = (cert.into(), key.into());
        let stamps = (stamp(&cert), stamp(&key));
        let current = load_files(&cert, &key)?;
        Ok(Tls {
            resolver: Arc::new(ReloadingFiles {
                cert,
                key,
                interval,
                state: Mutex::new(FileState {
                    current: Arc::new(current),
                    stamps,
                    checked: Instant::now(),
                }),
            }),
        })
    }

    /// A fixed certificate chain and key, as PEM.
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Result<Self, WebhookError> {
        let key = certified_key(cert_pem.as_bytes(), key_pem.as_bytes(), "PEM")?;
        Ok(Tls {
            resolver: Arc::new(Fixed(Arc::new(key))),
        })
    }

    /// The rustls configuration serving this certificate over HTTP/1.1.
    pub(crate) fn server_config(&self) -> Result<Arc<rustls::ServerConfig>, WebhookError> {
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_cert_resolver(self.resolver.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Parses a PEM chain and key and checks that they belong together.
fn certified_key(
    cert_pem: &[u8],
    key_pem: &[u8],
    what: &str,
) -> Result<CertifiedKey, WebhookError> {
    let unusable = |reason: String| WebhookError::Certificate {
        what: what.to_owned(),
        reason,
    };
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| unusable(format!("certificate chain: {e}")))?;
    if chain.is_empty() {
        return Err(unusable("no certificate in the chain".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| unusable(format!("private key: {e}")))?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| unusable(e.to_string()))
}

fn load_files(cert: &Path, key: &Path) -> Result<CertifiedKey, WebhookError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|source| WebhookError::Read {
            path: path.to_owned(),
            source,
        })
    };
    let what = format!("{} and {}", cert.display(), key.display());
    certified_key(&read(cert)?, &read(key)?, &what)
}

/// What tells a file's new version from its old one. Kubernetes updates a mounted secret by
/// swapping a symlink, which `metadata` follows, so the inode changes as well.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some(Stamp {
        modified: meta.modified().ok(),
        len: meta.len(),
        inode,
    })
}

#[derive(Debug)]
struct Fixed(Arc<CertifiedKey>);

impl ResolvesServerCert for Fixed {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

#[derive(Debug)]
struct ReloadingFiles {
    cert: PathBuf,
    key: PathBuf,
    interval: Duration,
    state: Mutex<FileState>,
}

#[derive(Debug)]
struct FileState {
    current: Arc<CertifiedKey>,
    stamps: (Option<Stamp>, Option<Stamp>),
    checked: Instant,
}

impl ResolvesServerCert for ReloadingFiles {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let mut state = self.state.lock();
        if state.checked.elapsed() >= self.interval {
            state.checked = Instant::now();
            let stamps = (stamp(&self.cert), stamp(&self.key));
            if stamps != state.stamps {
                // Remember the stamps even when loading fails: a broken pair is reported once,
                // and tried again as soon as either file changes again.
                state.stamps = stamps;
                match load_files(&self.cert, &self.key) {
                    Ok(key) => {
                        tracing::info!(cert = %self.cert.display(), "reloaded the webhook certificate");
                        state.current = Arc::new(key);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "keeping the previous webhook certificate");
                    }
                }
            }
        }
        Some(state.current.clone())
    }
}

/// A self-signed CA and a serving certificate it signed, for development and tests. Give
/// [`SelfSigned::ca_pem`] to the apiserver as the webhook's `caBundle`.
#[derive(Clone, Debug)]
pub struct SelfSigned {
    /// The CA certificate, PEM: what clients trust.
    pub ca_pem: String,
    /// The serving certificate, PEM.
    pub cert_pem: String,
    /// The serving certificate's private key, PEM.
    pub key_pem: String,
}

impl SelfSigned {
    /// A new CA and a serving certificate for `names` (DNS names or IP addresses, such as
    /// `127.0.0.1` or `my-webhook.my-namespace.svc`). Keys are ECDSA P-256.
    pub fn generate(names: &[&str]) -> Result<Self, WebhookError> {
        let mut ca_params = CertificateParams::default();
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "kubegen-webhook-ca");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca =
            CertifiedIssuer::self_signed(ca_params, key_pair()?).map_err(WebhookError::Generate)?;

        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).map_err(WebhookError::Generate)?;
        params
            .distinguished_name
            .push(DnType::CommonName, "kubegen-webhook");
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        let key = key_pair()?;
        let cert = params
            .signed_by(&key, &ca)
            .map_err(WebhookError::Generate)?;
        Ok(SelfSigned {
            ca_pem: ca.pem(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }

    /// Serves this certificate.
    pub fn tls(&self) -> Result<Tls, WebhookError> {
        Tls::from_pem(&self.cert_pem, &self.key_pem)
    }

    /// Writes the serving certificate and key to files, for [`Tls::from_files`].
    pub fn write(&self, cert: &Path, key: &Path) -> Result<(), WebhookError> {
        for (path, pem) in [(cert, &self.cert_pem), (key, &self.key_pem)] {
            std::fs::write(path, pem).map_err(|source| WebhookError::Write {
                path: path.to_owned(),
                source,
            })?;
        }
        Ok(())
    }
}

fn key_pair() -> Result<KeyPair, WebhookError> {
    KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(WebhookError::Generate)
}
