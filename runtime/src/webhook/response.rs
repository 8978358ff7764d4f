//! HTTP responses: reviews as JSON, and errors as a `Status` the caller can read.

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body_util::Full;
use kube_core::Status;
use serde::Serialize;
use serde_json::Value;

/// The body every response has.
pub(super) type Body = Full<Bytes>;

/// A request the server refuses at the HTTP level: no review can be answered (the body is no
/// review of the right version, too large, or sent to a path or with a method not served).
#[derive(Debug)]
pub(super) struct HttpError {
    pub status: StatusCode,
    pub message: String,
}

impl HttpError {
    pub(super) fn new(status: StatusCode, message: impl Into<String>) -> Self {
        HttpError {
            status,
            message: message.into(),
        }
    }

    /// A body that is not the review expected.
    pub(super) fn malformed(error: impl std::fmt::Display) -> Self {
        HttpError::new(
            StatusCode::BAD_REQUEST,
            format!("malformed review: {error}"),
        )
    }

    /// The error as a `Status` object, as the apiserver writes its own errors.
    pub(super) fn into_response(self) -> Response<Body> {
        let reason = match self.status {
            StatusCode::NOT_FOUND => "NotFound",
            StatusCode::METHOD_NOT_ALLOWED => "MethodNotAllowed",
            StatusCode::PAYLOAD_TOO_LARGE => "RequestEntityTooLarge",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "UnsupportedMediaType",
            StatusCode::SERVICE_UNAVAILABLE => "ServiceUnavailable",
            StatusCode::INTERNAL_SERVER_ERROR => "InternalError",
            _ => "BadRequest",
        };
        let status = Status::failure(&self.message, reason).with_code(self.status.as_u16());
        let mut body = serde_json::json!({"kind": "Status", "apiVersion": "v1"});
        if let (Some(map), Ok(Value::Object(fields))) =
            (body.as_object_mut(), serde_json::to_value(&status))
        {
            map.extend(fields);
        }
        json(self.status, &body)
    }
}

/// Checks a review's `apiVersion` and `kind` before reading it, so a review of another
/// version is refused by name rather than by a confusing decoding error.
pub(super) fn check_review_type(
    value: &Value,
    api_version: &str,
    kind: &str,
) -> Result<(), HttpError> {
    let got = |field: &str| value.get(field).and_then(Value::as_str).unwrap_or("");
    if got("kind") != kind || got("apiVersion") != api_version {
        return Err(HttpError::new(
            StatusCode::BAD_REQUEST,
            format!(
                "expected a {kind} of apiVersion {api_version}, got kind {:?} of apiVersion {:?}",
                got("kind"),
                got("apiVersion")
            ),
        ));
    }
    Ok(())
}

/// A JSON response.
pub(super) fn json(status: StatusCode, body: &impl Serialize) -> Response<Body> {
    match serde_json::to_vec(body) {
        Ok(bytes) => with_body(status, "application/json", bytes),
        Err(e) => with_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            format!("serializing the response: {e}").into_bytes(),
        ),
    }
}

/// A plain-text response (health endpoints).
pub(super) fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    with_body(
        status,
        "text/plain; charset=utf-8",
        body.as_bytes().to_vec(),
    )
}

fn with_body(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}
