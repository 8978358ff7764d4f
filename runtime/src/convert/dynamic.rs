//! [`convert`]: any registered kind, as JSON, to any of its versions (for conversion
//! webhooks and the in-memory server).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{ConvertError, Convertible};
use crate::resource::CustomResource;

/// A spoke version's conversions, registered by generated code for every kind with
/// `#[convert(hub = ...)]`.
pub struct Registration {
    /// The API group.
    pub group: &'static str,
    /// The kind.
    pub kind: &'static str,
    /// The spoke's version.
    pub version: &'static str,
    /// The hub's (storage) version.
    pub hub_version: &'static str,
    /// A spoke object to the hub.
    pub to_hub: fn(Value) -> Result<Value, ConvertError>,
    /// A hub object to the spoke.
    pub from_hub: fn(Value) -> Result<Value, ConvertError>,
}

inventory::collect!(Registration);

/// `(group, kind, version, hub version)` of every registered spoke, sorted.
pub fn registered_versions() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let mut all: Vec<_> = inventory::iter::<Registration>
        .into_iter()
        .map(|r| (r.group, r.kind, r.version, r.hub_version))
        .collect();
    all.sort();
    all
}

/// Converts `object` (any version of a registered kind) to `desired_api_version`
/// (`group/version`), through the hub: spoke → hub → other spoke. An object already at the
/// desired version is returned unchanged.
pub fn convert(object: Value, desired_api_version: &str) -> Result<Value, ConvertError> {
    let (api_version, kind) = type_meta(&object)?;
    if api_version == desired_api_version {
        return Ok(object);
    }
    let (group, version) = split(&api_version);
    let (desired_group, desired_version) = split(desired_api_version);
    let unknown = |api_version: &str| ConvertError::UnknownVersion {
        api_version: api_version.to_owned(),
        kind: kind.clone(),
    };
    if group != desired_group {
        return Err(unknown(desired_api_version));
    }
    let spokes: Vec<&Registration> = inventory::iter::<Registration>
        .into_iter()
        .filter(|r| r.group == group && r.kind == kind)
        .collect();
    let hub_version = spokes
        .first()
        .map(|r| r.hub_version)
        .ok_or_else(|| unknown(&api_version))?;
    let hub = if version == hub_version {
        object
    } else {
        let from = spokes
            .iter()
            .find(|r| r.version == version)
            .ok_or_else(|| unknown(&api_version))?;
        (from.to_hub)(object)?
    };
    if desired_version == hub_version {
        return Ok(hub);
    }
    let to = spokes
        .iter()
        .find(|r| r.version == desired_version)
        .ok_or_else(|| unknown(desired_api_version))?;
    (to.from_hub)(hub)
}

fn type_meta(object: &Value) -> Result<(String, String), ConvertError> {
    let field = |name: &'static str| {
        object
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or(ConvertError::MissingTypeMeta(name))
    };
    Ok((field("apiVersion")?, field("kind")?))
}

fn split(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

fn decode<K: CustomResource + DeserializeOwned>(object: Value) -> Result<K, ConvertError> {
    serde_json::from_value(object).map_err(|source| ConvertError::Decode {
        api_version: format!("{}/{}", K::INFO.group, K::INFO.version),
        kind: K::INFO.kind.to_owned(),
        source,
    })
}

fn encode<K: CustomResource + Serialize>(object: &K) -> Result<Value, ConvertError> {
    serde_json::to_value(object).map_err(|source| ConvertError::Decode {
        api_version: format!("{}/{}", K::INFO.group, K::INFO.version),
        kind: K::INFO.kind.to_owned(),
        source,
    })
}

/// [`Registration::to_hub`] for a spoke kind `S`.
#[doc(hidden)]
pub fn value_to_hub<S>(object: Value) -> Result<Value, ConvertError>
where
    S: Convertible + DeserializeOwned,
    S::Hub: Serialize,
{
    encode(&decode::<S>(object)?.to_hub()?)
}

/// [`Registration::from_hub`] for a spoke kind `S`.
#[doc(hidden)]
pub fn value_from_hub<S>(object: Value) -> Result<Value, ConvertError>
where
    S: Convertible + Serialize,
    S::Hub: DeserializeOwned,
{
    encode(&S::from_hub(&decode::<S::Hub>(object)?)?)
}
