//! The kinds requests are fuzzed on: one namespaced kind with a field of every JSON type the
//! apiserver treats apart (int32, int64, number, string, a `map` list, a nested struct, a
//! preserve-unknown-fields value) and the status subresource, and one cluster-scoped kind.

use std::collections::BTreeMap;

use kubegen::prelude::*;

/// A namespaced kind with every field type.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "fuzz.kubegen.dev",
    version = "v1",
    kind = "Widget",
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<String>,
    #[validate(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub i32: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub i64: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<bool>,
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nested: Option<Nested>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[schema(preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free: Option<serde_json::Value>,
}

/// A keyed list item.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Item {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<i64>,
}

/// A nested struct.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Nested {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// The observed state.
#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
}

/// A cluster-scoped kind.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "fuzz.kubegen.dev",
    version = "v1",
    kind = "Gadget",
    scope = "Cluster"
)]
pub struct GadgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<String>,
}
