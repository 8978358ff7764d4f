//! Pods, pod specs and pod templates (`pkg/apis/core/validation`: `ValidatePodSpec`,
//! `ValidatePodTemplateSpec`, `ValidatePodCreate`, `ValidatePodUpdate`), the checks every
//! workload's `spec.template.spec` goes through.
//!
//! Ported: volumes (names, exactly one source, the required fields of the common sources),
//! containers and init containers (names, images, ports, env, volume mounts, pull and
//! termination-message policies, resources, probes, lifecycle handlers), the pod-level
//! enums, names and limits, tolerations, and the pod update rules. Not ported: security
//! contexts, affinity, topology spread constraints, DNS config, resource claims, OS-specific
//! rules and the less used volume sources' own fields.

use serde_json::Value;

use super::common::{enum_required, get, int, labels, list, map, set, strings, text};
use super::{container, quantity};
use kubegen_runtime::validation::field::{child, index};
use kubegen_runtime::validation::names::{dns1123_label, dns1123_subdomain, qualified_name};
use kubegen_runtime::validation::{BadValue, FieldError};

/// Whether a spec belongs to a Pod or to a template in another object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    Pod,
    Template,
}

/// `ValidatePodTemplateSpec` of the template at `path` (labels, annotations, spec).
pub(super) fn template(template: &Value, path: &str) -> Vec<FieldError> {
    let meta = get(template, "metadata");
    let mut errs = labels(
        get(meta, "labels"),
        &child(&child(path, "metadata"), "labels"),
    );
    errs.extend(annotations(
        meta,
        &child(&child(path, "metadata"), "annotations"),
    ));
    let spec_path = child(path, "spec");
    let spec = get(template, "spec");
    errs.extend(spec_errors(spec, &spec_path, Owner::Template));
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(FieldError::forbidden(
            &child(&spec_path, "ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
    errs
}

/// The annotation keys (`ValidateAnnotations`), as object metadata checks them.
fn annotations(meta: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, _) in map(meta, "annotations") {
        for msg in qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(path, BadValue::str(k), msg));
        }
    }
    errs
}

/// `ValidatePodCreate` after object metadata: the spec, then the checks only a Pod gets.
pub(super) fn pod_create(pod: &Value) -> Vec<FieldError> {
    let spec = get(pod, "spec");
    let mut errs = spec_errors(spec, "spec", Owner::Pod);
    errs.extend(pod_only(spec));
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(FieldError::forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        ));
    }
    errs
}

/// `validateContainersOnlyForPod` for containers and init containers, after the
/// projected-token rule.
fn pod_only(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if text(spec, "serviceAccountName").is_empty() {
        for (vi, volume) in list(spec, "volumes").iter().enumerate() {
            for (si, source) in list(get(volume, "projected"), "sources").iter().enumerate() {
                if set(source, "serviceAccountToken") {
                    errs.push(FieldError::forbidden(
                        &format!("spec.volumes[{vi}].projected.sources[{si}].serviceAccountToken"),
                        "must not be specified when serviceAccountName is not set",
                    ));
                }
            }
        }
    }
    for kind in ["containers", "initContainers"] {
        for (i, c) in list(spec, kind).iter().enumerate() {
            if let Some(e) = image_whitespace(c, &index(&child("spec", kind), i)) {
                errs.push(e);
            }
        }
    }
    errs
}

fn image_whitespace(container: &Value, path: &str) -> Option<FieldError> {
    let image = text(container, "image");
    (image.trim() != image).then(|| {
        FieldError::invalid(
            &child(path, "image"),
            BadValue::str(image),
            "must not have leading or trailing whitespace",
        )
    })
}

const UPDATABLE: &str = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// `ValidatePodUpdate` after the metadata update checks: the new pod as on create, then
/// the fields a pod may change (images, a shorter `activeDeadlineSeconds`, added
/// tolerations), and a `Forbidden` on `spec` for anything else, with a diff of the specs.
pub(super) fn pod_update(pod: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = pod_create_without_ephemeral(pod);
    let (spec, old_spec) = (get(pod, "spec"), get(old, "spec"));
    for kind in ["containers", "initContainers"] {
        let (new_list, old_list) = (list(spec, kind), list(old_spec, kind));
        let path = child("spec", kind);
        if new_list.len() != old_list.len() {
            errs.push(FieldError::forbidden(
                &path,
                "pod updates may not add or remove containers",
            ));
            return errs;
        }
        for (i, c) in new_list.iter().enumerate() {
            if text(c, "image").is_empty() {
                errs.push(FieldError::required(&child(&index(&path, i), "image"), ""));
            }
            if let Some(e) = image_whitespace(c, &index(&path, i)) {
                errs.push(e);
            }
        }
    }
    let deadline = int(spec, "activeDeadlineSeconds");
    let old_deadline = int(old_spec, "activeDeadlineSeconds");
    match (deadline, old_deadline) {
        (Some(d), _) if !(0..=i64::from(i32::MAX)).contains(&d) => {
            errs.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(d),
                "must be between 0 and 2147483647, inclusive",
            ));
            return errs;
        }
        (Some(d), Some(o)) if o < d => {
            errs.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(d),
                "must be less than or equal to previous value",
            ));
            return errs;
        }
        (None, Some(_)) => errs.push(FieldError::invalid(
            "spec.activeDeadlineSeconds",
            BadValue::Json(Value::Null),
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }
    errs.extend(only_added_tolerations(spec, old_spec));
    if spec == old_spec {
        return errs;
    }
    let mut munged = spec.clone();
    for kind in ["containers", "initContainers"] {
        if let Some(Value::Array(items)) = munged.get_mut(kind) {
            for (c, o) in items.iter_mut().zip(list(old_spec, kind)) {
                c["image"] = get(o, "image").clone();
            }
        }
    }
    if let Value::Object(m) = &mut munged {
        for key in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
            match old_spec.get(key) {
                Some(v) => {
                    m.insert(key.to_owned(), v.clone());
                }
                None => {
                    m.remove(key);
                }
            }
        }
        if int(old_spec, "terminationGracePeriodSeconds").is_some_and(|g| g < 0)
            && int(spec, "terminationGracePeriodSeconds") == Some(1)
        {
            m.insert(
                "terminationGracePeriodSeconds".into(),
                get(old_spec, "terminationGracePeriodSeconds").clone(),
            );
        }
    }
    if &munged != old_spec {
        errs.push(FieldError::forbidden(
            "spec",
            format!("{UPDATABLE}\n{}", super::diff::unified(old_spec, &munged)),
        ));
    }
    errs
}

fn pod_create_without_ephemeral(pod: &Value) -> Vec<FieldError> {
    let spec = get(pod, "spec");
    let mut errs = spec_errors(spec, "spec", Owner::Pod);
    errs.extend(pod_only(spec));
    errs
}

/// `validateOnlyAddedTolerations`: every old toleration is still there (its
/// `tolerationSeconds` may change).
fn only_added_tolerations(spec: &Value, old_spec: &Value) -> Vec<FieldError> {
    let new = list(spec, "tolerations");
    for old in list(old_spec, "tolerations") {
        let found = new.iter().any(|n| {
            let mut o = old.clone();
            match n.get("tolerationSeconds") {
                Some(s) => o["tolerationSeconds"] = s.clone(),
                None => {
                    if let Value::Object(m) = &mut o {
                        m.remove("tolerationSeconds");
                    }
                }
            }
            &o == n
        });
        if !found {
            return vec![FieldError::forbidden(
                "spec.tolerations",
                "existing toleration can not be modified except its tolerationSeconds",
            )];
        }
    }
    tolerations(new, "spec.tolerations")
}

/// `ValidatePodSpec`.
fn spec_errors(spec: &Value, path: &str, owner: Owner) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !set(spec, "terminationGracePeriodSeconds") {
        errs.push(FieldError::required(
            &child(path, "terminationGracePeriodSeconds"),
            "",
        ));
    }
    let (volumes, volume_errs) = validate_volumes(list(spec, "volumes"), &child(path, "volumes"));
    errs.extend(volume_errs);
    errs.extend(container::containers(spec, &volumes, path));
    errs.extend(container::init_containers(spec, &volumes, path));
    errs.extend(host_network_ports(spec, path, owner));
    errs.extend(enum_required(
        spec,
        "restartPolicy",
        path,
        &["Always", "OnFailure", "Never"],
    ));
    errs.extend(enum_required(
        spec,
        "dnsPolicy",
        path,
        &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
    ));
    errs.extend(labels(
        get(spec, "nodeSelector"),
        &child(path, "nodeSelector"),
    ));
    if text(spec, "dnsPolicy") == "None" && !set(spec, "dnsConfig") {
        errs.push(FieldError::required(
            &child(path, "dnsConfig"),
            "must provide `dnsConfig` when `dnsPolicy` is None",
        ));
    }
    for (i, gate) in list(spec, "readinessGates").iter().enumerate() {
        let t = text(gate, "conditionType");
        for msg in qualified_name(t) {
            errs.push(FieldError::invalid(
                &child(&index(&child(path, "readinessGates"), i), "conditionType"),
                BadValue::str(t),
                msg,
            ));
        }
    }
    // Service account and node names are DNS subdomains.
    for key in ["serviceAccountName", "nodeName"] {
        let value = text(spec, key);
        if !value.is_empty() {
            for msg in dns1123_subdomain(value) {
                errs.push(FieldError::invalid(
                    &child(path, key),
                    BadValue::str(value),
                    msg,
                ));
            }
        }
    }
    if let Some(d) = int(spec, "activeDeadlineSeconds")
        && !(1..=i64::from(i32::MAX)).contains(&d)
    {
        errs.push(FieldError::invalid(
            &child(path, "activeDeadlineSeconds"),
            BadValue::Int(d),
            "must be between 1 and 2147483647, inclusive",
        ));
    }
    for key in ["hostname", "subdomain"] {
        let value = text(spec, key);
        if !value.is_empty() {
            for msg in dns1123_label(value) {
                errs.push(FieldError::invalid(
                    &child(path, key),
                    BadValue::str(value),
                    msg,
                ));
            }
        }
    }
    errs.extend(tolerations(
        list(spec, "tolerations"),
        &child(path, "tolerations"),
    ));
    let priority_class = text(spec, "priorityClassName");
    if !priority_class.is_empty() {
        for msg in dns1123_subdomain(priority_class) {
            errs.push(FieldError::invalid(
                &child(path, "priorityClassName"),
                BadValue::str(priority_class),
                msg,
            ));
        }
    }
    if let Some(Value::String(p)) = spec.get("preemptionPolicy")
        && p != "PreemptLowerPriority"
        && p != "Never"
    {
        errs.push(FieldError::not_supported(
            &child(path, "preemptionPolicy"),
            BadValue::str(p.as_str()),
            &strings(&["PreemptLowerPriority", "Never"]),
        ));
    }
    errs
}

/// The volume sources in the order Go checks them, with the path segment its
/// "more than 1 volume type" error names (Go's own spelling).
const VOLUME_SOURCES: [(&str, &str); 30] = [
    ("emptyDir", "emptyDir"),
    ("hostPath", "hostPath"),
    ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"),
    ("rbd", "rbd"),
    ("cinder", "cinder"),
    ("cephfs", "cephFS"),
    ("quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI"),
    ("fc", "fc"),
    ("flexVolume", "flexVolume"),
    ("configMap", "configMap"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("storageos", "storageos"),
    ("projected", "projected"),
    ("scaleIO", "scaleIO"),
    ("csi", "csi"),
    ("ephemeral", "ephemeral"),
    ("image", "image"),
];

/// The volumes that passed their checks, by name, and the errors (`ValidateVolumes`).
fn validate_volumes(volumes: &[Value], path: &str) -> (Vec<(String, Value)>, Vec<FieldError>) {
    let mut valid: Vec<(String, Value)> = Vec::new();
    let mut errs = Vec::new();
    for (i, volume) in volumes.iter().enumerate() {
        let p = index(path, i);
        let name = text(volume, "name");
        let name_path = child(&p, "name");
        let mut own = volume_source(volume, &p);
        if name.is_empty() {
            own.push(FieldError::required(&name_path, ""));
        } else {
            for msg in dns1123_label(name) {
                own.push(FieldError::invalid(&name_path, BadValue::str(name), msg));
            }
        }
        if valid.iter().any(|(n, _)| n == name) {
            own.push(FieldError::duplicate(&name_path, BadValue::str(name)));
        }
        if own.is_empty() {
            valid.push((name.to_owned(), volume.clone()));
        } else {
            errs.extend(own);
        }
    }
    (valid, errs)
}

/// `validateVolumeSource`: exactly one source, and the fields the common sources require.
fn volume_source(volume: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut count = 0;
    for (key, shown) in VOLUME_SOURCES {
        let Some(source) = volume.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        if count > 0 {
            errs.push(FieldError::forbidden(
                &child(path, shown),
                "may not specify more than 1 volume type",
            ));
            continue;
        }
        count += 1;
        let p = child(path, key);
        let required: &[&str] = match key {
            "hostPath" => &["path"],
            "gitRepo" => &["repository"],
            "nfs" => &["server", "path"],
            "persistentVolumeClaim" => &["claimName"],
            "csi" => &["driver"],
            "image" => &[],
            _ => &[],
        };
        for field in required {
            if text(source, field).is_empty() {
                errs.push(FieldError::required(&child(&p, field), ""));
            }
        }
        if key == "emptyDir"
            && let Some(limit) = source.get("sizeLimit")
            && quantity::value(&quantity::text(limit)).is_some_and(|v| v < 0.0)
        {
            errs.push(FieldError::forbidden(
                &child(&p, "sizeLimit"),
                "SizeLimit field must be a valid resource quantity",
            ));
        }
    }
    if count == 0 {
        errs.push(FieldError::required(path, "must specify a volume type"));
    }
    errs
}

/// `validatePodHostNetworkDeps`: with `hostNetwork`, host ports equal container ports.
fn host_network_ports(spec: &Value, path: &str, owner: Owner) -> Vec<FieldError> {
    if spec.get("hostNetwork") != Some(&Value::Bool(true)) {
        return Vec::new();
    }
    let mut errs = Vec::new();
    for (ci, c) in list(spec, "containers").iter().enumerate() {
        for (pi, port) in list(c, "ports").iter().enumerate() {
            let hp = int(port, "hostPort").unwrap_or(0);
            let cp = int(port, "containerPort").unwrap_or(0);
            if (owner == Owner::Pod || hp != 0) && hp != cp {
                errs.push(FieldError::invalid(
                    &format!("{path}.containers[{ci}].ports[{pi}].hostPort"),
                    BadValue::Int(hp),
                    "must match `containerPort` when `hostNetwork` is true",
                ));
            }
        }
    }
    errs
}

/// `ValidateTolerations`.
fn tolerations(tolerations: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let p = index(path, i);
        let k = text(t, "key");
        if !k.is_empty() {
            for msg in qualified_name(k) {
                errs.push(FieldError::invalid(
                    &child(&p, "key"),
                    BadValue::str(k),
                    msg,
                ));
            }
        }
        let operator = text(t, "operator");
        if k.is_empty() && operator != "Exists" {
            errs.push(FieldError::invalid(
                &child(&p, "operator"),
                BadValue::str(operator),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        let effect = text(t, "effect");
        if set(t, "tolerationSeconds") && effect != "NoExecute" {
            errs.push(FieldError::invalid(
                &child(&p, "effect"),
                BadValue::str(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        let value = text(t, "value");
        match operator {
            "Equal" | "" => {
                let msgs = kubegen_runtime::validation::names::label_value(value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(
                        &child(&p, "operator"),
                        BadValue::str(value),
                        msgs.join(";"),
                    ));
                }
            }
            "Exists" if !value.is_empty() => errs.push(FieldError::invalid(
                &child(&p, "operator"),
                BadValue::str(value),
                "value must be empty when `operator` is 'Exists'",
            )),
            "Exists" => {}
            other => errs.push(FieldError::not_supported(
                &child(&p, "operator"),
                BadValue::str(other),
                &strings(&["Equal", "Exists"]),
            )),
        }
        if !effect.is_empty() && !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect)
        {
            errs.push(FieldError::not_supported(
                &child(&p, "effect"),
                BadValue::str(effect),
                &strings(&["NoSchedule", "PreferNoSchedule", "NoExecute"]),
            ));
        }
    }
    errs
}
