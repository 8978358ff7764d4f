//! What the derive can know about another type's fields at compile time.
//!
//! `#[schema(list_map_keys = [...])]` must name fields of the list's item type that are
//! required or defaulted. The item type is a different type, so the derive checks it with
//! a constant: every kubegen type lists its fields in [`ApiFields::FIELDS`], and
//! [`check_list_map_key`] fails compilation when a key is missing or optional.

/// A field as the schema sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// Serialized name.
    pub name: &'static str,
    /// Required in the schema.
    pub required: bool,
    /// Has a `#[default]` in the schema.
    pub has_default: bool,
}

/// A type whose serialized fields are known at compile time (implemented by the derives).
#[diagnostic::on_unimplemented(
    message = "kubegen cannot see the fields of `{Self}`",
    note = "`list_map_keys` needs the item type's fields: derive `ApiType` for `{Self}`, or implement `kubegen::ApiFields` for it"
)]
pub trait ApiFields {
    /// The fields, in declaration order.
    const FIELDS: &'static [FieldInfo];
}

/// The item type of a list field (`Vec<T>`, `VecDeque<T>`, `Option<Vec<T>>`).
#[diagnostic::on_unimplemented(
    message = "`list_map_keys` applies to lists, but `{Self}` is not a list",
    note = "use it on a `Vec<T>` field whose items are objects"
)]
pub trait ListOf {
    /// The item type.
    type Item;
}

impl<T> ListOf for Vec<T> {
    type Item = T;
}
impl<T> ListOf for std::collections::VecDeque<T> {
    type Item = T;
}
impl<T> ListOf for Option<Vec<T>> {
    type Item = T;
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Fails (at compile time, when used in a constant) unless `key` is a required or
/// defaulted field of `T`.
pub const fn check_list_map_key<T: ApiFields>(
    key: &str,
    missing: &'static str,
    optional: &'static str,
) {
    let mut i = 0;
    while i < T::FIELDS.len() {
        let f = &T::FIELDS[i];
        if str_eq(f.name, key) {
            if !f.required && !f.has_default {
                panic!("{}", optional);
            }
            return;
        }
        i += 1;
    }
    panic!("{}", missing);
}

mod k8s {
    use super::{ApiFields, FieldInfo};
    use k8s_openapi::api::core::v1::{Container, ContainerPort, EnvVar, Volume, VolumeMount};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

    const fn req(name: &'static str) -> FieldInfo {
        FieldInfo {
            name,
            required: true,
            has_default: false,
        }
    }

    // The list-map keys Kubernetes itself uses for these types.
    impl ApiFields for Condition {
        const FIELDS: &'static [FieldInfo] = &[
            req("type"),
            req("status"),
            req("lastTransitionTime"),
            req("reason"),
            req("message"),
        ];
    }
    impl ApiFields for Container {
        const FIELDS: &'static [FieldInfo] = &[req("name")];
    }
    impl ApiFields for EnvVar {
        const FIELDS: &'static [FieldInfo] = &[req("name")];
    }
    impl ApiFields for Volume {
        const FIELDS: &'static [FieldInfo] = &[req("name")];
    }
    impl ApiFields for VolumeMount {
        const FIELDS: &'static [FieldInfo] = &[req("name"), req("mountPath")];
    }
    impl ApiFields for ContainerPort {
        const FIELDS: &'static [FieldInfo] = &[req("containerPort")];
    }
}
