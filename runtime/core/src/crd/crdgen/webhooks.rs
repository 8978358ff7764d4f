//! crdgen's webhook options: `spec.conversion` for kinds with generated conversions, and the
//! mutating and validating webhook configurations.

use std::path::PathBuf;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Serialize;
use serde_json::Value;

use super::CrdgenError;
use crate::crd::webhooks::{
    self, FailurePolicy, WebhookEndpoint, WebhookManifestError, WebhookOptions,
};
use crate::kind_info::ResourceInfo;

/// Where the webhook server is, and which admission webhooks to write.
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Webhooks")]
pub struct WebhookArgs {
    /// The webhook server's Service, `NAMESPACE/NAME[:PORT]` (port 443 by default). With it
    /// (or --webhook-url), every kind with generated conversions (`#[convert]`) gets
    /// `spec.conversion` strategy Webhook at `/convert`.
    #[arg(
        long,
        value_name = "NAMESPACE/NAME[:PORT]",
        conflicts_with = "webhook_url"
    )]
    pub webhook_service: Option<String>,
    /// The webhook server's base URL instead of a Service, e.g. `https://127.0.0.1:9443`
    /// (https, no user, query or fragment, as the apiserver requires).
    #[arg(long, value_name = "URL")]
    pub webhook_url: Option<String>,
    /// A PEM file with the CA that signed the webhook server's certificate, written as every
    /// `caBundle`.
    #[arg(long, value_name = "FILE")]
    pub ca_bundle: Option<PathBuf>,
    /// Write a MutatingWebhookConfiguration with a webhook for this kind (kind, plural or CRD
    /// name), at its storage version: CREATE and UPDATE. Repeatable.
    #[arg(long = "mutating", value_name = "KIND")]
    pub mutating: Vec<String>,
    /// Write a ValidatingWebhookConfiguration with a webhook for this kind, at its storage
    /// version: CREATE, UPDATE and DELETE. Repeatable.
    #[arg(long = "validating", value_name = "KIND")]
    pub validating: Vec<String>,
    /// What the apiserver does when a webhook cannot answer [default: fail].
    #[arg(long, value_enum, value_name = "POLICY")]
    pub failure_policy: Option<FailurePolicy>,
    /// How long the apiserver waits for an admission webhook, 1 to 30 [default: 10].
    #[arg(long, value_name = "N")]
    pub timeout_seconds: Option<i32>,
    /// The MutatingWebhookConfiguration's name [default: mutating-webhook-configuration].
    #[arg(long, value_name = "NAME")]
    pub mutating_configuration: Option<String>,
    /// The ValidatingWebhookConfiguration's name [default: validating-webhook-configuration].
    #[arg(long, value_name = "NAME")]
    pub validating_configuration: Option<String>,
}

impl WebhookArgs {
    fn endpoint(&self) -> Result<Option<WebhookEndpoint>, CrdgenError> {
        let endpoint = match (&self.webhook_service, &self.webhook_url) {
            (Some(service), _) => WebhookEndpoint::parse_service(service)?,
            (None, Some(url)) => WebhookEndpoint::url(url)?,
            (None, None) => {
                let given = [
                    ("--ca-bundle", self.ca_bundle.is_some()),
                    ("--mutating", !self.mutating.is_empty()),
                    ("--validating", !self.validating.is_empty()),
                    ("--failure-policy", self.failure_policy.is_some()),
                    ("--timeout-seconds", self.timeout_seconds.is_some()),
                    (
                        "--mutating-configuration",
                        self.mutating_configuration.is_some(),
                    ),
                    (
                        "--validating-configuration",
                        self.validating_configuration.is_some(),
                    ),
                ];
                return match given.iter().find(|(_, given)| *given) {
                    Some((flag, _)) => Err(CrdgenError::NeedsEndpoint(flag)),
                    None => Ok(None),
                };
            }
        };
        Ok(Some(match &self.ca_bundle {
            Some(file) => endpoint.with_ca_bundle_file(file)?,
            None => endpoint,
        }))
    }

    fn options(&self) -> WebhookOptions {
        let defaults = WebhookOptions::default();
        WebhookOptions {
            failure_policy: self.failure_policy.unwrap_or(defaults.failure_policy),
            timeout_seconds: self.timeout_seconds.unwrap_or(defaults.timeout_seconds),
            mutating_configuration_name: self
                .mutating_configuration
                .clone()
                .unwrap_or(defaults.mutating_configuration_name),
            validating_configuration_name: self
                .validating_configuration
                .clone()
                .unwrap_or(defaults.validating_configuration_name),
        }
    }
}

/// With an endpoint: sets Webhook conversion on every CRD whose kind has generated
/// conversions, and returns the webhook configurations to print after the CRDs as
/// `(name, object)`. Without one, changes nothing and returns nothing.
pub(super) fn apply(
    args: &WebhookArgs,
    crds: &mut [CustomResourceDefinition],
) -> Result<Vec<(String, Value)>, CrdgenError> {
    let Some(endpoint) = args.endpoint()? else {
        return Ok(Vec::new());
    };
    for crd in crds.iter_mut() {
        if webhooks::needs_conversion(crd)? {
            webhooks::with_conversion(crd, &endpoint);
        }
    }
    let options = args.options();
    let mut documents = Vec::new();
    let mutating = resolve(&args.mutating)?;
    if !mutating.is_empty() {
        let config = webhooks::mutating_webhook_configuration(&mutating, &endpoint, &options)?;
        documents.push(document(&options.mutating_configuration_name, &config)?);
    }
    let validating = resolve(&args.validating)?;
    if !validating.is_empty() {
        let config = webhooks::validating_webhook_configuration(&validating, &endpoint, &options)?;
        documents.push(document(&options.validating_configuration_name, &config)?);
    }
    Ok(documents)
}

/// The storage version of every kind named, each once, in the order named.
fn resolve(names: &[String]) -> Result<Vec<&'static ResourceInfo>, WebhookManifestError> {
    let mut infos: Vec<&'static ResourceInfo> = Vec::new();
    for name in names {
        for info in webhooks::storage_versions(name)? {
            if !infos.iter().any(|i| std::ptr::eq(*i, info)) {
                infos.push(info);
            }
        }
    }
    Ok(infos)
}

fn document(name: &str, object: &impl Serialize) -> Result<(String, Value), CrdgenError> {
    let value = serde_json::to_value(object).map_err(|e| CrdgenError::Serialize {
        crd: name.to_owned(),
        message: e.to_string(),
    })?;
    Ok((name.to_owned(), value))
}
