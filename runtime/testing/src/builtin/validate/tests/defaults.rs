//! The defaults the recorded requests need before validation, as Go's `SetDefaults_*`
//! would set them: only the fields validation reads (the real defaulting is
//! `builtin::defaults`).

use base64::Engine;
use serde_json::{Map, Value, json};

fn obj(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = json!({});
    }
    value.as_object_mut().expect("made an object above")
}

fn or(value: &mut Value, key: &str, default: Value) {
    obj(value).entry(key).or_insert(default);
}

fn each(value: &mut Value, key: &str, f: impl Fn(&mut Value)) {
    if let Some(Value::Array(items)) = value.get_mut(key) {
        items.iter_mut().for_each(f);
    }
}

/// Defaults `object`, a `group/version` `kind`.
pub(super) fn apply(group: &str, version: &str, kind: &str, object: &mut Value) {
    let _ = version;
    match (group, kind) {
        ("", "Pod") => pod_spec(&mut object["spec"]),
        ("apps", "Deployment") => {
            let spec = &mut object["spec"];
            or(spec, "replicas", json!(1));
            let strategy = &mut spec["strategy"];
            or(strategy, "type", json!("RollingUpdate"));
            if strategy["type"] == "RollingUpdate" {
                let rolling = &mut strategy["rollingUpdate"];
                or(rolling, "maxUnavailable", json!("25%"));
                or(rolling, "maxSurge", json!("25%"));
            }
            or(spec, "revisionHistoryLimit", json!(10));
            or(spec, "progressDeadlineSeconds", json!(600));
            template(&mut spec["template"]);
        }
        ("apps", "ReplicaSet") => {
            or(&mut object["spec"], "replicas", json!(1));
            template(&mut object["spec"]["template"]);
        }
        ("apps", "StatefulSet") => {
            let spec = &mut object["spec"];
            or(spec, "replicas", json!(1));
            or(spec, "podManagementPolicy", json!("OrderedReady"));
            or(
                spec,
                "updateStrategy",
                json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
            );
            or(spec, "revisionHistoryLimit", json!(10));
            or(
                spec,
                "persistentVolumeClaimRetentionPolicy",
                json!({"whenDeleted": "Retain", "whenScaled": "Retain"}),
            );
            template(&mut spec["template"]);
        }
        ("apps", "DaemonSet") => {
            let spec = &mut object["spec"];
            let strategy = &mut spec["updateStrategy"];
            or(strategy, "type", json!("RollingUpdate"));
            if strategy["type"] == "RollingUpdate" {
                let rolling = &mut strategy["rollingUpdate"];
                or(rolling, "maxUnavailable", json!(1));
                or(rolling, "maxSurge", json!(0));
            }
            or(spec, "revisionHistoryLimit", json!(10));
            template(&mut spec["template"]);
        }
        ("batch", "Job") => {
            let spec = &mut object["spec"];
            if spec.get("parallelism").is_none() && spec.get("completions").is_none() {
                obj(spec).insert("completions".into(), json!(1));
            }
            or(spec, "parallelism", json!(1));
            or(spec, "backoffLimit", json!(6));
            or(spec, "completionMode", json!("NonIndexed"));
            or(spec, "suspend", json!(false));
            or(spec, "podReplacementPolicy", json!("TerminatingOrFailed"));
            template(&mut spec["template"]);
        }
        ("batch", "CronJob") => {
            let spec = &mut object["spec"];
            or(spec, "concurrencyPolicy", json!("Allow"));
            or(spec, "suspend", json!(false));
            or(spec, "successfulJobsHistoryLimit", json!(3));
            or(spec, "failedJobsHistoryLimit", json!(1));
            template(&mut spec["jobTemplate"]["spec"]["template"]);
        }
        ("", "Service") => service(&mut object["spec"]),
        ("", "Secret") => {
            or(object, "type", json!("Opaque"));
            if object["type"] == "" {
                object["type"] = json!("Opaque");
            }
            if let Some(Value::Object(string_data)) = obj(object).remove("stringData") {
                for (k, v) in string_data {
                    let encoded = base64::engine::general_purpose::STANDARD
                        .encode(v.as_str().unwrap_or("").as_bytes());
                    obj(&mut object["data"]).insert(k, Value::String(encoded));
                }
            }
        }
        ("", "PersistentVolumeClaim") => {
            or(&mut object["spec"], "volumeMode", json!("Filesystem"));
            or(&mut object["status"], "phase", json!("Pending"));
        }
        ("", "Namespace") => or(&mut object["spec"], "finalizers", json!(["kubernetes"])),
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            let role_ref = &mut object["roleRef"];
            if role_ref.get("apiGroup").is_none_or(|g| g == "") {
                obj(role_ref).insert("apiGroup".into(), json!("rbac.authorization.k8s.io"));
            }
            each(object, "subjects", |s| {
                let group = if s["kind"] == "ServiceAccount" {
                    ""
                } else {
                    "rbac.authorization.k8s.io"
                };
                if s.get("apiGroup").is_none() && (s["kind"] == "User" || s["kind"] == "Group") {
                    obj(s).insert("apiGroup".into(), json!(group));
                }
            });
        }
        ("autoscaling", "HorizontalPodAutoscaler") => {
            let spec = &mut object["spec"];
            or(spec, "minReplicas", json!(1));
            if spec
                .get("metrics")
                .is_none_or(|m| m.as_array().is_none_or(Vec::is_empty))
            {
                obj(spec).insert(
                    "metrics".into(),
                    json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]),
                );
            }
        }
        ("networking.k8s.io", "NetworkPolicy") => {
            let spec = &mut object["spec"];
            for direction in ["ingress", "egress"] {
                each(spec, direction, |rule| {
                    each(rule, "ports", |p| or(p, "protocol", json!("TCP")));
                });
            }
            let mut types = vec![json!("Ingress")];
            if spec.get("egress").is_some() {
                types.push(json!("Egress"));
            }
            or(spec, "policyTypes", Value::Array(types));
        }
        _ => {}
    }
}

fn template(template: &mut Value) {
    pod_spec(&mut template["spec"]);
}

fn pod_spec(spec: &mut Value) {
    or(spec, "restartPolicy", json!("Always"));
    or(spec, "terminationGracePeriodSeconds", json!(30));
    or(spec, "dnsPolicy", json!("ClusterFirst"));
    or(spec, "securityContext", json!({}));
    or(spec, "schedulerName", json!("default-scheduler"));
    for key in ["containers", "initContainers"] {
        each(spec, key, container);
    }
}

fn container(c: &mut Value) {
    let image = c["image"].as_str().unwrap_or("").to_owned();
    let last = image.rsplit('/').next().unwrap_or("");
    let tag = last.split_once(':').map(|(_, t)| t);
    let always = !image.contains('@') && tag.is_none_or(|t| t == "latest") && !image.is_empty();
    or(
        c,
        "imagePullPolicy",
        json!(if always { "Always" } else { "IfNotPresent" }),
    );
    or(c, "terminationMessagePath", json!("/dev/termination-log"));
    or(c, "terminationMessagePolicy", json!("File"));
    or(c, "resources", json!({}));
    each(c, "ports", |p| or(p, "protocol", json!("TCP")));
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = c.get_mut(probe) {
            or(p, "timeoutSeconds", json!(1));
            or(p, "periodSeconds", json!(10));
            or(p, "successThreshold", json!(1));
            or(p, "failureThreshold", json!(3));
            if let Some(h) = p.get_mut("httpGet") {
                or(h, "path", json!("/"));
                or(h, "scheme", json!("HTTP"));
            }
        }
    }
}

fn service(spec: &mut Value) {
    or(spec, "type", json!("ClusterIP"));
    or(spec, "sessionAffinity", json!("None"));
    let external_name = spec["type"] == "ExternalName";
    if !external_name {
        or(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if spec["type"] == "NodePort" || spec["type"] == "LoadBalancer" {
        or(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    each(spec, "ports", |p| {
        or(p, "protocol", json!("TCP"));
        let port = p["port"].clone();
        or(p, "targetPort", port);
    });
    if let Some(ip) = spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .map(str::to_owned)
        && spec.get("clusterIPs").is_none()
    {
        obj(spec).insert("clusterIPs".into(), json!([ip]));
    }
}
