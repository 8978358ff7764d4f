//! Whether RBAC allows a request: kube-apiserver's RBAC authorizer, ported
//! (`plugin/pkg/auth/authorizer/rbac/rbac.go`), with its rule resolver
//! (`pkg/registry/rbac/validation/rule.go`) and its matchers
//! (`pkg/apis/rbac/v1/evaluation_helpers.go`).
//!
//! The ClusterRoleBindings are visited first, then the RoleBindings of the request's
//! namespace; of each binding the first subject that names the user counts, and each rule of
//! the role it refers to is tried. The first rule that allows the request decides, and the
//! reason names the binding, as the apiserver's does. A binding whose role is missing is
//! skipped, and the missing role is reported in the reason of a request nothing allowed.
//!
//! ```
//! use kubegen_core::rbac::authorize::{Attributes, Policy, Request, authorize};
//! use serde_json::json;
//!
//! let role = serde_json::from_value(json!({
//!     "metadata": {"name": "metrics-reader"},
//!     "rules": [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}],
//! }))?;
//! let binding = serde_json::from_value(json!({
//!     "metadata": {"name": "prometheus"},
//!     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "metrics-reader"},
//!     "subjects": [{"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"}],
//! }))?;
//! let policy = Policy { cluster_roles: vec![role], cluster_role_bindings: vec![binding], ..Policy::default() };
//! let request = Request::NonResource { verb: "get".into(), path: "/metrics".into() };
//! let user = "system:serviceaccount:monitoring:prometheus";
//! let decision = authorize(&policy, &Attributes { user, groups: &[], request: &request });
//! assert!(decision.allowed);
//! assert_eq!(
//!     decision.reason,
//!     r#"RBAC: allowed by ClusterRoleBinding "prometheus" of ClusterRole "metrics-reader" to ServiceAccount "prometheus/monitoring""#
//! );
//! # Ok::<(), serde_json::Error>(())
//! ```

use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject,
};

/// What a request asks to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// A request on a resource (`resourceAttributes` of a SubjectAccessReview).
    Resource {
        /// `get`, `list`, `create`, ...
        verb: String,
        /// The API group; empty for the core group.
        group: String,
        /// The plural resource name.
        resource: String,
        /// The subresource; empty for none.
        subresource: String,
        /// The object's name; empty for a collection.
        name: String,
        /// The namespace; empty for a cluster-scoped request.
        namespace: String,
    },
    /// A request on a path outside the API (`/metrics`, `/healthz`).
    NonResource {
        /// The lowercased HTTP method: `get`, `post`, ...
        verb: String,
        /// The URL path.
        path: String,
    },
}

/// Who asks, and what for.
#[derive(Clone, Copy, Debug)]
pub struct Attributes<'a> {
    /// The user name (`system:serviceaccount:NS:NAME` for a ServiceAccount).
    pub user: &'a str,
    /// The user's groups.
    pub groups: &'a [String],
    /// The request.
    pub request: &'a Request,
}

/// The RBAC objects a decision reads.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Every ClusterRole.
    pub cluster_roles: Vec<ClusterRole>,
    /// Every ClusterRoleBinding, in the order they are visited.
    pub cluster_role_bindings: Vec<ClusterRoleBinding>,
    /// Every Role, of every namespace.
    pub roles: Vec<Role>,
    /// Every RoleBinding, of every namespace, in the order they are visited.
    pub role_bindings: Vec<RoleBinding>,
}

/// RBAC's verdict: allowed or no opinion (RBAC never denies outright), and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Whether a rule allows the request.
    pub allowed: bool,
    /// `RBAC: allowed by ...` when allowed; when not, the roles that could not be found
    /// (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`), or empty.
    pub reason: String,
}

/// Whether `policy` allows `attributes`, and why.
pub fn authorize(policy: &Policy, attributes: &Attributes<'_>) -> Decision {
    let mut missing = Vec::new();
    for binding in &policy.cluster_role_bindings {
        let Some(subject) = applies_to(binding.subjects.as_deref(), attributes, "") else {
            continue;
        };
        match rules_of(policy, &binding.role_ref, "") {
            Ok(rules) if rules_allow(attributes.request, rules) => {
                return allowed(format!(
                    "ClusterRoleBinding {:?} of {} {:?} to {}",
                    name(&binding.metadata),
                    binding.role_ref.kind,
                    binding.role_ref.name,
                    describe_subject(subject, "")
                ));
            }
            Ok(_) => {}
            Err(e) => missing.push(e),
        }
    }
    if let Request::Resource { namespace, .. } = attributes.request
        && !namespace.is_empty()
    {
        let in_namespace = policy
            .role_bindings
            .iter()
            .filter(|b| b.metadata.namespace.as_deref() == Some(namespace.as_str()));
        for binding in in_namespace {
            let Some(subject) = applies_to(binding.subjects.as_deref(), attributes, namespace)
            else {
                continue;
            };
            match rules_of(policy, &binding.role_ref, namespace) {
                Ok(rules) if rules_allow(attributes.request, rules) => {
                    return allowed(format!(
                        "RoleBinding {:?} of {} {:?} to {}",
                        format!("{}/{namespace}", name(&binding.metadata)),
                        binding.role_ref.kind,
                        binding.role_ref.name,
                        describe_subject(subject, namespace)
                    ));
                }
                Ok(_) => {}
                Err(e) => missing.push(e),
            }
        }
    }
    missing.dedup();
    let reason = match missing.as_slice() {
        [] => String::new(),
        [one] => format!("RBAC: {one}"),
        many => format!("RBAC: [{}]", many.join(", ")),
    };
    Decision {
        allowed: false,
        reason,
    }
}

fn allowed(source: String) -> Decision {
    Decision {
        allowed: true,
        reason: format!("RBAC: allowed by {source}"),
    }
}

fn name(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or("")
}

/// The rules of the role `role_ref` names, from a binding in `namespace` (empty for a
/// ClusterRoleBinding); `Err` with the apiserver's NotFound message when it is missing.
fn rules_of<'p>(
    policy: &'p Policy,
    role_ref: &RoleRef,
    namespace: &str,
) -> Result<&'p [PolicyRule], String> {
    match role_ref.kind.as_str() {
        "ClusterRole" => policy
            .cluster_roles
            .iter()
            .find(|r| name(&r.metadata) == role_ref.name)
            .map(|r| r.rules.as_deref().unwrap_or_default())
            .ok_or_else(|| {
                format!(
                    "clusterrole.rbac.authorization.k8s.io {:?} not found",
                    role_ref.name
                )
            }),
        "Role" if !namespace.is_empty() => policy
            .roles
            .iter()
            .find(|r| {
                name(&r.metadata) == role_ref.name
                    && r.metadata.namespace.as_deref() == Some(namespace)
            })
            .map(|r| r.rules.as_deref().unwrap_or_default())
            .ok_or_else(|| {
                format!(
                    "role.rbac.authorization.k8s.io {:?} not found",
                    role_ref.name
                )
            }),
        kind => Err(format!("unsupported role reference kind: {kind:?}")),
    }
}

/// The first subject naming the user (`appliesTo`).
fn applies_to<'s>(
    subjects: Option<&'s [Subject]>,
    attributes: &Attributes<'_>,
    namespace: &str,
) -> Option<&'s Subject> {
    subjects?.iter().find(|s| match s.kind.as_str() {
        "User" => attributes.user == s.name,
        "Group" => attributes.groups.contains(&s.name),
        "ServiceAccount" => {
            let namespace = subject_namespace(s, namespace);
            !namespace.is_empty()
                && attributes.user == format!("system:serviceaccount:{namespace}:{}", s.name)
        }
        _ => false,
    })
}

/// A ServiceAccount subject's namespace: its own, or, when a RoleBinding leaves it out, the
/// binding's.
fn subject_namespace<'a>(s: &'a Subject, binding_namespace: &'a str) -> &'a str {
    s.namespace
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or(binding_namespace)
}

/// `ServiceAccount "name/namespace"`, `User "name"`, `Group "name"`.
fn describe_subject(s: &Subject, binding_namespace: &str) -> String {
    match s.kind.as_str() {
        "ServiceAccount" => {
            let namespace = subject_namespace(s, binding_namespace);
            format!("{} {:?}", s.kind, format!("{}/{namespace}", s.name))
        }
        _ => format!("{} {:?}", s.kind, s.name),
    }
}

fn rules_allow(request: &Request, rules: &[PolicyRule]) -> bool {
    rules.iter().any(|rule| rule_allows(request, rule))
}

/// Whether one rule allows `request` (`RuleAllows`): its verbs, then for a resource request
/// its groups, resources (`*`, `resource/subresource`, `*/subresource`) and names, for any
/// other its non-resource URLs (`*`, exact, or a prefix ending in `*`).
pub fn rule_allows(request: &Request, rule: &PolicyRule) -> bool {
    let any = |list: &Option<Vec<String>>, matches: &dyn Fn(&str) -> bool| {
        list.iter().flatten().any(|item| matches(item))
    };
    match request {
        Request::Resource {
            verb,
            group,
            resource,
            subresource,
            name,
            ..
        } => {
            let combined = match subresource.is_empty() {
                true => resource.clone(),
                false => format!("{resource}/{subresource}"),
            };
            verb_matches(rule, verb)
                && any(&rule.api_groups, &|g| g == "*" || g == group)
                && any(&rule.resources, &|r| {
                    r == "*"
                        || r == combined
                        || (!subresource.is_empty()
                            && r.len() == subresource.len() + 2
                            && r.starts_with("*/")
                            && r.ends_with(subresource.as_str()))
                })
                && (rule.resource_names.as_ref().is_none_or(Vec::is_empty)
                    || any(&rule.resource_names, &|n| n == name))
        }
        Request::NonResource { verb, path } => {
            verb_matches(rule, verb)
                && any(&rule.non_resource_urls, &|url| {
                    url == "*"
                        || url == path
                        || (url.ends_with('*') && path.starts_with(url.trim_end_matches('*')))
                })
        }
    }
}

fn verb_matches(rule: &PolicyRule, verb: &str) -> bool {
    rule.verbs.iter().any(|v| v == "*" || v == verb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn non_resource(verb: &str, path: &str) -> Request {
        Request::NonResource {
            verb: verb.into(),
            path: path.into(),
        }
    }

    fn resource(verb: &str, group: &str, resource: &str, sub: &str, name: &str) -> Request {
        Request::Resource {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            subresource: sub.into(),
            name: name.into(),
            namespace: "ns".into(),
        }
    }

    fn decide(policy: &Policy, user: &str, groups: &[&str], request: &Request) -> Decision {
        let groups: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        let attributes = Attributes {
            user,
            groups: &groups,
            request,
        };
        authorize(policy, &attributes)
    }

    fn urls(verbs: &[&str], urls: &[&str]) -> PolicyRule {
        PolicyRule {
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            non_resource_urls: Some(urls.iter().map(|v| v.to_string()).collect()),
            ..PolicyRule::default()
        }
    }

    #[test]
    fn non_resource_urls_match_exactly_by_wildcard_or_by_prefix() {
        let rule = urls(&["get"], &["/metrics", "/debug/*"]);
        assert!(rule_allows(&non_resource("get", "/metrics"), &rule));
        assert!(!rule_allows(&non_resource("get", "/metrics/"), &rule));
        assert!(!rule_allows(&non_resource("post", "/metrics"), &rule));
        assert!(rule_allows(&non_resource("get", "/debug/"), &rule));
        assert!(rule_allows(&non_resource("get", "/debug/pprof"), &rule));
        assert!(!rule_allows(&non_resource("get", "/debug"), &rule));
        assert!(rule_allows(
            &non_resource("put", "/x"),
            &urls(&["*"], &["*"])
        ));
        // A prefix rule with several stars: all of them are trimmed.
        assert!(rule_allows(
            &non_resource("get", "/a"),
            &urls(&["get"], &["/**"])
        ));
        // A resource rule never allows a path.
        let pods = PolicyRule {
            verbs: vec!["*".into()],
            api_groups: Some(vec!["*".into()]),
            resources: Some(vec!["*".into()]),
            ..PolicyRule::default()
        };
        assert!(!rule_allows(&non_resource("get", "/metrics"), &pods));
        assert!(rule_allows(
            &resource("get", "apps", "deployments", "", ""),
            &pods
        ));
    }

    #[test]
    fn resources_match_with_subresources_and_names() {
        let rule = PolicyRule {
            verbs: vec!["get".into(), "update".into()],
            api_groups: Some(vec!["apps".into()]),
            resources: Some(vec!["deployments".into(), "*/scale".into()]),
            resource_names: Some(vec!["web".into()]),
            ..PolicyRule::default()
        };
        let cases = [
            (("get", "apps", "deployments", "", "web"), true),
            (("get", "apps", "deployments", "", "db"), false),
            (("get", "", "deployments", "", "web"), false),
            (("get", "apps", "deployments", "status", "web"), false),
            (("update", "apps", "statefulsets", "scale", "web"), true),
            (("delete", "apps", "deployments", "", "web"), false),
        ];
        for ((verb, group, plural, sub, name), allowed) in cases {
            let request = resource(verb, group, plural, sub, name);
            assert_eq!(rule_allows(&request, &rule), allowed, "{request:?}");
        }
    }

    #[test]
    fn bindings_name_the_first_rule_that_allows_and_missing_roles_explain_a_denial() {
        let policy: Policy = Policy {
            cluster_roles: vec![serde_json::from_value(serde_json::json!({
                "metadata": {"name": "reader"},
                "rules": [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}],
            }))
            .unwrap()],
            cluster_role_bindings: vec![
                serde_json::from_value(serde_json::json!({
                    "metadata": {"name": "dangling"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gone"},
                    "subjects": [{"kind": "Group", "name": "system:authenticated"}],
                }))
                .unwrap(),
                serde_json::from_value(serde_json::json!({
                    "metadata": {"name": "readers"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "reader"},
                    "subjects": [{"kind": "User", "name": "alice"}, {"kind": "Group", "name": "team"}],
                }))
                .unwrap(),
            ],
            ..Policy::default()
        };
        let metrics = non_resource("get", "/metrics");
        let decision = decide(&policy, "bob", &["team"], &metrics);
        assert_eq!(
            decision.reason,
            r#"RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "team""#
        );
        let decision = decide(&policy, "carol", &["system:authenticated"], &metrics);
        assert_eq!(
            decision,
            Decision {
                allowed: false,
                reason: r#"RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found"#.into()
            }
        );
        let nobody = decide(&policy, "dave", &[], &metrics);
        assert_eq!(nobody.reason, "");
    }

    #[test]
    fn role_bindings_count_in_their_namespace_and_default_a_service_accounts_namespace() {
        let policy = Policy {
            roles: vec![serde_json::from_value(serde_json::json!({
                "metadata": {"name": "pods", "namespace": "ns"},
                "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}],
            }))
            .unwrap()],
            role_bindings: vec![serde_json::from_value(serde_json::json!({
                "metadata": {"name": "pods", "namespace": "ns"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pods"},
                "subjects": [{"kind": "ServiceAccount", "name": "app"}],
            }))
            .unwrap()],
            ..Policy::default()
        };
        let user = "system:serviceaccount:ns:app";
        let get = resource("get", "", "pods", "", "p");
        let decision = decide(&policy, user, &[], &get);
        assert_eq!(
            decision.reason,
            r#"RBAC: allowed by RoleBinding "pods/ns" of Role "pods" to ServiceAccount "app/ns""#
        );
        let elsewhere = Request::Resource {
            verb: "get".into(),
            group: String::new(),
            resource: "pods".into(),
            subresource: String::new(),
            name: "p".into(),
            namespace: "other".into(),
        };
        assert!(!decide(&policy, user, &[], &elsewhere).allowed);
    }
}
