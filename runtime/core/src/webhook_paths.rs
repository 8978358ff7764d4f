//! Where a kind's webhooks are served and what they are called: the admission paths and
//! webhook names that the webhook server (`kubegen::webhook`, feature `webhook`), crdgen's
//! webhook configurations and the in-memory server all use.

use std::fmt;

/// The path of the conversion webhook: a CRD's `spec.conversion.webhook.clientConfig` names it.
pub const CONVERT_PATH: &str = "/convert";

/// The group written in admission paths for the core group (whose name is empty).
pub const CORE_GROUP_SEGMENT: &str = "core";

/// Which admission webhook a path serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdmissionType {
    /// A mutating webhook (`MutatingWebhookConfiguration`): defaulting, answered as a JSON patch.
    Mutating,
    /// A validating webhook (`ValidatingWebhookConfiguration`): allowed or denied.
    Validating,
}

impl AdmissionType {
    pub(crate) fn segment(self) -> &'static str {
        match self {
            AdmissionType::Mutating => "mutate",
            AdmissionType::Validating => "validate",
        }
    }
}

/// A resource that admission webhooks serve: its group, version and plural, as a webhook
/// configuration's rules name it and as an `AdmissionReview`'s `request.resource` carries it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WebhookKind {
    /// The API group (empty for the core group).
    pub group: String,
    /// The version the webhook receives objects in.
    pub version: String,
    /// The resource's plural name.
    pub plural: String,
}

impl WebhookKind {
    /// A resource by name.
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        plural: impl Into<String>,
    ) -> Self {
        WebhookKind {
            group: group.into(),
            version: version.into(),
            plural: plural.into(),
        }
    }

    /// The resource of a static kind, such as a kubegen-generated one.
    pub fn of<K: kube_core::Resource<DynamicType = ()>>() -> Self {
        WebhookKind::new(K::group(&()), K::version(&()), K::plural(&()))
    }
}

impl fmt::Display for WebhookKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            write!(f, "{}/{}", self.version, self.plural)
        } else {
            write!(f, "{}/{}/{}", self.group, self.version, self.plural)
        }
    }
}

/// The path the server answers `kind`'s admission reviews on:
/// `/mutate/<group>/<version>/<plural>` or `/validate/<group>/<version>/<plural>` (the core
/// group is written `core`). A webhook configuration's `clientConfig` names it.
///
/// ```
/// use kubegen_core::webhook_paths::{AdmissionType, WebhookKind, admission_path};
/// let kind = WebhookKind::new("batch.example.com", "v1", "cronjobs");
/// assert_eq!(admission_path(AdmissionType::Mutating, &kind), "/mutate/batch.example.com/v1/cronjobs");
/// ```
pub fn admission_path(admission: AdmissionType, kind: &WebhookKind) -> String {
    let group = if kind.group.is_empty() {
        CORE_GROUP_SEGMENT
    } else {
        &kind.group
    };
    format!(
        "/{}/{group}/{}/{}",
        admission.segment(),
        kind.version,
        kind.plural
    )
}

/// The name of `kind`'s webhook in a `MutatingWebhookConfiguration` or
/// `ValidatingWebhookConfiguration`: `mutate-<version>.<plural>.<group>` or
/// `validate-<version>.<plural>.<group>` (the core group is written `core`). The apiserver
/// names it in every denial (`admission webhook "<name>" denied the request: ...`), so
/// crdgen's manifests and the in-memory server use this one name.
///
/// ```
/// use kubegen_core::webhook_paths::{AdmissionType, WebhookKind, webhook_name};
/// let kind = WebhookKind::new("batch.example.com", "v1", "cronjobs");
/// assert_eq!(webhook_name(AdmissionType::Validating, &kind), "validate-v1.cronjobs.batch.example.com");
/// ```
pub fn webhook_name(admission: AdmissionType, kind: &WebhookKind) -> String {
    let group = if kind.group.is_empty() {
        CORE_GROUP_SEGMENT
    } else {
        &kind.group
    };
    format!(
        "{}-{}.{}.{group}",
        admission.segment(),
        kind.version,
        kind.plural
    )
}
