//! Store, a kind whose versions really differ (v1alpha1 `size: String`, v1 `storage:
//! Quantity` and a `backup` block), shared by the conversion and the in-memory server tests.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::convert::ConvertError;

pub mod v1 {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use kubegen::prelude::*;

    /// The hub: the storage version.
    #[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "convert.example.com",
        version = "v1",
        kind = "Store",
        status = "StoreStatus",
        derive = "PartialEq"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct StoreSpec {
        pub engine: Engine,
        pub version: String,
        pub storage: Quantity,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub backup: Option<Backup>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tuning: Option<Tuning>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub users: Vec<String>,
    }

    /// Shared by both versions (converted as itself).
    #[derive(ApiType, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Engine {
        #[default]
        Postgres,
        Mysql,
    }

    /// Only v1 has backups.
    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Backup {
        pub schedule: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retention_days: Option<u32>,
    }

    /// A nested struct each version defines for itself.
    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Tuning {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_connections: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parameters: Option<std::collections::BTreeMap<String, String>>,
    }

    /// Observed state, the same in both versions.
    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct StoreStatus {
        #[serde(default)]
        pub ready: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub endpoint: Option<String>,
    }
}

pub mod v1alpha1 {
    use kubegen::convert::{ConvertError, ManualConvert};
    use kubegen::prelude::*;

    /// A spoke: `size` instead of `storage`, no `backup`.
    #[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "convert.example.com",
        version = "v1alpha1",
        kind = "Store",
        status = "super::v1::StoreStatus",
        storage = false,
        derive = "PartialEq"
    )]
    #[convert(hub = super::v1::StoreSpec, filled = ["storage"], restored = ["backup"])]
    #[serde(rename_all = "camelCase")]
    pub struct StoreSpec {
        pub engine: super::v1::Engine,
        pub version: String,
        /// Disk size, e.g. "10Gi".
        #[convert(manual)]
        pub size: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tuning: Option<Tuning>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub users: Vec<String>,
    }

    /// v1alpha1's own `Tuning`, converted field by field to v1's.
    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[convert(hub = super::v1::Tuning)]
    #[serde(rename_all = "camelCase")]
    pub struct Tuning {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_connections: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parameters: Option<std::collections::BTreeMap<String, String>>,
    }

    impl ManualConvert for StoreSpec {
        fn fill_hub(&self, hub: &mut super::v1::StoreSpec) -> Result<(), ConvertError> {
            // Empty in a partial object without `size`: the hub's `storage` stays empty too.
            if !self.size.is_empty() {
                hub.storage = super::parse_size(&self.size)?;
            }
            Ok(())
        }
        fn fill_from_hub(&mut self, hub: &super::v1::StoreSpec) -> Result<(), ConvertError> {
            self.size = hub.storage.0.clone();
            Ok(())
        }
    }
}

/// A size as v1alpha1 accepts it: digits and a binary suffix.
pub fn parse_size(size: &str) -> Result<Quantity, ConvertError> {
    let digits = size.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &size[digits.len()..];
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !["", "Ki", "Mi", "Gi", "Ti"].contains(&suffix)
    {
        return Err(ConvertError::field(
            "spec.size",
            format!("{size:?} is not a size such as \"10Gi\""),
        ));
    }
    Ok(Quantity(size.to_owned()))
}
