//! deepcopy-gen: copying a value into an existing one, reusing its allocations.
//!
//! `DeepCopy::deep_copy_into` walks both values field by field; strings, vectors and maps
//! that already exist in the target keep their buffers, so refreshing a cached object from a
//! newer version allocates only for what grew. Generated code implements the trait for every
//! kubegen type; this module implements it for std containers, `serde_json::Value` and the
//! k8s-openapi types people put in specs.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;

/// A type that can copy itself into an existing value of the same type.
///
/// ```
/// use kubegen_core::DeepCopy;
/// let src = vec!["a".to_string(), "b".to_string()];
/// let mut dst = vec![String::with_capacity(64)];
/// src.deep_copy_into(&mut dst);
/// assert_eq!(dst, src);
/// assert!(dst[0].capacity() >= 64, "the existing buffer was reused");
/// ```
pub trait DeepCopy: Sized {
    /// A fresh copy of `self`.
    fn deep_copy(&self) -> Self;

    /// Overwrites `out` with a copy of `self`, reusing `out`'s allocations where it can.
    fn deep_copy_into(&self, out: &mut Self);
}

macro_rules! deep_copy_by_clone_from {
    ($($ty:ty),* $(,)?) => {$(
        impl DeepCopy for $ty {
            #[inline]
            fn deep_copy(&self) -> Self {
                self.clone()
            }
            #[inline]
            fn deep_copy_into(&self, out: &mut Self) {
                out.clone_from(self);
            }
        }
    )*};
}

deep_copy_by_clone_from!(
    bool,
    char,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    (),
    String,
);

impl<T: DeepCopy> DeepCopy for Option<T> {
    fn deep_copy(&self) -> Self {
        self.as_ref().map(DeepCopy::deep_copy)
    }

    fn deep_copy_into(&self, out: &mut Self) {
        match (self, out) {
            (Some(src), Some(dst)) => src.deep_copy_into(dst),
            (src, dst) => *dst = src.deep_copy(),
        }
    }
}

impl<T: DeepCopy> DeepCopy for Box<T> {
    fn deep_copy(&self) -> Self {
        Box::new((**self).deep_copy())
    }

    fn deep_copy_into(&self, out: &mut Self) {
        (**self).deep_copy_into(out);
    }
}

/// Sequences: elements present in both are copied in place, extra target elements are
/// dropped, missing ones are appended.
macro_rules! deep_copy_sequence {
    ($($seq:ident),*) => {$(
        impl<T: DeepCopy> DeepCopy for $seq<T> {
            fn deep_copy(&self) -> Self {
                self.iter().map(DeepCopy::deep_copy).collect()
            }

            fn deep_copy_into(&self, out: &mut Self) {
                out.truncate(self.len());
                let reused = out.len();
                for (src, dst) in self.iter().zip(out.iter_mut()) {
                    src.deep_copy_into(dst);
                }
                out.extend(self.iter().skip(reused).map(DeepCopy::deep_copy));
            }
        }
    )*};
}

deep_copy_sequence!(Vec, VecDeque);

/// Maps: values under keys present in both are copied in place, the rest removed or added.
macro_rules! deep_copy_map_into {
    () => {
        fn deep_copy_into(&self, out: &mut Self) {
            out.retain(|k, _| self.contains_key(k));
            for (k, v) in self {
                match out.get_mut(k) {
                    Some(dst) => v.deep_copy_into(dst),
                    None => {
                        out.insert(k.clone(), v.deep_copy());
                    }
                }
            }
        }
    };
}

impl<K: Ord + Clone, V: DeepCopy> DeepCopy for BTreeMap<K, V> {
    fn deep_copy(&self) -> Self {
        self.iter()
            .map(|(k, v)| (k.clone(), v.deep_copy()))
            .collect()
    }

    deep_copy_map_into!();
}

impl<K: Eq + Hash + Clone, V: DeepCopy, S: std::hash::BuildHasher + Clone> DeepCopy
    for HashMap<K, V, S>
{
    fn deep_copy(&self) -> Self {
        let mut out = HashMap::with_capacity_and_hasher(self.len(), self.hasher().clone());
        out.extend(self.iter().map(|(k, v)| (k.clone(), v.deep_copy())));
        out
    }

    deep_copy_map_into!();
}

impl<T: Ord + Clone> DeepCopy for BTreeSet<T> {
    fn deep_copy(&self) -> Self {
        self.clone()
    }

    fn deep_copy_into(&self, out: &mut Self) {
        out.retain(|v| self.contains(v));
        out.extend(
            self.iter()
                .filter(|v| !out.contains(*v))
                .cloned()
                .collect::<Vec<_>>(),
        );
    }
}

impl<T: Eq + Hash + Clone, S: std::hash::BuildHasher + Clone> DeepCopy for HashSet<T, S> {
    fn deep_copy(&self) -> Self {
        self.clone()
    }

    fn deep_copy_into(&self, out: &mut Self) {
        out.retain(|v| self.contains(v));
        for v in self {
            if !out.contains(v) {
                out.insert(v.clone());
            }
        }
    }
}

impl DeepCopy for serde_json::Value {
    fn deep_copy(&self) -> Self {
        self.clone()
    }

    fn deep_copy_into(&self, out: &mut Self) {
        use serde_json::Value;
        match (self, out) {
            (Value::String(src), Value::String(dst)) => dst.clone_from(src),
            (Value::Array(src), Value::Array(dst)) => src.deep_copy_into(dst),
            (Value::Object(src), Value::Object(dst)) => {
                dst.retain(|k, _| src.contains_key(k));
                for (k, v) in src {
                    match dst.get_mut(k) {
                        Some(d) => v.deep_copy_into(d),
                        None => {
                            dst.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            (src, dst) => *dst = src.clone(),
        }
    }
}

/// Implements `DeepCopy` for a foreign struct by naming its fields.
macro_rules! deep_copy_fields {
    ($($ty:path { $($field:ident),* $(,)? })*) => {$(
        impl DeepCopy for $ty {
            fn deep_copy(&self) -> Self {
                Self { $($field: DeepCopy::deep_copy(&self.$field)),* }
            }
            fn deep_copy_into(&self, out: &mut Self) {
                $(DeepCopy::deep_copy_into(&self.$field, &mut out.$field);)*
            }
        }
    )*};
}

mod k8s {
    use super::DeepCopy;
    use k8s_openapi::api::core::v1::{LocalObjectReference, ObjectReference};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
        Condition, FieldsV1, LabelSelector, LabelSelectorRequirement, ListMeta, ManagedFieldsEntry,
        MicroTime, ObjectMeta, OwnerReference, Time,
    };
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    // ListMeta gains fields between Kubernetes versions; clone keeps it version-agnostic.
    deep_copy_by_clone_from!(Time, MicroTime, FieldsV1, ListMeta);

    impl DeepCopy for Quantity {
        fn deep_copy(&self) -> Self {
            self.clone()
        }
        fn deep_copy_into(&self, out: &mut Self) {
            out.0.clone_from(&self.0);
        }
    }

    impl DeepCopy for IntOrString {
        fn deep_copy(&self) -> Self {
            self.clone()
        }
        fn deep_copy_into(&self, out: &mut Self) {
            match (self, out) {
                (IntOrString::String(src), IntOrString::String(dst)) => dst.clone_from(src),
                (src, dst) => *dst = src.clone(),
            }
        }
    }

    deep_copy_fields! {
        ObjectMeta {
            annotations, creation_timestamp, deletion_grace_period_seconds, deletion_timestamp,
            finalizers, generate_name, generation, labels, managed_fields, name, namespace,
            owner_references, resource_version, self_link, uid,
        }
        ManagedFieldsEntry { api_version, fields_type, fields_v1, manager, operation, subresource, time }
        OwnerReference { api_version, block_owner_deletion, controller, kind, name, uid }
        Condition { last_transition_time, message, observed_generation, reason, status, type_ }
        LabelSelector { match_expressions, match_labels }
        LabelSelectorRequirement { key, operator, values }
        ObjectReference { api_version, field_path, kind, name, namespace, resource_version, uid }
        LocalObjectReference { name }
    }
}

/// Copies a field whose type may or may not implement [`DeepCopy`].
///
/// Generated code calls `(&&DeepCopyProbe(src)).probe_deep_copy_into(dst)`: method
/// resolution picks the [`DeepCopy`] path when the type has it and falls back to
/// `Clone::clone_from` otherwise, so specs can hold any `Clone` type (a k8s-openapi
/// `PodSpec`, say) without kubegen listing every such type.
#[doc(hidden)]
pub struct DeepCopyProbe<'a, T>(pub &'a T);

#[doc(hidden)]
pub trait ViaDeepCopy<T> {
    fn probe_deep_copy(&self) -> T;
    fn probe_deep_copy_into(&self, out: &mut T);
}

impl<T: DeepCopy> ViaDeepCopy<T> for &DeepCopyProbe<'_, T> {
    #[inline]
    fn probe_deep_copy(&self) -> T {
        self.0.deep_copy()
    }
    #[inline]
    fn probe_deep_copy_into(&self, out: &mut T) {
        self.0.deep_copy_into(out)
    }
}

#[doc(hidden)]
pub trait ViaClone<T> {
    fn probe_deep_copy(&self) -> T;
    fn probe_deep_copy_into(&self, out: &mut T);
}

impl<T: Clone> ViaClone<T> for DeepCopyProbe<'_, T> {
    #[inline]
    fn probe_deep_copy(&self) -> T {
        self.0.clone()
    }
    #[inline]
    fn probe_deep_copy_into(&self, out: &mut T) {
        out.clone_from(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec_into_shorter_and_longer_targets() {
        let src = vec![1, 2, 3];
        let mut shorter = vec![9];
        src.deep_copy_into(&mut shorter);
        assert_eq!(shorter, src);
        let mut longer = vec![9, 9, 9, 9, 9];
        src.deep_copy_into(&mut longer);
        assert_eq!(longer, src);
    }

    #[test]
    fn map_drops_removed_keys_and_reuses_kept_values() {
        let src: BTreeMap<String, String> =
            [("a".into(), "1".into()), ("b".into(), "2".into())].into();
        let mut dst: BTreeMap<String, String> = [
            ("a".into(), String::with_capacity(100)),
            ("z".into(), "gone".into()),
        ]
        .into();
        src.deep_copy_into(&mut dst);
        assert_eq!(dst, src);
        assert!(dst["a"].capacity() >= 100);
    }

    #[test]
    fn json_value_changes_shape() {
        let src = serde_json::json!({"a": [1, "x", {"b": null}], "c": "s"});
        let mut dst = serde_json::json!({"a": "was a string", "d": 1});
        src.deep_copy_into(&mut dst);
        assert_eq!(dst, src);
    }

    #[test]
    fn sets_converge() {
        let src: BTreeSet<i32> = [1, 2, 3].into();
        let mut dst: BTreeSet<i32> = [3, 4].into();
        src.deep_copy_into(&mut dst);
        assert_eq!(dst, src);
        let src: HashSet<i32> = [1, 2].into();
        let mut dst: HashSet<i32> = [2, 5].into();
        src.deep_copy_into(&mut dst);
        assert_eq!(dst, src);
    }

    #[test]
    fn object_meta_copies_every_field() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        let src = ObjectMeta {
            name: Some("a".into()),
            namespace: Some("ns".into()),
            labels: Some([("k".to_string(), "v".to_string())].into()),
            finalizers: Some(vec!["f".into()]),
            generation: Some(4),
            ..Default::default()
        };
        let mut dst = ObjectMeta {
            uid: Some("old".into()),
            ..Default::default()
        };
        src.deep_copy_into(&mut dst);
        assert_eq!(dst, src);
        assert_eq!(src.deep_copy(), src);
    }
}
