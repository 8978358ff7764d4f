//! kubegen-runtime: the generic code behind kubegen's generated code that talks to a
//! cluster — typed clients, caches and informers, the work queue, controllers and the
//! Manager, leader election, metrics, events, webhooks, and installing CRDs.
//!
//! It builds on `kubegen-core` (kinds, schemas, CRDs, validation, field paths, conversion,
//! apply configurations, RBAC), whose modules it re-exports at the same paths. Users depend
//! on the `kubegen` facade crate, which re-exports this crate and the derives. Each module
//! mirrors one generator in `kubegen-derive`: the derive names types and fixes field lists;
//! the logic lives here, once, where it is tested.

// docs.rs (and CI's docs build) mark what each feature gates.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub)]

pub mod builtin;
pub mod cache;
pub mod client;
#[cfg(any(feature = "webhook", feature = "manager"))]
mod connection;
pub mod controller;
pub mod crd;
pub mod events;
pub mod informer;
pub mod leaderelection;
#[cfg(feature = "manager")]
pub mod manager;
pub mod metrics;
#[cfg(feature = "webhook")]
pub mod webhook;
pub mod workqueue;

// What knows about kinds without I/O lives in kubegen-core, re-exported at the same paths.
#[doc(inline)]
pub use kubegen_core::{
    ApiFields, CrdError, CustomResource, DeepCopy, Defaults, FieldInfo, List, PrinterColumn,
    ResourceInfo, ScaleInfo, Scope, apply, convert, crdgen, deepcopy, defaults, fieldpath, rbac,
    registry, resource, schema, selector, validation, webhook_paths,
};

/// What generated code reaches through `::kubegen::__private`: kubegen-core's, and kube for
/// the typed clients. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use kube;
    pub use kubegen_core::__private::*;
}
