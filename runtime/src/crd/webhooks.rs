//! The manifests that wire a kind to kubegen's webhook server: a CRD's `spec.conversion`
//! (strategy `Webhook`) and the `MutatingWebhookConfiguration` and
//! `ValidatingWebhookConfiguration` that send its admission reviews.
//!
//! Paths and webhook names come from [`crate::endpoints`], the same place the webhook server
//! reads them, so the manifests and the server agree by construction.
//!
//! ```
//! use kubegen_runtime::crd::webhooks::{WebhookEndpoint, WebhookOptions, with_conversion};
//! # fn demo(mut crd: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
//! #         info: &kubegen_runtime::ResourceInfo) -> Result<(), kubegen_runtime::crd::webhooks::WebhookManifestError> {
//! let endpoint = WebhookEndpoint::service("db-system", "db-webhook", None)?;
//! with_conversion(&mut crd, &endpoint);   // POST https://db-webhook.db-system.svc:443/convert
//! let validating = kubegen_runtime::crd::webhooks::validating_webhook_configuration(
//!     &[info], &endpoint, &WebhookOptions::default())?;
//! # Ok(()) }
//! ```
//!
//! Which versions get an admission webhook: the caller passes the [`ResourceInfo`] of every
//! kind *and version* that gets one; [`storage_versions`] picks each kind's storage version,
//! which is what crdgen does. One webhook for the storage version is enough: with
//! `matchPolicy: Equivalent` the apiserver converts a request made at any other version of the
//! kind to the storage version before it calls the webhook, so the webhook sees every object
//! in one version and one handler serves them all.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations,
    ServiceReference as AdmissionServiceReference, ValidatingWebhook,
    ValidatingWebhookConfiguration, WebhookClientConfig as AdmissionClientConfig,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, ServiceReference, WebhookClientConfig,
    WebhookConversion,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

use crate::endpoints::{AdmissionType, CONVERT_PATH, WebhookKind, admission_path, webhook_name};
use crate::registry;
use crate::resource::ResourceInfo;

/// The port the apiserver calls a webhook service on when none is given.
pub const DEFAULT_SERVICE_PORT: u16 = 443;
/// The review version kubegen's webhook server speaks, for both conversion and admission.
const REVIEW_VERSION: &str = "v1";
/// The apiserver accepts `timeoutSeconds` from 1 to 30.
const TIMEOUT_RANGE: std::ops::RangeInclusive<i32> = 1..=30;

/// Why a webhook manifest could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WebhookManifestError {
    /// The webhook URL is one the apiserver refuses.
    #[error("webhook URL `{url}`: {reason}; desired format: https://host[:port][/path]")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The service reference is not `NAMESPACE/NAME[:PORT]` with a valid port.
    #[error("webhook service `{value}`: {reason}; desired format: NAMESPACE/NAME[:PORT]")]
    InvalidService {
        /// The reference as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The CA bundle file could not be read.
    #[error("cannot read the CA bundle {}: {source}", .path.display())]
    CaBundleUnreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The CA bundle holds no PEM certificate.
    #[error(
        "the CA bundle {source_name} holds no PEM certificate (`-----BEGIN CERTIFICATE-----` with base64 inside)"
    )]
    CaBundleNotPem {
        /// The file it was read from, or `given` for bytes passed in.
        source_name: String,
    },
    /// A kind was named that no registered kind matches.
    #[error(
        "no registered kind matches `{0}` (a kind, plural or CRD name; crdgen --list shows them)"
    )]
    UnknownKind(String),
    /// A kind has no storage version to put a webhook on.
    #[error("{crd}: no version is the storage version, so no admission webhook can be placed")]
    NoStorageVersion {
        /// The CRD name.
        crd: String,
    },
    /// A kind has registered conversions, but not for every version of its CRD.
    #[error(
        "{crd}: versions {} have no conversion to the hub {hub}; add #[convert(hub = ...)] to them",
        .versions.join(", ")
    )]
    MissingConversion {
        /// The CRD name.
        crd: String,
        /// The hub (storage) version.
        hub: String,
        /// The versions the conversion webhook could not convert.
        versions: Vec<String>,
    },
    /// `timeoutSeconds` outside what the apiserver accepts.
    #[error("timeout of {0} seconds: the apiserver accepts 1 to 30")]
    InvalidTimeout(i32),
}

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

    /// `(service (namespace, name, port, path), url)` for a webhook served at `path`.
    fn address(&self, path: &str) -> (Option<(String, String, i32, String)>, Option<String>) {
        match &self.target {
            WebhookTarget::Service {
                namespace,
                name,
                port,
            } => (
                Some((
                    namespace.clone(),
                    name.clone(),
                    i32::from(*port),
                    path.to_owned(),
                )),
                None,
            ),
            WebhookTarget::Url(base) => (None, Some(format!("{base}{path}"))),
        }
    }

    fn ca(&self) -> Option<ByteString> {
        self.ca_bundle.clone().map(ByteString)
    }

    fn conversion_client_config(&self) -> WebhookClientConfig {
        let (service, url) = self.address(CONVERT_PATH);
        WebhookClientConfig {
            ca_bundle: self.ca(),
            service: service.map(|(namespace, name, port, path)| ServiceReference {
                name,
                namespace,
                path: Some(path),
                port: Some(port),
            }),
            url,
        }
    }

    fn admission_client_config(&self, path: &str) -> AdmissionClientConfig {
        let (service, url) = self.address(path);
        AdmissionClientConfig {
            ca_bundle: self.ca(),
            service: service.map(|(namespace, name, port, path)| AdmissionServiceReference {
                name,
                namespace,
                path: Some(path),
                port: Some(port),
            }),
            url,
        }
    }
}

/// The apiserver's checks of a webhook URL (`ValidateWebhookURL` with https forced).
fn check_url(url: &str) -> Result<(), WebhookManifestError> {
    let invalid = |reason: String| WebhookManifestError::InvalidUrl {
        url: url.to_owned(),
        reason,
    };
    let parsed = url::Url::parse(url).map_err(|e| invalid(format!("not a valid URL: {e}")))?;
    if parsed.scheme() != "https" {
        return Err(invalid(format!(
            "'https' is the only allowed URL scheme, not '{}'",
            parsed.scheme()
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid("the host must be specified".into()));
    }
    // Go keeps an empty user (`https://@host`) as user information; the url crate drops it,
    // so look at the authority as written.
    let authority = url
        .split_once("://")
        .map(|(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(""))
        .unwrap_or("");
    if authority.contains('@') {
        return Err(invalid(
            "user information is not permitted in the URL".into(),
        ));
    }
    // Go, like the apiserver, ignores an empty `?` or `#`.
    if parsed.query().is_some_and(|q| !q.is_empty()) {
        return Err(invalid(
            "query parameters are not permitted in the URL".into(),
        ));
    }
    if parsed.fragment().is_some_and(|f| !f.is_empty()) {
        return Err(invalid("fragments are not permitted in the URL".into()));
    }
    Ok(())
}

/// At least one `CERTIFICATE` PEM block whose body is base64: what the apiserver's client
/// needs to build its trust pool from the bundle.
fn holds_certificate(pem: &[u8]) -> bool {
    let text = String::from_utf8_lossy(pem);
    let mut rest = text.as_ref();
    while let Some(start) = rest.find("-----BEGIN CERTIFICATE-----") {
        let body = &rest[start + "-----BEGIN CERTIFICATE-----".len()..];
        let Some(end) = body.find("-----END CERTIFICATE-----") else {
            break;
        };
        let base64: String = body[..end].split_whitespace().collect();
        if !base64.is_empty()
            && base64::engine::general_purpose::STANDARD
                .decode(&base64)
                .is_ok()
        {
            return true;
        }
        rest = &body[end..];
    }
    false
}

/// Sets `crd`'s `spec.conversion` to the `Webhook` strategy: the apiserver sends
/// `ConversionReview`s (`v1`) to the endpoint's `/convert`.
pub fn with_conversion(crd: &mut CustomResourceDefinition, endpoint: &WebhookEndpoint) {
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(endpoint.conversion_client_config()),
            conversion_review_versions: vec![REVIEW_VERSION.into()],
        }),
    });
}

/// Whether `crd`'s kind has generated conversions (`#[convert]`), so it needs a conversion
/// webhook: `Ok(false)` for a kind with one version or none registered, `Ok(true)` when
/// every version of the CRD is the hub or a registered spoke, and an error naming the
/// versions that could not be converted otherwise.
pub fn needs_conversion(crd: &CustomResourceDefinition) -> Result<bool, WebhookManifestError> {
    let group = crd.spec.group.as_str();
    let kind = crd.spec.names.kind.as_str();
    let spokes: Vec<_> = crate::convert::registered_versions()
        .into_iter()
        .filter(|(g, k, _, _)| *g == group && *k == kind)
        .collect();
    let Some(&(_, _, _, hub)) = spokes.first() else {
        return Ok(false);
    };
    if crd.spec.versions.len() < 2 {
        return Ok(false);
    }
    let missing: Vec<String> = crd
        .spec
        .versions
        .iter()
        .map(|v| v.name.as_str())
        .filter(|v| *v != hub && !spokes.iter().any(|(_, _, spoke, _)| spoke == v))
        .map(str::to_owned)
        .collect();
    if missing.is_empty() {
        Ok(true)
    } else {
        Err(WebhookManifestError::MissingConversion {
            crd: crd.metadata.name.clone().unwrap_or_default(),
            hub: hub.to_owned(),
            versions: missing,
        })
    }
}

/// The storage version of every registered kind `name` matches (a kind such as `CronJob`, a
/// plural such as `cronjobs`, or a CRD name such as `cronjobs.batch.example.com`; a kind
/// name can match kinds of several groups), in registry order.
pub fn storage_versions(name: &str) -> Result<Vec<&'static ResourceInfo>, WebhookManifestError> {
    let mut found = Vec::new();
    for versions in registry::by_kind().into_values() {
        let matches = versions
            .iter()
            .any(|i| i.kind == name || i.plural == name || i.crd_name() == name);
        if !matches {
            continue;
        }
        let storage = versions.iter().find(|i| i.storage).ok_or_else(|| {
            WebhookManifestError::NoStorageVersion {
                crd: versions[0].crd_name(),
            }
        })?;
        found.push(*storage);
    }
    if found.is_empty() {
        return Err(WebhookManifestError::UnknownKind(name.to_owned()));
    }
    Ok(found)
}

/// What a webhook configuration says beyond its kinds and endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookOptions {
    /// What the apiserver does when the webhook cannot be called or fails.
    pub failure_policy: FailurePolicy,
    /// How long the apiserver waits for an answer, 1 to 30 seconds (default 10).
    pub timeout_seconds: i32,
    /// The `MutatingWebhookConfiguration`'s name (default `mutating-webhook-configuration`,
    /// controller-gen's, which kubebuilder's kustomize overlays patch).
    pub mutating_configuration_name: String,
    /// The `ValidatingWebhookConfiguration`'s name (default `validating-webhook-configuration`).
    pub validating_configuration_name: String,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        WebhookOptions {
            failure_policy: FailurePolicy::Fail,
            timeout_seconds: 10,
            mutating_configuration_name: "mutating-webhook-configuration".into(),
            validating_configuration_name: "validating-webhook-configuration".into(),
        }
    }
}

/// A webhook's `failurePolicy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FailurePolicy {
    /// Reject the request when the webhook cannot answer (the apiserver's default).
    #[default]
    Fail,
    /// Let the request through when the webhook cannot answer.
    Ignore,
}

impl FailurePolicy {
    /// The spelling the webhook configuration uses.
    pub fn as_str(self) -> &'static str {
        match self {
            FailurePolicy::Fail => "Fail",
            FailurePolicy::Ignore => "Ignore",
        }
    }
}

/// The parts both kinds of webhook share, for one kind and version.
struct Common {
    name: String,
    client_config: AdmissionClientConfig,
    rules: Vec<RuleWithOperations>,
}

fn common(
    admission: AdmissionType,
    info: &ResourceInfo,
    endpoint: &WebhookEndpoint,
    operations: &[&str],
) -> Common {
    let kind = WebhookKind::new(info.group, info.version, info.plural);
    Common {
        name: webhook_name(admission, &kind),
        client_config: endpoint.admission_client_config(&admission_path(admission, &kind)),
        rules: vec![RuleWithOperations {
            api_groups: Some(vec![info.group.into()]),
            api_versions: Some(vec![info.version.into()]),
            operations: Some(operations.iter().map(|o| (*o).to_owned()).collect()),
            resources: Some(vec![info.plural.into()]),
            scope: Some(info.scope.as_str().into()),
        }],
    }
}

fn check_options(options: &WebhookOptions) -> Result<(), WebhookManifestError> {
    if TIMEOUT_RANGE.contains(&options.timeout_seconds) {
        Ok(())
    } else {
        Err(WebhookManifestError::InvalidTimeout(
            options.timeout_seconds,
        ))
    }
}

/// A `MutatingWebhookConfiguration` with one webhook per entry of `kinds` (a kind at one
/// version; see the module docs for which version to pick): CREATE and UPDATE, the
/// endpoint's [`admission_path`], `sideEffects: None`, `admissionReviewVersions: [v1]`,
/// `matchPolicy: Equivalent`, `reinvocationPolicy: Never`. Every field the apiserver would
/// default is written out, so the object reads back from the apiserver as it was written.
pub fn mutating_webhook_configuration(
    kinds: &[&ResourceInfo],
    endpoint: &WebhookEndpoint,
    options: &WebhookOptions,
) -> Result<MutatingWebhookConfiguration, WebhookManifestError> {
    check_options(options)?;
    let webhooks = kinds
        .iter()
        .map(|info| {
            let c = common(
                AdmissionType::Mutating,
                info,
                endpoint,
                &["CREATE", "UPDATE"],
            );
            MutatingWebhook {
                admission_review_versions: vec![REVIEW_VERSION.into()],
                client_config: c.client_config,
                failure_policy: Some(options.failure_policy.as_str().into()),
                match_conditions: None,
                match_policy: Some("Equivalent".into()),
                name: c.name,
                namespace_selector: Some(LabelSelector::default()),
                object_selector: Some(LabelSelector::default()),
                reinvocation_policy: Some("Never".into()),
                rules: Some(c.rules),
                side_effects: "None".into(),
                timeout_seconds: Some(options.timeout_seconds),
            }
        })
        .collect();
    Ok(MutatingWebhookConfiguration {
        metadata: ObjectMeta {
            name: Some(options.mutating_configuration_name.clone()),
            ..ObjectMeta::default()
        },
        webhooks: Some(webhooks),
    })
}

/// A `ValidatingWebhookConfiguration` with one webhook per entry of `kinds`: CREATE, UPDATE
/// and DELETE, otherwise as [`mutating_webhook_configuration`].
pub fn validating_webhook_configuration(
    kinds: &[&ResourceInfo],
    endpoint: &WebhookEndpoint,
    options: &WebhookOptions,
) -> Result<ValidatingWebhookConfiguration, WebhookManifestError> {
    check_options(options)?;
    let webhooks = kinds
        .iter()
        .map(|info| {
            let operations = ["CREATE", "UPDATE", "DELETE"];
            let c = common(AdmissionType::Validating, info, endpoint, &operations);
            ValidatingWebhook {
                admission_review_versions: vec![REVIEW_VERSION.into()],
                client_config: c.client_config,
                failure_policy: Some(options.failure_policy.as_str().into()),
                match_conditions: None,
                match_policy: Some("Equivalent".into()),
                name: c.name,
                namespace_selector: Some(LabelSelector::default()),
                object_selector: Some(LabelSelector::default()),
                rules: Some(c.rules),
                side_effects: "None".into(),
                timeout_seconds: Some(options.timeout_seconds),
            }
        })
        .collect();
    Ok(ValidatingWebhookConfiguration {
        metadata: ObjectMeta {
            name: Some(options.validating_configuration_name.clone()),
            ..ObjectMeta::default()
        },
        webhooks: Some(webhooks),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Scope;

    const CERT: &str =
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";

    fn info(version: &'static str, scope: Scope) -> ResourceInfo {
        ResourceInfo {
            group: "db.example.com",
            version,
            kind: "Store",
            plural: "stores",
            singular: "store",
            short_names: &[],
            categories: &[],
            scope,
            status: false,
            scale: None,
            printer_columns: &[],
            selectable_fields: &[],
            served: true,
            storage: true,
            deprecated: None,
            labels: &[],
            annotations: &[],
            rust_type: "Store",
            schema: || schemars::json_schema!({"type": "object"}),
        }
    }

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
        assert!(url_error("not a url").contains("not a valid URL"));
        // What the apiserver accepts: an empty `?` or `#`, a path prefix, an upper-case scheme.
        for ok in [
            "https://host?",
            "https://host#",
            "https://h:9443/prefix/",
            "HTTPS://host",
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
        for bad in [
            "",
            "hello",
            "-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n",
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

    #[test]
    fn conversion_calls_convert_on_the_endpoint() {
        let mut crd = CustomResourceDefinition::default();
        let service = WebhookEndpoint::service("ns", "svc", None)
            .unwrap()
            .with_ca_bundle(CERT.into())
            .unwrap();
        with_conversion(&mut crd, &service);
        let conversion = crd.spec.conversion.as_ref().unwrap();
        assert_eq!(conversion.strategy, "Webhook");
        let webhook = conversion.webhook.as_ref().unwrap();
        assert_eq!(webhook.conversion_review_versions, ["v1"]);
        let config = webhook.client_config.as_ref().unwrap();
        assert_eq!(config.ca_bundle.as_ref().unwrap().0, CERT.as_bytes());
        assert_eq!(config.url, None);
        let svc = config.service.as_ref().unwrap();
        assert_eq!(
            (
                svc.namespace.as_str(),
                svc.name.as_str(),
                svc.port,
                svc.path.as_deref()
            ),
            ("ns", "svc", Some(443), Some("/convert"))
        );

        with_conversion(
            &mut crd,
            &WebhookEndpoint::url("https://10.0.0.1:9443/").unwrap(),
        );
        let config = crd
            .spec
            .conversion
            .unwrap()
            .webhook
            .unwrap()
            .client_config
            .unwrap();
        assert_eq!(config.url.as_deref(), Some("https://10.0.0.1:9443/convert"));
        assert!(config.service.is_none() && config.ca_bundle.is_none());
    }

    #[test]
    fn configurations_have_one_webhook_per_kind_version() {
        let (a, b) = (info("v1", Scope::Cluster), info("v2", Scope::Namespaced));
        let endpoint = WebhookEndpoint::url("https://h:9443").unwrap();
        let options = WebhookOptions {
            failure_policy: FailurePolicy::Ignore,
            timeout_seconds: 5,
            ..WebhookOptions::default()
        };
        let m = mutating_webhook_configuration(&[&a, &b], &endpoint, &options).unwrap();
        assert_eq!(
            m.metadata.name.as_deref(),
            Some("mutating-webhook-configuration")
        );
        let hooks = m.webhooks.unwrap();
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[0].name, "mutate-v1.stores.db.example.com");
        assert_eq!(
            hooks[0].client_config.url.as_deref(),
            Some("https://h:9443/mutate/db.example.com/v1/stores")
        );
        let rule = &hooks[1].rules.as_ref().unwrap()[0];
        assert_eq!(rule.api_versions.as_deref(), Some(&["v2".to_owned()][..]));
        assert_eq!(rule.scope.as_deref(), Some("Namespaced"));
        assert_eq!(
            hooks[0].rules.as_ref().unwrap()[0].scope.as_deref(),
            Some("Cluster")
        );
        assert_eq!(rule.operations.as_ref().unwrap(), &["CREATE", "UPDATE"]);
        assert_eq!(hooks[0].failure_policy.as_deref(), Some("Ignore"));
        assert_eq!(hooks[0].timeout_seconds, Some(5));

        let v =
            validating_webhook_configuration(&[&a], &endpoint, &WebhookOptions::default()).unwrap();
        let hook = &v.webhooks.unwrap()[0];
        assert_eq!(hook.name, "validate-v1.stores.db.example.com");
        assert_eq!(
            hook.rules.as_ref().unwrap()[0].operations.as_ref().unwrap(),
            &["CREATE", "UPDATE", "DELETE"]
        );
        assert_eq!(
            (
                hook.failure_policy.as_deref(),
                hook.timeout_seconds,
                hook.match_policy.as_deref()
            ),
            (Some("Fail"), Some(10), Some("Equivalent"))
        );
        assert_eq!(
            (
                hook.side_effects.as_str(),
                &hook.admission_review_versions[..]
            ),
            ("None", &["v1".to_owned()][..])
        );

        for timeout in [0, 31] {
            let options = WebhookOptions {
                timeout_seconds: timeout,
                ..WebhookOptions::default()
            };
            assert!(matches!(
                validating_webhook_configuration(&[&a], &endpoint, &options),
                Err(WebhookManifestError::InvalidTimeout(t)) if t == timeout
            ));
        }
    }
}
