//! `#[resource(...)]`: names, scope, subresources, columns, selectable fields.

use super::*;

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

pub(super) fn resource(model: &Model, r: &ResourceArgs, errors: &mut Accumulator) {
    let group = r.group.as_str();
    if !group.contains('.') || !group.split('.').all(is_dns_label) {
        errors.push(error_at(
            r.group.span(),
            format!("group `{group}` is not a lower-case domain with at least one dot, as CRD groups must be (e.g. `batch.example.com`)"),
        ));
    }
    let version = r.version.as_str();
    if !is_dns_label(version) || !version.starts_with(|c: char| c.is_ascii_lowercase()) {
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
    } else if model.input.ident == kind {
        errors.push(error_at(
            r.kind.span(),
            format!("kind `{kind}` is the name of the spec struct; the derive generates the `{kind}` struct, so name the spec `{kind}Spec`"),
        ));
    }
    for (what, value) in [("plural", &r.plural), ("singular", &r.singular)] {
        if let Some(v) = value
            && !is_dns_label(v)
        {
            errors.push(error_at(
                v.span(),
                format!("{what} `{}` must be a lower-case DNS label", v.as_str()),
            ));
        }
    }
    for (what, list) in [("shortname", &r.shortnames), ("category", &r.categories)] {
        for (i, v) in list.iter().enumerate() {
            if !is_dns_label(v) {
                errors.push(error_at(
                    v.span(),
                    format!("{what} `{}` must be a lower-case DNS label", v.as_str()),
                ));
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
    if r.selectable.len() > 8 {
        errors.push(error_at(
            r.selectable[8].span(),
            "a version may declare at most 8 selectable fields",
        ));
    }
    for (i, s) in r.selectable.iter().enumerate() {
        if !s.starts_with('.') {
            errors.push(error_at(
                s.span(),
                "a selectable field is a JSON path starting with `.`, e.g. `.spec.color`",
            ));
        }
        if r.selectable[..i].iter().any(|o| o.as_str() == s.as_str()) {
            errors.push(error_at(s.span(), "this selectable field is given twice"));
        }
    }
    for (what, list) in [("label", &r.labels), ("annotation", &r.annotations)] {
        for (i, kv) in list.iter().enumerate() {
            if kv.key.is_empty() {
                errors.push(error_at(kv.span(), format!("a {what} needs a key")));
            }
            if list[..i].iter().any(|o| o.key == kv.key) {
                errors.push(error_at(
                    kv.span(),
                    format!("{what} `{}` is given twice", kv.key),
                ));
            }
        }
    }
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
    use super::plural;

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
