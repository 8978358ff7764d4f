//! Field paths, field sets and field ownership, as Kubernetes' server-side apply tracks them
//! (structured-merge-diff and the apiserver's field manager, rebuilt in Rust).
//!
//! - [`PathElement`], [`Path`] and [`Set`]: which fields a manager owns, with the set algebra
//!   and the `FieldsV1` encoding of `metadata.managedFields` ([`Set::to_fields_v1`],
//!   [`Set::from_fields_v1`]).
//! - [`schema::KindTypes`]: the types of a kind's fields, built from a CRD version's structural
//!   schema the way the apiserver builds them (lists atomic unless `x-kubernetes-list-type`
//!   says `set` or `map`, maps and structs granular unless `x-kubernetes-map-type: atomic`,
//!   `metadata` typed as `ObjectMeta`).
//! - [`typed`]: what a schema makes of a value: its field set, the fields two values differ
//!   in, the apply merge, and removing or extracting a set of fields.
//! - [`managed`]: `metadata.managedFields` entries, and the field manager that updates them
//!   for Update and Apply operations, with conflicts, `force`, the status and scale
//!   subresources.
//!
//! ```
//! use kubegen_core::fieldpath::{Path, Set};
//!
//! let set = Set::from_paths([Path::fields(["spec", "replicas"])]);
//! assert_eq!(set.to_fields_v1_string(), r#"{"f:spec":{"f:replicas":{}}}"#);
//! ```

mod element;
mod fields_v1;
pub mod managed;
mod path;
pub mod schema;
mod set;
pub mod typed;
pub mod value;

pub use element::PathElement;
pub use fields_v1::FieldsV1Error;
pub use path::Path;
pub use set::Set;
