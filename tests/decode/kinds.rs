//! Test kinds covering every shape kubegen writes a schema for, so the property test sees
//! each one: the enum representations, flatten, maps, nested and keyed lists, the k8s-openapi
//! scalar types, every validated format, embedded Kubernetes types and objects,
//! preserve-unknown-fields, defaults and nullable fields.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::{ObjectReference, Probe, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, MicroTime, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::prelude::*;
use serde_json::Value;

use crate::fixtures::reads::{ClosedUnions, Limits, OpenLabels, Pace, Tuning};

/// Every way serde writes an enum.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "decode.kubegen.dev", version = "v1", kind = "Unions")]
#[serde(rename_all = "camelCase")]
pub struct UnionsSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<External>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal: Option<Internal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjacent: Option<Adjacent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<PortRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<Open>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<Target>,
    /// An internally tagged enum flattened into the spec.
    #[serde(flatten)]
    pub mode: Mode,
}

/// Externally tagged: `{"http": {...}}` or `{"exec": {...}}`.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum External {
    Http {
        url: String,
        #[serde(default)]
        retries: u8,
    },
    Exec(Command),
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Command {
    #[validate(min_items = 1)]
    pub argv: Vec<String>,
}

/// Internally tagged by `type`, with a unit variant.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Internal {
    Circle {
        #[validate(minimum = 0, exclusive_minimum)]
        radius: f64,
    },
    Square {
        side: u32,
    },
    Empty,
}

/// Adjacently tagged: `{"kind": "A", "spec": {...}}`.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", content = "spec")]
pub enum Adjacent {
    A { x: i16 },
    B { y: String, z: Option<bool> },
    C,
}

/// Untagged struct variants: serde takes the first that decodes.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Target {
    Host { host: String, port: u16 },
    Path { path: String },
}

/// Untagged, one variant a map.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Selector {
    ByName { name: String },
    ByLabels { labels: BTreeMap<String, String> },
}

/// Untagged integer-or-string.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PortRef {
    Number(u16),
    Name(String),
}

/// Internally tagged with a catch-all variant.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Open {
    Known {
        value: i32,
    },
    #[serde(other)]
    Unknown,
}

/// A string enum with a catch-all variant.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Tier {
    Gold,
    Silver,
    #[serde(other)]
    Other,
}

/// Flattened into the spec: `mode` says which fields apply.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "camelCase")]
pub enum Mode {
    Simple,
    Scheduled {
        #[validate(min_length = 1)]
        cron: String,
    },
}

/// Scalars: integer widths, floats, bounds, patterns, formats, k8s-openapi scalar types.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "decode.kubegen.dev",
    version = "v1",
    kind = "Scalars",
    scope = "Cluster"
)]
#[serde(rename_all = "camelCase")]
pub struct ScalarsSpec {
    pub i8_: i8,
    pub u8_: u8,
    pub i16_: i16,
    pub u16_: u16,
    pub i32_: i32,
    pub u32_: u32,
    pub i64_: i64,
    pub u64_: u64,
    pub f32_: f32,
    pub f64_: f64,
    #[validate(minimum = -1.5, maximum = 2.5, exclusive_maximum)]
    pub bounded: Option<f64>,
    #[validate(multiple_of = 3, minimum = 0, maximum = 1000)]
    pub thirds: Option<i32>,
    #[validate(multiple_of = 0.25)]
    pub quarters: Option<f64>,
    #[validate(min_length = 2, max_length = 5)]
    pub short: Option<String>,
    #[validate(pattern = "^\\d{3}-[a-z]+$")]
    pub code: Option<String>,
    #[validate(pattern = "[A-Z]{2}")]
    pub contains: Option<String>,
    pub time: Option<Time>,
    pub micro_time: Option<MicroTime>,
    pub quantity: Option<Quantity>,
    pub int_or_string: Option<IntOrString>,
    #[schema(int_or_string)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surge: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formats: Option<Formats>,
    pub flag: Option<bool>,
}

/// Every format the apiserver validates.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Formats {
    #[validate(format = "bsonobjectid")]
    pub bsonobjectid: Option<String>,
    #[validate(format = "uri")]
    pub uri: Option<String>,
    #[validate(format = "email")]
    pub email: Option<String>,
    #[validate(format = "hostname")]
    pub hostname: Option<String>,
    #[validate(format = "ipv4")]
    pub ipv4: Option<String>,
    #[validate(format = "ipv6")]
    pub ipv6: Option<String>,
    #[validate(format = "cidr")]
    pub cidr: Option<String>,
    #[validate(format = "mac")]
    pub mac: Option<String>,
    #[validate(format = "uuid")]
    pub uuid: Option<String>,
    #[validate(format = "uuid3")]
    pub uuid3: Option<String>,
    #[validate(format = "uuid4")]
    pub uuid4: Option<String>,
    #[validate(format = "uuid5")]
    pub uuid5: Option<String>,
    #[validate(format = "isbn")]
    pub isbn: Option<String>,
    #[validate(format = "isbn10")]
    pub isbn10: Option<String>,
    #[validate(format = "isbn13")]
    pub isbn13: Option<String>,
    #[validate(format = "creditcard")]
    pub creditcard: Option<String>,
    #[validate(format = "ssn")]
    pub ssn: Option<String>,
    #[validate(format = "hexcolor")]
    pub hexcolor: Option<String>,
    #[validate(format = "rgbcolor")]
    pub rgbcolor: Option<String>,
    #[validate(format = "byte")]
    pub byte: Option<String>,
    #[validate(format = "password")]
    pub password: Option<String>,
    #[validate(format = "date")]
    pub date: Option<String>,
    #[validate(format = "duration")]
    pub duration: Option<String>,
    #[validate(format = "date-time")]
    pub date_time: Option<String>,
}

/// Collections, flatten, embedded types and objects, preserve-unknown-fields, defaults and
/// nullable fields.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "decode.kubegen.dev",
    version = "v1",
    kind = "Collections",
    status = "CollectionsStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsSpec {
    #[serde(flatten)]
    pub common: Common,
    #[serde(default)]
    pub counts: BTreeMap<String, i64>,
    #[serde(default)]
    pub groups: HashMap<String, Vec<String>>,
    /// Map values may be null.
    #[serde(default)]
    pub notes: BTreeMap<String, Option<String>>,
    #[validate(min_properties = 1, max_properties = 3)]
    pub limits: Option<BTreeMap<String, Quantity>>,
    #[serde(default)]
    pub matrix: Vec<Vec<u8>>,
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[validate(max_items = 4)]
    #[serde(default)]
    pub ports: Vec<NamedPort>,
    #[serde(default)]
    pub zones: BTreeSet<String>,
    #[validate(unique_items, min_items = 1, max_items = 3)]
    pub ids: Option<Vec<i32>>,
    #[schema(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    #[schema(preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
    #[schema(embedded_resource, preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    #[default(7)]
    #[validate(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    #[default("fast")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<String>,
    /// Nullable: serde writes null for None.
    pub comment: Option<String>,
    pub aliases: Option<Vec<Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner: Option<Box<Inner>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Name>,
}

/// Flattened into the spec.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    pub owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct NamedPort {
    pub name: String,
    #[validate(minimum = 1, maximum = 65535)]
    pub port: u16,
    #[default("TCP")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Inner {
    pub depth: u8,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A newtype with its own validation.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
#[validate(max_length = 10)]
pub struct Name(pub String);

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsStatus {
    #[serde(default)]
    pub observed: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<Time>,
}

/// serde attributes that change what serde reads, each followed by the schema: a variant
/// serde never reads, aliases, types that refuse unknown fields inside unions, fields read
/// but not written and written but not read, a flattened optional struct and a flattened map.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "decode.kubegen.dev", version = "v1", kind = "Reads")]
#[serde(rename_all = "camelCase")]
pub struct ReadsSpec {
    pub mode: Pace,
    /// The default is a value serde reads.
    #[default(Pace::Slow)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Pace>,
    /// Unions of types that refuse unknown fields.
    #[serde(flatten)]
    pub unions: ClosedUnions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// Read under its old name too; the schema has the new one.
    #[serde(alias = "oldName", default, skip_serializing_if = "Option::is_none")]
    pub new_name: Option<String>,
    /// Written, never read.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub observed: Option<i64>,
    /// Read, never written.
    #[serde(skip_serializing, default)]
    pub token: Option<String>,
    /// Its fields join the spec's; serde reads `None` unless all of them decode.
    #[serde(flatten)]
    pub tuning: Option<Tuning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<OpenLabels>,
}
