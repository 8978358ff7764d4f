//! The kinds the conformance suite sends to both servers: between them, every shape kubegen
//! writes into a schema.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::prelude::*;

use crate::fixtures::reads::{ClosedUnions, OpenLabels, Pace, Tuning};

/// Scalars: every bound, length, pattern, enum and format marker, int-or-string, Quantity,
/// Time, nullable and defaulted fields. Status and scale subresources.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "conformance.kubegen.dev",
    version = "v1",
    kind = "Scalar",
    status = "ScalarStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct ScalarSpec {
    #[validate(minimum = 0, maximum = 10)]
    #[default(1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[validate(minimum = 0, exclusive_minimum, maximum = 1, exclusive_maximum)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    #[validate(multiple_of = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<i64>,
    #[validate(min_length = 2, max_length = 20)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[validate(pattern = "^[a-z][a-z0-9-]*$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    pub small: Option<u8>,
    #[schema(int_or_string)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<Time>,
    #[validate(format = "date")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<String>,
    #[validate(format = "email")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[validate(format = "uri")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[validate(format = "hostname")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[validate(format = "ipv4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<String>,
    #[validate(format = "ipv6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv6: Option<String>,
    #[validate(format = "cidr")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cidr: Option<String>,
    #[validate(format = "mac")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
    #[validate(format = "uuid")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[validate(format = "duration")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    #[validate(format = "byte")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Written as `null` when unset: a nullable field.
    pub note: Option<String>,
    #[default("plain")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor: Option<String>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Mode {
    Fast,
    Safe,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalarStatus {
    #[serde(default)]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[validate(max_length = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[schema(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
}

/// Collections: maps, nested lists, list-map and set lists, flatten, preserve-unknown-fields,
/// embedded Kubernetes types and an embedded resource.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "Collection")]
#[serde(rename_all = "camelCase")]
pub struct CollectionSpec {
    #[serde(flatten)]
    pub owner: Owner,
    #[validate(max_properties = 3)]
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, Limit>,
    #[validate(max_items = 3)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matrix: Vec<Vec<i32>>,
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[validate(max_items = 3)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<Port>,
    #[schema(list_type = "map", list_map_keys = ["port", "protocol"])]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<Endpoint>,
    #[validate(unique_items, max_items = 4)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[schema(preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[schema(embedded_resource, preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<serde_json::Value>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Owner {
    #[validate(min_length = 1)]
    pub owner: String,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Limit {
    #[validate(minimum = 1)]
    pub max: i64,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Port {
    #[validate(max_length = 15)]
    pub name: String,
    #[validate(minimum = 1, maximum = 65535)]
    pub port: i32,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Endpoint {
    pub port: i32,
    #[default("TCP")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// Unions: one enum per serde tagging.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "Union")]
#[serde(rename_all = "camelCase")]
pub struct UnionSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<External>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal: Option<Internal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjacent: Option<Adjacent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untagged: Option<Untagged>,
}

/// `{"http": {...}}` or `{"tcp": {...}}`.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum External {
    Http { path: String },
    Tcp { port: i32 },
}

/// `{"kind": "circle", "radius": 1}`.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Internal {
    Circle {
        #[validate(minimum = 0)]
        radius: f64,
    },
    Rectangle {
        width: f64,
        height: f64,
    },
}

/// `{"type": "file", "config": {...}}`.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "config", rename_all = "camelCase")]
pub enum Adjacent {
    File { path: String },
    Secret { name: String, key: String },
}

/// Either a host and port, or a path.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Untagged {
    Host { host: String, port: i32 },
    Path { path: String },
}

/// A kind with CEL rules: the apiserver evaluates them, and when the schema already failed it
/// says the rules were not checked.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "Ruled")]
#[serde(rename_all = "camelCase")]
#[rule("self.min <= self.max", message = "min must not exceed max")]
pub struct RuledSpec {
    #[validate(max_length = 5)]
    pub name: String,
    pub min: i32,
    pub max: i32,
    #[rule("self.size() <= 3", message = "at most three tags")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// A cluster-scoped kind.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "conformance.kubegen.dev",
    version = "v1",
    kind = "Global",
    scope = "Cluster"
)]
pub struct GlobalSpec {
    pub value: String,
}

/// Field selectors: a selectable field of each type one may have (string, integer, boolean).
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "conformance.kubegen.dev",
    version = "v1",
    kind = "Selectable",
    selectable = ".spec.color",
    selectable = ".spec.size",
    selectable = ".spec.enabled"
)]
pub struct SelectableSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// A kind with two versions and the `None` conversion strategy (the same JSON under either
/// apiVersion): `v2` adds `extra`, which `v1` (the storage version) does not declare.
/// Ownership across versions: each manager's fields are tracked at its own version.
pub mod versioned {
    use super::*;

    /// A keyed list item, the same in both versions.
    #[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
    pub struct Port {
        pub name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub port: Option<i32>,
    }

    pub mod v1 {
        use super::*;

        /// `Versioned` at `v1`, the storage version.
        #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
        #[resource(group = "conformance.kubegen.dev", version = "v1", kind = "Versioned")]
        pub struct VersionedSpec {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub size: Option<i64>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub color: Option<String>,
            #[schema(list_type = "map", list_map_keys = ["name"])]
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub ports: Vec<Port>,
        }
    }

    pub mod v2 {
        use super::*;

        /// `Versioned` at `v2`: `v1`'s fields and `extra`.
        #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
        #[resource(
            group = "conformance.kubegen.dev",
            version = "v2",
            kind = "Versioned",
            storage = false
        )]
        pub struct VersionedSpec {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub size: Option<i64>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub color: Option<String>,
            #[schema(list_type = "map", list_map_keys = ["name"])]
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub ports: Vec<Port>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub extra: Option<String>,
        }
    }
}

/// serde attributes that change what serde reads (the decode suite's types): a variant
/// serde never reads and aliases, unions of types that refuse unknown fields, a field alias,
/// a flattened optional struct and a flattened map.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "Reading")]
#[serde(rename_all = "camelCase")]
pub struct ReadingSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<Pace>,
    /// Unions of types that refuse unknown fields.
    #[serde(flatten)]
    pub unions: ClosedUnions,
    #[serde(alias = "oldName", default, skip_serializing_if = "Option::is_none")]
    pub new_name: Option<String>,
    #[serde(flatten)]
    pub tuning: Option<Tuning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<OpenLabels>,
}
