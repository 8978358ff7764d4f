//! Where the apiserver reaches kubegen's webhook server: a Service or an https URL, and the
//! CA bundle it trusts.

use std::path::Path;

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    ServiceReference as AdmissionServiceReference, WebhookClientConfig as AdmissionClientConfig,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    ServiceReference, WebhookClientConfig,
};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use super::WebhookManifestError;
use crate::checks::go_url;

/// The port the apiserver calls a webhook service on when none is given.
pub const DEFAULT_SERVICE_PORT: u16 = 443;

/// Where the apiserver reaches the webhook server: an in-cluster Service or a URL, and the CA
/// that signed the server's certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookEndpoint {
    target: WebhookTarget,
    ca_bundle: Option<Vec<u8>>,
}

/// The address part of a [`WebhookEndpoint`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WebhookTarget {
    /// A Service in the cluster; the apiserver calls `https://<name>.<namespace>.svc:<port><path>`.
    Service {
        /// The Service's namespace.
        namespace: String,
        /// The Service's name.
        name: String,
        /// The Service port.
        port: u16,
    },
    /// A base URL (`https://127.0.0.1:9443`, or with a path prefix); each webhook's path is
    /// appended to it.
    Url(String),
}

impl WebhookEndpoint {
    /// A Service reference; `port` defaults to 443, as the apiserver's does.
    pub fn service(
        namespace: impl Into<String>,
        name: impl Into<String>,
        port: Option<u16>,
    ) -> Result<Self, WebhookManifestError> {
        let (namespace, name) = (namespace.into(), name.into());
        let invalid = |reason: &str| WebhookManifestError::InvalidService {
            value: format!("{namespace}/{name}"),
            reason: reason.to_owned(),
        };
        if namespace.is_empty() {
            return Err(invalid("the namespace is empty"));
        }
        if name.is_empty() {
            return Err(invalid("the name is empty"));
        }
        if port == Some(0) {
            return Err(invalid("port 0 is not a valid port"));
        }
        Ok(WebhookEndpoint {
            target: WebhookTarget::Service {
                namespace,
                name,
                port: port.unwrap_or(DEFAULT_SERVICE_PORT),
            },
            ca_bundle: None,
        })
    }

    /// Parses `NAMESPACE/NAME[:PORT]`, crdgen's `--webhook-service`.
    pub fn parse_service(value: &str) -> Result<Self, WebhookManifestError> {
        let invalid = |reason: &str| WebhookManifestError::InvalidService {
            value: value.to_owned(),
            reason: reason.to_owned(),
        };
        let (namespace, rest) = value
            .split_once('/')
            .ok_or_else(|| invalid("no `/` between namespace and name"))?;
        let (name, port) = match rest.split_once(':') {
            Some((name, port)) => {
                let port = port
                    .parse::<u16>()
                    .map_err(|_| invalid("the port is not a number from 1 to 65535"))?;
                (name, Some(port))
            }
            None => (rest, None),
        };
        Self::service(namespace, name, port).map_err(|_| match port {
            Some(0) => invalid("port 0 is not a valid port"),
            _ => invalid("the namespace and the name must not be empty"),
        })
    }

    /// A base URL, checked as the apiserver checks webhook URLs: `https`, a host, and no user
    /// information, query or fragment.
    pub fn url(base: &str) -> Result<Self, WebhookManifestError> {
        check_url(base)?;
        Ok(WebhookEndpoint {
            target: WebhookTarget::Url(base.trim_end_matches('/').to_owned()),
            ca_bundle: None,
        })
    }

    /// The PEM bundle of the CA that signed the webhook server's certificate (the apiserver
    /// trusts its system roots when there is none).
    pub fn with_ca_bundle(self, pem: Vec<u8>) -> Result<Self, WebhookManifestError> {
        self.set_ca_bundle(pem, "given")
    }

    /// [`with_ca_bundle`](Self::with_ca_bundle) with the bundle read from a PEM file (such as
    /// the `ca.crt` of a cert-manager secret).
    pub fn with_ca_bundle_file(self, path: impl AsRef<Path>) -> Result<Self, WebhookManifestError> {
        let path = path.as_ref();
        let pem =
            std::fs::read(path).map_err(|source| WebhookManifestError::CaBundleUnreadable {
                path: path.to_owned(),
                source,
            })?;
        self.set_ca_bundle(pem, &path.display().to_string())
    }

    fn set_ca_bundle(
        mut self,
        pem: Vec<u8>,
        source_name: &str,
    ) -> Result<Self, WebhookManifestError> {
        if !holds_certificate(&pem) {
            return Err(WebhookManifestError::CaBundleNotPem {
                source_name: source_name.to_owned(),
            });
        }
        self.ca_bundle = Some(pem);
        Ok(self)
    }

    /// Where the apiserver calls.
    pub fn target(&self) -> &WebhookTarget {
        &self.target
    }

    /// The CA bundle, if any.
    pub fn ca_bundle(&self) -> Option<&[u8]> {
        self.ca_bundle.as_deref()
    }

    /// A CRD conversion webhook's `clientConfig` for a webhook served at `path`.
    pub(super) fn client_config(&self, path: &str) -> WebhookClientConfig {
        let (service, url) = match &self.target {
            WebhookTarget::Service {
                namespace,
                name,
                port,
            } => {
                let service = ServiceReference {
                    name: name.clone(),
                    namespace: namespace.clone(),
                    path: Some(path.to_owned()),
                    port: Some(i32::from(*port)),
                };
                (Some(service), None)
            }
            WebhookTarget::Url(base) => (None, Some(format!("{base}{path}"))),
        };
        WebhookClientConfig {
            ca_bundle: self.ca_bundle.clone().map(ByteString),
            service,
            url,
        }
    }

    /// The same, as an admission webhook's `clientConfig` (the same fields in another group).
    pub(super) fn admission_client_config(&self, path: &str) -> AdmissionClientConfig {
        let WebhookClientConfig {
            ca_bundle,
            service,
            url,
        } = self.client_config(path);
        AdmissionClientConfig {
            ca_bundle,
            service: service.map(|s| AdmissionServiceReference {
                name: s.name,
                namespace: s.namespace,
                path: s.path,
                port: s.port,
            }),
            url,
        }
    }
}

/// The apiserver's checks of a webhook URL (`ValidateWebhookURL` with https forced), on Go's
/// `url.Parse` as the apiserver reads the URL.
fn check_url(url: &str) -> Result<(), WebhookManifestError> {
    let invalid = |reason: String| WebhookManifestError::InvalidUrl {
        url: url.to_owned(),
        reason,
    };
    let parsed = go_url::parse(url).map_err(|e| invalid(format!("not a valid URL: {e}")))?;
    if parsed.scheme != "https" {
        return Err(invalid(format!(
            "'https' is the only allowed URL scheme, not '{}'",
            parsed.scheme
        )));
    }
    if parsed.host.is_empty() {
        return Err(invalid("the host must be specified".into()));
    }
    // An empty user (`https://@host`) is user information too.
    if parsed.user.is_some() {
        return Err(invalid(
            "user information is not permitted in the URL".into(),
        ));
    }
    // An empty `?` or `#` is no query or fragment.
    if !parsed.raw_query.is_empty() {
        return Err(invalid(
            "query parameters are not permitted in the URL".into(),
        ));
    }
    if !parsed.fragment.is_empty() {
        return Err(invalid("fragments are not permitted in the URL".into()));
    }
    Ok(())
}

/// Whether `pem` holds a certificate the apiserver can trust: as Go's
/// `CertPool.AppendCertsFromPEM`, which the apiserver builds its client from, at least one
/// `CERTIFICATE` block that parses as an X.509 certificate.
fn holds_certificate(pem: &[u8]) -> bool {
    CertificateDer::pem_slice_iter(pem)
        .filter_map(Result::ok)
        .any(|der| webpki::anchor_from_trusted_cert(&der).is_ok())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A self-signed CA (made with `openssl req -x509`, valid until 2126).
    pub(crate) const CERT: &str = include_str!("test-ca.crt");

    fn url_error(url: &str) -> String {
        match WebhookEndpoint::url(url) {
            Err(WebhookManifestError::InvalidUrl { reason, .. }) => reason,
            other => panic!("{url}: {other:?}"),
        }
    }

    #[test]
    fn urls_are_checked_as_the_apiserver_checks_them() {
        assert!(url_error("http://127.0.0.1:9443").contains("'https' is the only allowed"));
        assert!(url_error("https://user@host").contains("user information"));
        assert!(url_error("https://@host").contains("user information"));
        assert!(url_error("https://host/p?a=b").contains("query parameters"));
        assert!(url_error("https://host/p#frag").contains("fragments"));
        // Go's url.Parse takes it as a path, so the scheme is what is wrong.
        assert!(url_error("not a url").contains("'https' is the only allowed URL scheme, not ''"));
        assert!(url_error("https:host").contains("the host must be specified"));
        // What url.Parse refuses, in its words.
        for (url, reason) in [
            (
                "https://host:port",
                r#"not a valid URL: parse "https://host:port": invalid port ":port" after host"#,
            ),
            (
                "https://h:1:2",
                r#"not a valid URL: parse "https://h:1:2": invalid port ":1:2" after host"#,
            ),
            (
                "https://[x]:9443",
                r#"not a valid URL: parse "https://[x]:9443": invalid host: ParseAddr("x"): unable to parse IP"#,
            ),
            (
                "https://h/%zz",
                r#"not a valid URL: parse "https://h/%zz": invalid URL escape "%zz""#,
            ),
        ] {
            assert_eq!(url_error(url), reason);
        }
        // What the apiserver accepts: an empty `?` or `#`, a path prefix, an upper-case scheme,
        // an IPv6 host.
        for ok in [
            "https://host?",
            "https://host#",
            "https://h:9443/prefix/",
            "HTTPS://host",
            "https://[::1]:9443/hook",
        ] {
            assert!(WebhookEndpoint::url(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn services_parse_with_a_default_port() {
        let e = WebhookEndpoint::parse_service("ns/svc").unwrap();
        assert_eq!(
            e.target(),
            &WebhookTarget::Service {
                namespace: "ns".into(),
                name: "svc".into(),
                port: 443
            }
        );
        let e = WebhookEndpoint::parse_service("ns/svc:9443").unwrap();
        assert!(matches!(
            e.target(),
            WebhookTarget::Service { port: 9443, .. }
        ));
        for bad in ["svc", "ns/", "/svc", "ns/svc:0", "ns/svc:x", "ns/svc:70000"] {
            assert!(
                matches!(
                    WebhookEndpoint::parse_service(bad),
                    Err(WebhookManifestError::InvalidService { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn ca_bundles_must_hold_a_certificate() {
        let e = WebhookEndpoint::url("https://h").unwrap();
        assert!(e.clone().with_ca_bundle(CERT.into()).is_ok());
        let not_x509 =
            "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
        let key = CERT.replace("CERTIFICATE", "PRIVATE KEY");
        for bad in [
            "",
            "hello",
            "-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n",
            not_x509,
            &key,
        ] {
            assert!(matches!(
                e.clone().with_ca_bundle(bad.into()),
                Err(WebhookManifestError::CaBundleNotPem { .. })
            ));
        }
        let dir = std::env::temp_dir().join(format!("kubegen-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("ca.crt");
        std::fs::write(&file, CERT).unwrap();
        let with = e.clone().with_ca_bundle_file(&file).unwrap();
        assert_eq!(with.ca_bundle(), Some(CERT.as_bytes()));
        let missing = e.with_ca_bundle_file(dir.join("missing.crt"));
        assert!(matches!(
            missing,
            Err(WebhookManifestError::CaBundleUnreadable { .. })
        ));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
