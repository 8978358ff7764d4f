//! Who may read `/metrics`: controller-runtime's `filters.WithAuthenticationAndAuthorization`
//! (`pkg/metrics/filters`), ported. The request's bearer token is checked with a TokenReview,
//! then the user it names with a SubjectAccessReview for the request's path and lowercased
//! method, both created through the manager's client; the apiserver decides.
//!
//! See [`AuthenticationAndAuthorization`] for the answers.

use std::time::Duration;

use http::{HeaderMap, Method, StatusCode, header};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};

/// How long a review may take: controller-runtime's `TokenAccessReviewTimeout`.
const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);

/// The group every authenticated user is in, added when the review leaves it out (client-go's
/// `AuthenticatedGroupAdder`).
const AUTHENTICATED: &str = "system:authenticated";

/// Checks each request's bearer token and the permission of the user it names, by asking the
/// apiserver. Cheap to clone.
///
/// The answers are controller-runtime's, word for word:
///
/// | request | answer |
/// | --- | --- |
/// | no `Authorization: Bearer <token>` header (absent, another scheme, an empty token) | `401 Unauthorized` |
/// | a token the TokenReview does not authenticate, or a TokenReview that fails | `500 Authentication failed` |
/// | a SubjectAccessReview that fails | `500 Authorization for user <name> failed` |
/// | a user the SubjectAccessReview does not allow | `403 Authorization denied for user <name>` |
///
/// A token the apiserver rejects is a 500, not a 401: client-go's bearer-token
/// authenticator reports it as an error (`invalid bearer token`), and controller-runtime
/// answers every authentication error with a 500.
///
/// The ServiceAccount the manager runs as needs `create` on `tokenreviews` and
/// `subjectaccessreviews` ([`Rules::metrics_auth`](crate::rbac::Rules::metrics_auth)); a
/// scraper needs `get` on the non-resource URL `/metrics`.
#[derive(Clone)]
pub struct AuthenticationAndAuthorization {
    client: kube::Client,
}

impl std::fmt::Debug for AuthenticationAndAuthorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthenticationAndAuthorization")
            .finish_non_exhaustive()
    }
}

/// Why a request was refused: the status and the plain-text message to answer with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// 401, 403 or 500.
    pub status: StatusCode,
    /// controller-runtime's text, without the line end Go's `http.Error` adds.
    pub message: String,
}

impl Rejection {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Rejection {
            status,
            message: message.into(),
        }
    }
}

impl AuthenticationAndAuthorization {
    /// Reviews tokens and access with `client`, which needs `create` on `tokenreviews` and
    /// `subjectaccessreviews`.
    pub fn new(client: kube::Client) -> Self {
        AuthenticationAndAuthorization { client }
    }

    /// `Ok` with the user's name when the request may go on; the answer to give otherwise.
    pub async fn check(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
    ) -> Result<String, Rejection> {
        let Some(token) = bearer_token(headers) else {
            tracing::debug!(path, "metrics request without a bearer token");
            return Err(Rejection::new(StatusCode::UNAUTHORIZED, "Unauthorized"));
        };
        let user = match self.authenticate(token).await {
            Ok(user) => user,
            Err(error) => {
                tracing::error!(%error, path, "Authentication failed");
                return Err(Rejection::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Authentication failed",
                ));
            }
        };
        let name = user.username.clone().unwrap_or_default();
        match self.authorize(user, method, path).await {
            Ok((true, _)) => Ok(name),
            Ok((false, reason)) => {
                let message = format!("Authorization denied for user {name}");
                tracing::debug!(path, %reason, "{message}");
                Err(Rejection::new(StatusCode::FORBIDDEN, message))
            }
            Err(error) => {
                let message = format!("Authorization for user {name} failed");
                tracing::error!(%error, path, "{message}");
                Err(Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, message))
            }
        }
    }

    /// The user the TokenReview says the token belongs to.
    // The token is a `String` in some Kubernetes versions' types, an `Option` in others: the
    // conversion is the identity in some.
    #[allow(clippy::useless_conversion)]
    async fn authenticate(&self, token: &str) -> Result<UserInfo, ReviewError> {
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: token.to_owned().into(),
                ..TokenReviewSpec::default()
            },
            ..TokenReview::default()
        };
        let status = self.create(&review).await?.status.unwrap_or_default();
        if status.authenticated != Some(true) {
            let error = status.error.filter(|e| !e.is_empty());
            return Err(ReviewError::NotAuthenticated(
                error.unwrap_or_else(|| "invalid bearer token".into()),
            ));
        }
        let mut user = status.user.unwrap_or_default();
        let groups = user.groups.get_or_insert_with(Vec::new);
        if !groups.iter().any(|g| g == AUTHENTICATED) {
            groups.push(AUTHENTICATED.to_owned());
        }
        Ok(user)
    }

    /// Whether the SubjectAccessReview allows `user` to `method` `path`, and its reason.
    async fn authorize(
        &self,
        user: UserInfo,
        method: &Method,
        path: &str,
    ) -> Result<(bool, String), ReviewError> {
        let review = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username,
                groups: user.groups,
                uid: user.uid,
                extra: user.extra,
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(path.to_owned()),
                    verb: Some(method.as_str().to_lowercase()),
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let status = self.create(&review).await?.status.unwrap_or_default();
        Ok((status.allowed, status.reason.unwrap_or_default()))
    }
}

impl AuthenticationAndAuthorization {
    /// Creates the cluster-scoped `review`, waiting at most [`REVIEW_TIMEOUT`] for the answer.
    async fn create<K>(&self, review: &K) -> Result<K, ReviewError>
    where
        K: kube::Resource<Scope = k8s_openapi::ClusterResourceScope, DynamicType = ()>
            + Clone
            + serde::Serialize
            + serde::de::DeserializeOwned
            + std::fmt::Debug,
    {
        let api: Api<K> = Api::all(self.client.clone());
        let params = PostParams::default();
        match tokio::time::timeout(REVIEW_TIMEOUT, api.create(&params, review)).await {
            Ok(answer) => Ok(answer?),
            Err(_) => Err(ReviewError::Timeout),
        }
    }
}

/// Why a review gave no answer, or no user.
#[derive(Debug, thiserror::Error)]
enum ReviewError {
    #[error(transparent)]
    Request(#[from] kube::Error),
    #[error("the review took longer than {REVIEW_TIMEOUT:?}")]
    Timeout,
    #[error("{0}")]
    NotAuthenticated(String),
}

/// The token of an `Authorization: Bearer <token>` header, read as client-go's bearer-token
/// authenticator reads it: surrounding space trimmed, the scheme in any case, the token the
/// second space-separated word; no header, another scheme or an empty token is none.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let mut parts = value.splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests;
