//! `rbac.authorization.k8s.io/v1`: Role, ClusterRole, RoleBinding, ClusterRoleBinding
//! (`pkg/apis/rbac/validation`). Each update validates the new object as on create, then
//! its metadata update, then what may not change.

use serde_json::Value;

use super::common::{Selector, get, go_struct, label_selector, list, text};
use super::{Meta, Write};
use kubegen_runtime::validation::field::{child, index};
use kubegen_runtime::validation::names::{NameRule, dns1123_subdomain};
use kubegen_runtime::validation::{BadValue, FieldError};

const GROUP: &str = "rbac.authorization.k8s.io";

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    let namespaced = kind == "Role" || kind == "RoleBinding";
    let mut errs = meta.create();
    match kind {
        "Role" | "ClusterRole" => {
            for (i, rule) in list(object, "rules").iter().enumerate() {
                errs.extend(policy_rule(rule, namespaced, &index("rules", i)));
            }
            if kind == "ClusterRole" {
                errs.extend(aggregation_rule(get(object, "aggregationRule")));
            }
        }
        "RoleBinding" | "ClusterRoleBinding" => errs.extend(binding(object, namespaced)),
        _ => return None,
    }
    if let Write::Update(old) | Write::Status(old) = write {
        errs.extend(meta.update(old));
        let (role_ref, old_ref) = (get(object, "roleRef"), get(old, "roleRef"));
        if kind.ends_with("Binding") && role_ref != old_ref {
            errs.push(FieldError::invalid(
                "roleRef",
                go_struct(&[
                    (
                        "APIGroup",
                        Value::String(text(role_ref, "apiGroup").to_owned()),
                    ),
                    ("Kind", Value::String(text(role_ref, "kind").to_owned())),
                    ("Name", Value::String(text(role_ref, "name").to_owned())),
                ]),
                "cannot change roleRef",
            ));
        }
    }
    Some(errs)
}

/// `ValidatePolicyRule`.
fn policy_rule(rule: &Value, namespaced: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if list(rule, "verbs").is_empty() {
        errs.push(FieldError::required(
            &child(path, "verbs"),
            "verbs must contain at least one value",
        ));
    }
    let urls = list(rule, "nonResourceURLs");
    if !urls.is_empty() {
        let shown = BadValue::Json(get(rule, "nonResourceURLs").clone());
        if namespaced {
            errs.push(FieldError::invalid(
                &child(path, "nonResourceURLs"),
                shown.clone(),
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if ["apiGroups", "resources", "resourceNames"]
            .iter()
            .any(|k| !list(rule, k).is_empty())
        {
            errs.push(FieldError::invalid(
                &child(path, "nonResourceURLs"),
                shown,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return errs;
    }
    if list(rule, "apiGroups").is_empty() {
        errs.push(FieldError::required(
            &child(path, "apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if list(rule, "resources").is_empty() {
        errs.push(FieldError::required(
            &child(path, "resources"),
            "resource rules must supply at least one resource",
        ));
    }
    errs
}

/// A ClusterRole's `aggregationRule`.
fn aggregation_rule(rule: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if rule.is_null() {
        return errs;
    }
    let selectors = list(rule, "clusterRoleSelectors");
    if selectors.is_empty() {
        errs.push(FieldError::required(
            "aggregationRule.clusterRoleSelectors",
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
        ));
    }
    for (i, selector) in selectors.iter().enumerate() {
        let p = index("aggregationRule.clusterRoleSelectors", i);
        errs.extend(label_selector(selector, &p));
        if Selector::parse(selector).is_none() {
            errs.push(FieldError::invalid(
                &p,
                BadValue::Json(selector.clone()),
                "invalid label selector.",
            ));
        }
    }
    errs
}

/// `ValidateRoleBinding` / `ValidateClusterRoleBinding` after the metadata.
fn binding(binding: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let role_ref = get(binding, "roleRef");
    let group = text(role_ref, "apiGroup");
    if group != GROUP {
        errs.push(FieldError::not_supported(
            "roleRef.apiGroup",
            BadValue::str(group),
            &[GROUP.to_owned()],
        ));
    }
    let kind = text(role_ref, "kind");
    let kinds: &[&str] = if namespaced {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    if !kinds.contains(&kind) {
        errs.push(FieldError::not_supported(
            "roleRef.kind",
            BadValue::str(kind),
            &kinds.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>(),
        ));
    }
    let name = text(role_ref, "name");
    if name.is_empty() {
        errs.push(FieldError::required("roleRef.name", ""));
    } else {
        for msg in NameRule::PathSegment.check(name, false) {
            errs.push(FieldError::invalid(
                "roleRef.name",
                BadValue::str(name),
                msg,
            ));
        }
    }
    for (i, subject) in list(binding, "subjects").iter().enumerate() {
        errs.extend(subject_errors(subject, namespaced, &index("subjects", i)));
    }
    errs
}

/// `ValidateRoleBindingSubject`.
fn subject_errors(subject: &Value, namespaced: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = text(subject, "name");
    if name.is_empty() {
        errs.push(FieldError::required(&child(path, "name"), ""));
    }
    let group = text(subject, "apiGroup");
    match text(subject, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                for msg in dns1123_subdomain(name) {
                    errs.push(FieldError::invalid(
                        &child(path, "name"),
                        BadValue::str(name),
                        msg,
                    ));
                }
            }
            if !group.is_empty() {
                errs.push(FieldError::not_supported(
                    &child(path, "apiGroup"),
                    BadValue::str(group),
                    &[String::new()],
                ));
            }
            if !namespaced && text(subject, "namespace").is_empty() {
                errs.push(FieldError::required(&child(path, "namespace"), ""));
            }
        }
        "User" | "Group" => {
            if group != GROUP {
                errs.push(FieldError::not_supported(
                    &child(path, "apiGroup"),
                    BadValue::str(group),
                    &[GROUP.to_owned()],
                ));
            }
        }
        other => errs.push(FieldError::not_supported(
            &child(path, "kind"),
            BadValue::str(other),
            &[
                "ServiceAccount".to_owned(),
                "User".to_owned(),
                "Group".to_owned(),
            ],
        )),
    }
    errs
}
