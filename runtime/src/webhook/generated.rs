//! Conversion webhooks from conversion-gen: the generated hub-and-spoke conversions
//! ([`crate::convert::convert`]) registered as [`Converter`]s.

use serde_json::Value;

use super::convert::Converter;
use super::registry::Webhooks;
use crate::convert::{ConversionError, convert, registered_versions};

/// A [`Converter`] through the conversions the derive generated for every kind with
/// `#[convert(hub = ...)]`: spoke → hub → spoke, any registered kind.
#[derive(Clone, Copy, Debug, Default)]
pub struct GeneratedConverter;

impl Converter for GeneratedConverter {
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, ConversionError> {
        convert(object, desired_api_version).map_err(ConversionError::from)
    }
}

impl Webhooks {
    /// Converts every kind that has generated conversions (every group and kind in
    /// [`registered_versions`]) with [`GeneratedConverter`]. Converters registered for other
    /// kinds stay; a later [`converter`](Self::converter) for one of these kinds replaces it.
    pub fn generated_converters(self) -> Self {
        let mut kinds: Vec<(&str, &str)> = registered_versions()
            .into_iter()
            .map(|(group, kind, _, _)| (group, kind))
            .collect();
        kinds.dedup();
        kinds.into_iter().fold(self, |webhooks, (group, kind)| {
            webhooks.converter(group, kind, GeneratedConverter)
        })
    }

    /// Converts `K`'s kind (any of its versions) with [`GeneratedConverter`].
    pub fn generated_converter<K: kube::Resource<DynamicType = ()>>(self) -> Self {
        self.converter(K::group(&()), K::kind(&()), GeneratedConverter)
    }
}
