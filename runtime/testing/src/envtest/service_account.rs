//! Running a client as a ServiceAccount, to test an operator under the RBAC role it ships
//! with rather than as cluster-admin.
//!
//! Envtest's apiserver authorizes with RBAC and signs ServiceAccount tokens, but without the
//! controller manager
//! ([`EnvtestBuilder::controller_manager`](super::EnvtestBuilder::controller_manager)) no namespace
//! gets a `default` ServiceAccount. [`Envtest::service_account_client`] creates the ServiceAccount
//! and asks for a token through the TokenRequest API; [`wait_for_access`] waits until the
//! authorizer, which reads roles and bindings through informers, has caught up with a change.

use std::time::{Duration, Instant};

use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{Api, PostParams};
use kube::config::AuthInfo;

use super::{Envtest, EnvtestError};
use crate::backend::create_if_missing;
use crate::backend::token::request_token;

/// The pause between two access reviews.
const REVIEW_INTERVAL: Duration = Duration::from_millis(100);

impl Envtest {
    /// A client authenticated as ServiceAccount `namespace/name` (user
    /// `system:serviceaccount:NAMESPACE:NAME`), with only the rights bound to it.
    ///
    /// As admin, it creates the namespace and the ServiceAccount when missing and requests a
    /// token for it (the apiserver's own audience, one hour). The client uses this
    /// environment's configuration with the admin's credentials replaced by the token: a client
    /// certificate would otherwise authenticate first, as `system:masters`.
    ///
    /// Bind a role to the ServiceAccount (see [`kubegen_runtime::rbac`]), then [`wait_for_access`]
    /// before relying on it.
    pub async fn service_account_client(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<kube::Client, EnvtestError> {
        let admin = self.client();
        let context = |step: &str| format!("{step} for ServiceAccount {namespace}/{name}");
        let mut ns = Namespace::default();
        ns.metadata.name = Some(namespace.to_owned());
        create_if_missing(&Api::all(admin.clone()), &ns)
            .await
            .map_err(EnvtestError::request(context("creating the namespace")))?;
        let accounts: Api<ServiceAccount> = Api::namespaced(admin, namespace);
        create_if_missing(
            &accounts,
            &kubegen_runtime::rbac::service_account(name, namespace),
        )
        .await
        .map_err(EnvtestError::request(context(
            "creating the ServiceAccount",
        )))?;
        let token = request_token(&accounts, name)
            .await
            .map_err(EnvtestError::request(context("requesting a token")))?
            .ok_or_else(|| EnvtestError::NoToken {
                service_account: format!("{namespace}/{name}"),
            })?;
        let mut config = self.config();
        config.auth_info = AuthInfo {
            token: Some(token.into()),
            ..AuthInfo::default()
        };
        config.default_namespace = namespace.to_owned();
        kube::Client::try_from(config).map_err(|e| EnvtestError::Client(Box::new(e)))
    }
}

/// Waits until a SelfSubjectAccessReview by `client` says `attributes` is `allowed` (or, with
/// `false`, denied), asking every 100 ms for at most `timeout`.
///
/// The RBAC authorizer reads roles and bindings from informers, so a request right after a
/// binding changes may still get the old answer. Waiting for the review makes a test's next
/// request meet the new rules.
pub async fn wait_for_access(
    client: &kube::Client,
    attributes: &ResourceAttributes,
    allowed: bool,
    timeout: Duration,
) -> Result<(), EnvtestError> {
    let reviews: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(attributes.clone()),
            non_resource_attributes: None,
        },
        ..SelfSubjectAccessReview::default()
    };
    let deadline = Instant::now() + timeout;
    loop {
        let answer = reviews
            .create(&PostParams::default(), &review)
            .await
            .map_err(EnvtestError::request(format!(
                "reviewing access to {}",
                describe(attributes)
            )))?
            .status
            .unwrap_or_default();
        if answer.allowed == allowed {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(EnvtestError::AccessNotSettled {
                access: describe(attributes),
                wanted: if allowed { "allowed" } else { "denied" },
                reason: answer.reason.unwrap_or_default(),
                timeout,
            });
        }
        tokio::time::sleep(REVIEW_INTERVAL).await;
    }
}

/// `patch cronjobs/status in batch.tutorial.kubebuilder.io in namespace ns`.
fn describe(a: &ResourceAttributes) -> String {
    let field = |v: &Option<String>| v.clone().unwrap_or_default();
    let mut text = format!("{} {}", field(&a.verb), field(&a.resource));
    if let Some(sub) = a.subresource.as_deref().filter(|s| !s.is_empty()) {
        text = format!("{text}/{sub}");
    }
    text = format!("{text} in group {:?}", field(&a.group));
    if let Some(ns) = a.namespace.as_deref().filter(|s| !s.is_empty()) {
        text = format!("{text} in namespace {ns}");
    }
    text
}
