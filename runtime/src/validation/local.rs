//! Validation without a server: `obj.validate()` and `obj.validate_update(&old)` on every
//! kind give the verdict the apiserver would give the object — the same field errors, in the
//! same `Invalid` shape — so unit tests and admission webhooks can ask before anything is
//! sent. What a server fills in is assumed: a namespaced object without a namespace is
//! checked as if created in `default`, and an update carries the old object's uid, creation
//! time and resourceVersion when the new one lacks them. (`tests/validate.rs` runs this
//! example and more.)
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

use super::{FieldError, ResourceValidator, invalid_message};
use crate::crd::CrdError;
use crate::resource::{CustomResource, Scope};
use crate::schema::defaulting::{apply_defaults, drop_nulls};

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
    /// The kind's CRD could not be built (its schema breaks the apiserver's rules).
    #[error(transparent)]
    Crd(#[from] CrdError),
    /// The object did not serialize.
    #[error("serializing the object: {0}")]
    Serialize(#[from] serde_json::Error),
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
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.to_string(),
            "reason": "Invalid",
            "details": details,
            "code": 422,
        })
    }
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
        let (validator, object) = prepared(self)?;
        verdict(&object, validator.validate_create(&object))
    }

    fn validate_update(&self, old: &Self) -> Result<(), ValidateError> {
        let (validator, mut object) = prepared(self)?;
        let (_, mut old) = prepared(old)?;
        carry_server_metadata(&mut object, &mut old);
        verdict(&object, validator.validate_update(&object, &old))
    }

    fn validate_status_update(&self, old: &Self) -> Result<(), ValidateError> {
        let (validator, mut object) = prepared(self)?;
        let (_, mut old) = prepared(old)?;
        carry_server_metadata(&mut object, &mut old);
        verdict(&object, validator.validate_status_update(&object, &old))
    }
}

/// The verdict on creating `object` (no `old`) or replacing `old` with it, with the
/// warnings the apiserver sends beside it (ratcheted CEL errors on an update): what
/// [`Validate`] answers, for admission webhooks that pass the warnings on.
#[cfg(feature = "webhook")]
pub(crate) fn check<K: CustomResource + Serialize>(
    object: &K,
    old: Option<&K>,
) -> Result<(Result<(), Invalid>, Vec<String>), ValidateError> {
    let (validator, mut object) = prepared(object)?;
    let checked = match old {
        None => validator.check_create(&object),
        Some(old) => {
            let (_, mut old) = prepared(old)?;
            carry_server_metadata(&mut object, &mut old);
            validator.check_update(&object, &old)
        }
    };
    let verdict = match verdict(&object, checked.errors) {
        Ok(()) => Ok(()),
        Err(ValidateError::Invalid(invalid)) => Err(invalid),
        Err(other) => return Err(other),
    };
    Ok((verdict, checked.warnings))
}

/// What the apiserver fills in on an update before validating it: the stored object's uid,
/// creation time and namespace, and a resourceVersion (which a client sends and objects
/// built locally lack).
fn carry_server_metadata(new: &mut Value, old: &mut Value) {
    for key in ["uid", "creationTimestamp", "namespace", "resourceVersion"] {
        if new["metadata"].get(key).is_none_or(Value::is_null)
            && let Some(v) = old["metadata"].get(key).cloned()
        {
            new["metadata"][key] = v;
        }
    }
    for object in [new, old] {
        if object["metadata"]["resourceVersion"]
            .as_str()
            .is_none_or(str::is_empty)
        {
            object["metadata"]["resourceVersion"] = json!("1");
        }
    }
}

/// The kind's validator and the object as the apiserver would hold it before validating:
/// its JSON with disallowed nulls dropped and schema defaults applied, in a namespace (a
/// namespaced kind's objects get the request's when they name none).
fn prepared<K: CustomResource + Serialize>(
    object: &K,
) -> Result<(Arc<Prepared>, Value), ValidateError> {
    let prepared = prepared_kind::<K>()?;
    let mut json = serde_json::to_value(object)?;
    drop_nulls(&prepared.schema, &mut json);
    apply_defaults(&prepared.schema, &mut json);
    if K::INFO.scope == Scope::Namespaced
        && json["metadata"]["namespace"]
            .as_str()
            .is_none_or(str::is_empty)
    {
        json["metadata"]["namespace"] = json!("default");
    }
    Ok((prepared, json))
}

fn verdict(object: &Value, causes: Vec<FieldError>) -> Result<(), ValidateError> {
    if causes.is_empty() {
        return Ok(());
    }
    let kind = object["kind"].as_str().unwrap_or("");
    let group = object["apiVersion"]
        .as_str()
        .and_then(|v| v.rsplit_once('/'))
        .map(|(g, _)| g)
        .unwrap_or("");
    Err(ValidateError::Invalid(Invalid {
        group: group.to_owned(),
        kind: kind.to_owned(),
        name: object["metadata"]["name"].as_str().unwrap_or("").to_owned(),
        causes,
    }))
}

/// A kind's schema, its compiled validator, and (built when first asked for) the field types
/// server-side apply tracks ownership with.
pub(crate) struct Prepared {
    schema: Value,
    validator: ResourceValidator,
    field_types: OnceLock<crate::fieldpath::schema::Schema>,
}

impl Prepared {
    /// The kind's field types, as the apiserver builds them from its CRD schema.
    pub(crate) fn field_types(&self) -> &crate::fieldpath::schema::Schema {
        self.field_types
            .get_or_init(|| crate::fieldpath::schema::Schema::from_openapi_or_deduced(&self.schema))
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
    static KINDS: OnceLock<Mutex<HashMap<usize, Arc<Prepared>>>> = OnceLock::new();
    // `INFO` is one static per kind and version: its address names the kind.
    let key = std::ptr::from_ref(K::INFO) as usize;
    let kinds = KINDS.get_or_init(Default::default);
    if let Some(found) = kinds.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(found.clone());
    }
    let crd = K::crd()?;
    let schema = crd
        .spec
        .versions
        .first()
        .and_then(|v| v.schema.as_ref())
        .and_then(|s| serde_json::to_value(&s.open_api_v3_schema).ok())
        .unwrap_or(Value::Null);
    let info = K::INFO;
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
