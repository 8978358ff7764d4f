//! How a generated apply configuration is written and read: one generic implementation
//! instead of a serde derive per configuration type.
//!
//! A configuration is a struct of `Option`s, written as a JSON object of the fields that are
//! set and read back from one (what `extract_*` decodes). serde's derive wrote a visitor, a
//! field enum and a sequence reader for every such type, which made the apply
//! configurations the largest part of a kind's generated code; the derive now writes one call
//! per field to [`Writer`] and [`Reader`], whose behaviour is the derive's:
//!
//! - a field that is `None` is left out; one that is missing or `null` reads as `None`;
//! - fields the type does not have are ignored;
//! - a flattened configuration writes its fields into the object and reads from the fields
//!   the named ones did not take (as serde's `flatten` of an `Option`, a flattened
//!   configuration that does not read is `None`).

use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::{self, Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Writes a configuration's set fields as one map.
pub struct Writer<M> {
    map: M,
}

/// Starts writing a configuration to `serializer`.
pub fn write<S: Serializer>(serializer: S) -> Result<Writer<S::SerializeMap>, S::Error> {
    Ok(Writer {
        map: serializer.serialize_map(None)?,
    })
}

impl<M: SerializeMap> Writer<M> {
    /// Writes `name` when `value` is set.
    #[inline]
    pub fn field<T: Serialize>(
        &mut self,
        name: &'static str,
        value: &Option<T>,
    ) -> Result<(), M::Error> {
        match value {
            Some(value) => self.map.serialize_entry(name, value),
            None => Ok(()),
        }
    }

    /// Writes `name` always (a kind's `apiVersion`, `kind` and `metadata`).
    #[inline]
    pub fn entry<T: Serialize>(&mut self, name: &'static str, value: &T) -> Result<(), M::Error> {
        self.map.serialize_entry(name, value)
    }

    /// Writes a flattened configuration's fields, when it is set.
    pub fn flatten<T: Serialize>(&mut self, value: &Option<T>) -> Result<(), M::Error> {
        let Some(value) = value else { return Ok(()) };
        match serde_json::to_value(value).map_err(ser::Error::custom)? {
            Value::Object(fields) => {
                for (name, value) in &fields {
                    self.map.serialize_entry(name, value)?;
                }
                Ok(())
            }
            Value::Null => Ok(()),
            _ => Err(ser::Error::custom("can only flatten structs and maps")),
        }
    }

    /// Ends the map.
    pub fn end(self) -> Result<M::Ok, M::Error> {
        self.map.end()
    }
}

/// Reads a configuration's fields from one map, failing with the deserializer's error `E`.
pub struct Reader<E> {
    fields: Map<String, Value>,
    error: PhantomData<E>,
}

/// Starts reading a configuration from `deserializer`: the map it holds.
pub fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Reader<D::Error>, D::Error> {
    Ok(Reader {
        fields: serde::Deserialize::deserialize(deserializer)?,
        error: PhantomData,
    })
}

impl<E: de::Error> Reader<E> {
    /// Takes the field `name`: `None` when it is missing or `null`.
    #[inline]
    pub fn field<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, E> {
        match self.fields.remove(name) {
            None => Ok(None),
            Some(value) => <Option<T> as serde::Deserialize>::deserialize(value).map_err(E::custom),
        }
    }

    /// Takes the field `name`, which must be there (serde's `missing field` otherwise).
    pub fn required<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<T, E> {
        match self.fields.remove(name) {
            None => Err(E::missing_field(name)),
            Some(value) => T::deserialize(value).map_err(E::custom),
        }
    }

    /// Takes the field `name`, or `T`'s default when it is missing.
    pub fn or_default<T: DeserializeOwned + Default>(&mut self, name: &str) -> Result<T, E> {
        match self.fields.remove(name) {
            None => Ok(T::default()),
            Some(value) => T::deserialize(value).map_err(E::custom),
        }
    }

    /// A flattened configuration, read from the fields the named ones did not take (so read
    /// every named field first).
    pub fn flatten<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(Value::Object(self.fields.clone())).ok()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    #[derive(Debug, Default, PartialEq)]
    struct Inner {
        port: Option<i32>,
    }

    impl Serialize for Inner {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut w = write(s)?;
            w.field("port", &self.port)?;
            w.end()
        }
    }

    impl<'de> serde::Deserialize<'de> for Inner {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let mut r = read(d)?;
            Ok(Inner {
                port: r.field("port")?,
            })
        }
    }

    #[derive(Debug, Default, PartialEq)]
    struct Outer {
        name: Option<String>,
        inner: Option<Inner>,
        tags: Option<Vec<String>>,
    }

    impl Serialize for Outer {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut w = write(s)?;
            w.field("name", &self.name)?;
            w.flatten(&self.inner)?;
            w.field("tags", &self.tags)?;
            w.end()
        }
    }

    impl<'de> serde::Deserialize<'de> for Outer {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let mut r = read(d)?;
            let name = r.field("name")?;
            let tags = r.field("tags")?;
            Ok(Outer {
                name,
                inner: r.flatten(),
                tags,
            })
        }
    }

    #[test]
    fn only_set_fields_are_written_and_flattened_ones_inline() {
        let outer = Outer {
            name: Some("a".into()),
            inner: Some(Inner { port: Some(80) }),
            tags: None,
        };
        assert_eq!(
            serde_json::to_value(&outer).unwrap(),
            json!({"name": "a", "port": 80})
        );
        assert_eq!(serde_json::to_value(Outer::default()).unwrap(), json!({}));
    }

    #[test]
    fn reading_takes_known_fields_and_ignores_the_rest() {
        let read: Outer =
            serde_json::from_value(json!({"name": "a", "port": 80, "tags": null, "other": 1}))
                .unwrap();
        assert_eq!(
            read,
            Outer {
                name: Some("a".into()),
                inner: Some(Inner { port: Some(80) }),
                tags: None,
            }
        );
        // As serde's flatten of an Option: an all-optional configuration reads as set.
        let empty: Outer = serde_json::from_str("{}").unwrap();
        assert_eq!(empty.inner, Some(Inner::default()));
    }

    #[derive(Debug, PartialEq)]
    struct Kind {
        api_version: String,
        labels: BTreeMap<String, String>,
    }

    impl<'de> serde::Deserialize<'de> for Kind {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let mut r = read(d)?;
            Ok(Kind {
                api_version: r.required("apiVersion")?,
                labels: r.or_default("labels")?,
            })
        }
    }

    #[test]
    fn required_and_defaulted_fields_read_as_serdes_derive_reads_them() {
        let kind: Kind = serde_json::from_value(json!({"apiVersion": "v1"})).unwrap();
        assert_eq!(kind.labels, BTreeMap::new());
        let err = serde_json::from_value::<Kind>(json!({"labels": {}})).unwrap_err();
        assert_eq!(err.to_string(), "missing field `apiVersion`");
        // `default` covers a missing field, not a null one.
        let err = serde_json::from_value::<Kind>(json!({"apiVersion": "v1", "labels": null}));
        assert!(err.is_err());
    }

    #[test]
    fn a_wrong_type_is_serdes_error() {
        let err = serde_json::from_value::<Outer>(json!({"name": 5})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: integer `5`, expected a string"
        );
        let err = serde_json::from_value::<Outer>(json!("x")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("invalid type: string \"x\", expected a map"),
            "{err}"
        );
    }
}
