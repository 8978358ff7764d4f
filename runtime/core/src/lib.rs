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

/// What generated code reaches through `::kubegen::__private` (kubegen-runtime adds kube for
/// the typed clients). Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::api_fields::{
        FieldsOf, ListOf, NoApiFields, check_items_correlate, check_list_map_key, check_rule_field,
    };
    pub use crate::apply::wire as apply_wire;
    pub use crate::convert::checks::{check_hub_fields, check_hub_kind, check_spoke_field};
    pub use crate::convert::dynamic::{value_from_hub, value_to_hub};
    pub use crate::convert::identity as convert_identity;
    pub use crate::convert::kind::{from_hub, to_hub};
    pub use crate::deepcopy::{DeepCopyProbe, ViaClone, ViaDeepCopy};
    pub use crate::defaults::{DefaultsProbe, NoDefaults, ViaDefaults};
    pub use crate::registry::Registration;
    pub use crate::resource::{
        HasScaleSubresource, HasStatusSubresource, deserialize_object, serialize_object,
    };
    pub use crate::schema;
    pub use inventory;
    pub use k8s_openapi;
    pub use kube_core;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
