use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::rbac::v1::PolicyRule;

use super::{Rules, Verb, manifests};
use crate::crd::crdgen::{Format, render_all};

use Verb::*;

const TUTORIAL_GROUP: &str = "batch.tutorial.kubebuilder.io";
const ALL_CRUD: [Verb; 7] = [Get, List, Watch, Create, Update, Patch, Delete];

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    let owned = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    PolicyRule {
        api_groups: Some(owned(groups)),
        resources: Some(owned(resources)),
        verbs: owned(verbs),
        resource_names: None,
        non_resource_urls: None,
    }
}

/// The kubebuilder CronJob tutorial's markers, as grants, in the order its controller lists
/// them.
fn tutorial_rules() -> Rules {
    Rules::new()
        .grant_resource(TUTORIAL_GROUP, "cronjobs", &ALL_CRUD)
        .grant_resource(TUTORIAL_GROUP, "cronjobs/status", &[Get, Update, Patch])
        .grant_resource(TUTORIAL_GROUP, "cronjobs/finalizers", &[Update])
        .grant::<Job>(&ALL_CRUD)
        .grant_subresource::<Job>("status", &[Get])
}

#[test]
fn the_cronjob_tutorials_role_is_reproduced_byte_for_byte() {
    // kubebuilder docs/book/src/cronjob-tutorial/testdata/project/config/rbac/role.yaml, as
    // controller-gen generated it, without the `creationTimestamp: null` that newer
    // controller-gen versions strip.
    let expected = "---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups:
  - batch
  resources:
  - jobs
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - batch
  resources:
  - jobs/status
  verbs:
  - get
- apiGroups:
  - batch.tutorial.kubebuilder.io
  resources:
  - cronjobs
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - batch.tutorial.kubebuilder.io
  resources:
  - cronjobs/finalizers
  verbs:
  - update
- apiGroups:
  - batch.tutorial.kubebuilder.io
  resources:
  - cronjobs/status
  verbs:
  - get
  - patch
  - update
";
    let role = serde_json::to_value(tutorial_rules().cluster_role("manager-role")).unwrap();
    let text = render_all(Format::Yaml, &[("manager-role".into(), role)]).unwrap();
    assert_eq!(text, expected);
}

/// controller-tools issue 612's markers, which its `Test_Simplification` normalizes.
fn machinedeployments() -> [Rules; 4] {
    let g = "cluster.x-k8s.io";
    [
        [
            "machinedeployments",
            "machinedeployments/status",
            "machinedeployments/finalizers",
        ]
        .iter()
        .fold(Rules::new(), |r, res| r.grant_resource(g, res, &ALL_CRUD)),
        ["machinedeployments", "machinedeployments/finalizers"]
            .iter()
            .fold(Rules::new(), |r, res| {
                r.grant_resource(g, res, &[Get, List, Watch, Update, Patch])
            }),
        Rules::new().grant_resource(g, "machinedeployments", &[Get, List, Watch]),
        Rules::new().grant_resource(g, "machinedeployments", &[Update, Patch]),
    ]
}

#[test]
fn verbs_then_resources_merge_into_one_rule_whatever_the_order() {
    let [a, b, c, d] = machinedeployments();
    let expected = vec![rule(
        &["cluster.x-k8s.io"],
        &[
            "machinedeployments",
            "machinedeployments/finalizers",
            "machinedeployments/status",
        ],
        &[
            "create", "delete", "get", "list", "patch", "update", "watch",
        ],
    )];
    let forward = a.clone().merge(b.clone()).merge(c.clone()).merge(d.clone());
    assert_eq!(forward.policy_rules(), expected);
    let backward = d.merge(c).merge(b).merge(a);
    assert_eq!(backward, forward);
    assert_eq!(backward.policy_rules(), expected);
}

#[test]
fn two_grants_on_one_resource_merge_their_verbs() {
    let [_, _, c, d] = machinedeployments();
    assert_eq!(
        c.merge(d).policy_rules(),
        [rule(
            &["cluster.x-k8s.io"],
            &["machinedeployments"],
            &["get", "list", "patch", "update", "watch"]
        )]
    );
}

#[test]
fn groups_with_equal_resources_and_verbs_merge_after_resources() {
    let rules = Rules::new()
        .grant_resource("apps", "deployments", &[Get, List])
        .grant_resource("extensions", "deployments", &[List, Get])
        .grant_resource("apps", "replicasets", &[Get, List])
        .grant_resource("extensions", "replicasets", &[Get, List])
        // Same resources in a third group, but other verbs: a rule of its own.
        .grant_resource("other.example.com", "deployments", &[Get]);
    assert_eq!(
        rules.policy_rules(),
        [
            rule(
                &["apps", "extensions"],
                &["deployments", "replicasets"],
                &["get", "list"]
            ),
            rule(&["other.example.com"], &["deployments"], &["get"]),
        ]
    );
}

#[test]
fn rules_sort_by_controller_gens_key_string() {
    let rules = Rules::new()
        .grant::<Job>(&[Get])
        .grant_resource("batch", "cronjobs", &[List])
        .grant_resource("apps", "deployments", &[List])
        .grant_resource("extensions", "deployments", &[List])
        .grant::<Pod>(&[Watch])
        .grant_resource("core", "configmaps", &[Get]);
    assert_eq!(
        rules.policy_rules(),
        [
            // The core group is the empty string: first. `core` is accepted for it.
            rule(&[""], &["configmaps"], &["get"]),
            rule(&[""], &["pods"], &["watch"]),
            // "apps + ..." sorts before "apps&extensions + ...": ' ' < '&'.
            rule(&["apps", "extensions"], &["deployments"], &["list"]),
            rule(&["batch"], &["cronjobs"], &["list"]),
            rule(&["batch"], &["jobs"], &["get"]),
        ]
    );
}

#[test]
fn a_star_verb_collapses_the_list_after_merging() {
    let rules = Rules::new()
        .grant_resource("a.example.com", "things", &[Get, All, List])
        .grant_resource("a.example.com", "others", &[All]);
    // controller-gen merges on the verb lists as granted and collapses `*` last, so these
    // two stay apart, each written as `*`.
    assert_eq!(
        rules.policy_rules(),
        [
            rule(&["a.example.com"], &["others"], &["*"]),
            rule(&["a.example.com"], &["things"], &["*"]),
        ]
    );
    assert!(rules.allows("a.example.com", "others", Delete));
    assert!(!rules.allows("a.example.com", "nothing", Get));
}

#[test]
fn revoking_removes_verbs_and_empty_resources() {
    let rules = tutorial_rules()
        .revoke_resource(TUTORIAL_GROUP, "cronjobs/finalizers", &[Update])
        .revoke_resource("batch", "jobs", &[Delete, Create]);
    assert!(!rules.allows(TUTORIAL_GROUP, "cronjobs/finalizers", Update));
    assert!(!rules.allows("batch", "jobs", Delete));
    assert!(rules.allows("batch", "jobs", Patch));
    let resources: Vec<_> = rules
        .policy_rules()
        .into_iter()
        .flat_map(|r| r.resources.unwrap_or_default())
        .collect();
    assert_eq!(
        resources,
        ["jobs", "jobs/status", "cronjobs", "cronjobs/status"]
    );
}

#[test]
fn leases_and_events_are_what_their_clients_call() {
    let rules = Rules::leases().merge(Rules::events());
    assert_eq!(
        rules.policy_rules(),
        [
            rule(
                &["coordination.k8s.io"],
                &["leases"],
                &["create", "get", "update"]
            ),
            rule(&["events.k8s.io"], &["events"], &["create", "patch"]),
        ]
    );
    assert_eq!(Verb::DeleteCollection.to_string(), "deletecollection");
    assert!(Rules::new().is_empty() && Rules::new().policy_rules().is_empty());
}

#[test]
fn manifests_bind_the_role_to_the_service_account() {
    let text = manifests(&Rules::leases(), "op", "op-system").unwrap();
    let docs: Vec<serde_json::Value> = text
        .split("---\n")
        .filter(|d| !d.is_empty())
        .map(|d| serde_yaml_ng::from_str(d).unwrap())
        .collect();
    assert_eq!(
        docs,
        [
            serde_json::json!({"apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": "op", "namespace": "op-system"}}),
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "op"},
                "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                           "verbs": ["create", "get", "update"]}]}),
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding", "metadata": {"name": "op"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                            "name": "op"},
                "subjects": [{"kind": "ServiceAccount", "name": "op", "namespace": "op-system"}]}),
        ]
    );
}
