//! The CronJob operator's RBAC: what `rbacgen` prints, and (with the `envtest` feature and
//! `KUBEBUILDER_ASSETS`) the operator running on a real apiserver as a ServiceAccount holding
//! exactly `operator_rules()`, then failing with 403 Forbidden when one rule is taken away.
//! The in-memory server does not authorize requests, so there the second part cannot run.

use kubegen_examples::rbac::{OPERATOR, operator_rules};
use serde_json::{Value, json};

fn rbacgen(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kubegen::rbac::rbacgen::run_cli(
        std::iter::once("rbacgen").chain(args.iter().copied()),
        OPERATOR,
        &operator_rules(),
        &mut out,
        &mut err,
    );
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn documents(yaml: &str) -> Vec<Value> {
    yaml.split("---\n")
        .filter(|d| !d.is_empty())
        .map(|d| serde_yaml_ng::from_str(d).unwrap())
        .collect()
}

#[test]
fn rbacgen_prints_the_service_account_role_and_binding() {
    let (code, out, err) = rbacgen(&[]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.starts_with("---\napiVersion: v1\nkind: ServiceAccount\n"),
        "{out}"
    );
    let group = "batch.tutorial.kubebuilder.io";
    assert_eq!(
        documents(&out),
        [
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": "cronjob-operator", "namespace": "cronjob-operator-system"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "cronjob-operator"},
            "rules": [
                {"apiGroups": ["batch"], "resources": ["jobs"],
                 "verbs": ["create", "delete", "list", "patch", "watch"]},
                {"apiGroups": [group], "resources": ["cronjobs"],
                 "verbs": ["list", "patch", "watch"]},
                {"apiGroups": [group], "resources": ["cronjobs/finalizers"], "verbs": ["update"]},
                {"apiGroups": [group], "resources": ["cronjobs/status"], "verbs": ["patch"]},
                {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                 "verbs": ["create", "get", "update"]},
                {"apiGroups": ["events.k8s.io"], "resources": ["events"],
                 "verbs": ["create", "patch"]},
            ]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": "cronjob-operator"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                            "name": "cronjob-operator"},
                "subjects": [{"kind": "ServiceAccount", "name": "cronjob-operator",
                              "namespace": "cronjob-operator-system"}]}),
        ]
    );
}

#[test]
fn rbacgen_takes_a_namespace_a_name_and_json() {
    let (code, out, _) = rbacgen(&["--namespace", "ops", "--name", "cj", "--format", "json"]);
    assert_eq!(code, 0);
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list["kind"], "List");
    let items = list["items"].as_array().unwrap();
    assert_eq!(
        items[0]["metadata"],
        json!({"name": "cj", "namespace": "ops"})
    );
    assert_eq!(items[1]["metadata"], json!({"name": "cj"}));
    assert_eq!(
        items[2]["subjects"],
        json!([{"kind": "ServiceAccount", "name": "cj", "namespace": "ops"}])
    );
    let (code, _, err) = rbacgen(&["--namespace"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("a value is required for '--namespace"),
        "{err}"
    );
}

#[test]
fn the_rbacgen_binary_runs() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_rbacgen"))
        .args(["--namespace", "ops"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let docs = documents(&String::from_utf8(output.stdout).unwrap());
    let kinds: Vec<_> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["ServiceAccount", "ClusterRole", "ClusterRoleBinding"]
    );
    assert_eq!(docs[2]["subjects"][0]["namespace"], "ops");
}

#[cfg(feature = "envtest")]
mod on_envtest;
