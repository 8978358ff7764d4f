//! [`convert`]: any registered kind, as JSON, to any of its versions (for conversion
//! webhooks and the in-memory server).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::partial::{self, Filled};
use super::{ConvertError, Convertible, Parts};
use crate::resource::{CustomResource, ResourceInfo};

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
///
/// `object` may be partial, as the apiserver's field manager sends objects to conversion
/// webhooks during server-side apply: without `metadata` or required fields. Absent required
/// fields are read as the kind's `Default` (inside list items, the schema's zero value); the
/// result leaves out what only that produced — a field still at its path with the value filled
/// in, a `null` where `object` had nothing — so that it holds the image of what `object` held.
/// Fields a [`ManualConvert`](super::ManualConvert) derives from filled values stay.
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

/// `object` as `K`; a partial object (see [`partial`]) with its absent required fields filled,
/// and what was filled.
fn decode<K>(object: &Value) -> Result<(K, Filled), ConvertError>
where
    K: Parts + DeserializeOwned + Serialize,
    K::Spec: Default,
{
    let strict = match K::deserialize(object) {
        Ok(decoded) => return Ok((decoded, Filled::default())),
        Err(e) => e,
    };
    let decode_error = || ConvertError::Decode {
        api_version: format!("{}/{}", K::INFO.group, K::INFO.version),
        kind: K::INFO.kind.to_owned(),
        source: strict,
    };
    let defaults = serde_json::to_value(K::from_parts(
        ObjectMeta::default(),
        K::Spec::default(),
        None,
    ))
    .unwrap_or(Value::Null);
    let mut object = object.clone();
    let filled = partial::fill(&mut object, &schema_of(K::INFO), &defaults);
    if filled.is_empty() {
        return Err(decode_error());
    }
    match K::deserialize(&object) {
        Ok(decoded) => Ok((decoded, filled)),
        Err(_) => Err(decode_error()),
    }
}

/// Versions' `openAPIV3Schema`s by group, kind and version.
type Schemas = HashMap<(&'static str, &'static str, &'static str), Arc<Value>>;

/// A version's `openAPIV3Schema`, built once.
fn schema_of(info: &ResourceInfo) -> Arc<Value> {
    static SCHEMAS: LazyLock<Mutex<Schemas>> = LazyLock::new(Default::default);
    let key = (info.group, info.kind, info.version);
    if let Some(schema) = SCHEMAS.lock().get(&key) {
        return schema.clone();
    }
    let schema = Arc::new((info.schema)().to_value());
    SCHEMAS.lock().insert(key, schema.clone());
    schema
}

fn encode<K: CustomResource + Serialize>(object: &K) -> Result<Value, ConvertError> {
    serde_json::to_value(object).map_err(|source| ConvertError::Decode {
        api_version: format!("{}/{}", K::INFO.group, K::INFO.version),
        kind: K::INFO.kind.to_owned(),
        source,
    })
}

/// Decodes `object` as `From`, converts it with `convert` and encodes the result, taking out
/// of it what only the filling of a partial object produced.
fn convert_value<From, To>(
    object: Value,
    convert: impl FnOnce(&From) -> Result<To, ConvertError>,
) -> Result<Value, ConvertError>
where
    From: Parts + DeserializeOwned + Serialize,
    From::Spec: Default,
    To: CustomResource + Serialize,
{
    let (decoded, filled) = decode::<From>(&object)?;
    let converted = convert(&decoded).map_err(|source| {
        if filled.is_empty() {
            source
        } else {
            ConvertError::Partial {
                source: Box::new(source),
            }
        }
    })?;
    let mut out = encode(&converted)?;
    partial::trim(&mut out, &object, &filled);
    Ok(out)
}

/// [`Registration::to_hub`] for a spoke kind `S`.
#[doc(hidden)]
pub fn value_to_hub<S>(object: Value) -> Result<Value, ConvertError>
where
    S: Convertible + DeserializeOwned + Serialize,
    S::Spec: Default,
    S::Hub: Serialize,
{
    convert_value::<S, S::Hub>(object, S::to_hub)
}

/// [`Registration::from_hub`] for a spoke kind `S`.
#[doc(hidden)]
pub fn value_from_hub<S>(object: Value) -> Result<Value, ConvertError>
where
    S: Convertible + Serialize,
    S::Hub: DeserializeOwned + Serialize,
    <S::Hub as CustomResource>::Spec: Default,
{
    convert_value::<S::Hub, S>(object, S::from_hub)
}
