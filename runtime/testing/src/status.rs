//! Errors as the apiserver writes them: `Status` objects with reason, code and causes.

use serde_json::{Value, json};

use kubegen_core::go_print;
use kubegen_runtime::validation::{FieldError, invalid_message};

/// A failed request, rendered as a `Status` object.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message} ({code})")]
pub struct ApiError {
    /// HTTP status code.
    pub code: u16,
    /// The apiserver's reason (NotFound, Conflict, Invalid, ...).
    pub reason: &'static str,
    /// Human-readable message.
    pub message: String,
    /// `details`: name, group, kind and causes.
    pub details: Option<Value>,
    /// Seconds for a Retry-After header (429).
    pub retry_after: Option<u64>,
}

/// A resource as Go's `GroupResource` prints it: `plural.group`, or the plural alone in the
/// core group.
pub(super) fn qualified(group: &str, plural: &str) -> String {
    match group {
        "" => plural.to_owned(),
        group => format!("{plural}.{group}"),
    }
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason,
            message: message.into(),
            details: None,
            retry_after: None,
        }
    }

    /// `NewBadRequest`: 400 `BadRequest` with `message`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// `NewNotFound`: 404 naming the object `name` of `plural` in `group`.
    pub fn not_found(group: &str, plural: &str, name: &str) -> Self {
        let mut e = Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", qualified(group, plural)),
        );
        e.details = Some(json!({"name": name, "group": group, "kind": plural}));
        e
    }

    /// The 404 for a `path` that names no resource the server serves.
    pub fn no_route(path: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("the server could not find the requested resource ({path})"),
        )
    }

    /// 405 for a `method` the resource does not take.
    pub fn method_not_allowed(method: &str) -> Self {
        Self::new(
            405,
            "MethodNotAllowed",
            format!("the server does not allow this method on the requested resource ({method})"),
        )
    }

    /// `NewAlreadyExists`: 409 `AlreadyExists` naming the object.
    pub fn already_exists(group: &str, plural: &str, name: &str) -> Self {
        let mut e = Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", qualified(group, plural)),
        );
        e.details = Some(json!({"name": name, "group": group, "kind": plural}));
        e
    }

    /// `NewForbidden`: 403 naming the object and why.
    pub fn forbidden(group: &str, plural: &str, name: &str, why: &str) -> Self {
        let mut e = Self::new(
            403,
            "Forbidden",
            format!(
                "{} \"{name}\" is forbidden: {why}",
                qualified(group, plural)
            ),
        );
        e.details = Some(json!({"name": name, "group": group, "kind": plural}));
        e
    }

    /// `NewConflict`: 409 `Conflict` naming the object and `why`.
    pub fn conflict(group: &str, plural: &str, name: &str, why: &str) -> Self {
        let mut e = Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": {why}",
                qualified(group, plural)
            ),
        );
        e.details = Some(json!({"name": name, "group": group, "kind": plural}));
        e
    }

    /// `NewApplyConflict`: 409 `Conflict` for an apply whose fields other managers own, one
    /// cause per conflicting field.
    pub fn apply_conflict(group: &str, plural: &str, name: &str, causes: Vec<Value>) -> Self {
        let n = causes.len();
        let mut e = Self::new(
            409,
            "Conflict",
            format!(
                "Apply failed with {n} conflict{}",
                if n == 1 { "" } else { "s" }
            ),
        );
        e.details = Some(json!({"name": name, "group": group, "kind": plural, "causes": causes}));
        e
    }

    /// `NewInvalid`: 422 with one cause per field error, the message listing them once
    /// each. `kind` is the kind (or resource) the apiserver qualifies the name with.
    pub fn invalid(group: &str, kind: &str, name: &str, errors: &[FieldError]) -> Self {
        let causes: Vec<Value> = errors.iter().map(FieldError::cause).collect();
        let mut e = Self::new(422, "Invalid", invalid_message(kind, group, name, errors));
        e.details = Some(json!({"name": name, "group": group, "kind": kind, "causes": causes}));
        e
    }

    /// `NewInternalError`: a 500 `InternalError` whose message and one cause carry `cause`.
    pub fn internal_error(cause: impl Into<String>) -> Self {
        let cause = cause.into();
        let mut e = Self::new(
            500,
            "InternalError",
            format!("Internal error occurred: {cause}"),
        );
        e.details = Some(json!({"causes": [{"message": cause}]}));
        e
    }

    /// A 500 without a reason, as the apiserver answers errors it has no status for.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "", message)
    }

    /// 410 `Expired`: a watch or list from a resourceVersion that is too old.
    pub fn gone(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// A patch whose content type is none the apiserver accepts for custom resources.
    pub fn unsupported_media_type() -> Self {
        Self::unsupported_media_type_of(&[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
        ])
    }

    /// A body whose content type is none of `accepted` (415).
    pub fn unsupported_media_type_of(accepted: &[&str]) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                accepted.join(", ")
            ),
        )
    }

    /// A request whose `Accept` header none of `accepted` matches (406).
    pub fn not_acceptable(accepted: &[&str]) -> Self {
        Self::new(
            406,
            "NotAcceptable",
            format!(
                "only the following media types are accepted: {}",
                accepted.join(", ")
            ),
        )
    }

    /// A `Status` whose `details` is empty but present, as generic errors are written.
    fn with_empty_details(code: u16, reason: &'static str, message: &str) -> Self {
        let mut e = Self::new(code, reason, message);
        e.details = Some(json!({}));
        e
    }

    /// The apiserver's 404 for a path under a built-in group that names no resource it
    /// serves (an alpha version that is off, a resource the group lacks).
    pub fn resource_not_found() -> Self {
        Self::with_empty_details(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }

    /// go-restful's 415 for a content type a built-in kind's route does not consume.
    pub fn restful_unsupported_media_type() -> Self {
        Self::with_empty_details(415, "UnsupportedMediaType", "415: Unsupported Media Type")
    }

    /// go-restful's 406 for a built-in kind's route, which produces JSON, YAML and protobuf.
    pub fn restful_not_acceptable() -> Self {
        Self::with_empty_details(
            406,
            "NotAcceptable",
            "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf",
        )
    }

    /// go-restful's 405 for a method a built-in kind's route does not serve.
    pub fn restful_method_not_allowed() -> Self {
        Self::with_empty_details(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
    }

    /// A 406 with its own message (a transformation the object cannot take).
    pub fn not_acceptable_message(message: impl Into<String>) -> Self {
        Self::new(406, "NotAcceptable", message)
    }

    /// `NewMethodNotSupported`: a verb a resource does not serve (`create` on a status
    /// subresource, an `OPTIONS` request, whose verb is empty).
    pub fn method_not_supported(group: &str, plural: &str, verb: &str) -> Self {
        let mut e = Self::new(
            405,
            "MethodNotAllowed",
            format!(
                "{verb} is not supported on resources of kind {}",
                go_print::quote(&qualified(group, plural))
            ),
        );
        e.details = Some(json!({"group": group, "kind": plural}));
        e
    }

    /// A JSON patch that cannot be applied (a failed `test`, a missing path): the apiserver
    /// answers with its generic 422, without the reason.
    pub fn patch_not_applicable() -> Self {
        Self::with_empty_details(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        )
    }

    /// `NewRequestEntityTooLargeError`: 413 `Request entity too large: <why>`.
    pub fn too_large(why: &str) -> Self {
        Self::new(
            413,
            "RequestEntityTooLarge",
            format!("Request entity too large: {why}"),
        )
    }

    /// A fault injected by a test (500, 429, 410, ...).
    pub fn injected(code: u16, retry_after: Option<u64>) -> Self {
        let reason = match code {
            429 => "TooManyRequests",
            410 => "Expired",
            500 => "InternalError",
            503 => "ServiceUnavailable",
            504 => "Timeout",
            _ => "Unknown",
        };
        let mut e = Self::new(code, reason, format!("injected fault: {code} {reason}"));
        e.retry_after = retry_after;
        e
    }

    /// The `Status` object.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "code": self.code,
        });
        if !self.reason.is_empty() {
            status["reason"] = json!(self.reason);
        }
        if let Some(details) = &self.details {
            let mut details = details.clone();
            // Go omits empty StatusDetails fields (`omitempty`).
            if let Value::Object(d) = &mut details {
                d.retain(|_, v| match v {
                    Value::String(s) => !s.is_empty(),
                    Value::Array(a) => !a.is_empty(),
                    _ => true,
                });
            }
            status["details"] = details;
        }
        if let Some(secs) = self.retry_after {
            status["details"]["retryAfterSeconds"] = json!(secs);
        }
        status
    }
}
