//! A ServiceAccount's token on any backend: the TokenRequest API, which the in-memory server
//! and a real apiserver both serve, so a test can call an endpoint that authenticates its
//! callers (a manager's secure `/metrics`) as a ServiceAccount with only the rights bound to
//! it.

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};

use super::{TestEnv, TestEnvError, create_if_missing};

/// How long a requested token lives: an hour, well past any test.
const TOKEN_SECONDS: i64 = 3600;

impl TestEnv {
    /// A bearer token for ServiceAccount `name` in this test's namespace (user
    /// `system:serviceaccount:NAMESPACE:NAME`), which is created when missing. The token is
    /// for the apiserver's own audience, so a TokenReview without audiences accepts it.
    ///
    /// A real apiserver's RBAC authorizer reads bindings through informers: after binding a
    /// role, wait until a request succeeds (Envtest's `wait_for_access` does for resources).
    pub async fn service_account_token(&self, name: &str) -> Result<String, TestEnvError> {
        let fail = |reason: String| TestEnvError::Token {
            service_account: format!("{}/{name}", self.namespace),
            reason,
        };
        let accounts: Api<ServiceAccount> = Api::namespaced(self.client.clone(), &self.namespace);
        let account = kubegen_runtime::rbac::service_account(name, &self.namespace);
        create_if_missing(&accounts, &account)
            .await
            .map_err(|e| fail(e.to_string()))?;
        request_token(&accounts, name)
            .await
            .map_err(|e| fail(e.to_string()))?
            .ok_or_else(|| fail("the TokenRequest's answer holds no token".into()))
    }
}

/// Requests an hour's token for ServiceAccount `name` of `accounts`, for the apiserver's own
/// audiences (none asked), which it accepts back; `None` when the answer has none.
// The token and the spec are optional in some Kubernetes versions' types, not in others: the
// conversions are the identity in some.
#[allow(clippy::useless_conversion)]
pub(crate) async fn request_token(
    accounts: &Api<ServiceAccount>,
    name: &str,
) -> Result<Option<String>, kube::Error> {
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: None,
            expiration_seconds: Some(TOKEN_SECONDS),
            ..TokenRequestSpec::default()
        }
        .into(),
        ..TokenRequest::default()
    };
    let answer = accounts
        .create_token_request(name, &PostParams::default(), &request)
        .await?;
    Ok(answer
        .status
        .and_then(|s| Option::<String>::from(s.token))
        .filter(|t| !t.is_empty()))
}
