//! Defaults and examples the field's own type reads: a `#[default]` is what the apiserver
//! writes into every object that lacks the field, so a value the type cannot decode (a
//! variant serde never reads, a value a custom `Deserialize` refuses) would make every such
//! object undecodable. `crd()` refuses the schema instead, naming the field.
//!
//! Generated code calls `(&&DecodeProbe::<T>::new()).probe_check_decodes(&mut node)`: for a
//! type that implements `Deserialize` the check runs, for any other it does nothing.

use std::marker::PhantomData;

use schemars::Schema;
use serde::de::DeserializeOwned;

use super::record_error;

/// Records an error at `schema` when its `default` or `example` does not decode into `T`.
pub fn check_decodes<T: DeserializeOwned>(schema: &mut Schema) {
    for (key, what) in [("default", "#[default]"), ("example", "`example`")] {
        let Some(value) = schema.get(key) else {
            continue;
        };
        if let Err(e) = serde_json::from_value::<T>(value.clone()) {
            let message = format!(
                "the {what} value {value} does not decode into `{}`, which reads this field: {e}",
                std::any::type_name::<T>()
            );
            record_error(schema, message);
        }
    }
}

/// Checks a field's default and example when its type can be decoded.
#[doc(hidden)]
pub struct DecodeProbe<T>(PhantomData<T>);

impl<T> DecodeProbe<T> {
    /// A probe for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        DecodeProbe(PhantomData)
    }
}

#[doc(hidden)]
pub trait ViaDeserialize {
    fn probe_check_decodes(&self, schema: &mut Schema);
}

impl<T: DeserializeOwned> ViaDeserialize for &DecodeProbe<T> {
    fn probe_check_decodes(&self, schema: &mut Schema) {
        check_decodes::<T>(schema)
    }
}

#[doc(hidden)]
pub trait NoDeserialize {
    fn probe_check_decodes(&self, schema: &mut Schema);
}

impl<T> NoDeserialize for DecodeProbe<T> {
    fn probe_check_decodes(&self, _: &mut Schema) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize)]
    enum Mode {
        Fast,
        #[serde(skip_deserializing)]
        #[allow(dead_code)]
        Legacy,
    }

    struct NotDecodable;

    /// The error `T`'s probe records on a node with `default`.
    fn checked<T>(default: serde_json::Value) -> Option<String>
    where
        for<'a> &'a DecodeProbe<T>: ViaDeserialize,
    {
        let mut node = Schema::from(serde_json::Map::from_iter([("default".into(), default)]));
        (&&DecodeProbe::<T>::new()).probe_check_decodes(&mut node);
        node.get(super::super::ERROR_KEY)
            .and_then(|e| e.as_str())
            .map(str::to_owned)
    }

    #[test]
    fn a_default_the_type_cannot_read_is_recorded() {
        assert_eq!(checked::<Mode>(json!("Fast")), None);
        let error = checked::<Mode>(json!("Legacy")).unwrap();
        assert!(
            error.starts_with("the #[default] value \"Legacy\" does not decode into `"),
            "{error}"
        );
        // A type that cannot be decoded at all is not checked (the probe's fallback, which
        // generated code reaches through the same borrow).
        let mut other = Schema::from(serde_json::Map::from_iter([("default".into(), json!(1))]));
        #[allow(clippy::needless_borrow)]
        (&&DecodeProbe::<NotDecodable>::new()).probe_check_decodes(&mut other);
        assert!(other.get(super::super::ERROR_KEY).is_none());
    }
}
