//! The first, deprecated shape of Database.

use kubegen::prelude::*;

/// A Database is a managed database instance.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "db.example.com",
    version = "v1alpha1",
    kind = "Database",
    shortname = "db",
    storage = false,
    deprecated(warning = "db.example.com/v1alpha1 Database is deprecated; use v1")
)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseSpec {
    /// Database engine and version, e.g. "postgres:16".
    pub engine: String,
    /// Disk size in GiB.
    #[validate(minimum = 1)]
    pub size_gb: i32,
}
