//! Compile-time checks of a spoke against its hub: every field has a conversion, and the
//! hub is the storage version of the same kind. Generated constants call these; a failure
//! stops compilation with the message.

use crate::api_fields::{ConstMessage, FieldInfo, str_eq};
use crate::kind_info::ResourceInfo;

const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if str_eq(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

const fn has_field(fields: &[FieldInfo], name: &str) -> bool {
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i].name, name) {
            return true;
        }
        i += 1;
    }
    false
}

/// Fails unless the spoke field `name` (not `#[convert(manual)]`) has a hub field of the
/// same serialized name to convert into.
pub const fn check_spoke_field(hub: &[FieldInfo], name: &str, spoke_type: &str, hub_type: &str) {
    if has_field(hub, name) {
        return;
    }
    let m = ConstMessage::new()
        .push("field `")
        .push(name)
        .push("` of `")
        .push(spoke_type)
        .push("` has no conversion: the hub `")
        .push(hub_type)
        .push("` has no field of that name; mark it `#[convert(manual)]` and set it in `ManualConvert::fill_from_hub` (and the hub field it becomes in `ManualConvert::fill_hub`, listed in `filled`)");
    panic!("{}", m.as_str());
}

/// Whether the spoke converts its field `name` by name: it has the field and the field is
/// not `#[convert(manual)]` (a manual field may share a hub field's name, not its type).
const fn converts_by_name(spoke: &[FieldInfo], manual: &[&str], name: &str) -> bool {
    has_field(spoke, name) && !contains(manual, name)
}

/// Fails unless every hub field is converted from a spoke field of the same name, set by
/// the author (`filled`), or kept in the annotation (`restored`), and every name in
/// `filled` and `restored` is a hub field the spoke does not convert by name. `manual`
/// names the spoke's `#[convert(manual)]` fields.
pub const fn check_hub_fields(
    hub: &[FieldInfo],
    spoke: &[FieldInfo],
    manual: &[&str],
    filled: &[&str],
    restored: &[&str],
    spoke_type: &str,
    hub_type: &str,
) {
    let mut i = 0;
    while i < hub.len() {
        let name = hub[i].name;
        if !converts_by_name(spoke, manual, name)
            && !contains(filled, name)
            && !contains(restored, name)
        {
            let m = ConstMessage::new()
                .push("hub field `")
                .push(name)
                .push("` of `")
                .push(hub_type)
                .push("` is not restored by `")
                .push(spoke_type)
                .push(
                    "`, which converts no field of that name: list it in `#[convert(restored = [\"",
                )
                .push(name)
                .push("\"])]` to keep it in the conversion-data annotation, or in `filled = [\"")
                .push(name)
                .push("\"]` and set it in `ManualConvert::fill_hub`");
            panic!("{}", m.as_str());
        }
        i += 1;
    }
    check_listed(hub, spoke, manual, filled, "filled", spoke_type, hub_type);
    check_listed(
        hub, spoke, manual, restored, "restored", spoke_type, hub_type,
    );
}

const fn check_listed(
    hub: &[FieldInfo],
    spoke: &[FieldInfo],
    manual: &[&str],
    names: &[&str],
    key: &str,
    spoke_type: &str,
    hub_type: &str,
) {
    let mut i = 0;
    while i < names.len() {
        let problem = if !has_field(hub, names[i]) {
            "` is not a field of the hub `"
        } else if converts_by_name(spoke, manual, names[i]) {
            "` converts by name already: the spoke has it too; remove it from the list (hub `"
        } else {
            ""
        };
        if !problem.is_empty() {
            let m = ConstMessage::new()
                .push("`")
                .push(key)
                .push("` on `")
                .push(spoke_type)
                .push("`: `")
                .push(names[i])
                .push(problem)
                .push(hub_type)
                .push("`");
            let m = if str_eq(problem, "` is not a field of the hub `") {
                m.push(" (fields go by their serde names)")
            } else {
                m.push(")")
            };
            panic!("{}", m.as_str());
        }
        i += 1;
    }
}

/// Fails unless `hub` is the storage version of the same group and kind as the spoke.
pub const fn check_hub_kind(spoke: &ResourceInfo, hub: &ResourceInfo) {
    let m = ConstMessage::new()
        .push("the hub of ")
        .push(spoke.kind)
        .push(" ")
        .push(spoke.group)
        .push("/")
        .push(spoke.version)
        .push(" must be ");
    if !str_eq(spoke.group, hub.group) || !str_eq(spoke.kind, hub.kind) {
        let m = m
            .push("another version of the same kind, but it names ")
            .push(hub.kind)
            .push(" ")
            .push(hub.group)
            .push("/")
            .push(hub.version);
        panic!("{}", m.as_str());
    }
    if !hub.storage {
        let m = m
            .push("the storage version, but ")
            .push(hub.version)
            .push(" has `storage = false`; name the version without it");
        panic!("{}", m.as_str());
    }
    if spoke.storage {
        let m = m
            .push("another version, but ")
            .push(spoke.version)
            .push(" is itself the storage version: add `storage = false` to its #[resource]");
        panic!("{}", m.as_str());
    }
}
