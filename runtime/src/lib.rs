//! kubegen-runtime: the generic code behind kubegen's generated code.
//!
//! Users depend on the `kubegen` facade crate, which re-exports this crate and the derives.
//! Each module mirrors one generator in `kubegen-derive`: the derive names types and fixes
//! field lists; the logic lives here, once, where it is tested.

// docs.rs (and CI's docs build) mark what each feature gates.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub)]

mod api_fields;
pub mod apply;
pub mod builtin;
pub mod cache;
pub mod client;
#[cfg(any(feature = "webhook", feature = "manager"))]
mod connection;
pub mod controller;
pub mod convert;
pub mod crd;
pub mod deepcopy;
pub mod defaults;
pub mod events;
pub mod fieldpath;
mod go_print;
pub mod informer;
mod kind_info;
pub mod leaderelection;
#[cfg(feature = "manager")]
pub mod manager;
pub mod metrics;
pub mod rbac;
pub mod registry;
pub mod resource;
pub mod schema;
pub mod selector;
#[cfg(feature = "testing")]
pub mod testing;
pub mod validation;
#[cfg(feature = "webhook")]
pub mod webhook;
pub mod webhook_paths;
pub mod workqueue;

pub use api_fields::{ApiFields, FieldInfo};
pub use crd::{CrdError, crdgen};
pub use deepcopy::DeepCopy;
pub use defaults::Defaults;
pub use resource::{CustomResource, List, PrinterColumn, ResourceInfo, ScaleInfo, Scope};

/// What generated code reaches through `::kubegen::__private`. Not a public API.
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
    pub use crate::resource::{deserialize_object, serialize_object};
    pub use crate::schema;
    pub use inventory;
    pub use k8s_openapi;
    pub use kube;
    pub use kube_core;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
