//! Every recorded invalid, immutable and valid write of kube-apiserver v1.36.2
//! (`testdata/validate/*.json`, request and response) replayed through [`validate`]: the
//! request body (defaulted by [`defaults`] as Go would, or merged onto the stored object it
//! patches), validated, and rendered as the server renders `Invalid` must give the recorded
//! message and causes byte for byte, and a recorded success no errors.

use std::path::Path;

use serde_json::{Value, json};

use super::{Write, error_group, validate};
use crate::builtin;
use crate::status::ApiError;

mod defaults;

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/builtin/testdata/validate")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The group, version, resource, namespace and subresource a request path names.
struct Target {
    group: String,
    version: String,
    resource: String,
    namespace: Option<String>,
    subresource: Option<String>,
}

fn target(path: &str) -> Target {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match parts.as_slice() {
        ["api", v, rest @ ..] => (String::new(), v.to_string(), rest.to_vec()),
        ["apis", g, v, rest @ ..] => (g.to_string(), v.to_string(), rest.to_vec()),
        _ => panic!("{path}"),
    };
    let (namespace, rest) = match rest.as_slice() {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some(ns.to_string()), rest.to_vec()),
        _ => (None, rest),
    };
    Target {
        group,
        version,
        resource: rest[0].to_owned(),
        namespace,
        subresource: rest.get(2).map(|s| s.to_string()),
    }
}

/// RFC 7386 JSON merge patch.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let Value::Object(t) = target else { return };
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            merge(t.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}

/// How a case's cause messages are compared.
#[derive(Clone, Copy, PartialEq)]
enum Compare {
    /// Message and causes byte for byte.
    Exact,
    /// Field and reason of each cause: the apiserver's message embeds a dump of a Go struct
    /// (Go field names, every field) that JSON objects do not reproduce.
    FieldAndReason,
}

/// Replays `case`; `stored` names the recording whose response is the object an update
/// changes, `uid` the UID the server gave an object being created.
fn replay(case: &str, stored: Option<&str>, uid: Option<&str>, compare: Compare) {
    let recording = load(case);
    let request = &recording["request"];
    let response = &recording["response"];
    let t = target(request["path"].as_str().unwrap_or(""));
    let resource = builtin::resource(&t.group, &t.version, &t.resource)
        .unwrap_or_else(|| panic!("{case}: no resource {}", t.resource));
    let (group, version) = (t.group.as_str(), t.version.as_str());
    let mut kind = resource.kind.as_str();
    let body = &request["body"];
    let (object, old) = match stored {
        None => {
            let mut object = body.clone();
            if let Some(ns) = &t.namespace {
                object["metadata"]["namespace"] = json!(ns);
            }
            object["metadata"]["uid"] =
                json!(uid.unwrap_or("00000000-0000-0000-0000-000000000001"));
            defaults::apply(group, version, kind, &mut object);
            (object, None)
        }
        Some(stored) => {
            let old = load(stored)["response"]["body"].clone();
            let mut object = old.clone();
            if response["code"].as_u64().is_some_and(|c| c < 300) {
                // What the apiserver validated and stored, after the strategy's
                // `PrepareForUpdate` (which this module does not do).
                object = response["body"].clone();
            } else if request["method"] == "PUT" {
                object = body.clone();
            } else {
                merge(&mut object, body);
            }
            defaults::apply(group, version, kind, &mut object);
            (object, Some(old))
        }
    };
    let write = match (&old, t.subresource.as_deref()) {
        (None, _) => Write::Create,
        (Some(old), Some("status")) => Write::Status(old),
        (Some(old), _) => Write::Update(old),
    };
    let (group, kind) = if t.subresource.as_deref() == Some("scale") {
        kind = "Scale";
        ("autoscaling", kind)
    } else {
        (group, kind)
    };
    let scale;
    let object = if kind == "Scale" {
        scale = json!({
            "metadata": object["metadata"].clone(),
            "spec": {"replicas": object["spec"]["replicas"].clone()},
        });
        &scale
    } else {
        &object
    };
    let errors = validate(group, version, kind, resource.namespaced, object, write);
    let code = response["code"].as_u64().unwrap_or(0);
    if code < 300 {
        assert!(
            errors.is_empty(),
            "{case}: expected no errors, got {errors:#?}"
        );
        return;
    }
    assert_eq!(code, 422, "{case}");
    let name = object["metadata"]["name"].as_str().unwrap_or("");
    let status = ApiError::invalid(error_group(group, kind), kind, name, &errors);
    let want = &response["body"];
    let got_causes = status
        .details
        .as_ref()
        .map(|d| d["causes"].clone())
        .unwrap_or_default();
    let want_causes = &want["details"]["causes"];
    match compare {
        Compare::Exact => {
            assert_eq!(status.message, want["message"], "{case}: message");
            assert_eq!(&got_causes, want_causes, "{case}: causes");
        }
        Compare::FieldAndReason => {
            let strip = |causes: &Value| -> Vec<(Value, Value)> {
                causes
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| (c["field"].clone(), c["reason"].clone()))
                    .collect()
            };
            assert_eq!(strip(&got_causes), strip(want_causes), "{case}: causes");
        }
    }
}

fn creates(cases: &[&str]) {
    for case in cases {
        replay(case, None, None, Compare::Exact);
    }
}

#[test]
fn names_and_metadata() {
    creates(&[
        "invalid-annotation-key-invalid",
        "invalid-label-key-invalid",
        "invalid-label-value-invalid",
        "invalid-name-dot-in-dns-label-kind",
        "invalid-name-missing",
        "invalid-name-too-long",
        "invalid-name-uppercase",
        "invalid-namespace-name-invalid",
        "invalid-serviceaccount-bad-name",
        "invalid-unknown-field-strict",
        "valid-name-deployment-dots-ok",
    ]);
}

#[test]
fn deployments() {
    creates(&[
        "invalid-deployment-bad-percent",
        "invalid-deployment-container-no-image",
        "invalid-deployment-empty-selector",
        "invalid-deployment-maxsurge-maxunavailable-zero",
        "invalid-deployment-negative-replicas",
        "invalid-deployment-no-selector",
        "invalid-deployment-no-template-labels",
        "invalid-deployment-progress-deadline-le-minready",
        "invalid-deployment-recreate-with-rollingupdate",
        "invalid-deployment-restartpolicy-never",
        "invalid-deployment-selector-bad-operator",
        "invalid-deployment-selector-mismatch",
    ]);
    for case in [
        "immutable-deployment-selector-change",
        "immutable-deployment-template-labels-unmatch",
        "valid-deployment-main-ignores-status",
        "valid-deployment-status-write",
        "valid-deployment-scale-patch",
        "invalid-deployment-scale-negative",
    ] {
        replay(case, Some("defaults-deployment"), None, Compare::Exact);
    }
    // The status written before, then a negative count against it.
    replay(
        "invalid-deployment-status-negative",
        Some("valid-deployment-status-write"),
        None,
        Compare::Exact,
    );
    replay(
        "valid-deployment-status-ignores-spec",
        Some("valid-deployment-status-write"),
        None,
        Compare::Exact,
    );
}

#[test]
fn replica_sets_stateful_sets_and_daemon_sets() {
    creates(&[
        "invalid-replicaset-selector-mismatch",
        "invalid-statefulset-bad-podmanagement",
        "invalid-statefulset-selector-mismatch",
        "invalid-daemonset-maxunavailable-zero",
        "invalid-daemonset-selector-mismatch",
    ]);
    replay(
        "immutable-replicaset-selector-change",
        Some("defaults-replicaset"),
        None,
        Compare::Exact,
    );
    for case in [
        "immutable-statefulset-podmanagement-change",
        "immutable-statefulset-selector-change",
        "immutable-statefulset-servicename-change",
        "immutable-statefulset-vct-change",
        "valid-statefulset-replicas-ok",
    ] {
        replay(case, Some("defaults-statefulset"), None, Compare::Exact);
    }
    replay(
        "immutable-daemonset-selector-change",
        Some("defaults-daemonset"),
        None,
        Compare::Exact,
    );
}

#[test]
fn pods() {
    creates(&[
        "invalid-pod-container-bad-name",
        "invalid-pod-container-dup-name",
        "invalid-pod-container-image-whitespace",
        "invalid-pod-container-no-image",
        "invalid-pod-container-no-name",
        "invalid-pod-env-bad-name",
        "invalid-pod-many-errors",
        "invalid-pod-no-containers",
        "invalid-pod-port-bad-protocol",
        "invalid-pod-port-dup-name",
        "invalid-pod-port-name-too-long",
        "invalid-pod-port-out-of-range",
        "invalid-pod-port-zero",
        "invalid-pod-probe-bad-port-name",
        "invalid-pod-probe-liveness-success-threshold",
        "invalid-pod-probe-no-handler",
        "invalid-pod-probe-two-handlers",
        "invalid-pod-resources-negative",
        "invalid-pod-resources-requests-gt-limits",
        "invalid-pod-resources-unknown-name",
        "invalid-pod-restartpolicy-bad",
        "invalid-pod-volume-dup",
        "invalid-pod-volume-mount-missing",
    ]);
    replay(
        "immutable-pod-add-container",
        Some("defaults-pod"),
        None,
        Compare::Exact,
    );
    replay(
        "immutable-pod-spec-image-ok",
        Some("defaults-pod"),
        None,
        Compare::Exact,
    );
    // The message ends in a diff of Go's internal PodSpec.
    replay(
        "immutable-pod-spec-forbidden",
        Some("defaults-pod"),
        None,
        Compare::FieldAndReason,
    );
}

#[test]
fn jobs_and_cron_jobs() {
    creates(&[
        "invalid-job-indexed-no-completions",
        "invalid-job-manual-selector-mismatch",
        "invalid-job-negative-parallelism",
        "invalid-job-restartpolicy-always",
        "invalid-cronjob-bad-concurrency",
        "invalid-cronjob-bad-schedule",
        "invalid-cronjob-bad-timezone",
        "invalid-cronjob-name-too-long",
        "invalid-cronjob-timezone-in-schedule",
    ]);
    // The generated selector names the UID the server gave the Job.
    replay(
        "invalid-job-selector-without-manual",
        None,
        Some("622d998b-aa94-4534-9116-24dd2171c0e3"),
        Compare::Exact,
    );
    for case in [
        "immutable-job-completionmode-change",
        "immutable-job-completions-change",
        "immutable-job-selector-change",
        "valid-job-parallelism-ok",
    ] {
        replay(case, Some("defaults-job"), None, Compare::Exact);
    }
    // The value is Go's internal PodTemplateSpec.
    replay(
        "immutable-job-template-change",
        Some("defaults-job"),
        None,
        Compare::FieldAndReason,
    );
}

#[test]
fn services() {
    creates(&[
        "invalid-service-bad-type",
        "invalid-service-externalname-missing",
        "invalid-service-no-ports",
        "invalid-service-port-out-of-range",
        "invalid-service-ports-need-names",
    ]);
    replay(
        "immutable-service-clusterip-change",
        Some("defaults-service"),
        None,
        Compare::Exact,
    );
    replay(
        "valid-service-type-to-externalname-ok",
        Some("defaults-service-clientip"),
        None,
        Compare::Exact,
    );
}

#[test]
fn config_maps_and_secrets() {
    creates(&[
        "invalid-configmap-key",
        "invalid-configmap-key-dup-binary",
        "invalid-secret-basic-auth-missing",
        "invalid-secret-dockerconfigjson-bad-json",
        "invalid-secret-dockerconfigjson-missing",
        "invalid-secret-key",
        "invalid-secret-sa-token-missing-annotation",
        "invalid-secret-ssh-auth-missing",
        "invalid-secret-tls-missing-keys",
        "valid-configmap-immutable-create",
        "valid-secret-immutable-create",
        "valid-secret-type-invalid",
    ]);
    for case in [
        "immutable-configmap-immutable-data",
        "immutable-configmap-immutable-unset",
        "valid-configmap-immutable-metadata-ok",
    ] {
        replay(
            case,
            Some("valid-configmap-immutable-create"),
            None,
            Compare::Exact,
        );
    }
    for case in [
        "immutable-secret-immutable-data",
        "immutable-secret-immutable-unset",
    ] {
        replay(
            case,
            Some("valid-secret-immutable-create"),
            None,
            Compare::Exact,
        );
    }
    replay(
        "immutable-secret-type-change",
        Some("defaults-secret-stringdata"),
        None,
        Compare::Exact,
    );
}

#[test]
fn persistent_volume_claims() {
    creates(&[
        "invalid-pvc-bad-accessmode",
        "invalid-pvc-no-accessmodes",
        "invalid-pvc-no-storage",
    ]);
    // The message ends in a diff of Go's internal PersistentVolumeClaimSpec.
    for case in [
        "immutable-pvc-grow-unbound",
        "immutable-pvc-shrink",
        "immutable-pvc-spec-change",
    ] {
        replay(case, Some("defaults-pvc"), None, Compare::FieldAndReason);
    }
}

#[test]
fn networking_policy_and_autoscaling() {
    creates(&[
        "invalid-ingress-bad-pathtype",
        "invalid-ingress-no-backend",
        "invalid-ingress-no-pathtype",
        "invalid-ingress-relative-path",
        "invalid-ingress-wildcard-host",
        "invalid-networkpolicy-bad-cidr",
        "invalid-networkpolicy-bad-port",
        "invalid-pdb-bad-percent",
        "invalid-pdb-both",
        "invalid-hpa-max-lt-min",
        "invalid-hpa-min-zero",
        "invalid-hpa-no-target-kind",
    ]);
}

#[test]
fn rbac() {
    creates(&[
        "invalid-clusterrolebinding-role-kind",
        "invalid-clusterrolebinding-sa-no-namespace",
        "invalid-role-no-verbs",
        "invalid-role-nonresourceurls",
        "invalid-rolebinding-bad-subject-kind",
        "invalid-rolebinding-no-roleref",
        "invalid-rolebinding-sa-no-namespace-ok",
    ]);
    replay(
        "immutable-rolebinding-roleref-change",
        Some("defaults-rolebinding"),
        None,
        Compare::Exact,
    );
    replay(
        "immutable-clusterrolebinding-roleref-change",
        Some("defaults-clusterrolebinding"),
        None,
        Compare::Exact,
    );
}

#[test]
fn leases_and_events() {
    creates(&[
        "invalid-lease-negative-duration",
        "invalid-lease-negative-transitions",
        "invalid-event-core-namespace-mismatch",
        "invalid-event-events-bad-type",
        "invalid-event-events-missing-all",
        "invalid-event-events-no-eventtime",
    ]);
    for case in [
        "immutable-event-events-note-change",
        "immutable-event-events-reason-change",
    ] {
        replay(
            case,
            Some("defaults-event-events-k8s-io"),
            None,
            Compare::Exact,
        );
    }
}

#[test]
fn kinds_without_a_port_get_object_metadata_only() {
    let object = json!({"metadata": {"name": "Bad_Name", "namespace": "ns"}});
    let errors = validate(
        "storage.k8s.io",
        "v1",
        "CSIStorageCapacity",
        true,
        &object,
        Write::Create,
    );
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, "metadata.name");
    assert_eq!(error_group("events.k8s.io", "Event"), "");
    assert_eq!(error_group("apps", "Deployment"), "apps");
}
