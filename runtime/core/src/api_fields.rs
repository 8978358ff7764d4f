//! What the derive can know about another type's fields at compile time.
//!
//! `#[schema(list_map_keys = [...])]` must name fields of the list's item type that are
//! required or defaulted, and a `#[rule]` may name fields of a field's type (`self.port.name`
//! on a field of type `Port`). Those are different types, so the derive checks them with
//! constants: every kubegen struct lists its fields in [`ApiFields::FIELDS`], and
//! [`check_list_map_key`], [`check_rule_field`] and [`check_items_correlate`] fail compilation
//! with a message naming the field and the type.

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
    /// Whether [`FIELDS`](Self::FIELDS) is every field of the serialized object: `false` when
    /// the type flattens another type into itself (`#[serde(flatten)]`), whose fields are not
    /// listed. Rule field checks are skipped for such types.
    const ALL_LISTED: bool = true;
    /// The first of the type's own `#[rule]`s that uses `oldSelf`: such a type cannot be the
    /// item type of a list whose items the apiserver does not correlate (an atomic list or a
    /// set), see [`check_items_correlate`].
    const OLD_SELF_RULE: Option<&'static str> = None;
}

/// What generated checks know about a type: `FieldsOf::<T>::FIELDS` is `Some` for types
/// that implement [`ApiFields`] and list all their fields, `None` for every other type
/// (strings, k8s-openapi types, enums), through [`NoApiFields`]. An inherent constant wins
/// over a trait's when its bounds hold, so this picks per concrete type without
/// specialization.
#[doc(hidden)]
pub struct FieldsOf<T: ?Sized>(core::marker::PhantomData<T>);

impl<T: ApiFields + ?Sized> FieldsOf<T> {
    /// The type's fields, when all are listed.
    pub const FIELDS: Option<&'static [FieldInfo]> =
        if T::ALL_LISTED { Some(T::FIELDS) } else { None };
    /// The type's first rule using `oldSelf`.
    pub const OLD_SELF_RULE: Option<&'static str> = T::OLD_SELF_RULE;
}

/// The fallback for types without [`ApiFields`]: nothing is known, nothing is checked.
#[doc(hidden)]
pub trait NoApiFields {
    /// Unknown fields.
    const FIELDS: Option<&'static [FieldInfo]> = None;
    /// No known rules.
    const OLD_SELF_RULE: Option<&'static str> = None;
}

impl<T: ?Sized> NoApiFields for FieldsOf<T> {}

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

pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
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

/// Fails (at compile time, when used in a constant) unless `name` is a serialized field of
/// the type `fields` describes (`None`: a type whose fields are unknown, not checked).
/// `context` says where the rule names it (`` `self.port.nmae` in the rule on `ports` ``),
/// `type_name` what the type is; the message suggests the closest field name.
pub const fn check_rule_field(
    fields: Option<&[FieldInfo]>,
    name: &str,
    context: &str,
    type_name: &str,
) {
    let Some(fields) = fields else {
        return;
    };
    let limit = suggestion_limit(name.len());
    let (mut best, mut best_distance) = (0, usize::MAX);
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i].name, name) {
            return;
        }
        let d = edit_distance(fields[i].name.as_bytes(), name.as_bytes());
        if d <= limit && d < best_distance {
            (best, best_distance) = (i, d);
        }
        i += 1;
    }
    let mut m = ConstMessage::new()
        .push(context)
        .push(": `")
        .push(type_name)
        .push("` has no field `")
        .push(name)
        .push("` (fields go by their serde names)");
    if best_distance != usize::MAX {
        m = m
            .push("; did you mean `")
            .push(fields[best].name)
            .push("`?");
    }
    panic!("{}", m.as_str());
}

/// Fails (at compile time) when a list whose items the apiserver does not correlate between
/// an object's old and new versions holds a type with a rule using `oldSelf`: the apiserver
/// refuses such a CRD ("oldSelf cannot be used on the uncorrelatable portion of the schema").
pub const fn check_items_correlate(old_self_rule: Option<&str>, field: &str, item_type: &str) {
    let Some(rule) = old_self_rule else {
        return;
    };
    let m = ConstMessage::new()
        .push("`")
        .push(field)
        .push("` is a list whose items the apiserver cannot match between an object's old and new versions (only `list_type = \"map\"` lists correlate items), but its item type `")
        .push(item_type)
        .push("` has a rule using oldSelf: `")
        .push(rule)
        .push("`; make the list a map list (#[schema(list_type = \"map\", list_map_keys = [...])]) or move the transition rule onto the list");
    panic!("{}", m.as_str());
}

/// A message assembled at compile time (const panics cannot format).
pub(crate) struct ConstMessage {
    buf: [u8; 1024],
    len: usize,
}

impl ConstMessage {
    pub(crate) const fn new() -> Self {
        ConstMessage {
            buf: [0; 1024],
            len: 0,
        }
    }

    /// Appends `s` whole, or not at all when it does not fit, so the buffer stays UTF-8.
    pub(crate) const fn push(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        if self.len + bytes.len() > self.buf.len() {
            return self;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.buf[self.len + i] = bytes[i];
            i += 1;
        }
        self.len += bytes.len();
        self
    }

    pub(crate) const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        // Only whole `&str`s were copied in, so this is UTF-8.
        match core::str::from_utf8(text) {
            Ok(s) => s,
            Err(_) => "invalid field reference",
        }
    }
}

/// How many edits a suggestion may be away from a name of `len` bytes (the derive uses the
/// same limit for the fields it sees itself).
const fn suggestion_limit(len: usize) -> usize {
    if len < 4 {
        1
    } else if len < 12 {
        2
    } else {
        3
    }
}

/// Levenshtein distance between two names (bytes), for suggestions; names longer than 63
/// bytes count as far apart.
const fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    const MAX: usize = 64;
    if a.len() >= MAX || b.len() >= MAX {
        return usize::MAX / 4;
    }
    let mut prev = [0usize; MAX];
    let mut cur = [0usize; MAX];
    let mut j = 0;
    while j <= b.len() {
        prev[j] = j;
        j += 1;
    }
    let mut i = 1;
    while i <= a.len() {
        cur[0] = i;
        let mut j = 1;
        while j <= b.len() {
            let cost = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            let mut best = prev[j - 1] + cost;
            if prev[j] + 1 < best {
                best = prev[j] + 1;
            }
            if cur[j - 1] + 1 < best {
                best = cur[j - 1] + 1;
            }
            cur[j] = best;
            j += 1;
        }
        prev = cur;
        i += 1;
    }
    prev[b.len()]
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

    // The list-map keys Kubernetes itself uses for these types: only those fields are
    // listed, so rule field checks leave these types alone (`ALL_LISTED = false`).
    impl ApiFields for Condition {
        const FIELDS: &'static [FieldInfo] = &[
            req("type"),
            req("status"),
            req("lastTransitionTime"),
            req("reason"),
            req("message"),
        ];
        const ALL_LISTED: bool = false;
    }
    impl ApiFields for Container {
        const FIELDS: &'static [FieldInfo] = &[req("name")];
        const ALL_LISTED: bool = false;
    }
    impl ApiFields for EnvVar {
        const FIELDS: &'static [FieldInfo] = &[req("name")];
        const ALL_LISTED: bool = false;
    }
    impl ApiFields for Volume {
        const FIELDS: &'static [FieldInfo] = &[req("name")];
        const ALL_LISTED: bool = false;
    }
    impl ApiFields for VolumeMount {
        const FIELDS: &'static [FieldInfo] = &[req("name"), req("mountPath")];
        const ALL_LISTED: bool = false;
    }
    impl ApiFields for ContainerPort {
        const FIELDS: &'static [FieldInfo] = &[req("containerPort")];
        const ALL_LISTED: bool = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORT: &[FieldInfo] = &[
        FieldInfo {
            name: "name",
            required: true,
            has_default: false,
        },
        FieldInfo {
            name: "containerPort",
            required: false,
            has_default: false,
        },
    ];

    fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<String> {
        let err = std::panic::catch_unwind(f).err()?;
        err.downcast_ref::<String>()
            .cloned()
            .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
    }

    #[test]
    fn rule_fields_are_found_by_serde_name_with_a_suggestion_otherwise() {
        assert_eq!(
            panic_message(|| check_rule_field(Some(PORT), "containerPort", "ctx", "Port")),
            None
        );
        assert_eq!(
            panic_message(|| check_rule_field(None, "anything", "ctx", "Port")),
            None
        );
        assert_eq!(
            panic_message(|| check_rule_field(Some(PORT), "nmae", "`self.port.nmae`", "Port"))
                .as_deref(),
            Some(
                "`self.port.nmae`: `Port` has no field `nmae` (fields go by their serde names); did you mean `name`?"
            )
        );
        assert_eq!(
            panic_message(|| check_rule_field(Some(PORT), "zone", "ctx", "Port")).as_deref(),
            Some("ctx: `Port` has no field `zone` (fields go by their serde names)")
        );
    }

    #[test]
    fn items_with_transition_rules_must_correlate() {
        assert_eq!(
            panic_message(|| check_items_correlate(None, "ports", "Port")),
            None
        );
        let message =
            panic_message(|| check_items_correlate(Some("self == oldSelf"), "ports", "Port"))
                .unwrap_or_default();
        assert!(
            message.starts_with("`ports` is a list whose items")
                && message.contains("`Port` has a rule using oldSelf: `self == oldSelf`"),
            "{message}"
        );
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance(b"name", b"nmae"), 2);
        assert_eq!(edit_distance(b"port", b"ports"), 1);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(b"same", b"same"), 0);
    }

    #[test]
    fn messages_too_long_keep_whole_parts() {
        let long = "x".repeat(2000);
        let m = ConstMessage::new().push("head ").push(&long).push("tail");
        assert_eq!(m.as_str(), "head tail");
    }
}
