//! The manifests that wire a kind to kubegen's webhook server: a CRD's `spec.conversion`
//! (strategy `Webhook`) and the `MutatingWebhookConfiguration` and
//! `ValidatingWebhookConfiguration` that send its admission reviews.
//!
//! Paths and webhook names come from [`crate::webhook_paths`], the same place the webhook server
//! reads them, so the manifests and the server agree by construction.
//!
//! ```
//! use kubegen_core::crd::webhooks::{WebhookEndpoint, WebhookOptions, with_conversion};
//! # fn demo(mut crd: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
//! #         info: &kubegen_core::ResourceInfo) -> Result<(), kubegen_core::crd::webhooks::WebhookManifestError> {
//! let endpoint = WebhookEndpoint::service("db-system", "db-webhook", None)?;
//! with_conversion(&mut crd, &endpoint);   // POST https://db-webhook.db-system.svc:443/convert
//! let validating = kubegen_core::crd::webhooks::validating_webhook_configuration(
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

mod endpoint;

pub use endpoint::{DEFAULT_SERVICE_PORT, WebhookEndpoint, WebhookTarget};

use std::path::PathBuf;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ValidatingWebhook,
    ValidatingWebhookConfiguration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, WebhookConversion,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

use crate::kind_info::ResourceInfo;
use crate::registry;
use crate::webhook_paths::{
    AdmissionType, CONVERT_PATH, WebhookKind, admission_path, webhook_name,
};
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
        "the CA bundle {source_name} holds no PEM certificate (a `-----BEGIN CERTIFICATE-----` block with an X.509 certificate)"
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

/// Sets `crd`'s `spec.conversion` to the `Webhook` strategy: the apiserver sends
/// `ConversionReview`s (`v1`) to the endpoint's `/convert`.
pub fn with_conversion(crd: &mut CustomResourceDefinition, endpoint: &WebhookEndpoint) {
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(endpoint.client_config(CONVERT_PATH)),
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
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

/// `kind`'s webhook at `info`'s version, with what validating and mutating webhooks share.
fn webhook(
    admission: AdmissionType,
    info: &ResourceInfo,
    endpoint: &WebhookEndpoint,
    options: &WebhookOptions,
    operations: &[&str],
) -> ValidatingWebhook {
    let kind = WebhookKind::new(info.group, info.version, info.plural);
    ValidatingWebhook {
        admission_review_versions: vec![REVIEW_VERSION.into()],
        client_config: endpoint.admission_client_config(&admission_path(admission, &kind)),
        failure_policy: Some(options.failure_policy.as_str().into()),
        match_conditions: None,
        match_policy: Some("Equivalent".into()),
        name: webhook_name(admission, &kind),
        namespace_selector: Some(LabelSelector::default()),
        object_selector: Some(LabelSelector::default()),
        rules: Some(vec![RuleWithOperations {
            api_groups: Some(vec![info.group.into()]),
            api_versions: Some(vec![info.version.into()]),
            operations: Some(operations.iter().map(|o| (*o).to_owned()).collect()),
            resources: Some(vec![info.plural.into()]),
            scope: Some(info.scope.as_str().into()),
        }]),
        side_effects: "None".into(),
        timeout_seconds: Some(options.timeout_seconds),
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

fn metadata(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        ..ObjectMeta::default()
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
    let operations = ["CREATE", "UPDATE"];
    let webhooks = kinds
        .iter()
        .map(|info| {
            let w = webhook(
                AdmissionType::Mutating,
                info,
                endpoint,
                options,
                &operations,
            );
            MutatingWebhook {
                admission_review_versions: w.admission_review_versions,
                client_config: w.client_config,
                failure_policy: w.failure_policy,
                match_conditions: w.match_conditions,
                match_policy: w.match_policy,
                name: w.name,
                namespace_selector: w.namespace_selector,
                object_selector: w.object_selector,
                reinvocation_policy: Some("Never".into()),
                rules: w.rules,
                side_effects: w.side_effects,
                timeout_seconds: w.timeout_seconds,
            }
        })
        .collect();
    Ok(MutatingWebhookConfiguration {
        metadata: metadata(&options.mutating_configuration_name),
        webhooks: Some(webhooks),
    })
}

/// A `ValidatingWebhookConfiguration` with one webhook per entry of `kinds`: CREATE, UPDATE
/// and DELETE, otherwise as [`mutating_webhook_configuration`] (without a reinvocation
/// policy, which only mutating webhooks have).
pub fn validating_webhook_configuration(
    kinds: &[&ResourceInfo],
    endpoint: &WebhookEndpoint,
    options: &WebhookOptions,
) -> Result<ValidatingWebhookConfiguration, WebhookManifestError> {
    check_options(options)?;
    let operations = ["CREATE", "UPDATE", "DELETE"];
    let webhooks = kinds
        .iter()
        .map(|info| {
            webhook(
                AdmissionType::Validating,
                info,
                endpoint,
                options,
                &operations,
            )
        })
        .collect();
    Ok(ValidatingWebhookConfiguration {
        metadata: metadata(&options.validating_configuration_name),
        webhooks: Some(webhooks),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind_info::Scope;

    use endpoint::tests::CERT;

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
