//! `#[resource(...)]`: the API a `#[derive(CustomResource)]` spec belongs to.

use darling::FromMeta;
use darling::util::SpannedValue;

use super::values::{Deprecated, KeyValue, TypeRef};

/// Everything `#[resource(...)]` accepts.
#[derive(Debug, FromMeta)]
pub struct ResourceArgs {
    pub group: SpannedValue<String>,
    pub version: SpannedValue<String>,
    pub kind: SpannedValue<String>,
    pub plural: Option<SpannedValue<String>>,
    pub singular: Option<SpannedValue<String>>,
    #[darling(multiple, rename = "shortname")]
    pub shortnames: Vec<SpannedValue<String>>,
    #[darling(multiple, rename = "category")]
    pub categories: Vec<SpannedValue<String>>,
    pub scope: Option<SpannedValue<String>>,
    pub status: Option<SpannedValue<TypeRef>>,
    pub scale: Option<SpannedValue<ScaleArgs>>,
    #[darling(multiple, rename = "printcolumn")]
    pub printcolumns: Vec<SpannedValue<PrintColumnArgs>>,
    #[darling(multiple)]
    pub selectable: Vec<SpannedValue<String>>,
    pub served: Option<bool>,
    pub storage: Option<bool>,
    /// `register = false`: kept out of the process-wide registry (crdgen, Envtest and the
    /// in-memory server's default kinds).
    pub register: Option<bool>,
    pub deprecated: Option<SpannedValue<Deprecated>>,
    #[darling(multiple, rename = "label")]
    pub labels: Vec<SpannedValue<KeyValue>>,
    #[darling(multiple, rename = "annotation")]
    pub annotations: Vec<SpannedValue<KeyValue>>,
    /// Extra derives for the generated kind, e.g. `derive = "PartialEq"`.
    #[darling(multiple)]
    pub derive: Vec<TypeRef>,
}

/// `scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas", label_selector_path = ...)`.
#[derive(Clone, Debug, FromMeta)]
pub struct ScaleArgs {
    pub spec_replicas_path: SpannedValue<String>,
    pub status_replicas_path: SpannedValue<String>,
    pub label_selector_path: Option<SpannedValue<String>>,
}

/// `printcolumn(name = "Age", json_path = ".metadata.creationTimestamp", type = "date", ...)`.
#[derive(Clone, Debug, FromMeta)]
pub struct PrintColumnArgs {
    pub name: SpannedValue<String>,
    pub json_path: SpannedValue<String>,
    #[darling(rename = "type")]
    pub type_: SpannedValue<String>,
    pub description: Option<String>,
    pub format: Option<SpannedValue<String>>,
    pub priority: Option<SpannedValue<i32>>,
}
