//! The requests a client creates to ask the apiserver something rather than to store it:
//! TokenRequest (`serviceaccounts/<name>/token`), TokenReview and SubjectAccessReview. Each is a
//! POST of one object, answered `201 Created` with the object and its status (the state's
//! `request_token`, `review_token`, `review_access`); nothing is stored. Any other method is
//! go-restful's 405, as for every route that only creates.

use http::Response;
use k8s_openapi::api::authentication::v1::TokenReview;
use k8s_openapi::api::authorization::v1::SubjectAccessReview;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::media::{self, BodyFormat};
use super::output::Output;
use super::path::{ResourceRequest, Verb};
use super::{Call, RequestBody, ResponseBody, read_body};
use crate::Inner;
use crate::decode;
use crate::status::ApiError;

/// Which of the three a request addresses: a resource created to ask, answered, never stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum VirtualResource {
    /// `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token`.
    TokenRequest { namespace: String, name: String },
    /// `POST /apis/authentication.k8s.io/v1/tokenreviews`.
    TokenReview,
    /// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`.
    SubjectAccessReview,
}

impl VirtualResource {
    /// The virtual resource `r` addresses, if any.
    pub(super) fn of(r: &ResourceRequest) -> Option<VirtualResource> {
        let cluster = r.namespace.is_empty() && r.name.is_empty() && r.subresource.is_empty();
        match (r.group.as_str(), r.version.as_str(), r.resource.as_str()) {
            ("", "v1", "serviceaccounts")
                if r.subresource == "token" && !r.namespace.is_empty() =>
            {
                Some(VirtualResource::TokenRequest {
                    namespace: r.namespace.clone(),
                    name: r.name.clone(),
                })
            }
            ("authentication.k8s.io", "v1", "tokenreviews") if cluster => {
                Some(VirtualResource::TokenReview)
            }
            ("authorization.k8s.io", "v1", "subjectaccessreviews") if cluster => {
                Some(VirtualResource::SubjectAccessReview)
            }
            _ => None,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            VirtualResource::TokenRequest { .. } => "TokenRequest",
            VirtualResource::TokenReview => "TokenReview",
            VirtualResource::SubjectAccessReview => "SubjectAccessReview",
        }
    }
}

/// Answers a request for `resource`, reading the body as the create handler does.
pub(super) async fn serve(
    inner: &Inner,
    call: &Call,
    r: &ResourceRequest,
    resource: VirtualResource,
    body: impl RequestBody,
) -> Result<Response<ResponseBody>, ApiError> {
    if r.verb != Some(Verb::Create) {
        return Err(ApiError::restful_method_not_allowed());
    }
    let out = Output::negotiate(&call.accept(), call.pretty)
        .map_err(|_| ApiError::restful_not_acceptable())?;
    let format = media::body_format(&call.content_type())?;
    let body = read_body(call, body).await?;
    let body = match format {
        BodyFormat::Json => body.to_vec(),
        BodyFormat::Yaml => decode::yaml_to_json(&body, resource.kind())?,
    };
    let api_version = match resource {
        VirtualResource::TokenRequest { .. } | VirtualResource::TokenReview => {
            "authentication.k8s.io/v1"
        }
        VirtualResource::SubjectAccessReview => "authorization.k8s.io/v1",
    };
    let object = decode::object(&body, resource.kind(), api_version)?;
    // The apiserver decodes into its Go type and echoes that: unknown fields and nulls gone.
    let object = match resource {
        VirtualResource::TokenRequest { .. } => object,
        VirtualResource::TokenReview => typed::<TokenReview>(object)?,
        VirtualResource::SubjectAccessReview => typed::<SubjectAccessReview>(object)?,
    };
    let answer = {
        let mut state = inner.lock();
        match resource {
            VirtualResource::TokenRequest { namespace, name } => {
                state.request_token(&namespace, &name, object)?
            }
            VirtualResource::TokenReview => state.review_token(object)?,
            VirtualResource::SubjectAccessReview => state.review_access(object)?,
        }
    };
    Ok(call.answer(&out, 201, answer))
}

/// `object` as the Go type `T` reads and writes it.
fn typed<T: DeserializeOwned + Serialize>(object: Value) -> Result<Value, ApiError> {
    let value: T =
        serde_json::from_value(object).map_err(|e| ApiError::bad_request(e.to_string()))?;
    serde_json::to_value(value).map_err(|e| ApiError::internal(e.to_string()))
}
