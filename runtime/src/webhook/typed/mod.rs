//! Typed admission: defaulting and validating webhooks written against a kind's Rust type
//! rather than its JSON.
//!
//! [`Webhooks::defaulter`] decodes the object into the kind, applies its declared defaults
//! (`set_defaults`), calls the author's [`Defaulter`], and answers with a patch carrying only
//! what changed — fields the kind's type does not know stay as the apiserver sent them.
//! [`Webhooks::typed_validator`] calls a [`TypedValidator`] with the decoded new and old
//! objects, per operation; [`LocalValidation`] runs the kind's own schema and CEL
//! validation (`obj.validate()`) first.
//!
//! ```no_run
//! # use kubegen_runtime::webhook::{Admission, LocalValidation, TypedValidator, Verdict, Webhooks};
//! # use kubegen_runtime::validation::FieldError;
//! # use k8s_openapi::api::core::v1::ConfigMap as Widget;
//! struct Immutable;
//! impl TypedValidator<Widget> for Immutable {
//!     fn validate_create(&self, _: &Admission<'_>, _: &Widget) -> Verdict {
//!         Verdict::allow()
//!     }
//!     fn validate_update(&self, _: &Admission<'_>, old: &Widget, new: &Widget) -> Verdict {
//!         if old.data != new.data {
//!             return Verdict::from_errors(vec![FieldError::forbidden("data", "field is immutable")]);
//!         }
//!         Verdict::allow()
//!     }
//! }
//! let webhooks = Webhooks::new().typed_validator::<Widget>(Immutable);
//! ```

mod defaulting;
mod validating;

pub use defaulting::Defaulter;
pub use validating::{LocalValidation, TypedValidator};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::admission::{Denial, Verdict};
use crate::validation::{BadValue, FieldError, NIL_PATH};

/// A denial for a failure of the webhook itself rather than of the object (a kind whose
/// schema does not build, an object that does not serialize): `field.InternalError`.
fn internal_error(message: String) -> Verdict {
    Verdict {
        denial: Some(Denial::Invalid(vec![FieldError::internal(
            NIL_PATH, message,
        )])),
        warnings: Vec::new(),
    }
}

/// Decodes an admission object as `K`. An object that does not decode is answered as the
/// apiserver answers an object of the wrong shape: a 422 `Invalid` with one cause at the
/// field that failed — `Required value` for a missing field, `Invalid value` with serde's
/// message for a value of the wrong type (the apiserver's own 400 `BadRequest` decode errors
/// are for bodies that are not JSON at all, which never reach a webhook).
pub(crate) fn decode<K: DeserializeOwned>(
    object: &Value,
    kind: &str,
    which: &str,
) -> Result<K, FieldError> {
    match K::deserialize(object) {
        Ok(decoded) => Ok(decoded),
        // Decoding again only to learn where it failed keeps path tracking off the fast path.
        Err(plain) => Err(match serde_path_to_error::deserialize::<_, K>(object) {
            Ok(_) => FieldError::invalid(NIL_PATH, BadValue::Json(Value::Null), plain.to_string()),
            Err(error) => decode_error(object, kind, which, &error),
        }),
    }
}

fn decode_error(
    object: &Value,
    kind: &str,
    which: &str,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> FieldError {
    use serde_path_to_error::Segment;
    let mut field = String::new();
    let mut value = Some(object);
    for segment in error.path().iter() {
        match segment {
            Segment::Map { key } => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(key);
                value = value.and_then(|v| v.get(key));
            }
            Segment::Seq { index } => {
                field.push_str(&format!("[{index}]"));
                value = value.and_then(|v| v.get(index));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.inner().to_string();
    if let Some(missing) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let path = if field.is_empty() {
            missing.to_owned()
        } else {
            format!("{field}.{missing}")
        };
        return FieldError::required(&path, format!("the {which} does not decode as {kind}"));
    }
    let path = if field.is_empty() { NIL_PATH } else { &field };
    let value = value.map_or(BadValue::Json(Value::Null), BadValue::of);
    FieldError::type_invalid(
        path,
        value,
        format!("the {which} does not decode as {kind}: {message}"),
    )
}

/// An `AdmissionRequest` for a ConfigMap, for the unit tests of both adapters.
#[cfg(test)]
fn test_request(
    operation: &str,
) -> kube_core::admission::AdmissionRequest<kube_core::DynamicObject> {
    use kube_core::DynamicObject;
    use kube_core::admission::AdmissionReview;
    use serde_json::json;

    let review: AdmissionReview<DynamicObject> = serde_json::from_value(json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "u",
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "operation": operation,
            "userInfo": {},
        },
    }))
    .unwrap();
    review.try_into().unwrap()
}
