//! The permissions an operator needs, built from the kinds it works with, and printed as the
//! ClusterRole kubebuilder's controller-gen would write from the same `+kubebuilder:rbac`
//! markers.
//!
//! Instead of markers, a [`Rules`] value is built from types: `grant::<CronJob>(..)` takes the
//! group and plural from the kind, so a renamed kind cannot leave a stale rule behind.
//! [`Rules::policy_rules`] normalizes the grants exactly as controller-gen's `NormalizeRules`:
//! one rule per (group, resource) with its verbs merged; then resources with equal verbs merged
//! into one rule; then groups with equal resources and verbs; every list sorted, and a verb
//! list holding `*` written as `["*"]`.
//!
//! ```
//! use k8s_openapi::api::batch::v1::Job;
//! use kubegen_core::rbac::{Rules, Verb};
//!
//! let rules = Rules::new()
//!     .grant::<Job>(&[Verb::Get, Verb::List, Verb::Watch])
//!     .grant_subresource::<Job>("status", &[Verb::Get])
//!     .merge(Rules::leases());
//! let role = rules.cluster_role("manager-role");
//! assert_eq!(role.rules.unwrap()[0].resources, Some(vec!["jobs".to_owned()]));
//! ```
//!
//! [`manifests`] prints a ServiceAccount, the ClusterRole and a ClusterRoleBinding between
//! them; [`rbacgen`] is the command line around it.
//!
//! [`authorize`] answers the other question, whether roles and bindings allow a request, as the
//! apiserver's RBAC authorizer answers it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

pub mod authorize;
mod manifests;
pub mod rbacgen;
#[cfg(test)]
mod tests;

pub use manifests::{RbacError, cluster_role_binding, manifests, service_account};

/// An API verb a rule grants, as RBAC spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verb {
    /// `get`: read one object.
    Get,
    /// `list`: read a collection (informers, label-selected lists).
    List,
    /// `watch`: follow changes (informers).
    Watch,
    /// `create`: POST, and a server-side apply or PUT that creates the object.
    Create,
    /// `update`: PUT.
    Update,
    /// `patch`: every PATCH, server-side apply included.
    Patch,
    /// `delete`: DELETE of one object.
    Delete,
    /// `deletecollection`: DELETE of a collection.
    DeleteCollection,
    /// `*`: every verb. A rule holding it is written with this verb alone.
    All,
}

impl Verb {
    /// The verb as it appears in a PolicyRule: `get`, `deletecollection`, `*`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
            Verb::All => "*",
        }
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An API group and a resource in it (`cronjobs`, or a subresource such as `cronjobs/status`).
type GroupResource = (String, String);

/// A set of grants: verbs on resources. Build it with [`grant`](Rules::grant) and friends,
/// combine with [`merge`](Rules::merge), and print with [`policy_rules`](Rules::policy_rules)
/// or [`cluster_role`](Rules::cluster_role).
///
/// Granting the same resource twice adds the verbs; the order of grants never shows in the
/// output.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rules {
    grants: BTreeMap<GroupResource, BTreeSet<Verb>>,
}

impl Rules {
    /// No grants.
    pub fn new() -> Self {
        Rules::default()
    }

    /// `verbs` on kind `K`'s resource: its API group and plural.
    pub fn grant<K: kube_core::Resource<DynamicType = ()>>(self, verbs: &[Verb]) -> Self {
        self.grant_resource(&K::group(&()), &K::plural(&()), verbs)
    }

    /// `verbs` on a subresource of kind `K`: `status` (status writes), `finalizers` (setting
    /// `blockOwnerDeletion` on a child it owns, when the `OwnerReferencesPermissionEnforcement`
    /// admission plugin is on), `scale`.
    pub fn grant_subresource<K: kube_core::Resource<DynamicType = ()>>(
        self,
        subresource: &str,
        verbs: &[Verb],
    ) -> Self {
        let resource = format!("{}/{subresource}", K::plural(&()));
        self.grant_resource(&K::group(&()), &resource, verbs)
    }

    /// `verbs` on `resource` in API `group`; `""` (or `core`, as controller-gen accepts) is the
    /// core group. `resource` may name a subresource: `pods/log`.
    pub fn grant_resource(mut self, group: &str, resource: &str, verbs: &[Verb]) -> Self {
        self.grants
            .entry(group_resource(group, resource))
            .or_default()
            .extend(verbs.iter().copied());
        self
    }

    /// These rules without `verbs` on `resource` in `group`; a resource left with no verb is
    /// dropped. For proving a rule is needed: revoke it and watch the operator fail.
    pub fn revoke_resource(mut self, group: &str, resource: &str, verbs: &[Verb]) -> Self {
        let key = group_resource(group, resource);
        if let Some(held) = self.grants.get_mut(&key) {
            verbs.iter().for_each(|v| {
                held.remove(v);
            });
            if held.is_empty() {
                self.grants.remove(&key);
            }
        }
        self
    }

    /// Every grant of both.
    pub fn merge(mut self, other: Rules) -> Self {
        for (key, verbs) in other.grants {
            self.grants.entry(key).or_default().extend(verbs);
        }
        self
    }

    /// Whether these rules grant `verb` on `resource` in `group` (directly or through `*`).
    pub fn allows(&self, group: &str, resource: &str, verb: Verb) -> bool {
        self.grants
            .get(&group_resource(group, resource))
            .is_some_and(|held| held.contains(&verb) || held.contains(&Verb::All))
    }

    /// What a Lease lock needs for leader election: `coordination.k8s.io` `leases` get,
    /// create, update (client-go's `LeaseLock` reads, creates and updates its Lease).
    pub fn leases() -> Self {
        Rules::new().grant_resource(
            "coordination.k8s.io",
            "leases",
            &[Verb::Get, Verb::Create, Verb::Update],
        )
    }

    /// What an event recorder needs: `events.k8s.io` `events` create, patch (kube's
    /// `Recorder` creates an Event and patches it when the same event repeats).
    pub fn events() -> Self {
        Rules::new().grant_resource("events.k8s.io", "events", &[Verb::Create, Verb::Patch])
    }

    /// What serving metrics behind authentication and authorization needs (kubebuilder's
    /// `metrics-auth-role`): `authentication.k8s.io` `tokenreviews` create and
    /// `authorization.k8s.io` `subjectaccessreviews` create.
    pub fn metrics_auth() -> Self {
        Rules::new()
            .grant_resource("authentication.k8s.io", "tokenreviews", &[Verb::Create])
            .grant_resource(
                "authorization.k8s.io",
                "subjectaccessreviews",
                &[Verb::Create],
            )
    }

    /// Whether there are no grants.
    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }

    /// The grants as PolicyRules, normalized as controller-gen's `NormalizeRules` does.
    pub fn policy_rules(&self) -> Vec<PolicyRule> {
        normalize(&self.grants)
    }

    /// A ClusterRole named `name` holding [`policy_rules`](Rules::policy_rules), as
    /// controller-gen writes it (name and rules only).
    pub fn cluster_role(&self, name: &str) -> ClusterRole {
        ClusterRole {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                ..ObjectMeta::default()
            },
            rules: Some(self.policy_rules()),
            aggregation_rule: None,
        }
    }
}

fn group_resource(group: &str, resource: &str) -> GroupResource {
    // controller-gen lets people write `core` for the core group.
    let group = if group == "core" { "" } else { group };
    (group.to_owned(), resource.to_owned())
}

/// One rule being merged: sorted, deduplicated lists.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Merged {
    groups: BTreeSet<String>,
    resources: BTreeSet<String>,
    verbs: BTreeSet<&'static str>,
}

/// controller-gen's `NormalizeRules` for rules without resource names or URLs. Verbs were
/// merged per (group, resource) as they were granted. Then rules with equal group and verbs
/// merge their resources, and rules with equal resources and verbs merge their groups. The
/// rules are sorted by controller-gen's key string, and a verb list holding `*` becomes `*`.
fn normalize(grants: &BTreeMap<GroupResource, BTreeSet<Verb>>) -> Vec<PolicyRule> {
    let verbs_of = |held: &BTreeSet<Verb>| held.iter().map(|v| v.as_str()).collect();
    // Resources: group by (group, verbs).
    let mut by_group_verbs: BTreeMap<(&str, BTreeSet<&'static str>), BTreeSet<String>> =
        BTreeMap::new();
    for ((group, resource), held) in grants.iter().filter(|(_, held)| !held.is_empty()) {
        by_group_verbs
            .entry((group.as_str(), verbs_of(held)))
            .or_default()
            .insert(resource.clone());
    }
    // Groups: group by (resources, verbs).
    let mut by_resources_verbs: BTreeMap<(BTreeSet<String>, BTreeSet<&'static str>), Merged> =
        BTreeMap::new();
    for ((group, verbs), resources) in by_group_verbs {
        by_resources_verbs
            .entry((resources.clone(), verbs.clone()))
            .or_insert_with(|| Merged {
                groups: BTreeSet::new(),
                resources,
                verbs,
            })
            .groups
            .insert(group.to_owned());
    }
    let mut rules: Vec<(String, Merged)> = by_resources_verbs
        .into_values()
        .map(|rule| (sort_key(&rule), rule))
        .collect();
    rules.sort();
    rules
        .into_iter()
        .map(|(_, rule)| {
            let verbs = if rule.verbs.contains("*") {
                vec!["*".to_owned()]
            } else {
                rule.verbs.iter().map(|v| (*v).to_owned()).collect()
            };
            PolicyRule {
                api_groups: Some(rule.groups.into_iter().collect()),
                resources: Some(rule.resources.into_iter().collect()),
                verbs,
                resource_names: None,
                non_resource_urls: None,
            }
        })
        .collect()
}

/// controller-gen's `ruleKey.String()`: groups, resources, resource names and URLs, each
/// joined with `&`, joined with ` + `. The rules are ordered by this string, so `jobs` sorts
/// before `jobs/status` and the core group (empty) first.
fn sort_key(rule: &Merged) -> String {
    let join = |items: &BTreeSet<String>| items.iter().cloned().collect::<Vec<_>>().join("&");
    format!("{} + {} +  + ", join(&rule.groups), join(&rule.resources))
}
