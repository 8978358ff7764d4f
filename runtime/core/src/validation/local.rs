//! Validation without a server: `obj.validate()` and `obj.validate_update(&old)` on every
//! kind give the verdict the apiserver would give the object — the same field errors, in the
//! same `Invalid` shape — so unit tests and admission webhooks can ask before anything is
//! sent. They run what [`validate_json`](super::validate_json) runs on raw objects, on what
//! the type serializes to (see there for what a server fills in). (`tests/validate.rs` runs
//! this example and more.)
//!
//! ```ignore
//! use kubegen::prelude::*;
//!
//! #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #[resource(group = "example.com", version = "v1", kind = "Widget")]
//! pub struct WidgetSpec {
//!     #[validate(maximum = 10)]
//!     pub size: i32,
//! }
//!
//! let widget = Widget::new("w", WidgetSpec { size: 11 });
//! let invalid = widget.validate().unwrap_err().into_invalid().unwrap();
//! assert_eq!(
//!     invalid.to_string(),
//!     "Widget.example.com \"w\" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"
//! );
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::{Value, json};

use super::raw;
use crate::checks::{FieldError, FieldValidation, ResourceValidator, invalid_message};
use crate::crd::CrdError;
use crate::resource::{CustomResource, ResourceInfo, Scope};

/// Validation of a kind's objects as the apiserver validates them; implemented for every
/// kind (`use kubegen::prelude::*` brings it in).
pub trait Validate {
    /// The verdict on creating this object.
    fn validate(&self) -> Result<(), ValidateError>;
    /// The verdict on replacing `old` with this object (ratcheting and transition rules
    /// included).
    fn validate_update(&self, old: &Self) -> Result<(), ValidateError>;
    /// The verdict on writing this object's `status` through the status subresource, over
    /// `old`.
    fn validate_status_update(&self, old: &Self) -> Result<(), ValidateError>;
}

/// Why an object was not found valid.
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    /// The apiserver would refuse it with these causes.
    #[error("{0}")]
    Invalid(Invalid),
    /// The apiserver would refuse the request before validating the object (it does not
    /// decode, it names another version or object, a precondition failed).
    #[error("{0}")]
    Refused(Refusal),
    /// The kind's CRD could not be built (its schema breaks the apiserver's rules).
    #[error(transparent)]
    Crd(#[from] CrdError),
    /// The object did not serialize.
    #[error("serializing the object: {0}")]
    Serialize(#[from] serde_json::Error),
    /// A YAML document did not parse.
    #[error("reading YAML: {0}")]
    Yaml(#[from] serde_yaml_ng::Error),
    /// A document names a kind no `#[derive(CustomResource)]` in this program registered.
    #[error("no kubegen kind {kind} in {api_version} is registered in this program")]
    UnknownKind {
        /// The document's `apiVersion`.
        api_version: String,
        /// The document's `kind`.
        kind: String,
    },
}

impl ValidateError {
    /// The apiserver's verdict, when that is what this is.
    pub fn into_invalid(self) -> Option<Invalid> {
        match self {
            ValidateError::Invalid(invalid) => Some(invalid),
            _ => None,
        }
    }
}

/// A request the apiserver refuses before its strategy validates the object: the
/// `Status` it answers with, without causes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status: 400 for a body that does not decode or names another object, 409
    /// for a failed precondition.
    pub code: u16,
    /// `BadRequest` or `Conflict`.
    pub reason: &'static str,
    /// The apiserver's message.
    pub message: String,
}

impl Refusal {
    pub(crate) fn bad_request(message: String) -> ValidateError {
        ValidateError::Refused(Refusal {
            code: 400,
            reason: "BadRequest",
            message,
        })
    }

    pub(crate) fn conflict(info: &ResourceInfo, name: &str, why: &str) -> ValidateError {
        ValidateError::Refused(Refusal {
            code: 409,
            reason: "Conflict",
            message: format!(
                "Operation cannot be fulfilled on {}.{} \"{name}\": {why}",
                info.plural, info.group
            ),
        })
    }

    /// The `Status` the apiserver answers with.
    pub fn to_status(&self) -> Value {
        failure(self.code, self.reason, &self.message, None)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The apiserver's `Invalid` verdict on an object: the qualified kind, the name and the
/// field errors, in its order.
#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    /// The API group.
    pub group: String,
    /// The object's kind.
    pub kind: String,
    /// The object's name.
    pub name: String,
    /// Every field error.
    pub causes: Vec<FieldError>,
}

impl Invalid {
    /// The `Status` the apiserver answers with (code 422, reason `Invalid`), for an
    /// admission webhook's response or a test's comparison.
    pub fn to_status(&self) -> Value {
        let causes: Vec<Value> = self.causes.iter().map(FieldError::cause).collect();
        let mut details = json!({"group": self.group, "kind": self.kind, "causes": causes});
        if !self.name.is_empty() {
            details["name"] = json!(self.name);
        }
        failure(422, "Invalid", &self.to_string(), Some(details))
    }
}

/// A failure `Status` as the apiserver writes it.
fn failure(code: u16, reason: &str, message: &str, details: Option<Value>) -> Value {
    let mut status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(details) = details {
        status["details"] = details;
    }
    status
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&invalid_message(
            &self.kind,
            &self.group,
            &self.name,
            &self.causes,
        ))
    }
}

impl std::error::Error for Invalid {}

impl<K: CustomResource + Serialize> Validate for K {
    fn validate(&self) -> Result<(), ValidateError> {
        let object = serde_json::to_value(self)?;
        raw::create(K::INFO, object, FieldValidation::Ignore).map(drop)
    }

    fn validate_update(&self, old: &Self) -> Result<(), ValidateError> {
        let (object, old) = (serde_json::to_value(self)?, serde_json::to_value(old)?);
        raw::update(K::INFO, object, old, FieldValidation::Ignore).map(drop)
    }

    fn validate_status_update(&self, old: &Self) -> Result<(), ValidateError> {
        let (object, old) = (serde_json::to_value(self)?, serde_json::to_value(old)?);
        raw::status_update(K::INFO, object, old, FieldValidation::Ignore).map(drop)
    }
}

/// The verdict on creating `object` (no `old`) or replacing `old` with it, with the
/// warnings the apiserver sends beside it (ratcheted CEL errors on an update): what
/// [`Validate`] answers, for admission webhooks that pass the warnings on.
#[doc(hidden)]
pub fn check<K: CustomResource + Serialize>(
    object: &K,
    old: Option<&K>,
) -> Result<(Result<(), Invalid>, Vec<String>), ValidateError> {
    let object = serde_json::to_value(object)?;
    let checked = match old {
        None => raw::create(K::INFO, object, FieldValidation::Ignore),
        Some(old) => raw::update(
            K::INFO,
            object,
            serde_json::to_value(old)?,
            FieldValidation::Ignore,
        ),
    };
    match checked {
        Ok(accepted) => Ok((Ok(()), accepted.warnings)),
        Err(ValidateError::Invalid(invalid)) => Ok((Err(invalid), Vec::new())),
        Err(other) => Err(other),
    }
}

/// `Invalid` with `causes`, qualified as the apiserver qualifies it: the kind's group, the
/// object's kind and name.
pub(crate) fn verdict(
    info: &ResourceInfo,
    object: &Value,
    causes: Vec<FieldError>,
) -> Result<(), ValidateError> {
    if causes.is_empty() {
        return Ok(());
    }
    Err(ValidateError::Invalid(Invalid {
        group: info.group.to_owned(),
        kind: object["kind"].as_str().unwrap_or(info.kind).to_owned(),
        name: object["metadata"]["name"].as_str().unwrap_or("").to_owned(),
        causes,
    }))
}

/// A kind's schema, its compiled validator, and (built when first asked for) the field types
/// server-side apply tracks ownership with.
pub(crate) struct Prepared {
    pub(crate) schema: Value,
    validator: ResourceValidator,
    field_types: OnceLock<crate::fieldpath::schema::KindTypes>,
}

impl Prepared {
    /// The kind's field types, as the apiserver builds them from its CRD schema.
    pub(crate) fn field_types(&self) -> &crate::fieldpath::schema::KindTypes {
        self.field_types.get_or_init(|| {
            crate::fieldpath::schema::KindTypes::from_openapi_or_deduced(&self.schema)
        })
    }
}

impl std::ops::Deref for Prepared {
    type Target = ResourceValidator;
    fn deref(&self) -> &ResourceValidator {
        &self.validator
    }
}

/// Each kind's schema is built and compiled once per process.
pub(crate) fn prepared_kind<K: CustomResource>() -> Result<Arc<Prepared>, CrdError> {
    prepared(K::INFO)
}

/// The schema and validator of the kind version `info` describes, built once per process.
pub(crate) fn prepared(info: &'static ResourceInfo) -> Result<Arc<Prepared>, CrdError> {
    static KINDS: OnceLock<Mutex<HashMap<usize, Arc<Prepared>>>> = OnceLock::new();
    // `ResourceInfo`s are statics, one per kind and version: the address names the version.
    let key = std::ptr::from_ref(info) as usize;
    let kinds = KINDS.get_or_init(Default::default);
    if let Some(found) = kinds.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(found.clone());
    }
    let crd = crate::crd::build(&[info])?;
    let schema = crd
        .spec
        .versions
        .first()
        .and_then(|v| v.schema.as_ref())
        .and_then(|s| serde_json::to_value(&s.open_api_v3_schema).ok())
        .unwrap_or(Value::Null);
    let validator = ResourceValidator::new(
        info.group,
        info.version,
        info.kind,
        info.scope == Scope::Namespaced,
        &schema,
        info.scale,
    );
    let prepared = Arc::new(Prepared {
        schema,
        validator,
        field_types: OnceLock::new(),
    });
    kinds
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, prepared.clone());
    Ok(prepared)
}
