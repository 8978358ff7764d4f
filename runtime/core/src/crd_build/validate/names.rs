//! The group, scope, names and version names of a CRD
//! (`validateCustomResourceDefinitionSpec`'s first checks and
//! `ValidateCustomResourceDefinitionNames`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinitionNames, CustomResourceDefinitionSpec,
};

use super::Refusal;
use crate::checks::names::{dns1035_label, dns1123_subdomain};
use crate::checks::{BadValue, FieldError};

/// `group` is a DNS subdomain with at least one dot; `scope` is `Cluster` or `Namespaced`.
pub(super) fn group_and_scope(spec: &CustomResourceDefinitionSpec) -> Vec<Refusal> {
    let mut out = Vec::new();
    let group = spec.group.as_str();
    let group_hint = "`group` is a lower-case DNS subdomain of at most 253 characters with at least \
                      one dot, under a domain you own (`batch.example.com`)";
    if group.is_empty() {
        out.push(Refusal::new(
            FieldError::required("spec.group", ""),
            group_hint,
        ));
    } else if let errs @ [_, ..] = dns1123_subdomain(group).as_slice() {
        out.push(Refusal::new(
            FieldError::invalid("spec.group", BadValue::str(group), errs.join(",")),
            group_hint,
        ));
    } else if !group.contains('.') {
        out.push(Refusal::new(
            FieldError::invalid(
                "spec.group",
                BadValue::str(group),
                "should be a domain with at least one dot",
            ),
            group_hint,
        ));
    }
    let scope_hint = "`scope` is `Namespaced` (the default) or `Cluster`";
    match spec.scope.as_str() {
        "Cluster" | "Namespaced" => {}
        "" => out.push(Refusal::new(
            FieldError::required("spec.scope", ""),
            scope_hint,
        )),
        other => out.push(Refusal::new(
            FieldError::not_supported(
                "spec.scope",
                BadValue::str(other),
                &["Cluster".into(), "Namespaced".into()],
            ),
            scope_hint,
        )),
    }
    out
}

/// A version name is a DNS-1035 label (`v1`, `v2beta1`).
pub(super) fn version_name(name: &str, path: &str) -> Vec<Refusal> {
    match dns1035_label(name).as_slice() {
        [] => Vec::new(),
        errs => vec![Refusal::new(
            FieldError::invalid(path, BadValue::str(name), errs.join(",")),
            "`version` is a lower-case DNS-1035 label: a letter, then letters, digits or `-`, \
             at most 63 characters (`v1`, `v2beta1`)",
        )],
    }
}

/// The kind, list kind, plural, singular, short names and categories.
pub(super) fn names(names: &CustomResourceDefinitionNames) -> Vec<Refusal> {
    let mut out = Vec::new();
    let singular = names.singular.as_deref().unwrap_or_default();
    let list_kind = names.list_kind.as_deref().unwrap_or_default();
    for (field, value) in [
        ("plural", names.plural.as_str()),
        ("singular", singular),
        ("kind", names.kind.as_str()),
        ("listKind", list_kind),
    ] {
        if value.is_empty() {
            out.push(Refusal::new(
                FieldError::required(&format!("spec.names.{field}"), ""),
                format!("the CRD needs `names.{field}`"),
            ));
        }
    }
    let label = |field: &str, value: &str, hint: &str, out: &mut Vec<Refusal>| {
        if let errs @ [_, ..] = dns1035_label(value).as_slice() {
            out.push(Refusal::new(
                FieldError::invalid(field, BadValue::str(value), errs.join(",")),
                format!(
                    "{hint} is a lower-case DNS-1035 label: a letter, then letters, digits or `-`, \
                     at most 63 characters"
                ),
            ));
        }
    };
    let plural = names.plural.as_str();
    if !plural.is_empty() {
        label("spec.names.plural", plural, "`plural`", &mut out);
    }
    if !singular.is_empty() {
        label("spec.names.singular", singular, "`singular`", &mut out);
    }
    for (field, value) in [("kind", names.kind.as_str()), ("listKind", list_kind)] {
        if value.is_empty() {
            continue;
        }
        if let errs @ [_, ..] = dns1035_label(&value.to_lowercase()).as_slice() {
            out.push(Refusal::new(
                FieldError::invalid(
                    &format!("spec.names.{field}"),
                    BadValue::str(value),
                    format!(
                        "may have mixed case, but should otherwise match: {}",
                        errs.join(",")
                    ),
                ),
                "`kind` is at most 59 letters and digits, starting with a letter (its list kind \
                 adds `List` and must stay within 63)",
            ));
        }
    }
    for (i, short) in names.short_names.iter().flatten().enumerate() {
        label(
            &format!("spec.names.shortNames[{i}]"),
            short,
            "a `shortname`",
            &mut out,
        );
    }
    if !names.kind.is_empty() && names.kind == list_kind {
        out.push(Refusal::new(
            FieldError::invalid(
                "spec.names.listKind",
                BadValue::str(list_kind),
                "kind and listKind may not be the same",
            ),
            "the list kind is the kind with `List` appended",
        ));
    }
    for (i, category) in names.categories.iter().flatten().enumerate() {
        label(
            &format!("spec.names.categories[{i}]"),
            category,
            "a `category`",
            &mut out,
        );
    }
    out
}
