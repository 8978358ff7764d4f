//! conversion-gen: converting a kind between its versions through the hub.
//!
//! The storage version of a kind is the hub; every other version (a spoke) converts to and
//! from it. The derive generates, for a spoke spec marked `#[convert(hub = HubSpec)]`, a
//! [`ConvertInto`] impl each way that converts every field of the same name with
//! [`ConvertInto`] (identical types by deep copy, `Option`, `Vec`, maps and boxes
//! recursively, and nested types that name their own hub), and calls the author's
//! [`ManualConvert`] for the fields marked `#[convert(manual)]` / listed in `filled`. Hub
//! fields the spoke cannot hold (listed in `restored`) travel in the
//! [`CONVERSION_DATA_ANNOTATION`] on the spoke object and come back on the way to the hub.
//!
//! [`convert`] converts any registered kind as JSON, for conversion webhooks and the
//! in-memory server. It also converts *partial* objects — the apiserver's field manager sends
//! objects pruned to some managers' fields during server-side apply — reading absent fields as
//! their `Default` (Go's zero value) and leaving out of the result what only that filling
//! produced; a [`ManualConvert`] must therefore accept each of its fields' defaults.
//!
//! Use it when a kind gets a second version that differs from the first: mark the old
//! version's spec with its hub, write by hand only what changed, and serve both (the CRD's
//! conversion webhook runs [`convert`]; the in-memory server converts the same way).
//!
//! ```
//! # mod api {
//! pub mod v1 {
//!     use kubegen::prelude::*;
//!     /// The hub (storage version): the size is a number of gibibytes.
//!     #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
//!     #[resource(group = "converts.example.com", version = "v1", kind = "Volume")]
//!     pub struct VolumeSpec {
//!         pub gibibytes: i64,
//!         pub class: String,
//!     }
//! }
//! pub mod v1beta1 {
//!     use kubegen::convert::{ConvertError, ManualConvert};
//!     use kubegen::prelude::*;
//!     /// The old version: the size was text ("10Gi"); `class` converts by name.
//!     #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
//!     #[resource(group = "converts.example.com", version = "v1beta1", kind = "Volume",
//!                storage = false)]
//!     #[convert(hub = super::v1::VolumeSpec, filled = ["gibibytes"])]
//!     pub struct VolumeSpec {
//!         #[convert(manual)]
//!         pub size: String,
//!         pub class: String,
//!     }
//!     impl ManualConvert for VolumeSpec {
//!         fn fill_hub(&self, hub: &mut super::v1::VolumeSpec) -> Result<(), ConvertError> {
//!             // A partial object may lack `size`: its default converts to the hub's.
//!             if !self.size.is_empty() {
//!                 let n = self.size.strip_suffix("Gi").and_then(|n| n.parse().ok());
//!                 hub.gibibytes = n.ok_or_else(|| ConvertError::field("spec.size", "not NGi"))?;
//!             }
//!             Ok(())
//!         }
//!         fn fill_from_hub(&mut self, hub: &super::v1::VolumeSpec) -> Result<(), ConvertError> {
//!             self.size = format!("{}Gi", hub.gibibytes);
//!             Ok(())
//!         }
//!     }
//! }
//! # }
//! # use api::*;
//! use kubegen::convert::Convertible;
//!
//! let old = v1beta1::Volume::new("data", v1beta1::VolumeSpec { size: "10Gi".into(), class: "ssd".into() });
//! let hub = old.to_hub().unwrap();
//! assert_eq!((hub.spec.gibibytes, hub.spec.class.as_str()), (10, "ssd"));
//!
//! // As JSON, by apiVersion, for any registered kind (what a conversion webhook does).
//! let json = serde_json::to_value(&hub).unwrap();
//! let back = kubegen::convert::convert(json, "converts.example.com/v1beta1").unwrap();
//! assert_eq!(back["spec"]["size"], "10Gi");
//! ```

pub mod checks;
#[doc(hidden)]
pub mod dynamic;
#[doc(hidden)]
pub mod kind;
mod partial;
mod review;

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

pub use dynamic::{Registration, convert, registered_versions};
pub use kind::{CONVERSION_DATA_ANNOTATION, Convertible, Parts, SpecOf};
pub use review::ConversionError;
#[doc(hidden)]
pub use review::{failure_message, review_failure};

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// A field's value has no representation in the other version (an unparsable size,
    /// an enum value the other version lacks). `field` is its path, e.g. `spec.size`.
    #[error("{field}: {message}")]
    Field {
        /// The field's path in the source object.
        field: String,
        /// What is wrong with its value.
        message: String,
    },
    /// The conversion-data annotation is not the JSON kubegen writes there.
    #[error("annotation {CONVERSION_DATA_ANNOTATION}: {0}")]
    Annotation(String),
    /// The object does not (de)serialize as the version's type.
    #[error("{api_version} {kind}: {source}")]
    Decode {
        /// The version the object claimed.
        api_version: String,
        /// Its kind.
        kind: String,
        /// serde's error.
        source: serde_json::Error,
    },
    /// Converting a partial object failed: one whose absent fields were read as their
    /// defaults, as the apiserver's field manager sends them during server-side apply (see
    /// [`convert`]). A [`ManualConvert`] must accept each field's default.
    #[error("{source} (converting a partial object, whose absent fields read as their defaults)")]
    Partial {
        /// Why the conversion failed.
        source: Box<ConvertError>,
    },
    /// The object has no string `apiVersion` or `kind`.
    #[error("the object has no {0}")]
    MissingTypeMeta(&'static str),
    /// No conversion is registered for this kind at this version.
    #[error("no conversion registered for {kind} in {api_version}")]
    UnknownVersion {
        /// The apiVersion asked for or given.
        api_version: String,
        /// The kind.
        kind: String,
    },
}

impl ConvertError {
    /// A [`ConvertError::Field`] error.
    pub fn field(field: impl Into<String>, message: impl std::fmt::Display) -> Self {
        ConvertError::Field {
            field: field.into(),
            message: message.to_string(),
        }
    }
}

/// Converts a value of one version's type into the matching type of another version.
///
/// Implemented by the derives for every kubegen type into itself (a deep copy), for the
/// spoke/hub pairs `#[convert(hub = ...)]` names (both ways), for the Kubernetes and std
/// types API fields use, and through `Option`, `Vec`, `BTreeMap`, `HashMap` and `Box`.
#[diagnostic::on_unimplemented(
    message = "kubegen cannot convert `{Self}` into `{T}`",
    note = "fields with the same name convert automatically when their types are the same kubegen type, std or Kubernetes types, or a spoke type with `#[convert(hub = ...)]`; otherwise mark the field `#[convert(manual)]` and convert it in `ManualConvert`, or `#[convert(clone)]` for another Clone type"
)]
pub trait ConvertInto<T> {
    /// The value in the other version.
    fn convert_into(&self) -> Result<T, ConvertError>;
}

macro_rules! identity {
    ($($t:ty),* $(,)?) => {$(
        impl ConvertInto<$t> for $t {
            #[inline]
            fn convert_into(&self) -> Result<$t, ConvertError> {
                Ok(self.clone())
            }
        }
    )*};
}

identity!(
    (),
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    String,
    serde_json::Value,
    Quantity,
    IntOrString,
    meta::Time,
    meta::MicroTime,
    meta::Condition,
    meta::LabelSelector,
    meta::ObjectMeta,
    meta::OwnerReference,
    k8s_openapi::ByteString,
);

impl<A: ConvertInto<B>, B> ConvertInto<Option<B>> for Option<A> {
    fn convert_into(&self) -> Result<Option<B>, ConvertError> {
        self.as_ref().map(A::convert_into).transpose()
    }
}

impl<A: ConvertInto<B>, B> ConvertInto<Vec<B>> for Vec<A> {
    fn convert_into(&self) -> Result<Vec<B>, ConvertError> {
        self.iter().map(A::convert_into).collect()
    }
}

impl<A: ConvertInto<B>, B> ConvertInto<Box<B>> for Box<A> {
    fn convert_into(&self) -> Result<Box<B>, ConvertError> {
        Ok(Box::new((**self).convert_into()?))
    }
}

impl<K: Ord + Clone, A: ConvertInto<B>, B> ConvertInto<BTreeMap<K, B>> for BTreeMap<K, A> {
    fn convert_into(&self) -> Result<BTreeMap<K, B>, ConvertError> {
        self.iter()
            .map(|(k, v)| Ok((k.clone(), v.convert_into()?)))
            .collect()
    }
}

impl<K: std::hash::Hash + Eq + Clone, A: ConvertInto<B>, B, S: std::hash::BuildHasher + Default>
    ConvertInto<HashMap<K, B, S>> for HashMap<K, A, S>
{
    fn convert_into(&self) -> Result<HashMap<K, B, S>, ConvertError> {
        self.iter()
            .map(|(k, v)| Ok((k.clone(), v.convert_into()?)))
            .collect()
    }
}

/// A spoke type: one version's struct whose `#[convert(hub = ...)]` names the matching
/// struct of the hub version. Generated by the derive.
pub trait Spoke: Sized {
    /// The hub version's struct.
    type Hub;
    /// Serialized names of the hub's fields this version cannot hold, kept in the
    /// [`CONVERSION_DATA_ANNOTATION`] on the way to this version and restored on the way back.
    const RESTORED: &'static [&'static str];
}

/// What the author writes for a spoke whose fields do not all convert by name: the fields
/// marked `#[convert(manual)]` and the hub fields listed in `filled`.
///
/// Generated code converts every other field first, then calls these with the half-built
/// value, so an implementation sets only what differs.
///
/// ```ignore
/// impl kubegen::convert::ManualConvert for v1alpha1::DatabaseSpec {
///     fn fill_hub(&self, hub: &mut v1::DatabaseSpec) -> Result<(), ConvertError> {
///         hub.storage = parse_size(&self.size)?;
///         Ok(())
///     }
///     fn fill_from_hub(&mut self, hub: &v1::DatabaseSpec) -> Result<(), ConvertError> {
///         self.size = hub.storage.0.clone();
///         Ok(())
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has fields converted by hand: implement `kubegen::convert::ManualConvert` for it",
    note = "`fill_hub` sets the hub fields listed in `filled` from the spoke's `#[convert(manual)]` fields; `fill_from_hub` does the reverse"
)]
pub trait ManualConvert: Spoke {
    /// Sets the hub fields generated code cannot (the `filled` ones), from this spoke.
    fn fill_hub(&self, hub: &mut Self::Hub) -> Result<(), ConvertError>;
    /// Sets this spoke's `#[convert(manual)]` fields from the hub.
    fn fill_from_hub(&mut self, hub: &Self::Hub) -> Result<(), ConvertError>;
}

/// Deep copy for identity conversions of kubegen types (generated code calls this).
#[doc(hidden)]
#[inline]
pub fn identity<T: crate::DeepCopy>(value: &T) -> Result<T, ConvertError> {
    Ok(value.deep_copy())
}
