//! Decoding objects without `metadata.managedFields`, or with their `fieldsV1` kept as text.
//!
//! Operators strip managedFields from their caches because it is often the largest part of
//! an object and controllers rarely read it. Clearing it after decoding still pays for
//! building it (for every entry, a timestamp and a `fieldsV1` JSON tree). Decoding through
//! [`WithoutManagedFields`] skips those bytes instead, so the informer never builds them.
//! [`CompactManagedFields`] keeps the entries but reads each `fieldsV1` into a JSON string
//! instead of a tree: a fifth of the memory, and what `extract_*` reads back.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use kube::Resource;
use kube::api::Api;
use kube::core::DynamicResourceScope;
use kube::runtime::watcher::Event;
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, UnitDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// `K`, decoded with `metadata.managedFields` skipped (left `None`) rather than built and
/// dropped. Everything else decodes exactly as `K` does. Use it as the type of a kube `Api`
/// to watch without managedFields: [`WithoutManagedFields::api`].
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct WithoutManagedFields<K>(pub K);

/// `K`, decoded with each `metadata.managedFields` entry's `fieldsV1` held as its JSON
/// text in a string (`FieldsV1(Value::String(..))`) instead of a JSON tree: the tree of a
/// typical entry takes about five times the memory of its text, and is built only to be
/// read by `extract_*`, which reads the text form too. Everything else decodes exactly as
/// `K` does. Such an object is for reading: the apiserver does not take `fieldsV1` as a
/// string, so its managedFields must not be sent back. Watch with it through
/// [`CompactManagedFields::api`].
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct CompactManagedFields<K>(pub K);

/// The chain of map keys whose value is skipped or compacted.
const MANAGED_FIELDS: &[&str] = &["metadata", "managedFields"];

/// What becomes of the value at the end of the path.
#[derive(Clone, Copy)]
enum AtEnd {
    /// Skipped: the field reads as absent.
    Skip,
    /// Read as a list of managedFields entries whose `fieldsV1` are JSON strings.
    Compact,
}

impl<'de, K: Deserialize<'de>> Deserialize<'de> for WithoutManagedFields<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        K::deserialize(Skipping::new(deserializer, AtEnd::Skip)).map(WithoutManagedFields)
    }
}

impl<'de, K: Deserialize<'de>> Deserialize<'de> for CompactManagedFields<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        K::deserialize(Skipping::new(deserializer, AtEnd::Compact)).map(CompactManagedFields)
    }
}

/// A kube `Resource` for a decoding wrapper (the same kind as `K`), an `Api` for it and the
/// unwrapping of its watcher events.
macro_rules! wrapper_resource {
    ($wrapper:ident, $what:literal) => {
        impl<K: Resource<DynamicType = ()>> Resource for $wrapper<K> {
            type DynamicType = ();
            // The scope only selects which `Api` constructors exist; `api` picks the URL from the
            // `Api<K>` it is given.
            type Scope = DynamicResourceScope;

            fn kind(_: &()) -> Cow<'_, str> {
                K::kind(&())
            }
            fn group(_: &()) -> Cow<'_, str> {
                K::group(&())
            }
            fn version(_: &()) -> Cow<'_, str> {
                K::version(&())
            }
            fn api_version(_: &()) -> Cow<'_, str> {
                K::api_version(&())
            }
            fn plural(_: &()) -> Cow<'_, str> {
                K::plural(&())
            }
            fn meta(&self) -> &ObjectMeta {
                self.0.meta()
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                self.0.meta_mut()
            }
        }

        impl<K: Resource<DynamicType = ()> + Clone> $wrapper<K> {
            /// The same endpoint as `api` (its namespace, or all namespaces), decoding
            #[doc = $what]
            pub fn api(api: &Api<K>) -> Api<Self> {
                let client = api.clone().into_client();
                match api.namespace() {
                    Some(ns) => Api::namespaced_with(client, ns, &()),
                    None => Api::all_with(client, &()),
                }
            }

            /// Unwraps the objects of a watcher event.
            pub fn unwrap_event(event: Event<Self>) -> Event<K> {
                match event {
                    Event::Apply(o) => Event::Apply(o.0),
                    Event::Delete(o) => Event::Delete(o.0),
                    Event::Init => Event::Init,
                    Event::InitApply(o) => Event::InitApply(o.0),
                    Event::InitDone => Event::InitDone,
                }
            }
        }
    };
}

wrapper_resource!(WithoutManagedFields, "without managedFields.");
wrapper_resource!(
    CompactManagedFields,
    "each managedFields entry's `fieldsV1` as text"
);

/// A deserializer that replaces the value at `path` (a chain of map keys) with `null`,
/// skipping its bytes; every other value passes straight through, and only the maps along
/// the path are looked into.
struct Skipping<D> {
    inner: D,
    path: &'static [&'static str],
    end: AtEnd,
}

impl<D> Skipping<D> {
    fn new(inner: D, end: AtEnd) -> Self {
        Skipping {
            inner,
            path: MANAGED_FIELDS,
            end,
        }
    }

    fn visitor<V>(&self, visitor: V) -> SkippingVisitor<V> {
        SkippingVisitor {
            inner: visitor,
            path: self.path,
            end: self.end,
        }
    }
}

/// Forwards `deserialize_*` methods, wrapping the visitor.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            let visitor = self.visitor(visitor);
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Skipping<D> {
    type Error = D::Error;

    forward! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16() deserialize_u32()
        deserialize_u64() deserialize_u128() deserialize_f32() deserialize_f64() deserialize_char()
        deserialize_str() deserialize_string() deserialize_bytes() deserialize_byte_buf()
        deserialize_option() deserialize_unit() deserialize_seq() deserialize_map()
        deserialize_identifier() deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// `Skipping` as a seed, for the value under a key on the path.
struct SkippingSeed<S> {
    inner: S,
    path: &'static [&'static str],
    end: AtEnd,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for SkippingSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Skipping {
            inner: deserializer,
            path: self.path,
            end: self.end,
        })
    }
}

/// Passes every value to the wrapped visitor; maps are read through [`SkippingMap`].
struct SkippingVisitor<V> {
    inner: V,
    path: &'static [&'static str],
    end: AtEnd,
}

/// Forwards `visit_*` methods that take one value.
macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for SkippingVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Skipping {
            inner: deserializer,
            path: self.path,
            end: self.end,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Skipping {
            inner: deserializer,
            path: self.path,
            end: self.end,
        })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(SkippingMap {
            inner: map,
            path: self.path,
            end: self.end,
            next: Next::Plain,
        })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

/// What to do with the value after the key just read.
enum Next {
    Plain,
    Descend,
    End,
}

/// A map on the path: watches its keys for the next key of the path.
struct SkippingMap<A> {
    inner: A,
    path: &'static [&'static str],
    end: AtEnd,
    next: Next,
}

/// A map key, borrowed from the input when it can be.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor<'de>(PhantomData<&'de ()>);
        impl<'de> Visitor<'de> for KeyVisitor<'de> {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor(PhantomData))
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for SkippingMap<A> {
    type Error = A::Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let Some(Key(key)) = self.inner.next_key::<Key<'de>>()? else {
            return Ok(None);
        };
        self.next = match (key == self.path[0], self.path.len()) {
            (false, _) => Next::Plain,
            (true, 1) => Next::End,
            (true, _) => Next::Descend,
        };
        match key {
            Cow::Borrowed(k) => seed.deserialize(BorrowedStrDeserializer::new(k)),
            Cow::Owned(k) => seed.deserialize(StrDeserializer::new(&k)),
        }
        .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match std::mem::replace(&mut self.next, Next::Plain) {
            Next::Plain => self.inner.next_value_seed(seed),
            Next::Descend => self.inner.next_value_seed(SkippingSeed {
                inner: seed,
                path: &self.path[1..],
                end: self.end,
            }),
            Next::End => match self.end {
                AtEnd::Skip => {
                    self.inner.next_value::<IgnoredAny>()?;
                    seed.deserialize(UnitDeserializer::new())
                }
                AtEnd::Compact => {
                    let entries = self.inner.next_value_seed(CompactEntries)?;
                    seed.deserialize(entries).map_err(de::Error::custom)
                }
            },
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// Reads the managedFields list (and each entry in it) with every entry's `fieldsV1` as JSON
/// text in a string and everything else as it is. A value of another shape is read as it is,
/// for the kind's own decoding to reject as it would.
struct CompactEntries;

impl<'de> DeserializeSeed<'de> for CompactEntries {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CompactEntries {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of managedFields entries")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut entries = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(entry) = seq.next_element_seed(CompactEntries)? {
            entries.push(entry);
        }
        Ok(Value::Array(entries))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entry = serde_json::Map::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let value = if key == "fieldsV1" {
                let mut text = Vec::new();
                map.next_value_seed(JsonText(&mut text))?;
                match &text[..] {
                    b"null" => Value::Null,
                    _ => Value::String(String::from_utf8(text).map_err(de::Error::custom)?),
                }
            } else {
                map.next_value()?
            };
            entry.insert(key.into_owned(), value);
        }
        Ok(Value::Object(entry))
    }
}

/// Writes the value it reads as compact JSON text, building nothing else.
struct JsonText<'a>(&'a mut Vec<u8>);

impl JsonText<'_> {
    fn write<T: Serialize + ?Sized, E: de::Error>(self, value: &T) -> Result<(), E> {
        serde_json::to_writer(&mut *self.0, value).map_err(E::custom)
    }
}

impl<'de> DeserializeSeed<'de> for JsonText<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for JsonText<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.write(&v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.write(&v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.write(&v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.write(&v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.write(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let out = self.0;
        out.push(b'[');
        let mut first = true;
        loop {
            let before = out.len();
            if !first {
                out.push(b',');
            }
            if seq.next_element_seed(JsonText(&mut *out))?.is_none() {
                out.truncate(before);
                break;
            }
            first = false;
        }
        out.push(b']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.0;
        out.push(b'{');
        let mut first = true;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if !std::mem::take(&mut first) {
                out.push(b',');
            }
            JsonText(&mut *out).write::<_, A::Error>(&*key)?;
            out.push(b':');
            map.next_value_seed(JsonText(&mut *out))?;
        }
        out.push(b'}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    fn config_map_json() -> serde_json::Value {
        serde_json::json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "settings",
                "namespace": "prod",
                "labels": {"managedFields": "a label named like the skipped key stays"},
                "managedFields": [{
                    "manager": "kubectl", "operation": "Apply", "apiVersion": "v1",
                    "time": "2026-11-01T10:00:00Z", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {"f:mode": {}}},
                }],
                "resourceVersion": "42",
            },
            "data": {"mode": "fast", "managedFields": "data keys are not on the path"},
        })
    }

    #[test]
    fn skips_managed_fields_and_keeps_everything_else() {
        let bytes = serde_json::to_vec(&config_map_json()).unwrap();
        let full: ConfigMap = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(full.metadata.managed_fields.as_ref().map(Vec::len), Some(1));
        let lean: WithoutManagedFields<ConfigMap> = serde_json::from_slice(&bytes).unwrap();
        let mut expected = full;
        expected.metadata.managed_fields = None;
        assert_eq!(lean.0, expected);
        // From a reader, keys arrive as owned strings rather than borrowed ones.
        let lean: WithoutManagedFields<ConfigMap> = serde_json::from_reader(&bytes[..]).unwrap();
        assert_eq!(lean.0, expected);
        // Escaped keys cannot be borrowed either.
        let escaped = String::from_utf8(bytes)
            .unwrap()
            .replace("\"managedFields\":[", "\"managedFi\\u0065lds\":[");
        let lean: WithoutManagedFields<ConfigMap> = serde_json::from_str(&escaped).unwrap();
        assert_eq!(lean.0, expected);
    }

    /// A wrong type (at `field` of the config map, set to 7) and malformed JSON inside the
    /// managedFields are still errors when decoding through `W`.
    fn still_rejected<W: serde::de::DeserializeOwned>(field: &[&str]) {
        let mut v = config_map_json();
        let mut at = &mut v;
        for step in field {
            at = match step.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*step],
            };
        }
        *at = serde_json::json!(7);
        let err = serde_json::from_value::<W>(v).err().expect("rejected");
        assert!(
            err.to_string().contains("invalid type: integer `7`"),
            "{err}"
        );
        let bytes = serde_json::to_vec(&config_map_json()).unwrap();
        let broken = String::from_utf8(bytes)
            .unwrap()
            .replace("\"f:mode\":{}", "\"f:mode\":{");
        assert!(serde_json::from_str::<W>(&broken).is_err());
    }

    #[test]
    fn bad_data_is_still_an_error() {
        still_rejected::<WithoutManagedFields<ConfigMap>>(&["metadata", "name"]);
        still_rejected::<CompactManagedFields<ConfigMap>>(&["metadata", "name"]);
        still_rejected::<CompactManagedFields<ConfigMap>>(&[
            "metadata",
            "managedFields",
            "0",
            "manager",
        ]);
    }

    #[test]
    fn compact_keeps_fields_v1_as_its_text() {
        let mut v = config_map_json();
        let entries = &mut v["metadata"]["managedFields"];
        entries[0]["fieldsV1"] = serde_json::json!({
            "f:data": {".": {}, "f:mode": {}},
            "f:metadata": {"f:labels": {"f:k": {}}},
            "k:{\"type\":\"Ready\"}": {"n": [1, -2, 0.5, true, null, "s\"q"]},
        });
        entries.as_array_mut().unwrap().push(serde_json::json!({
            "manager": "other", "operation": "Update", "fieldsV1": null,
        }));
        let bytes = serde_json::to_vec(&v).unwrap();
        let full: ConfigMap = serde_json::from_slice(&bytes).unwrap();
        let compact: CompactManagedFields<ConfigMap> = serde_json::from_slice(&bytes).unwrap();
        let compact = compact.0;
        let (ours, theirs) = (
            compact.metadata.managed_fields.clone().unwrap(),
            full.metadata.managed_fields.clone().unwrap(),
        );
        assert_eq!(ours.len(), 2);
        let text = ours[0].fields_v1.as_ref().unwrap().0.as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(text).unwrap(),
            theirs[0].fields_v1.as_ref().unwrap().0,
            "the text reads back as the tree"
        );
        assert!(!text.contains(' '), "compact: {text}");
        assert_eq!(ours[1].fields_v1, None, "a null fieldsV1 stays absent");
        // Apart from fieldsV1's form, the object is what a plain decode makes.
        let mut expected = full;
        for (entry, compacted) in expected
            .metadata
            .managed_fields
            .iter_mut()
            .flatten()
            .zip(&ours)
        {
            entry.fields_v1 = compacted.fields_v1.clone();
        }
        assert_eq!(compact, expected);
        // Escaped keys and a reader's owned strings take the same path.
        let escaped = String::from_utf8(bytes.clone())
            .unwrap()
            .replace("\"fieldsV1\":{", "\"fields\\u0056\\u0031\":{");
        let again: CompactManagedFields<ConfigMap> = serde_json::from_str(&escaped).unwrap();
        assert_eq!(again.0, compact);
        let again: CompactManagedFields<ConfigMap> = serde_json::from_reader(&bytes[..]).unwrap();
        assert_eq!(again.0, compact);
    }

    #[test]
    fn compact_still_rejects_what_the_kind_rejects() {
        let mut v = config_map_json();
        v["metadata"]["managedFields"] = serde_json::json!({"not": "a list"});
        let err = serde_json::from_value::<CompactManagedFields<ConfigMap>>(v).unwrap_err();
        assert!(
            err.to_string()
                .contains("invalid type: map, expected a sequence"),
            "{err}"
        );
        let mut v = config_map_json();
        v["metadata"]["managedFields"] = serde_json::json!(["an entry?"]);
        let err = serde_json::from_value::<CompactManagedFields<ConfigMap>>(v).unwrap_err();
        assert!(
            err.to_string()
                .contains("invalid type: string \"an entry?\""),
            "{err}"
        );
    }

    #[test]
    fn watches_the_same_endpoint() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let config = kube::Config::new("http://127.0.0.1:1".parse().unwrap());
            let client = kube::Client::try_from(config).unwrap();
            let namespaced: Api<ConfigMap> = Api::namespaced(client.clone(), "prod");
            assert_eq!(
                WithoutManagedFields::api(&namespaced).resource_url(),
                namespaced.resource_url()
            );
            let all: Api<ConfigMap> = Api::all(client);
            assert_eq!(
                WithoutManagedFields::api(&all).resource_url(),
                all.resource_url()
            );
        });
    }
}
