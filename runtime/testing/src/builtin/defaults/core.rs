//! Core v1 defaults (`pkg/apis/core/v1/defaults.go`), and the PodSpec defaults every
//! workload's pod template gets.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::{child, child_or_insert, each, empty, set_if_unset, set_if_zero, unset_or_zero};

/// `SetObjectDefaults_Pod`: the PodSpec defaults, plus what only a Pod gets (not a pod
/// template): requests copied from limits, `enableServiceLinks`, host ports under
/// `hostNetwork`.
pub(super) fn pod(pod: &mut Value) {
    if let Some(spec) = child(pod, "spec") {
        for list in ["containers", "initContainers"] {
            each(spec, list, requests_from_limits);
        }
        set_if_unset(spec, "enableServiceLinks", true);
        if spec.get("hostNetwork") == Some(&Value::Bool(true)) {
            for list in ["containers", "initContainers"] {
                each(spec, list, |container| {
                    each(container, "ports", |port| {
                        if unset_or_zero(port, "hostPort") {
                            let container_port = port.get("containerPort").cloned();
                            if let Some(p) = container_port {
                                port["hostPort"] = p;
                            }
                        }
                    })
                });
            }
        }
        pod_spec(spec);
    }
}

/// A container's `resources.requests` gets every limit it lacks.
fn requests_from_limits(container: &mut Value) {
    let Some(resources) = child(container, "resources") else {
        return;
    };
    let Some(Value::Object(limits)) = resources.get("limits").cloned() else {
        return;
    };
    if let Some(requests) = child_or_insert(resources, "requests").and_then(Value::as_object_mut) {
        for (name, quantity) in limits {
            requests.entry(name).or_insert(quantity);
        }
    }
}

/// The defaults of the PodTemplateSpec at `key` in `object` (a workload's spec, a
/// PodTemplate).
pub(crate) fn pod_template_in(object: &mut Value, key: &str) {
    if let Some(template) = child(object, key)
        && let Some(spec) = child(template, "spec")
    {
        pod_spec(spec);
    }
}

/// `SetDefaults_PodSpec` and the defaults of everything a PodSpec holds.
pub(crate) fn pod_spec(spec: &mut Value) {
    set_if_zero(spec, "dnsPolicy", "ClusterFirst");
    set_if_zero(spec, "restartPolicy", "Always");
    set_if_unset(spec, "securityContext", json!({}));
    set_if_unset(spec, "terminationGracePeriodSeconds", 30);
    set_if_zero(spec, "schedulerName", "default-scheduler");
    each(spec, "volumes", volume);
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        each(spec, list, container);
    }
}

/// `SetDefaults_Volume` and the defaults of its source.
fn volume(volume: &mut Value) {
    let Some(fields) = volume.as_object_mut() else {
        return;
    };
    if fields.iter().all(|(k, v)| k == "name" || v.is_null()) {
        fields.insert("emptyDir".into(), json!({}));
    }
    if let Some(image) = child(volume, "image")
        && unset_or_zero(image, "pullPolicy")
    {
        let reference = image.get("reference").and_then(Value::as_str).unwrap_or("");
        let policy = if image_tag(reference) == Some("latest") {
            "Always"
        } else {
            "IfNotPresent"
        };
        image["pullPolicy"] = policy.into();
    }
    for source in ["secret", "configMap", "downwardAPI", "projected"] {
        if let Some(source) = child(volume, source) {
            set_if_unset(source, "defaultMode", 420);
        }
    }
    if let Some(downward) = child(volume, "downwardAPI") {
        each(downward, "items", downward_api_file);
    }
    if let Some(projected) = child(volume, "projected") {
        each(projected, "sources", |source| {
            if let Some(downward) = child(source, "downwardAPI") {
                each(downward, "items", downward_api_file);
            }
            if let Some(token) = child(source, "serviceAccountToken") {
                set_if_unset(token, "expirationSeconds", 3600);
            }
        });
    }
    if let Some(host_path) = child(volume, "hostPath") {
        set_if_unset(host_path, "type", "");
    }
    if let Some(iscsi) = child(volume, "iscsi") {
        set_if_zero(iscsi, "iscsiInterface", "default");
    }
    if let Some(rbd) = child(volume, "rbd") {
        set_if_zero(rbd, "pool", "rbd");
        set_if_zero(rbd, "user", "admin");
        set_if_zero(rbd, "keyring", "/etc/ceph/keyring");
    }
    if let Some(azure) = child(volume, "azureDisk") {
        set_if_unset(azure, "cachingMode", "ReadWrite");
        set_if_unset(azure, "fsType", "ext4");
        set_if_unset(azure, "readOnly", false);
        set_if_unset(azure, "kind", "Shared");
    }
    if let Some(scale_io) = child(volume, "scaleIO") {
        set_if_zero(scale_io, "storageMode", "ThinProvisioned");
        set_if_zero(scale_io, "fsType", "xfs");
    }
    if let Some(ephemeral) = child(volume, "ephemeral")
        && let Some(template) = child(ephemeral, "volumeClaimTemplate")
        && let Some(spec) = child(template, "spec")
    {
        persistent_volume_claim_spec(spec);
    }
}

fn downward_api_file(file: &mut Value) {
    if let Some(field_ref) = child(file, "fieldRef") {
        object_field_selector(field_ref);
    }
}

/// `SetDefaults_ObjectFieldSelector`.
fn object_field_selector(selector: &mut Value) {
    set_if_zero(selector, "apiVersion", "v1");
}

/// `SetDefaults_Container` and the defaults of its ports, env, probes and hooks.
fn container(container: &mut Value) {
    if unset_or_zero(container, "imagePullPolicy") {
        let image = container.get("image").and_then(Value::as_str).unwrap_or("");
        let policy = if image_tag(image) == Some("latest") {
            "Always"
        } else {
            "IfNotPresent"
        };
        container["imagePullPolicy"] = policy.into();
    }
    set_if_zero(container, "terminationMessagePath", "/dev/termination-log");
    set_if_zero(container, "terminationMessagePolicy", "File");
    each(container, "ports", |port| {
        set_if_zero(port, "protocol", "TCP")
    });
    each(container, "env", |env| {
        if let Some(from) = child(env, "valueFrom")
            && let Some(field_ref) = child(from, "fieldRef")
        {
            object_field_selector(field_ref);
        }
    });
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(probe) = child(container, probe) {
            set_if_zero(probe, "timeoutSeconds", 1);
            set_if_zero(probe, "periodSeconds", 10);
            set_if_zero(probe, "successThreshold", 1);
            set_if_zero(probe, "failureThreshold", 3);
            http_get(probe);
        }
    }
    if let Some(lifecycle) = child(container, "lifecycle") {
        for hook in ["postStart", "preStop"] {
            if let Some(hook) = child(lifecycle, hook) {
                http_get(hook);
            }
        }
    }
}

/// `SetDefaults_HTTPGetAction` of the `httpGet` in a probe or hook.
fn http_get(handler: &mut Value) {
    if let Some(action) = child(handler, "httpGet") {
        set_if_zero(action, "path", "/");
        set_if_zero(action, "scheme", "HTTP");
    }
}

/// The tag `parsers.ParseImageName` finds in an image reference: `latest` when there is
/// neither tag nor digest, `None` for a reference by digest only.
fn image_tag(image: &str) -> Option<&str> {
    let (name, digest) = match image.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (image, None),
    };
    // A tag follows the last `:` after the last `/` (an earlier `:` is a registry port).
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.rsplit_once(':') {
        Some((_, tag)) => Some(tag),
        None if digest.is_some() => None,
        None => Some("latest"),
    }
}

/// `SetDefaults_ReplicationController`: an empty selector and empty labels take the
/// template's labels; then the template's PodSpec defaults.
pub(super) fn replication_controller(rc: &mut Value) {
    let labels = rc
        .pointer("/spec/template/metadata/labels")
        .filter(|l| l.is_object())
        .cloned();
    if let Some(labels) = labels {
        if let Some(spec) = child(rc, "spec")
            && empty(spec, "selector")
        {
            spec["selector"] = labels.clone();
        }
        if let Some(metadata) = child(rc, "metadata")
            && empty(metadata, "labels")
        {
            metadata["labels"] = labels;
        }
    }
    if let Some(spec) = child(rc, "spec") {
        set_if_unset(spec, "replicas", 1);
        pod_template_in(spec, "template");
    }
}

/// `SetDefaults_Service`. (The `clusterIP`/`clusterIPs` reconciling is the REST storage's,
/// after the field manager: see `strategy::service::normalize_cluster_ips`.)
pub(super) fn service(service: &mut Value) {
    let Some(spec) = child(service, "spec") else {
        return;
    };
    set_if_zero(spec, "sessionAffinity", "None");
    match spec["sessionAffinity"].as_str() {
        Some("None") => {
            if let Some(fields) = spec.as_object_mut() {
                fields.remove("sessionAffinityConfig");
            }
        }
        Some("ClientIP") => {
            let timeout = spec.pointer("/sessionAffinityConfig/clientIP/timeoutSeconds");
            if timeout.is_none_or(Value::is_null) {
                spec["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": 10800}});
            }
        }
        _ => {}
    }
    set_if_zero(spec, "type", "ClusterIP");
    each(spec, "ports", |port| {
        set_if_zero(port, "protocol", "TCP");
        if unset_or_zero(port, "targetPort") {
            port["targetPort"] = port.get("port").cloned().unwrap_or(json!(0));
        }
    });
    let kind = spec["type"].as_str().unwrap_or("").to_owned();
    let externally_accessible = kind == "LoadBalancer"
        || kind == "NodePort"
        || (kind == "ClusterIP" && !empty(spec, "externalIPs"));
    if externally_accessible {
        set_if_zero(spec, "externalTrafficPolicy", "Cluster");
    }
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        set_if_unset(spec, "internalTrafficPolicy", "Cluster");
    }
    if kind == "LoadBalancer" {
        set_if_unset(spec, "allocateLoadBalancerNodePorts", true);
    }
    if kind == "LoadBalancer"
        && let Some(status) = child(service, "status")
        && let Some(balancer) = child(status, "loadBalancer")
    {
        each(balancer, "ingress", |ingress| {
            if !unset_or_zero(ingress, "ip") {
                set_if_unset(ingress, "ipMode", "VIP");
            }
        });
    }
}

/// `SetDefaults_Secret`, and the conversion's merge of `stringData` into `data` (a
/// `stringData` key wins over the same `data` key).
pub(super) fn secret(secret: &mut Value) {
    set_if_zero(secret, "type", "Opaque");
    let Some(fields) = secret.as_object_mut() else {
        return;
    };
    let Some(Value::Object(strings)) = fields.remove("stringData") else {
        return;
    };
    let data = fields.entry("data").or_insert(Value::Null);
    if !data.is_object() {
        *data = Value::Object(Map::new());
    }
    if let Some(data) = data.as_object_mut() {
        for (key, value) in strings {
            let text = value.as_str().unwrap_or("");
            let encoded = base64::engine::general_purpose::STANDARD.encode(text);
            data.insert(key, Value::String(encoded));
        }
    }
}

/// `SetDefaults_Namespace` (the `kubernetes.io/metadata.name` label, on every write) and
/// `SetDefaults_NamespaceStatus`.
pub(super) fn namespace(namespace: &mut Value) {
    metadata_name_label(namespace);
    if let Some(status) = child(namespace, "status") {
        set_if_zero(status, "phase", "Active");
    }
}

/// The label `kubernetes.io/metadata.name` = the namespace's name, when it has one.
pub(crate) fn metadata_name_label(namespace: &mut Value) {
    let name = namespace.pointer("/metadata/name").and_then(Value::as_str);
    let Some(name) = name.filter(|n| !n.is_empty()).map(str::to_owned) else {
        return;
    };
    if let Some(metadata) = child(namespace, "metadata")
        && let Some(labels) = child_or_insert(metadata, "labels").and_then(Value::as_object_mut)
    {
        labels.insert("kubernetes.io/metadata.name".into(), name.into());
    }
}

/// `SetDefaults_PersistentVolumeClaim` and its spec's defaults.
pub(crate) fn persistent_volume_claim(claim: &mut Value) {
    if let Some(spec) = child(claim, "spec") {
        persistent_volume_claim_spec(spec);
    }
    if let Some(status) = child(claim, "status") {
        set_if_zero(status, "phase", "Pending");
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`.
fn persistent_volume_claim_spec(spec: &mut Value) {
    set_if_unset(spec, "volumeMode", "Filesystem");
}

/// `SetDefaults_PersistentVolume`.
pub(super) fn persistent_volume(volume: &mut Value) {
    if let Some(spec) = child(volume, "spec") {
        set_if_zero(spec, "persistentVolumeReclaimPolicy", "Retain");
        set_if_unset(spec, "volumeMode", "Filesystem");
    }
    if let Some(status) = child(volume, "status") {
        set_if_zero(status, "phase", "Pending");
    }
}

/// `SetDefaults_Endpoints`: every port's protocol.
pub(super) fn endpoints(endpoints: &mut Value) {
    each(endpoints, "subsets", |subset| {
        each(subset, "ports", |port| set_if_zero(port, "protocol", "TCP"));
    });
}

/// `SetDefaults_LimitRangeItem` for container limits: `default` from `max`, then
/// `defaultRequest` from `default` and from `min`.
pub(super) fn limit_range(range: &mut Value) {
    let Some(spec) = child(range, "spec") else {
        return;
    };
    each(spec, "limits", |item| {
        if item.get("type").and_then(Value::as_str) != Some("Container") {
            return;
        }
        let max = item.get("max").cloned();
        let min = item.get("min").cloned();
        fill_missing(item, "default", max);
        let default = item.get("default").cloned();
        fill_missing(item, "defaultRequest", default);
        fill_missing(item, "defaultRequest", min);
    });
}

/// Creates the map at `key` and copies into it every entry of `from` it lacks.
fn fill_missing(object: &mut Value, key: &str, from: Option<Value>) {
    let Some(map) = child_or_insert(object, key).and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(Value::Object(from)) = from {
        for (name, value) in from {
            map.entry(name).or_insert(value);
        }
    }
}

/// The core Event's timestamps: Go writes its `metav1.Time`/`MicroTime` fields without
/// `omitempty`, so an unset one reads back as `null`.
pub(super) fn event(event: &mut Value) {
    for key in ["firstTimestamp", "lastTimestamp", "eventTime"] {
        set_if_unset(event, key, Value::Null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_pull_policy_follows_the_tag() {
        assert_eq!(image_tag("nginx"), Some("latest"));
        assert_eq!(image_tag("nginx:latest"), Some("latest"));
        assert_eq!(image_tag("nginx:1.27"), Some("1.27"));
        assert_eq!(image_tag("nginx@sha256:aa"), None);
        assert_eq!(image_tag("nginx:1@sha256:aa"), Some("1"));
        assert_eq!(image_tag("registry:5000/nginx"), Some("latest"));
        assert_eq!(image_tag("registry:5000/nginx:2"), Some("2"));
    }

    #[test]
    fn a_volume_without_source_is_an_empty_dir() {
        let mut spec =
            json!({"volumes": [{"name": "v"}, {"name": "h", "hostPath": {"path": "/"}}]});
        pod_spec(&mut spec);
        assert_eq!(spec["volumes"][0], json!({"name": "v", "emptyDir": {}}));
        assert_eq!(spec["volumes"][1]["hostPath"]["type"], "");
    }

    #[test]
    fn a_service_keeps_a_named_target_port_and_a_given_timeout() {
        let mut svc = json!({"spec": {
            "sessionAffinity": "ClientIP",
            "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 5}},
            "ports": [{"port": 80, "targetPort": "http"}, {"port": 81, "targetPort": 0}],
            "clusterIP": "10.0.0.9",
        }});
        service(&mut svc);
        assert_eq!(
            svc["spec"]["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"],
            5
        );
        assert_eq!(svc["spec"]["ports"][0]["targetPort"], "http");
        assert_eq!(svc["spec"]["ports"][1]["targetPort"], 81);
        // The storage, not defaulting, reconciles clusterIPs.
        assert!(svc["spec"].get("clusterIPs").is_none());
        assert_eq!(svc["spec"]["internalTrafficPolicy"], "Cluster");
        assert!(svc["spec"].get("externalTrafficPolicy").is_none());
    }

    #[test]
    fn string_data_wins_over_data() {
        let mut s = json!({"data": {"a": "eA==", "b": "eQ=="}, "stringData": {"a": "b"}});
        secret(&mut s);
        assert_eq!(
            s,
            json!({"data": {"a": "Yg==", "b": "eQ=="}, "type": "Opaque"})
        );
    }

    #[test]
    fn limit_range_defaults_come_from_max_then_min() {
        let mut range = json!({"spec": {"limits": [
            {"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}},
            {"type": "Pod", "max": {"cpu": "2"}},
        ]}});
        limit_range(&mut range);
        assert_eq!(
            range["spec"]["limits"][0],
            json!({
                "type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"},
                "default": {"cpu": "2"}, "defaultRequest": {"cpu": "2", "memory": "1Mi"},
            })
        );
        assert!(range["spec"]["limits"][1].get("default").is_none());
    }
}
