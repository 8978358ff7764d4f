//! The first shape of Cache: engine and version in one string, memory as a string.
//! Served, not stored: the apiserver converts it to and from v1 through the webhook.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::convert::{ConvertError, ManualConvert};
use kubegen::prelude::*;

use super::v1;

/// A Cache is a managed in-memory cache.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Cache",
    status = "super::v1::CacheStatus",
    storage = false,
    derive = "PartialEq"
)]
#[convert(
    hub = super::v1::CacheSpec,
    filled = ["engine", "version", "memory"],
    restored = ["persistence"]
)]
#[serde(rename_all = "camelCase")]
pub struct CacheSpec {
    /// Engine and version, e.g. "redis:7.2".
    #[validate(pattern = "^(redis|valkey|memcached):[0-9]+(\\.[0-9]+)*$")]
    #[convert(manual)]
    pub engine: String,
    /// Memory per replica, e.g. "512Mi".
    #[validate(pattern = "^[0-9]+(Ki|Mi|Gi)?$")]
    #[convert(manual)]
    pub memory: String,
    /// How many replicas to run.
    #[validate(minimum = 1, maximum = 9)]
    #[schema(default = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// The apiserver also converts *partial* objects (during server-side apply, objects pruned to
/// some managers' fields), where an absent `engine` or `memory` reads as `""`: each field is
/// converted only when it is there.
impl ManualConvert for CacheSpec {
    fn fill_hub(&self, hub: &mut v1::CacheSpec) -> Result<(), ConvertError> {
        if !self.engine.is_empty() {
            let (engine, version) = self.engine.split_once(':').ok_or_else(|| {
                ConvertError::field(
                    "spec.engine",
                    format!("{:?} is not engine:version", self.engine),
                )
            })?;
            hub.engine = serde_json::from_value(serde_json::Value::String(engine.to_owned()))
                .map_err(|_| {
                    ConvertError::field("spec.engine", format!("unknown engine {engine:?}"))
                })?;
            hub.version = version.to_owned();
        }
        if !self.memory.is_empty() {
            hub.memory = Quantity(self.memory.clone());
        }
        Ok(())
    }

    fn fill_from_hub(&mut self, hub: &v1::CacheSpec) -> Result<(), ConvertError> {
        if !hub.version.is_empty() {
            let engine = serde_json::to_value(hub.engine)
                .map_err(|e| ConvertError::field("spec.engine", e))?;
            let engine = engine.as_str().unwrap_or_default();
            self.engine = format!("{engine}:{}", hub.version);
        }
        self.memory = hub.memory.0.clone();
        Ok(())
    }
}
