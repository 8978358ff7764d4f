//! The mutating admission plugins kube-apiserver enables by default that change built-in
//! objects on create: ServiceAccount (a Pod runs as its namespace's `default` account, with
//! its API token mounted), DefaultTolerationSeconds, Priority, and
//! StorageObjectInUseProtection. They run after the field manager has tracked the request,
//! so what they add belongs to no manager.
//!
//! The token volume is upstream's (token, the cluster's CA bundle, the namespace); a build of
//! the apiserver may add sources of its own.

use serde_json::{Value, json};

/// Why admission refused a create: the message of a 403 naming the object.
#[derive(Debug, PartialEq)]
pub(crate) struct Refusal(pub String);

/// Runs the plugins on `object`, a `group` `kind` being created. `service_account_exists`
/// answers whether a ServiceAccount exists in the object's namespace; `suffix` gives the
/// five random characters of the token volume's name.
pub(crate) fn admit_create(
    group: &str,
    kind: &str,
    object: &mut Value,
    service_account_exists: impl Fn(&str) -> bool,
    suffix: impl FnOnce() -> String,
) -> Result<(), Refusal> {
    match (group, kind) {
        ("", "Pod") => {
            service_account(object, service_account_exists, suffix)?;
            default_toleration_seconds(object);
            priority(object);
        }
        ("", "PersistentVolumeClaim") => add_finalizer(object, "kubernetes.io/pvc-protection"),
        ("", "PersistentVolume") => add_finalizer(object, "kubernetes.io/pv-protection"),
        _ => {}
    }
    Ok(())
}

/// The ServiceAccount plugin: the Pod's account (`default` when unset) must exist; unless
/// the Pod opts out, a projected volume with the account's token is mounted into every
/// container at the well-known path.
fn service_account(
    pod: &mut Value,
    exists: impl Fn(&str) -> bool,
    suffix: impl FnOnce() -> String,
) -> Result<(), Refusal> {
    const MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
    let spec = &mut pod["spec"];
    let name = match spec["serviceAccountName"]
        .as_str()
        .filter(|n| !n.is_empty())
    {
        Some(name) => name.to_owned(),
        None => spec["serviceAccount"]
            .as_str()
            .filter(|n| !n.is_empty())
            .unwrap_or("default")
            .to_owned(),
    };
    spec["serviceAccountName"] = json!(name);
    spec["serviceAccount"] = json!(name);
    if !exists(&name) {
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or("");
        return Err(Refusal(format!(
            "error looking up service account {namespace}/{name}: serviceaccount \"{name}\" not found"
        )));
    }
    let spec = &mut pod["spec"];
    if spec["automountServiceAccountToken"] == false {
        return Ok(());
    }
    let mounted = |c: &Value| {
        c["volumeMounts"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["mountPath"] == MOUNT_PATH))
    };
    let volume = format!("kube-api-access-{}", suffix());
    for list in ["initContainers", "containers"] {
        for container in spec[list].as_array_mut().into_iter().flatten() {
            if mounted(container) {
                continue;
            }
            let mount = json!({"name": volume, "readOnly": true, "mountPath": MOUNT_PATH});
            match container["volumeMounts"].as_array_mut() {
                Some(mounts) => mounts.push(mount),
                None => container["volumeMounts"] = json!([mount]),
            }
        }
    }
    let source = json!({"name": volume, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
    ]}});
    match spec["volumes"].as_array_mut() {
        Some(volumes) => volumes.push(source),
        None => spec["volumes"] = json!([source]),
    }
    Ok(())
}

/// DefaultTolerationSeconds: a Pod tolerates a node that is not ready or unreachable for
/// five minutes, unless it says otherwise.
fn default_toleration_seconds(pod: &mut Value) {
    let tolerations = &mut pod["spec"]["tolerations"];
    let has = |tolerations: &Value, key: &str| {
        tolerations.as_array().is_some_and(|ts| {
            ts.iter().any(|t| {
                (t["key"] == key
                    || t["key"].as_str().is_none_or(str::is_empty) && t["operator"] == "Exists")
                    && (t["effect"] == "NoExecute"
                        || t["effect"].as_str().is_none_or(str::is_empty))
            })
        })
    };
    let mut added = Vec::new();
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        if !has(tolerations, key) {
            added.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
        }
    }
    if added.is_empty() {
        return;
    }
    match tolerations.as_array_mut() {
        Some(list) => list.extend(added),
        None => *tolerations = Value::Array(added),
    }
}

/// Priority: without a priority class (none is the global default here), priority 0 and
/// the default preemption policy.
fn priority(pod: &mut Value) {
    let spec = &mut pod["spec"];
    if spec["priorityClassName"].as_str().is_none_or(str::is_empty) {
        if spec["priority"].is_null() {
            spec["priority"] = json!(0);
        }
        if spec["preemptionPolicy"].is_null() {
            spec["preemptionPolicy"] = json!("PreemptLowerPriority");
        }
    }
}

/// StorageObjectInUseProtection: the finalizer that holds a claim or volume while in use.
fn add_finalizer(object: &mut Value, finalizer: &str) {
    let finalizers = &mut object["metadata"]["finalizers"];
    match finalizers.as_array_mut() {
        Some(list) if list.iter().any(|f| f == finalizer) => {}
        Some(list) => list.push(json!(finalizer)),
        None => *finalizers = json!([finalizer]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod() -> Value {
        json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    }

    #[test]
    fn a_pod_needs_its_service_account() {
        let mut p = pod();
        let refused = admit_create("", "Pod", &mut p, |_| false, || "abcde".into());
        assert_eq!(
            refused,
            Err(Refusal(
                "error looking up service account ns/default: serviceaccount \"default\" not found"
                    .into()
            ))
        );
    }

    #[test]
    fn a_pod_gets_its_token_tolerations_and_priority() {
        let mut p = pod();
        admit_create(
            "",
            "Pod",
            &mut p,
            |name| name == "default",
            || "abcde".into(),
        )
        .unwrap();
        let spec = &p["spec"];
        assert_eq!(spec["serviceAccountName"], "default");
        assert_eq!(spec["volumes"][0]["name"], "kube-api-access-abcde");
        assert_eq!(spec["containers"][0]["volumeMounts"][0]["readOnly"], true);
        assert_eq!(spec["tolerations"].as_array().unwrap().len(), 2);
        assert_eq!(spec["priority"], 0);
        let mut opted_out = pod();
        opted_out["spec"]["automountServiceAccountToken"] = json!(false);
        opted_out["spec"]["tolerations"] = json!([{"operator": "Exists"}]);
        admit_create("", "Pod", &mut opted_out, |_| true, || "abcde".into()).unwrap();
        assert!(opted_out["spec"]["volumes"].is_null());
        assert_eq!(
            opted_out["spec"]["tolerations"].as_array().unwrap().len(),
            1
        );
    }

    #[test]
    fn claims_are_protected() {
        let mut pvc = json!({"metadata": {"name": "c", "finalizers": ["a"]}});
        admit_create("", "PersistentVolumeClaim", &mut pvc, |_| true, String::new).unwrap();
        assert_eq!(
            pvc["metadata"]["finalizers"],
            json!(["a", "kubernetes.io/pvc-protection"])
        );
    }
}
