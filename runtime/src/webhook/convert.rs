//! `POST /convert`: `ConversionReview`s answered through registered [`Converter`]s.

use kube_core::Status;
use kube_core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde_json::Value;

use super::registry::Webhooks;
use super::response::{HttpError, check_review_type};
pub use crate::convert::ConversionError;
use crate::convert::{failure_message, review_failure};

/// Converts one object of a kind between the kind's versions. Register one per group and kind
/// with [`Webhooks::converter`]; generated hub-and-spoke conversions implement it, and so does
/// any `Fn(Value, &str) -> Result<Value, ConversionError>`.
///
/// The server calls it only for objects not already at the desired version, and checks what
/// it returns as the apiserver does: the desired `apiVersion`, the same `kind`, and the same
/// name, namespace and uid.
///
/// The apiserver also sends *partial* objects: during server-side apply its field manager
/// converts objects pruned to some managers' fields, without `metadata` or required fields,
/// and keeps or removes fields by what comes back. A converter must convert exactly what is
/// there — nothing dropped, nothing invented — and return an object with `metadata`
/// (the generated conversions do, see [`crate::convert::convert`]).
pub trait Converter: Send + Sync + 'static {
    /// Converts `object` (a whole object, `apiVersion` and `metadata` included) to
    /// `desired_api_version` (`group/version`).
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, ConversionError>;
}

impl<F> Converter for F
where
    F: Fn(Value, &str) -> Result<Value, ConversionError> + Send + Sync + 'static,
{
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, ConversionError> {
        self(object, desired_api_version)
    }
}

/// `apiextensions.k8s.io/v1`, the only `ConversionReview` version served.
const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";

/// Answers a `ConversionReview` body. A body that is no `ConversionReview` v1 request is an
/// HTTP error; a review whose objects cannot all be converted is answered with
/// `result.status: Failure` and no objects, as the apiserver expects.
pub(super) fn review(webhooks: &Webhooks, body: &[u8]) -> Result<ConversionReview, HttpError> {
    let value: Value = serde_json::from_slice(body).map_err(HttpError::malformed)?;
    check_review_type(&value, REVIEW_API_VERSION, "ConversionReview")?;
    let review: ConversionReview = serde_json::from_value(value).map_err(HttpError::malformed)?;
    let mut request = ConversionRequest::from_review(review).map_err(HttpError::malformed)?;
    let desired = request.desired_api_version.clone();
    let objects = std::mem::take(&mut request.objects);
    let response = ConversionResponse::for_request(request);
    let converted = objects
        .into_iter()
        .enumerate()
        .map(|(i, object)| convert_one(webhooks, object, &desired, i))
        .collect::<Result<Vec<_>, _>>();
    Ok(match converted {
        Ok(objects) => response.success(objects),
        Err(message) => {
            tracing::debug!(%message, "conversion failed");
            response.failure(Status::failure(&message, ""))
        }
    }
    .into_review())
}

/// The group of a `group/version` (empty for the core group's bare `version`).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

fn str_at<'a>(object: &'a Value, pointer: &str) -> Option<&'a str> {
    object.pointer(pointer).and_then(Value::as_str)
}

/// Object `index` of a review converted to `desired`, or the review's failure message.
fn convert_one(
    webhooks: &Webhooks,
    object: Value,
    desired: &str,
    index: usize,
) -> Result<Value, String> {
    let fail = |cause: String| review_failure(index, desired, &cause);
    let api_version = str_at(&object, "/apiVersion")
        .ok_or_else(|| fail("the object has no apiVersion".into()))?;
    let kind = str_at(&object, "/kind")
        .ok_or_else(|| fail("the object has no kind".into()))?
        .to_owned();
    if api_version == desired {
        return Ok(object);
    }
    let group = group_of(api_version).to_owned();
    if group_of(desired) != group {
        return Err(fail(format!(
            "{kind} is in group {group:?}, not in {desired}'s group"
        )));
    }
    let converter = webhooks.converter_for(&group, &kind).ok_or_else(|| {
        fail(format!(
            "no converter is registered for kind {kind} in group {group:?}"
        ))
    })?;
    let identity = ["/metadata/name", "/metadata/namespace", "/metadata/uid"]
        .map(|p| str_at(&object, p).map(str::to_owned));
    let from = api_version.to_owned();
    let converted = converter
        .convert(object, desired)
        .map_err(|e| failure_message(index, desired, &kind, &from, &e))?;
    let got = str_at(&converted, "/apiVersion").unwrap_or("");
    if got != desired {
        return Err(fail(format!(
            "the converter for {kind} returned apiVersion {got:?}, not {desired:?}"
        )));
    }
    if str_at(&converted, "/kind") != Some(kind.as_str()) {
        return Err(fail(format!("the converter for {kind} changed the kind")));
    }
    let after = ["/metadata/name", "/metadata/namespace", "/metadata/uid"]
        .map(|p| str_at(&converted, p).map(str::to_owned));
    if after != identity {
        return Err(fail(format!(
            "the converter for {kind} changed the name, namespace or uid"
        )));
    }
    Ok(converted)
}
