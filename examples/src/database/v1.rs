//! The current shape of Database: the storage version.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::prelude::*;

/// A Database is a managed database instance.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "db.example.com",
    version = "v1",
    kind = "Database",
    shortname = "db",
    status = "DatabaseStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseSpec {
    /// Database engine.
    pub engine: Engine,
    /// Engine version, e.g. "16".
    #[validate(pattern = "^[0-9]+(\\.[0-9]+)*$")]
    pub version: String,
    /// Disk size, e.g. "10Gi".
    pub storage: Quantity,
    /// Backups, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<Backup>,
}

/// Supported engines.
#[derive(ApiType, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Postgres,
    Mysql,
}

/// Where and how often to back up.
#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backup {
    /// Cron schedule.
    #[default("0 3 * * *")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// Days to keep.
    #[validate(minimum = 1, maximum = 365)]
    #[default(7)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<u32>,
}

/// Observed state.
#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseStatus {
    /// Whether the database accepts connections.
    #[serde(default)]
    pub ready: bool,
    /// The endpoint clients connect to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}
