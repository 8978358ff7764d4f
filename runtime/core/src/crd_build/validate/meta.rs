//! The CRD's own `metadata` (apimachinery's `ValidateObjectMeta`, with the CRD's name rule)
//! and the approval annotation protected groups need (`validateAPIApproval`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::Refusal;
use crate::checks::go_net;
use crate::checks::names::NameRule;
use crate::checks::{BadValue, FieldError, field, objectmeta};

/// The annotation that records a Kubernetes API review for a group under `k8s.io`.
pub(crate) const APPROVAL: &str = "api-approved.kubernetes.io";

const APPROVAL_PR: &str = "https://github.com/kubernetes/enhancements/pull/1111";

/// Name, labels and annotations, as the apiserver checks a CRD's metadata.
pub(super) fn metadata(crd: &CustomResourceDefinition) -> Vec<Refusal> {
    let meta = serde_json::to_value(&crd.metadata).unwrap_or_default();
    let mut errors = objectmeta::validate(&meta, false, NameRule::DnsSubdomain, "metadata");
    let name = crd.metadata.name.as_deref().unwrap_or_default();
    let required = format!("{}.{}", crd.spec.names.plural, crd.spec.group);
    if !name.is_empty() && name != required {
        errors.push(FieldError::invalid(
            "metadata.name",
            BadValue::str(name),
            r#"must be spec.names.plural+"."+spec.group"#,
        ));
    }
    errors.into_iter().map(|e| {
        let hint = match e.field.as_str() {
            "metadata.name" => format!(
                "a CRD is named `<plural>.<group>`, a DNS subdomain of at most 253 characters; \
                 shorten the group or `plural` (`{required}` has {} characters)",
                required.len()
            ),
            "metadata.labels" => "keys of `label(...)` are qualified names — an optional DNS-subdomain \
                 prefix and `/`, then at most 63 letters, digits, `-`, `_` or `.`, starting and ending \
                 with a letter or digit (`app.kubernetes.io/name`) — and values at most 63 such \
                 characters, or empty"
                .into(),
            "metadata.annotations" if e.error_type == crate::checks::ErrorType::TooLong => {
                "the annotations of a CRD may hold at most 256 KiB in all; move long texts elsewhere".into()
            }
            "metadata.annotations" => "keys of `annotation(...)` are qualified names: an optional \
                 DNS-subdomain prefix and `/`, then at most 63 letters, digits, `-`, `_` or `.`, \
                 starting and ending with a letter or digit (`example.com/owner`)"
                .into(),
            _ => "kubegen sets only the CRD's name, labels and annotations; fix the metadata".into(),
        };
        Refusal::new(e, hint)
    })
    .collect()
}

/// Whether the apiserver reserves `group` for APIs reviewed by the Kubernetes project.
pub(crate) fn is_protected_group(group: &str) -> bool {
    ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|domain| group == *domain || group.ends_with(&format!(".{domain}")))
}

/// A group under `k8s.io` or `kubernetes.io` needs `api-approved.kubernetes.io`: the link to
/// its API review, or a reason starting with `unapproved`.
pub(super) fn api_approval(crd: &CustomResourceDefinition) -> Vec<Refusal> {
    let group = &crd.spec.group;
    if !is_protected_group(group) {
        return Vec::new();
    }
    let path = field::key("metadata.annotations", APPROVAL);
    let value = crd
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(APPROVAL))
        .map(String::as_str)
        .unwrap_or_default();
    let hint = format!(
        "groups under k8s.io and kubernetes.io are reserved for APIs the Kubernetes project \
         reviewed: use a group under a domain you own, or add \
         `annotation(\"{APPROVAL}\", \"<link to the API review>\")` (or a reason starting with \
         `unapproved`, for APIs outside the project)"
    );
    let error = if value.is_empty() {
        FieldError::required(
            &path,
            format!(
                "protected groups must have approval annotation \"{APPROVAL}\", see {APPROVAL_PR}"
            ),
        )
    } else if value.starts_with("unapproved") || go_net::is_url_with_host(value) {
        return Vec::new();
    } else {
        FieldError::invalid(
            &path,
            BadValue::str(value),
            format!(
                "protected groups must have approval annotation \"{APPROVAL}\" with either a URL \
                 or a reason starting with \"unapproved\", see {APPROVAL_PR}"
            ),
        )
    };
    vec![Refusal::new(error, hint)]
}
