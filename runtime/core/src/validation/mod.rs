//! Local validation of custom resources, as kube-apiserver v1.36 validates them: the same
//! verdicts and the same field errors (type, field, value, message), in the same order.
//!
//! [`ResourceValidator`] is the apiextensions-apiserver's custom resource strategy: type
//! meta, `metadata`, the OpenAPI schema (a port of kube-openapi's validator, [`openapi`]),
//! the scale subresource's replica paths, embedded resources' metadata, list types, and the
//! CEL rules (`x-kubernetes-validations`, [`cel`]) — or, after a blocking error, the cause
//! that tells they were skipped. Errors are apimachinery's [`FieldError`]s;
//! [`invalid_message`] builds the `Invalid` status message from them.
//!
//! Around it, what the apiserver does to a request before its strategy runs: the body
//! decoded (`decode`), named, stripped and defaulted (`request`). [`Validate`] runs the whole
//! of it on a kind's typed objects, [`validate_json`] and [`validate_yaml`] on raw ones, and the
//! in-memory server on every write.
//!
//! ```
//! use kubegen_core::validation::ResourceValidator;
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
//!     "title": {"type": "string", "maxLength": 5}}}}});
//! let v = ResourceValidator::new("example.com", "v1", "Book", true, &schema, None);
//! let book = json!({"apiVersion": "example.com/v1", "kind": "Book",
//!     "metadata": {"name": "b", "namespace": "default"}, "spec": {"title": "too long"}});
//! let errors = v.validate_create(&book);
//! assert_eq!(errors[0].to_string(), "spec.title: Too long: may not be more than 5 bytes");
//! ```

pub use crate::checks::*;

pub(crate) mod local;
mod raw;

#[doc(hidden)]
pub use local::check as check_locally;
pub use local::{Invalid, Refusal, Validate, ValidateError};
pub use raw::{
    Accepted, validate_json, validate_json_status_update, validate_json_update, validate_yaml,
};
