//! The CustomResourceDefinitions of the served kinds, under
//! `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`: read, acknowledged when an
//! operator applies or updates one the server already serves (new kinds cannot be added),
//! and their status subresource, where `status` alone may be written (a storage version
//! migration trims `storedVersions` there; the apiserver does not validate them on status
//! writes).

use http::Method;
use serde_json::{Value, json};

use crate::state::State;
use crate::status::ApiError;

/// A request for the CRDs: the list, one CRD, or one CRD's status.
pub(super) enum CrdRequest {
    List,
    One(String),
    Status(String),
}

impl CrdRequest {
    /// The CRD request a path names, if any.
    pub(super) fn of(segments: &[String]) -> Option<CrdRequest> {
        let s: Vec<&str> = segments.iter().map(String::as_str).collect();
        match s.as_slice() {
            [
                "apis",
                "apiextensions.k8s.io",
                "v1",
                "customresourcedefinitions",
                rest @ ..,
            ] => match rest {
                [] => Some(CrdRequest::List),
                [name] => Some(CrdRequest::One((*name).to_owned())),
                [name, "status"] => Some(CrdRequest::Status((*name).to_owned())),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether answering needs the request's body.
    pub(super) fn reads_body(&self, method: &Method) -> bool {
        matches!(self, CrdRequest::Status(_)) && *method != Method::GET
    }

    /// The answer to `method` with `body` (read only when [`Self::reads_body`]).
    pub(super) fn answer(
        &self,
        state: &mut State,
        method: &Method,
        content_type: &str,
        body: &[u8],
    ) -> Result<Value, ApiError> {
        let not_found = |name: &str| {
            ApiError::not_found("apiextensions.k8s.io", "customresourcedefinitions", name)
        };
        match (self, method) {
            (CrdRequest::List, &Method::GET) => Ok(json!({
                "kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1",
                "metadata": {"resourceVersion": state.resource_version().to_string()},
                "items": state.kinds.iter().filter(|k| k.builtin.is_none()).map(|k| k.crd.clone()).collect::<Vec<_>>(),
            })),
            (CrdRequest::One(name), &Method::GET | &Method::PUT | &Method::PATCH) => state
                .kinds
                .iter()
                .find(|k| k.crd["metadata"]["name"] == name.as_str())
                .map(|k| k.crd.clone())
                .ok_or_else(|| not_found(name)),
            (CrdRequest::Status(name), _) => {
                let kind = state
                    .kinds
                    .iter_mut()
                    .find(|k| k.crd["metadata"]["name"] == name.as_str())
                    .ok_or_else(|| not_found(name))?;
                if *method == Method::GET {
                    return Ok(kind.crd.clone());
                }
                let sent: Value = serde_json::from_slice(body)
                    .map_err(|e| ApiError::bad_request(e.to_string()))?;
                let mut status = kind.crd["status"].clone();
                match (method, content_type) {
                    (&Method::PUT, _) => status = sent["status"].clone(),
                    (&Method::PATCH, "application/merge-patch+json") => {
                        crate::jsonpatch::merge(&mut status, &sent["status"])
                    }
                    (&Method::PATCH, _) => return Err(ApiError::unsupported_media_type()),
                    (m, _) => return Err(ApiError::method_not_allowed(m.as_str())),
                }
                // A CRD's entry is its server's own: only built-in entries are shared.
                let Some(kind) = std::sync::Arc::get_mut(kind) else {
                    return Err(ApiError::internal_error("a CRD's entry is shared"));
                };
                kind.crd["status"] = status;
                Ok(kind.crd.clone())
            }
            (_, m) => Err(ApiError::method_not_allowed(m.as_str())),
        }
    }
}
