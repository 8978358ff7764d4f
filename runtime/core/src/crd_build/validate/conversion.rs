//! `spec.conversion` (`validateCustomResourceConversion`) and `spec.preserveUnknownFields`.
//!
//! The webhook's URL, service and CA bundle are checked where kubegen builds them
//! ([`WebhookEndpoint`](crate::crd::webhooks::WebhookEndpoint)), in its own words; here only
//! the strategy, the presence of a client configuration and the review versions.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionSpec;
use serde_json::Value;

use super::Refusal;
use crate::checks::names::dns1035_label;
use crate::checks::{BadValue, FieldError};

const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

const HINT: &str = "kubegen writes `spec.conversion` with crdgen's --webhook-service or \
    --webhook-url for kinds with #[convert]; write it the same way: strategy `Webhook` with a \
    client configuration (a URL or a service) and review versions including `v1`, or strategy \
    `None` with neither";

/// `preserveUnknownFields` may not be true in v1, and conversion follows its strategy.
pub(super) fn conversion(spec: &CustomResourceDefinitionSpec) -> Vec<Refusal> {
    let mut out = Vec::new();
    let preserve = spec.preserve_unknown_fields == Some(true);
    let Some(conversion) = &spec.conversion else {
        out.extend(preserve_unknown_fields(preserve));
        return out;
    };
    let strategy = conversion.strategy.as_str();
    if strategy != "None" && preserve {
        out.push(Refusal::new(
            FieldError::invalid(
                "spec.conversion.strategy",
                BadValue::str(strategy),
                "must be None if spec.preserveUnknownFields is true",
            ),
            HINT,
        ));
    }
    let webhook = conversion.webhook.as_ref();
    let client = webhook.and_then(|w| w.client_config.as_ref());
    let versions = webhook
        .map(|w| w.conversion_review_versions.clone())
        .unwrap_or_default();
    let mut push = |e: FieldError| out.push(Refusal::new(e, HINT));
    match strategy {
        "" => push(FieldError::required("spec.conversion.strategy", "")),
        "None" => {
            let forbidden = "should not be set when strategy is not set to Webhook";
            if client.is_some() {
                push(FieldError::forbidden(
                    "spec.conversion.webhookClientConfig",
                    forbidden,
                ));
            }
            if !versions.is_empty() {
                push(FieldError::forbidden(
                    "spec.conversion.conversionReviewVersions",
                    forbidden,
                ));
            }
        }
        "Webhook" => {
            let path = "spec.conversion.webhookClientConfig";
            match client {
                None => push(FieldError::required(
                    path,
                    "required when strategy is set to Webhook",
                )),
                Some(c) if c.url.is_some() == c.service.is_some() => push(FieldError::required(
                    path,
                    "exactly one of url or service is required",
                )),
                Some(_) => {}
            }
            review_versions(&versions, &mut push);
        }
        other => push(FieldError::not_supported(
            "spec.conversion.strategy",
            BadValue::str(other),
            &["None".into(), "Webhook".into()],
        )),
    }
    out.extend(preserve_unknown_fields(preserve));
    out
}

fn preserve_unknown_fields(preserve: bool) -> Option<Refusal> {
    preserve.then(|| {
        Refusal::new(
            FieldError::invalid(
                "spec.preserveUnknownFields",
                BadValue::Bool(true),
                "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
            ),
            "mark the fields that keep unknown fields with `#[schema(preserve_unknown_fields)]`",
        )
    })
}

/// `validateConversionReviewVersions`: at least one, each once, a DNS-1035 label, and one the
/// apiserver speaks.
fn review_versions(versions: &[String], push: &mut impl FnMut(FieldError)) {
    let path = "spec.conversion.conversionReviewVersions";
    if versions.is_empty() {
        push(FieldError::required(path, ""));
        return;
    }
    for (i, v) in versions.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if versions[..i].contains(v) {
            push(FieldError::invalid(
                &at,
                BadValue::str(v),
                "duplicate version",
            ));
            continue;
        }
        for e in dns1035_label(v) {
            push(FieldError::invalid(&at, BadValue::str(v), e));
        }
    }
    if !versions
        .iter()
        .any(|v| ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str()))
    {
        push(FieldError::invalid(
            path,
            BadValue::Json(Value::Array(
                versions.iter().map(|v| Value::String(v.clone())).collect(),
            )),
            format!(
                "must include at least one of {}",
                ACCEPTED_REVIEW_VERSIONS.join(", ")
            ),
        ));
    }
}
