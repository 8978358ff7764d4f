//! Whole objects: metadata as is, spec and status through [`ConvertInto`], and the hub
//! fields a spoke cannot hold kept in an annotation.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{ConvertError, ConvertInto, Spoke};
use crate::resource::CustomResource;

/// Where a spoke object keeps the hub fields it cannot hold: JSON, `{"spec": {field: value}}`
/// with the hub's serialized names. Never present on a hub object.
pub const CONVERSION_DATA_ANNOTATION: &str = "kubegen.dev/conversion-data";

/// A generated kind taken apart and put together (implemented by `#[derive(CustomResource)]`).
pub trait Parts: CustomResource {
    /// The object's metadata, spec and status.
    fn parts(&self) -> (&ObjectMeta, &Self::Spec, Option<&Self::Status>);
    /// The object from its parts (a status is dropped when the kind has none).
    fn from_parts(metadata: ObjectMeta, spec: Self::Spec, status: Option<Self::Status>) -> Self;
}

/// The kind a spec belongs to (implemented by `#[derive(CustomResource)]`).
pub trait SpecOf {
    /// The generated kind.
    type Kind: Parts<Spec = Self>;
}

/// A spoke kind: converts to and from its hub kind (the storage version). Generated for
/// every `#[derive(CustomResource)]` spec with `#[convert(hub = ...)]`.
pub trait Convertible: Parts {
    /// The hub kind.
    type Hub: Parts;
    /// This object at the hub version, with the hub fields it kept in its annotation restored.
    fn to_hub(&self) -> Result<Self::Hub, ConvertError>;
    /// The hub object at this version, the fields this version cannot hold kept in its annotation.
    fn from_hub(hub: &Self::Hub) -> Result<Self, ConvertError>;
}

/// [`Convertible::to_hub`] for a generated spoke kind.
#[doc(hidden)]
pub fn to_hub<S, H>(spoke: &S) -> Result<H, ConvertError>
where
    S: Parts,
    H: Parts,
    S::Spec: ConvertInto<H::Spec> + Spoke,
    S::Status: ConvertInto<H::Status>,
    H::Spec: Serialize + DeserializeOwned,
{
    let (meta, spec, status) = spoke.parts();
    let mut meta = meta.clone();
    let kept = take_annotation(&mut meta)?;
    let mut hub_spec: H::Spec = spec.convert_into()?;
    let restored = <S::Spec as Spoke>::RESTORED;
    if let Some(kept) = kept.and_then(|mut k| k.remove("spec"))
        && !restored.is_empty()
    {
        let Value::Object(kept) = kept else {
            return Err(ConvertError::Annotation("`spec` is not an object".into()));
        };
        hub_spec = restore(&hub_spec, restored, kept)?;
    }
    let status = status.map(ConvertInto::convert_into).transpose()?;
    Ok(H::from_parts(meta, hub_spec, status))
}

/// [`Convertible::from_hub`] for a generated spoke kind.
#[doc(hidden)]
pub fn from_hub<S, H>(hub: &H) -> Result<S, ConvertError>
where
    S: Parts,
    H: Parts,
    H::Spec: ConvertInto<S::Spec> + Serialize,
    S::Spec: Spoke,
    H::Status: ConvertInto<S::Status>,
{
    let (meta, spec, status) = hub.parts();
    let mut meta = meta.clone();
    // A hub object never carries the annotation; drop a stray one rather than nest it.
    take_annotation(&mut meta)?;
    let restored = <S::Spec as Spoke>::RESTORED;
    let spoke_spec: S::Spec = spec.convert_into()?;
    if !restored.is_empty() {
        let kept = keep(spec, restored)?;
        if !kept.is_empty() {
            let data = serde_json::json!({ "spec": kept }).to_string();
            meta.annotations
                .get_or_insert_with(Default::default)
                .insert(CONVERSION_DATA_ANNOTATION.to_owned(), data);
        }
    }
    let status = status.map(ConvertInto::convert_into).transpose()?;
    Ok(S::from_parts(meta, spoke_spec, status))
}

/// Removes the conversion-data annotation (and an emptied annotation map), returning its JSON.
fn take_annotation(meta: &mut ObjectMeta) -> Result<Option<Map<String, Value>>, ConvertError> {
    let Some(annotations) = meta.annotations.as_mut() else {
        return Ok(None);
    };
    let Some(data) = annotations.remove(CONVERSION_DATA_ANNOTATION) else {
        return Ok(None);
    };
    if annotations.is_empty() {
        meta.annotations = None;
    }
    match serde_json::from_str(&data) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Err(ConvertError::Annotation("not a JSON object".into())),
        Err(e) => Err(ConvertError::Annotation(e.to_string())),
    }
}

/// The `names` fields of `hub` as serialized (absent ones left out).
fn keep<T: Serialize>(hub: &T, names: &[&str]) -> Result<Map<String, Value>, ConvertError> {
    let Value::Object(mut all) = to_value(hub)? else {
        return Ok(Map::new());
    };
    Ok(names
        .iter()
        .filter_map(|n| all.remove(*n).map(|v| ((*n).to_owned(), v)))
        .collect())
}

/// `hub` with the `names` fields replaced by the kept ones.
fn restore<T: Serialize + DeserializeOwned>(
    hub: &T,
    names: &[&str],
    kept: Map<String, Value>,
) -> Result<T, ConvertError> {
    let Value::Object(mut all) = to_value(hub)? else {
        return Err(ConvertError::Annotation(
            "the hub spec is not an object".into(),
        ));
    };
    for (name, value) in kept {
        if names.contains(&name.as_str()) {
            all.insert(name, value);
        }
    }
    serde_json::from_value(Value::Object(all))
        .map_err(|e| ConvertError::Annotation(format!("a kept field does not fit the hub: {e}")))
}

fn to_value<T: Serialize>(v: &T) -> Result<Value, ConvertError> {
    serde_json::to_value(v).map_err(|e| ConvertError::Annotation(e.to_string()))
}
