//! The apiserver's validation machinery below the kinds: field errors, the OpenAPI schema
//! validator, formats, list types, `metadata`, names, CEL rules, and what the apiserver does
//! to a request body before its strategy runs (decoding, defaulting, stripping). Its items
//! are [`validation`](crate::validation)'s; this module holds them apart from the checks of
//! a kind's typed objects, which build on CRDs and the registry above it.

pub mod cel;
#[doc(hidden)]
pub mod decode;
pub mod defaulting;
pub mod field;
pub mod formats;
#[doc(hidden)]
pub mod go_net;
#[doc(hidden)]
pub mod go_url;
pub mod listtype;
mod maplist;
#[doc(hidden)]
pub mod names;
mod numbers;
pub mod objectmeta;
pub mod openapi;
#[doc(hidden)]
pub mod request;
pub mod schema;
mod values;

use serde_json::Value;

pub use decode::FieldValidation;
pub use field::{BadValue, ErrorType, FieldError, NIL_PATH, aggregate, invalid_message};
pub use names::NameRule;
pub use schema::Schema;

use crate::kind_info::ScaleInfo;

/// The message the apiserver adds when CEL rules were not run because of other errors.
pub const CEL_SKIPPED: &str = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/// Validates one version of one custom resource kind, as the apiserver's custom resource
/// strategy does on create, update and status update.
#[derive(Debug)]
pub struct ResourceValidator {
    group: String,
    version: String,
    kind: String,
    namespaced: bool,
    schema: Schema,
    scale: Option<ScaleInfo>,
    rules: cel::Validator,
}

/// A verdict with the warnings the apiserver sends beside it: errors of CEL rules on values
/// an update did not change are ratcheted into warnings.
pub type Checked = cel::Outcome;

impl ResourceValidator {
    /// A validator for `group/version` `kind` with the version's `openAPIV3Schema` and, when
    /// the kind has a scale subresource, its replica paths.
    pub fn new(
        group: &str,
        version: &str,
        kind: &str,
        namespaced: bool,
        schema: &Value,
        scale: Option<ScaleInfo>,
    ) -> Self {
        let schema = Schema::new(schema);
        ResourceValidator {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            namespaced,
            rules: cel::Validator::new(&schema),
            schema,
            scale,
        }
    }

    /// The compiled schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// `ValidateTypeMeta`: the object's kind and apiVersion are this validator's.
    fn type_meta(&self, object: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind != self.kind {
            errs.push(FieldError::invalid(
                "kind",
                BadValue::str(kind),
                format!("must be {}", self.kind),
            ));
        }
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let expected = format!("{}/{}", self.group, self.version);
        if api_version != expected {
            errs.push(FieldError::invalid(
                "apiVersion",
                BadValue::str(api_version),
                format!("must be {expected}"),
            ));
        }
        errs
    }

    /// The checks of a create (the strategy's `Validate`).
    pub fn validate_create(&self, object: &Value) -> Vec<FieldError> {
        self.check_create(object).errors
    }

    /// [`validate_create`](Self::validate_create) with the warnings (a create has none).
    pub fn check_create(&self, object: &Value) -> Checked {
        let mut errs = self.type_meta(object);
        if errs.is_empty() {
            let meta = object.get("metadata").unwrap_or(&Value::Null);
            errs.extend(objectmeta::validate(
                meta,
                self.namespaced,
                NameRule::DnsSubdomain,
                "metadata",
            ));
            errs.extend(openapi::validate(&self.schema, object, None, None));
            errs.extend(self.scale_spec(object));
            errs.extend(self.scale_status(object));
        }
        errs.extend(objectmeta::validate_embedded(&self.schema, object));
        errs.extend(listtype::validate(&self.schema, object));
        self.rules(errs, object, None)
    }

    /// The checks every update gets before the strategy's own (`validateCommonFields`).
    fn common(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let (new_meta, old_meta) = (meta(new), meta(old));
        let mut errs =
            objectmeta::validate(new_meta, self.namespaced, NameRule::PathSegment, "metadata");
        errs.extend(objectmeta::validate_update(new_meta, old_meta, "metadata"));
        errs
    }

    /// The checks of an update of the main resource (PUT, patches, apply). Errors in parts
    /// of the object that did not change are not reported (ratcheting).
    pub fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        self.check_update(new, old).errors
    }

    /// [`validate_update`](Self::validate_update) with the warnings of ratcheted CEL errors.
    pub fn check_update(&self, new: &Value, old: &Value) -> Checked {
        let mut errs = self.type_meta(new);
        if errs.is_empty() {
            errs.extend(objectmeta::validate_update(
                meta(new),
                meta(old),
                "metadata",
            ));
            errs.extend(openapi::validate(&self.schema, new, Some(old), None));
            errs.extend(self.scale_spec(new));
            errs.extend(self.scale_status(new));
        }
        errs.extend(objectmeta::validate_embedded(&self.schema, new));
        if listtype::validate(&self.schema, old).is_empty() {
            errs.extend(listtype::validate(&self.schema, new));
        }
        self.finish_update(new, old, errs)
    }

    /// The checks of a status subresource write: the schema of `status` alone, at paths
    /// under `status`, then every CEL rule of the object (those on the unchanged rest are
    /// ratcheted).
    pub fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        self.check_status_update(new, old).errors
    }

    /// [`validate_status_update`](Self::validate_status_update) with the warnings of
    /// ratcheted CEL errors.
    pub fn check_status_update(&self, new: &Value, old: &Value) -> Checked {
        let mut errs = self.type_meta(new);
        if errs.is_empty() {
            errs.extend(objectmeta::validate_update(
                meta(new),
                meta(old),
                "metadata",
            ));
            if let (Some(status), Some(schema)) =
                (new.get("status"), self.schema.property("status"))
            {
                errs.extend(openapi::validate(
                    schema,
                    status,
                    old.get("status"),
                    Some("status"),
                ));
            }
            errs.extend(self.scale_status(new));
        }
        let new_lists = listtype::validate(&self.schema, new);
        if !new_lists.is_empty() && listtype::validate(&self.schema, old).is_empty() {
            errs.extend(new_lists);
        }
        self.finish_update(new, old, errs)
    }

    /// An update's errors: the common checks', then the strategy's with the CEL rules'.
    fn finish_update(&self, new: &Value, old: &Value, errs: Vec<FieldError>) -> Checked {
        let strategy = self.rules(errs, new, Some(old));
        let mut errors = self.common(new, old);
        errors.extend(strategy.errors);
        Checked {
            errors,
            warnings: strategy.warnings,
        }
    }

    /// The CEL rules after the strategy's other checks (`hasBlockingErr`): a blocking error
    /// means they are not run, which the apiserver says in one more cause.
    fn rules(&self, mut errs: Vec<FieldError>, object: &Value, old: Option<&Value>) -> Checked {
        if !self.rules.has_rules() {
            return Checked {
                errors: errs,
                warnings: Vec::new(),
            };
        }
        let blocking = errs.iter().any(|e| {
            matches!(
                e.error_type,
                ErrorType::NotSupported
                    | ErrorType::Required
                    | ErrorType::TooLong
                    | ErrorType::TooMany
                    | ErrorType::TypeInvalid
            )
        });
        if blocking {
            errs.push(FieldError::invalid(
                NIL_PATH,
                BadValue::Json(Value::Null),
                CEL_SKIPPED,
            ));
            return Checked {
                errors: errs,
                warnings: Vec::new(),
            };
        }
        let mut checked = self.rules.validate(&self.schema, object, old);
        errs.append(&mut checked.errors);
        checked.errors = errs;
        checked
    }

    fn scale_spec(&self, object: &Value) -> Vec<FieldError> {
        match &self.scale {
            Some(scale) => replicas(object, scale.spec_replicas_path),
            None => Vec::new(),
        }
    }

    fn scale_status(&self, object: &Value) -> Vec<FieldError> {
        let Some(scale) = &self.scale else {
            return Vec::new();
        };
        let mut errs = replicas(object, scale.status_replicas_path);
        if let Some(path) = scale.label_selector_path
            && let Err(e) = nested(object, path, "string", Value::is_string)
        {
            errs.push(FieldError::invalid(path, BadValue::str(""), e));
        }
        errs
    }
}

fn meta(object: &Value) -> &Value {
    object.get("metadata").unwrap_or(&Value::Null)
}

/// `unstructured.NestedInt64`/`NestedString`: the value at a `.a.b` path, `Ok(None)` when
/// absent, an accessor error when an intermediate is not an object or the value has
/// another type.
fn nested<'a>(
    object: &'a Value,
    path: &str,
    expected: &str,
    is: fn(&Value) -> bool,
) -> Result<Option<&'a Value>, String> {
    let fields: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    let mut value = object;
    for (i, f) in fields.iter().enumerate() {
        if value.is_null() && i > 0 {
            return Ok(None);
        }
        match value {
            Value::Object(m) => match m.get(*f) {
                Some(v) => value = v,
                None => return Ok(None),
            },
            other => {
                return Err(format!(
                    ".{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                    fields[..=i].join("."),
                    crate::go_print::print(other),
                    crate::go_print::type_name(other)
                ));
            }
        }
    }
    if is(value) {
        Ok(Some(value))
    } else {
        Err(format!(
            ".{} accessor error: {} is of the type {}, expected {expected}",
            fields.join("."),
            crate::go_print::print(value),
            crate::go_print::type_name(value)
        ))
    }
}

/// The scale subresource's replica checks at `path` (`.spec.replicas`).
fn replicas(object: &Value, path: &str) -> Vec<FieldError> {
    let is_int64 = |v: &Value| v.as_i64().is_some();
    match nested(object, path, "int64", is_int64) {
        Err(e) => vec![FieldError::invalid(path, BadValue::Int(0), e)],
        Ok(Some(v)) => {
            let n = v.as_i64().unwrap_or(0);
            if n < 0 {
                vec![FieldError::invalid(
                    path,
                    BadValue::Int(n),
                    "should be a non-negative integer",
                )]
            } else if n > i64::from(i32::MAX) {
                vec![FieldError::invalid(
                    path,
                    BadValue::Int(n),
                    format!("should be less than or equal to {}", i32::MAX),
                )]
            } else {
                Vec::new()
            }
        }
        Ok(None) => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
