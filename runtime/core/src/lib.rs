//! kubegen-core: what kubegen knows about kinds, with no I/O.
//!
//! Kinds and their registry, OpenAPI schemas and CRDs, validation as the apiserver does it
//! (with CEL), structured-merge-diff's field paths and managed fields, conversion between
//! versions, apply configurations and RBAC rules. It has no tokio, hyper or HTTP client:
//! `kubegen-runtime` builds the clients, caches, controllers and test servers on it.
//!
//! Users depend on the `kubegen` facade crate, which re-exports this crate's modules at
//! the same paths.

// docs.rs (and CI's docs build) mark what each feature gates.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub)]

#[doc(hidden)]
pub mod api_fields;
pub mod apply;
#[doc(hidden)]
pub mod checks;
pub mod convert;
pub mod crd;
#[doc(hidden)]
pub mod crd_build;
pub mod deepcopy;
pub mod defaults;
pub mod fieldpath;
#[doc(hidden)]
pub mod go_print;
#[doc(hidden)]
pub mod kind_info;
pub mod rbac;
pub mod registry;
pub mod resource;
pub mod schema;
pub mod selector;
pub mod validation;
pub mod webhook_paths;

pub use api_fields::{ApiFields, FieldInfo};
pub use crd::{CrdError, crdgen};
pub use deepcopy::DeepCopy;
pub use defaults::Defaults;
pub use resource::{CustomResource, List, PrinterColumn, ResourceInfo, ScaleInfo, Scope};
