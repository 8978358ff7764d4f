//! The current shape of Cache: the storage version, and the hub of conversions.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::prelude::*;

/// A Cache is a managed in-memory cache.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "cache.example.com",
    version = "v1",
    kind = "Cache",
    status = "CacheStatus",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
#[rule(
    "!has(self.persistence) || self.engine != 'memcached'",
    message = "memcached keeps no data on disk: remove persistence",
    field_path = ".persistence"
)]
pub struct CacheSpec {
    /// Cache engine.
    pub engine: Engine,
    /// Engine version, e.g. "7.2".
    #[validate(pattern = "^[0-9]+(\\.[0-9]+)*$")]
    pub version: String,
    /// Memory per replica, e.g. "512Mi".
    pub memory: Quantity,
    /// How many replicas to run.
    #[validate(minimum = 1, maximum = 9)]
    #[schema(default = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Snapshots to disk; v1alpha1 cannot say this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistence: Option<Persistence>,
}

/// Supported engines.
#[derive(ApiType, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    #[default]
    Redis,
    Valkey,
    Memcached,
}

/// Where and how often to snapshot.
#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Persistence {
    /// Snapshot interval, e.g. "1h".
    #[schema(default = "1h")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_every: Option<String>,
    /// Volume size; the defaulting webhook makes it twice the memory when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_size: Option<Quantity>,
}

/// Observed state.
#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheStatus {
    /// Replicas ready to serve.
    #[serde(default)]
    pub ready_replicas: i32,
}
