//! `POST /mutate/...` and `POST /validate/...`: `AdmissionReview`s answered through a
//! registered [`Mutator`] or [`Validator`].

use http::StatusCode;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube_core::response::{StatusCause, StatusDetails};
use kube_core::{DynamicObject, Status};
use serde_json::Value;

use super::registry::{AdmissionType, WebhookKind, Webhooks};
use super::response::{HttpError, check_review_type};
use crate::validation::{FieldError, invalid_message};

/// What an admission handler sees: the review's request and the objects in it.
#[derive(Debug)]
pub struct Admission<'a> {
    /// The request: uid, kind, resource, operation, name, namespace, user, dry run, options.
    /// Its `object` and `old_object` are empty: the objects are the two fields below, exactly
    /// as the apiserver sent them.
    pub request: &'a AdmissionRequest<DynamicObject>,
    /// The object being created or updated (`None` on DELETE).
    pub object: Option<&'a Value>,
    /// The object before an UPDATE, or the object being deleted (`None` on CREATE).
    pub old_object: Option<&'a Value>,
}

/// A defaulting (mutating) admission handler. It changes the object in place; the server
/// answers with the JSON patch from the object received to the object left. Any
/// `Fn(&Admission, &mut Value) -> Verdict` is one.
///
/// It runs on CREATE and UPDATE; a request without an object (DELETE) is allowed unchanged.
/// It runs on the server's request task, so it should not block for long.
pub trait Mutator: Send + Sync + 'static {
    /// Mutates `object` (a copy of `admission.object`) and says whether it is admitted.
    fn mutate(&self, admission: &Admission<'_>, object: &mut Value) -> Verdict;
}

impl<F> Mutator for F
where
    F: Fn(&Admission<'_>, &mut Value) -> Verdict + Send + Sync + 'static,
{
    fn mutate(&self, admission: &Admission<'_>, object: &mut Value) -> Verdict {
        self(admission, object)
    }
}

/// A validating admission handler, called on CREATE, UPDATE (with the old object) and DELETE
/// (with the old object only). Any `Fn(&Admission) -> Verdict` is one.
pub trait Validator: Send + Sync + 'static {
    /// Says whether the request is admitted.
    fn validate(&self, admission: &Admission<'_>) -> Verdict;
}

impl<F> Validator for F
where
    F: Fn(&Admission<'_>) -> Verdict + Send + Sync + 'static,
{
    fn validate(&self, admission: &Admission<'_>) -> Verdict {
        self(admission)
    }
}

/// An admission handler's answer: allowed or denied, with warnings either way (the apiserver
/// shows them to the client).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// Why the request is denied; `None` admits it.
    pub denial: Option<Denial>,
    /// Warnings for the client.
    pub warnings: Vec<String>,
}

/// Why a request is denied.
#[derive(Clone, Debug, PartialEq)]
pub enum Denial {
    /// The object is invalid: a 422 `Invalid` status with a cause per field error, as the
    /// apiserver reports its own validation.
    Invalid(Vec<FieldError>),
    /// The request is not allowed for another reason: a 403 `Forbidden` status.
    Forbidden(String),
}

impl Verdict {
    /// Admitted.
    pub fn allow() -> Self {
        Verdict::default()
    }

    /// Admitted when `errors` is empty, else denied as [`Denial::Invalid`].
    pub fn from_errors(errors: Vec<FieldError>) -> Self {
        Verdict {
            denial: (!errors.is_empty()).then_some(Denial::Invalid(errors)),
            warnings: Vec::new(),
        }
    }

    /// Denied as [`Denial::Forbidden`].
    pub fn forbidden(message: impl Into<String>) -> Self {
        Verdict {
            denial: Some(Denial::Forbidden(message.into())),
            warnings: Vec::new(),
        }
    }

    /// Adds a warning.
    #[must_use]
    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Whether the request is admitted.
    pub fn is_allowed(&self) -> bool {
        self.denial.is_none()
    }
}

/// `admission.k8s.io/v1`, the only `AdmissionReview` version served.
const REVIEW_API_VERSION: &str = "admission.k8s.io/v1";

/// Answers an `AdmissionReview` body sent to `kind`'s `admission` path. A body that is no
/// `AdmissionReview` v1 request, or a path no handler is registered for, is an HTTP error;
/// a request for another resource than the path's is answered as denied.
pub(super) fn review(
    webhooks: &Webhooks,
    admission: AdmissionType,
    kind: &WebhookKind,
    body: &[u8],
) -> Result<Value, HttpError> {
    // Look the handler up first: an unregistered path is a 404 whatever the body.
    let handler = match admission {
        AdmissionType::Mutating => webhooks.mutator_for(kind).map(Handler::Mutating),
        AdmissionType::Validating => webhooks.validator_for(kind).map(Handler::Validating),
    }
    .ok_or_else(|| {
        HttpError::new(
            StatusCode::NOT_FOUND,
            format!("no {admission:?} admission webhook is registered for {kind}"),
        )
    })?;

    let mut value: Value = serde_json::from_slice(body).map_err(HttpError::malformed)?;
    check_review_type(&value, REVIEW_API_VERSION, "AdmissionReview")?;
    // The objects are kept as received, so the patch is computed against exactly what the
    // apiserver holds; the rest is read into kube-core's request type.
    let (object, old_object) = match value.get_mut("request").and_then(Value::as_object_mut) {
        Some(request) => (
            take_object(request, "object"),
            take_object(request, "oldObject"),
        ),
        None => return Err(HttpError::malformed("the review has no request")),
    };
    let review: AdmissionReview<DynamicObject> =
        serde_json::from_value(value).map_err(HttpError::malformed)?;
    let request: AdmissionRequest<DynamicObject> =
        review.try_into().map_err(HttpError::malformed)?;
    let response = AdmissionResponse::from(&request);

    let resource = &request.resource;
    if (
        resource.group.as_str(),
        resource.version.as_str(),
        resource.resource.as_str(),
    ) != (
        kind.group.as_str(),
        kind.version.as_str(),
        kind.plural.as_str(),
    ) {
        let message = format!(
            "this webhook serves {kind}, not {}",
            WebhookKind::new(&resource.group, &resource.version, &resource.resource)
        );
        let status = Status::failure(&message, "BadRequest").with_code(400);
        return into_review_json(deny(response, status));
    }

    let admission = Admission {
        request: &request,
        object: object.as_ref(),
        old_object: old_object.as_ref(),
    };
    let (verdict, patch) = match handler {
        Handler::Validating(validator) => (validator.validate(&admission), None),
        Handler::Mutating(mutator) => match &object {
            None => (Verdict::allow(), None),
            Some(original) => {
                let mut mutated = original.clone();
                let verdict = mutator.mutate(&admission, &mut mutated);
                let patch = json_patch::diff(original, &mutated);
                (verdict, (!patch.0.is_empty()).then_some(patch))
            }
        },
    };

    let mut response = response;
    if !verdict.warnings.is_empty() {
        response.warnings = Some(verdict.warnings);
    }
    let response = match verdict.denial {
        Some(denial) => deny(response, denial_status(&admission, denial)),
        None => match patch {
            Some(patch) => response
                .with_patch(patch)
                .map_err(|e| HttpError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?,
            None => response,
        },
    };
    into_review_json(response)
}

/// The review as JSON, with the patch base64-encoded as the apiserver (Go's `[]byte`) writes
/// and reads it; kube-core's type would write it as an array of numbers.
fn into_review_json(response: AdmissionResponse) -> Result<Value, HttpError> {
    use base64::Engine as _;
    let patch = response.patch.clone();
    let mut review = serde_json::to_value(response.into_review())
        .map_err(|e| HttpError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    if let (Some(patch), Some(slot)) = (patch, review.pointer_mut("/response/patch")) {
        *slot = Value::String(base64::engine::general_purpose::STANDARD.encode(patch));
    }
    Ok(review)
}

enum Handler<'a> {
    Mutating(&'a std::sync::Arc<dyn Mutator>),
    Validating(&'a std::sync::Arc<dyn Validator>),
}

/// Takes `request[field]` out, `None` when absent or null.
fn take_object(request: &mut serde_json::Map<String, Value>, field: &str) -> Option<Value> {
    request.remove(field).filter(|v| !v.is_null())
}

fn deny(mut response: AdmissionResponse, status: Status) -> AdmissionResponse {
    response.allowed = false;
    response.result = status;
    response
}

/// The `Status` of a denial, shaped as the apiserver's own: `Kind.group "name" is invalid:
/// ...` with a cause per field error, or a plain forbidden message.
pub(super) fn denial_status(admission: &Admission<'_>, denial: Denial) -> Status {
    match denial {
        Denial::Forbidden(message) => Status::failure(&message, "Forbidden").with_code(403),
        Denial::Invalid(errors) => {
            let request = admission.request;
            let name = if request.name.is_empty() {
                admission
                    .object
                    .or(admission.old_object)
                    .and_then(|o| o.pointer("/metadata/name"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            } else {
                request.name.as_str()
            };
            let (kind, group) = (&request.kind.kind, &request.kind.group);
            let message = invalid_message(kind, group, name, &errors);
            let causes = errors
                .iter()
                .map(|e| StatusCause {
                    reason: e.error_type.reason().to_owned(),
                    message: e.body(),
                    field: e.field.clone(),
                })
                .collect();
            Status::failure(&message, "Invalid")
                .with_code(422)
                .with_details(StatusDetails {
                    name: name.to_owned(),
                    group: group.clone(),
                    kind: kind.clone(),
                    uid: String::new(),
                    causes,
                    retry_after_seconds: 0,
                })
        }
    }
}
