//! Types whose serde attributes change what serde reads, each followed by the schema: a
//! variant serde never reads and aliases, types that refuse unknown fields inside unions, a
//! flattened optional struct and a flattened map. The decode suite's `Reads` kind and the
//! conformance suite's `Reading` kind hold them.

use std::collections::BTreeMap;

use kubegen::prelude::*;
use serde_json::Value;

/// Every union of types that refuse unknown fields, each optional; kinds flatten it into
/// their specs.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct ClosedUnions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ClosedShape>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<ClosedEndpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<ClosedStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
}

/// A string enum with a variant serde never reads (it is not in the schema) and aliases.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Pace {
    #[serde(alias = "Quick", alias = "Rapid")]
    Fast,
    Slow,
    #[serde(skip_deserializing)]
    Legacy,
}

/// Internally tagged, refusing unknown fields: a variant refuses the others' fields (but a
/// unit variant ignores them, as serde does); a variant read under an alias too.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields, rename_all_fields = "camelCase")]
pub enum ClosedShape {
    Circle {
        radius_m: u32,
    },
    Square {
        side: u32,
        #[serde(default)]
        rounded: bool,
    },
    #[serde(alias = "Box")]
    Rect {
        side: u32,
        height: u32,
    },
    Empty,
}

/// Untagged, refusing unknown fields: serde takes the first variant that has all its
/// required fields and no other.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum ClosedEndpoint {
    Host {
        host: String,
        port: u16,
    },
    Path {
        path: String,
        #[serde(default)]
        port: u16,
    },
}

/// Adjacently tagged, refusing unknown fields in the content.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", content = "with", deny_unknown_fields)]
pub enum ClosedStep {
    Scale {
        replicas: i32,
    },
    Label {
        key: String,
        #[serde(default)]
        overwrite: bool,
    },
    Pause,
}

/// Internally tagged, one variant holding a struct that refuses unknown fields.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Bound {
    Limited(Limits),
    Open { note: Option<String> },
}

/// Refuses unknown fields (the apiserver prunes them first).
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub max: u32,
    #[serde(default)]
    pub min: u32,
}

/// Flattened into the spec as an `Option`.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Tuning {
    pub cpu: u32,
    #[serde(default)]
    pub burst: bool,
}

/// A name beside any other fields, kept as JSON.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct OpenLabels {
    pub name: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}
