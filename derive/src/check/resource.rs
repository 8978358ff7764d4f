//! `#[resource(...)]`: names, scope, version, subresources and columns, as the apiserver's
//! CRD validation checks them. Selectable fields are in [`super::selectable`], the CRD's
//! labels and annotations in [`super::metadata`].

use super::*;

/// An RFC 1123 label without its length limit: lower-case letters, digits and `-`, starting
/// and ending with a letter or digit (a part of a DNS subdomain, which the apiserver limits
/// only as a whole).
fn is_subdomain_part(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// `IsDNS1035Label`: at most 63 lower-case letters, digits and `-`, starting with a letter
/// and ending with a letter or digit. Kubernetes' rule for resource names and versions.
pub(super) fn is_dns1035_label(s: &str) -> bool {
    s.len() <= 63 && is_subdomain_part(s) && s.starts_with(|c: char| c.is_ascii_lowercase())
}

pub(super) fn resource(model: &Model, r: &ResourceArgs, errors: &mut Accumulator) {
    let group = r.group.as_str();
    if !group.contains('.') || !group.split('.').all(is_subdomain_part) {
        errors.push(error_at(
            r.group.span(),
            format!("group `{group}` is not a lower-case domain with at least one dot, as CRD groups must be (e.g. `batch.example.com`)"),
        ));
    } else if group.len() > 253 {
        errors.push(error_at(
            r.group.span(),
            format!(
                "group `{group}` has {} characters; the apiserver allows at most 253",
                group.len()
            ),
        ));
    }
    let version = r.version.as_str();
    if !is_dns1035_label(version) {
        errors.push(error_at(
            r.version.span(),
            format!("version `{version}` is not a DNS label starting with a letter (e.g. `v1`, `v1beta2`)"),
        ));
    }
    let kind = r.kind.as_str();
    let camel = kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !camel {
        errors.push(error_at(
            r.kind.span(),
            format!(
                "kind `{kind}` must be UpperCamelCase ASCII letters and digits (e.g. `CronJob`)"
            ),
        ));
    } else if kind.len() > 59 {
        errors.push(error_at(
            r.kind.span(),
            format!(
                "kind `{kind}` has {} characters; the apiserver allows 63 for the kind and its list kind `{kind}List`, so at most 59",
                kind.len()
            ),
        ));
    } else if model.input.ident == kind {
        errors.push(error_at(
            r.kind.span(),
            format!("kind `{kind}` is the name of the spec struct; the derive generates the `{kind}` struct, so name the spec `{kind}Spec`"),
        ));
    }
    let dns1035 = |what: &str, v: &str| {
        format!(
            "{what} `{v}` must be a lower-case DNS-1035 label, as the apiserver requires: a letter, then letters, digits or `-`, at most 63 characters"
        )
    };
    for (what, value) in [("plural", &r.plural), ("singular", &r.singular)] {
        if let Some(v) = value
            && !is_dns1035_label(v)
        {
            errors.push(error_at(v.span(), dns1035(what, v)));
        }
    }
    for (what, list) in [("shortname", &r.shortnames), ("category", &r.categories)] {
        for (i, v) in list.iter().enumerate() {
            if !is_dns1035_label(v) {
                errors.push(error_at(v.span(), dns1035(what, v)));
            }
            if list[..i].iter().any(|o| o.as_str() == v.as_str()) {
                errors.push(error_at(
                    v.span(),
                    format!("{what} `{}` is given twice", v.as_str()),
                ));
            }
        }
    }
    if let Some(scope) = &r.scope
        && !matches!(scope.as_str(), "Namespaced" | "Cluster")
    {
        errors.push(error_at(
            scope.span(),
            format!(
                "scope is `Namespaced` (the default) or `Cluster`, not `{}`",
                scope.as_str()
            ),
        ));
    }
    if let Some(scale) = &r.scale {
        let path = |v: &darling::util::SpannedValue<String>,
                    prefixes: &[&str],
                    errors: &mut Accumulator| {
            if !prefixes.iter().any(|p| v.starts_with(p)) {
                errors.push(error_at(
                    v.span(),
                    format!("this path must start with {}", prefixes.join(" or ")),
                ));
            }
        };
        path(&scale.spec_replicas_path, &[".spec."], errors);
        path(&scale.status_replicas_path, &[".status."], errors);
        if let Some(selector) = &scale.label_selector_path {
            path(selector, &[".spec.", ".status."], errors);
        }
    }
    for (i, column) in r.printcolumns.iter().enumerate() {
        if column.name.is_empty() {
            errors.push(error_at(column.name.span(), "a printcolumn needs a name"));
        }
        if r.printcolumns[..i]
            .iter()
            .any(|c| c.name.as_str() == column.name.as_str())
        {
            errors.push(error_at(
                column.name.span(),
                format!(
                    "printcolumn `{}` is given twice; column names must be unique",
                    column.name.as_str()
                ),
            ));
        }
        if !column.json_path.starts_with('.') {
            errors.push(error_at(
                column.json_path.span(),
                "`json_path` must start with `.`, e.g. `.spec.schedule`",
            ));
        }
        if !matches!(
            column.type_.as_str(),
            "integer" | "number" | "string" | "boolean" | "date"
        ) {
            errors.push(error_at(
                column.type_.span(),
                format!(
                    "printcolumn type is one of integer, number, string, boolean, date, not `{}`",
                    column.type_.as_str()
                ),
            ));
        }
        if let Some(format) = &column.format
            && !matches!(
                format.as_str(),
                "int32" | "int64" | "float" | "double" | "byte" | "date" | "date-time" | "password"
            )
        {
            errors.push(error_at(format.span(), "printcolumn format is one of int32, int64, float, double, byte, date, date-time, password"));
        }
        if let Some(priority) = &column.priority
            && **priority < 0
        {
            errors.push(error_at(
                priority.span(),
                "printcolumn priority must be 0 or more",
            ));
        }
    }
    if let Some(deprecated) = &r.deprecated
        && let Some(warning) = &deprecated.warning
    {
        deprecation_warning(warning, deprecated.span(), errors);
    }
}

/// The apiserver takes a deprecation warning of 1 to 256 bytes of printable characters (the
/// control and white-space characters caught here; `crd()` checks the rest of Go's
/// `unicode.IsPrint`).
fn deprecation_warning(warning: &str, span: Span, errors: &mut Accumulator) {
    let problem = if warning.is_empty() {
        "is empty".to_owned()
    } else if warning.len() > 256 {
        format!("has {} bytes", warning.len())
    } else if let Some(c) = warning
        .chars()
        .find(|c| c.is_control() || (c.is_whitespace() && *c != ' '))
    {
        format!("holds the unprintable character {c:?}")
    } else {
        return;
    };
    errors.push(error_at(
        span,
        format!(
            "the deprecation warning {problem}; the apiserver takes one line of 1 to 256 bytes of printable characters (leave `warning` out for its default warning)"
        ),
    ));
}

/// Kubernetes' plural for a lower-cased kind, the way kubebuilder and kube-rs guess it,
/// with English rules rather than Go's bare `s`/`y` ones (`Ingress` → `ingresses`,
/// `Gateway` → `gateways`, `Policy` → `policies`).
pub fn plural(singular: &str) -> String {
    let irregular = [
        ("endpoints", "endpoints"),
        ("person", "people"),
        ("child", "children"),
        ("index", "indices"),
    ];
    if let Some((_, p)) = irregular.iter().find(|(s, _)| *s == singular) {
        return (*p).to_owned();
    }
    let vowel = |c: char| "aeiou".contains(c);
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| singular.ends_with(e))
    {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        if stem.ends_with(vowel) {
            format!("{singular}s")
        } else {
            format!("{stem}ies")
        }
    } else {
        format!("{singular}s")
    }
}

#[cfg(test)]
mod tests {
    use super::{is_dns1035_label, plural};

    #[test]
    fn names_are_dns_1035_labels() {
        for ok in ["v1", "widgets", "a-b", &"a".repeat(63)] {
            assert!(is_dns1035_label(ok), "{ok}");
        }
        for bad in ["", "1w", "-w", "w-", "W", "a.b", &"a".repeat(64)] {
            assert!(!is_dns1035_label(bad), "{bad}");
        }
    }

    #[test]
    fn plurals() {
        for (s, p) in [
            ("cronjob", "cronjobs"),
            ("ingress", "ingresses"),
            ("policy", "policies"),
            ("gateway", "gateways"),
            ("box", "boxes"),
            ("batch", "batches"),
            ("mesh", "meshes"),
            ("endpoints", "endpoints"),
        ] {
            assert_eq!(plural(s), p);
        }
    }
}
