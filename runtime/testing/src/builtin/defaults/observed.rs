//! Creates recorded from kube-apiserver v1.36.2 (`testdata/defaults/`), replayed through
//! what the in-memory server runs on a create: the OpenAPI zero values, [`apply`], the
//! server's metadata, `prepare_for_create` and, for a Service, the [`ServiceAllocator`].
//! The result must be the recorded response once the fields the server picks itself
//! (uid, resourceVersion, timestamps, managedFields, cluster IPs, node ports, generated
//! names) are blanked on both sides. What the recorded answer has beyond that comes from
//! admission plugins, which are not ported here; each test says which.

use std::path::Path;

use serde_json::{Value, json};

use super::super::strategy::{self, service::ServiceAllocator};
use super::super::{resource, resources};
use super::{apply, zero_values};

struct Recorded {
    group: String,
    version: String,
    kind: String,
    namespace: Option<String>,
    body: Value,
    response: Value,
}

fn recorded(case: &str) -> Recorded {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/builtin/testdata/defaults")
        .join(format!("defaults-{case}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let exchange: Value = serde_json::from_str(&text).unwrap();
    let path = exchange["request"]["path"].as_str().unwrap().to_owned();
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => panic!("unexpected path {path}"),
    };
    let (namespace, plural) = match rest {
        ["namespaces", namespace, plural, ..] => (Some(namespace.to_string()), *plural),
        [plural, ..] => (None, *plural),
        [] => panic!("no resource in {path}"),
    };
    let resource = resource(group, version, plural).expect("a built-in resource");
    Recorded {
        group: group.into(),
        version: version.into(),
        kind: resource.kind.clone(),
        namespace,
        body: exchange["request"]["body"].clone(),
        response: exchange["response"]["body"].clone(),
    }
}

/// The object the in-memory server would answer, and the recorded answer, both blanked.
fn replay(case: &str) -> (Value, Value) {
    replay_with(case, &mut ServiceAllocator::default())
}

fn replay_with(case: &str, allocator: &mut ServiceAllocator) -> (Value, Value) {
    let r = recorded(case);
    let schema = resources()
        .iter()
        .find(|res| res.group == r.group && res.version == r.version && res.kind == r.kind)
        .unwrap()
        .schema();
    let mut object = r.body.clone();
    zero_values(&schema, &mut object);
    apply(&r.group, &r.version, &r.kind, &mut object);
    // What the server sets before the strategy runs: the namespace from the URL and the
    // uid (the recorded one, so that labels and selectors made of it compare equal).
    let metadata = &mut object["metadata"];
    if let Some(namespace) = &r.namespace {
        metadata["namespace"] = namespace.as_str().into();
    }
    metadata["uid"] = r.response["metadata"]["uid"].clone();
    strategy::prepare_for_create(&r.group, &r.version, &r.kind, &mut object);
    if r.kind == "Service" {
        allocator.allocate(&mut object).expect("allocated");
    }
    let mut expected = r.response.clone();
    for value in [&mut object, &mut expected] {
        blank(value);
    }
    (object, expected)
}

fn blank(object: &mut Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
        ] {
            metadata.remove(key);
        }
    }
    if let Some(fields) = object.as_object_mut() {
        // The response names its type; the request body did too, except where the server
        // fills it in from the URL.
        fields.remove("apiVersion");
        fields.remove("kind");
    }
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        let headless = spec.get("clusterIP") == Some(&json!("None"));
        if !headless {
            for key in ["clusterIP", "clusterIPs"] {
                if let Some(v) = spec.get_mut(key) {
                    *v = json!("<allocated>");
                }
            }
        }
        if let Some(Value::Array(ports)) = spec.get_mut("ports") {
            for port in ports {
                if let Some(v) = port.get_mut("nodePort") {
                    *v = json!("<allocated>");
                }
            }
        }
    }
}

#[track_caller]
fn assert_same(actual: &Value, expected: &Value) {
    assert!(
        actual == expected,
        "ours:\n{}\nrecorded:\n{}",
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

#[track_caller]
fn check(case: &str) {
    let (ours, recorded) = replay(case);
    assert_same(&ours, &recorded);
}

/// Removes from a recorded Pod what the admission plugins add: the `default` service
/// account and its token volume and mounts (ServiceAccount), the not-ready/unreachable
/// tolerations (DefaultTolerationSeconds), `priority` and `preemptionPolicy` (Priority).
fn without_pod_admission(pod: &mut Value) {
    let spec = pod["spec"].as_object_mut().unwrap();
    for key in [
        "serviceAccountName",
        "serviceAccount",
        "priority",
        "preemptionPolicy",
    ] {
        spec.remove(key);
    }
    let token = |v: &Value| {
        v["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("kube-api-access-"))
    };
    for list in ["volumes", "tolerations"] {
        if let Some(Value::Array(items)) = spec.get_mut(list) {
            items.retain(|v| {
                !token(v)
                    && !v["key"]
                        .as_str()
                        .is_some_and(|k| k.starts_with("node.kubernetes.io/"))
            });
            if items.is_empty() {
                spec.remove(list);
            }
        }
    }
    for list in ["containers", "initContainers"] {
        if let Some(Value::Array(containers)) = spec.get_mut(list) {
            for container in containers {
                let fields = container.as_object_mut().unwrap();
                if let Some(Value::Array(mounts)) = fields.get_mut("volumeMounts") {
                    mounts.retain(|m| !token(m));
                    if mounts.is_empty() {
                        fields.remove("volumeMounts");
                    }
                }
            }
        }
    }
}

#[track_caller]
fn check_pod(case: &str) {
    let (ours, mut recorded) = replay(case);
    without_pod_admission(&mut recorded);
    assert_same(&ours, &recorded);
}

#[test]
fn deployment() {
    check("deployment");
    check("deployment-recreate");
}

#[test]
fn pod() {
    check_pod("pod");
    check_pod("pod-image-latest");
    check_pod("pod-image-untagged");
    check_pod("pod-image-digest");
    // Probes, hooks, env field refs, every volume source, host ports under hostNetwork,
    // requests from limits and a Burstable QoS class.
    check_pod("pod-full-container");
}

#[test]
fn replica_set_stateful_set_daemon_set() {
    check("replicaset");
    check("statefulset");
    check("daemonset");
}

#[test]
fn jobs() {
    check("job");
    check("job-indexed");
    check("job-manual-selector");
    check("job-podfailurepolicy");
    check("cronjob");
}

#[test]
fn services() {
    let mut allocator = ServiceAllocator::default();
    for case in [
        "service",
        "service-clientip",
        "service-explicit-ip",
        "service-externalname",
        "service-headless",
        "service-headless-noports",
        "service-loadbalancer",
        "service-named-targetport",
        "service-nodeport",
    ] {
        let (ours, recorded) = replay_with(case, &mut allocator);
        assert_same(&ours, &recorded);
    }
}

#[test]
fn config_and_accounts() {
    check("configmap");
    check("secret-data");
    check("secret-stringdata");
    check("serviceaccount");
    check("serviceaccount-default");
    check("namespace");
}

#[test]
fn persistent_volume_claim() {
    let (ours, mut recorded) = replay("pvc");
    // StorageObjectInUseProtection admission adds the protection finalizer.
    recorded["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("finalizers");
    assert_same(&ours, &recorded);
}

#[test]
fn networking_policy_autoscaling() {
    check("ingress");
    check("networkpolicy");
    check("networkpolicy-egress");
    check("pdb");
    check("hpa-v1");
    check("hpa-v2");
}

#[test]
fn rbac_lease_events() {
    check("role");
    check("rolebinding");
    check("clusterrole");
    check("clusterrole-aggregation");
    check("clusterrolebinding");
    check("lease");
    check("lease-full");
    check("event-core");
    check("event-events-k8s-io");
}
