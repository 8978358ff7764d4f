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

use std::collections::HashSet;

use serde_json::Value;

use super::common::{
    get, int, labels, list, map, nonnegative, port_name, port_num, port_num_or_name, set, text,
};
use super::quantity;
use crate::validation::field::{child, index, key};
use crate::validation::names::{NameRule, dns1123_label, dns1123_subdomain, qualified_name};
use crate::validation::{BadValue, FieldError};

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
    errs.extend(containers(spec, &volumes, path));
    errs.extend(init_containers(spec, &volumes, path));
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
    let name_checks: [(&str, fn(&str) -> Vec<String>); 2] = [
        ("serviceAccountName", dns1123_subdomain),
        ("nodeName", dns1123_subdomain),
    ];
    for (key, rule) in name_checks {
        let value = text(spec, key);
        if !value.is_empty() {
            for msg in rule(value) {
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

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|s| (*s).to_owned()).collect()
}

/// An enum field that must be set to one of `values` (`Required` when empty).
fn enum_required(object: &Value, key: &str, path: &str, values: &[&str]) -> Option<FieldError> {
    let value = text(object, key);
    let path = child(path, key);
    if value.is_empty() {
        Some(FieldError::required(&path, ""))
    } else if !values.contains(&value) {
        Some(FieldError::not_supported(
            &path,
            BadValue::str(value),
            &strings(values),
        ))
    } else {
        None
    }
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

/// `validateContainers`.
fn containers(spec: &Value, volumes: &[(String, Value)], path: &str) -> Vec<FieldError> {
    let path = child(path, "containers");
    let all = list(spec, "containers");
    if all.is_empty() {
        return vec![FieldError::required(&path, "")];
    }
    let mut errs = Vec::new();
    let mut names = HashSet::new();
    for (i, c) in all.iter().enumerate() {
        let p = index(&path, i);
        errs.extend(container_common(c, volumes, &p));
        let name = text(c, "name");
        if !names.insert(name) {
            errs.push(FieldError::duplicate(
                &child(&p, "name"),
                BadValue::str(name),
            ));
        }
        if set(c, "lifecycle") {
            errs.extend(lifecycle(get(c, "lifecycle"), &child(&p, "lifecycle")));
        }
        errs.extend(probes(c, &p));
        if set(c, "restartPolicy") {
            errs.push(FieldError::forbidden(
                &child(&p, "restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }
    errs.extend(host_port_conflicts(all, &path));
    errs
}

fn probes(c: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if !set(c, key) {
            continue;
        }
        let probe = get(c, key);
        let pp = child(p, key);
        errs.extend(probe_errors(probe, &pp));
        match key {
            "readinessProbe" if set(probe, "terminationGracePeriodSeconds") => {
                errs.push(FieldError::invalid(
                    &child(&pp, "terminationGracePeriodSeconds"),
                    BadValue::of(get(probe, "terminationGracePeriodSeconds")),
                    "must not be set for readinessProbes",
                ));
            }
            "livenessProbe" | "startupProbe" => {
                let threshold = int(probe, "successThreshold").unwrap_or(0);
                if threshold != 1 {
                    errs.push(FieldError::invalid(
                        &child(&pp, "successThreshold"),
                        BadValue::Int(threshold),
                        "must be 1",
                    ));
                }
            }
            _ => {}
        }
    }
    errs
}

/// `validateInitContainers`.
fn init_containers(spec: &Value, volumes: &[(String, Value)], path: &str) -> Vec<FieldError> {
    let path = child(path, "initContainers");
    let mut names: HashSet<&str> = list(spec, "containers")
        .iter()
        .map(|c| text(c, "name"))
        .collect();
    let mut errs = Vec::new();
    for (i, c) in list(spec, "initContainers").iter().enumerate() {
        let p = index(&path, i);
        errs.extend(container_common(c, volumes, &p));
        let restart = text(c, "restartPolicy");
        if set(c, "restartPolicy") && restart != "Always" {
            errs.push(FieldError::not_supported(
                &child(&p, "restartPolicy"),
                BadValue::str(restart),
                &strings(&["Always"]),
            ));
        }
        let name = text(c, "name");
        if names.contains(name) {
            errs.push(FieldError::duplicate(
                &child(&p, "name"),
                BadValue::str(name),
            ));
        } else if !name.is_empty() {
            names.insert(name);
        }
        errs.extend(host_port_conflicts(std::slice::from_ref(c), &path));
        if restart == "Always" {
            if set(c, "lifecycle") {
                errs.extend(lifecycle(get(c, "lifecycle"), &child(&p, "lifecycle")));
            }
            errs.extend(probes(c, &p));
        } else {
            for key in [
                "lifecycle",
                "livenessProbe",
                "readinessProbe",
                "startupProbe",
            ] {
                if set(c, key) {
                    errs.push(FieldError::forbidden(
                        &child(&p, key),
                        "may not be set for init containers without restartPolicy=Always",
                    ));
                }
            }
        }
    }
    errs
}

/// `validateContainerCommon`.
fn container_common(c: &Value, volumes: &[(String, Value)], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = text(c, "name");
    let name_path = child(path, "name");
    if name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else {
        for msg in dns1123_label(name) {
            errs.push(FieldError::invalid(&name_path, BadValue::str(name), msg));
        }
    }
    if text(c, "image").is_empty() {
        errs.push(FieldError::required(&child(path, "image"), ""));
    }
    errs.extend(enum_required(
        c,
        "terminationMessagePolicy",
        path,
        &["File", "FallbackToLogsOnError"],
    ));
    errs.extend(container_ports(list(c, "ports"), &child(path, "ports")));
    errs.extend(env(list(c, "env"), &child(path, "env")));
    errs.extend(env_from(list(c, "envFrom"), &child(path, "envFrom")));
    errs.extend(volume_mounts(c, volumes, &child(path, "volumeMounts")));
    let pull = text(c, "imagePullPolicy");
    let pull_path = child(path, "imagePullPolicy");
    if pull.is_empty() {
        errs.push(FieldError::required(&pull_path, ""));
    } else if !["Always", "IfNotPresent", "Never"].contains(&pull) {
        errs.push(FieldError::not_supported(
            &pull_path,
            BadValue::str(pull),
            &strings(&["Always", "IfNotPresent", "Never"]),
        ));
    }
    errs.extend(resources(get(c, "resources"), &child(path, "resources")));
    errs
}

/// `validateContainerPorts`.
fn container_ports(ports: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut names = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let p = index(path, i);
        let name = text(port, "name");
        if !name.is_empty() {
            let msgs = port_name(name);
            if !msgs.is_empty() {
                for msg in msgs {
                    errs.push(FieldError::invalid(
                        &child(&p, "name"),
                        BadValue::str(name),
                        msg,
                    ));
                }
            } else if !names.insert(name) {
                errs.push(FieldError::duplicate(
                    &child(&p, "name"),
                    BadValue::str(name),
                ));
            }
        }
        let container_port = int(port, "containerPort").unwrap_or(0);
        if container_port == 0 {
            errs.push(FieldError::required(&child(&p, "containerPort"), ""));
        } else {
            for msg in port_num(container_port) {
                errs.push(FieldError::invalid(
                    &child(&p, "containerPort"),
                    BadValue::Int(container_port),
                    msg,
                ));
            }
        }
        let host_port = int(port, "hostPort").unwrap_or(0);
        if host_port != 0 {
            for msg in port_num(host_port) {
                errs.push(FieldError::invalid(
                    &child(&p, "hostPort"),
                    BadValue::Int(host_port),
                    msg,
                ));
            }
        }
        errs.extend(protocol(port, &p));
    }
    errs
}

/// A port's `protocol`: required, one of SCTP, TCP, UDP.
pub(super) fn protocol(port: &Value, path: &str) -> Option<FieldError> {
    let protocol = text(port, "protocol");
    let p = child(path, "protocol");
    if protocol.is_empty() {
        Some(FieldError::required(&p, ""))
    } else if !["TCP", "UDP", "SCTP"].contains(&protocol) {
        Some(FieldError::not_supported(
            &p,
            BadValue::str(protocol),
            &strings(&["SCTP", "TCP", "UDP"]),
        ))
    } else {
        None
    }
}

/// `ValidateEnv` (relaxed names: `RelaxedEnvironmentVariableValidation` is on).
fn env(vars: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, var) in vars.iter().enumerate() {
        let p = index(path, i);
        let name = text(var, "name");
        if name.is_empty() {
            errs.push(FieldError::required(&child(&p, "name"), ""));
        } else if !relaxed_env_name(name) {
            errs.push(FieldError::invalid(
                &child(&p, "name"),
                BadValue::str(name),
                "a valid environment variable name must consist only of printable ASCII characters other than '='",
            ));
        }
        if set(var, "valueFrom") {
            errs.extend(env_value_from(var, &child(&p, "valueFrom")));
        }
    }
    errs
}

fn relaxed_env_name(name: &str) -> bool {
    name.bytes().all(|b| (32..=126).contains(&b) && b != b'=')
}

/// `validateEnvVarValueFrom`: exactly one source, and no `value` beside it.
fn env_value_from(var: &Value, path: &str) -> Vec<FieldError> {
    let from = get(var, "valueFrom");
    let mut errs = Vec::new();
    let mut count = 0;
    for key in [
        "fieldRef",
        "resourceFieldRef",
        "configMapKeyRef",
        "secretKeyRef",
    ] {
        if !set(from, key) {
            continue;
        }
        count += 1;
        let source = get(from, key);
        let p = child(path, key);
        match key {
            "fieldRef" => {
                if text(source, "apiVersion").is_empty() {
                    errs.push(FieldError::required(&child(&p, "apiVersion"), ""));
                } else if text(source, "fieldPath").is_empty() {
                    errs.push(FieldError::required(&child(&p, "fieldPath"), ""));
                }
            }
            "resourceFieldRef" => {
                if text(source, "resource").is_empty() {
                    errs.push(FieldError::required(&child(&p, "resource"), ""));
                }
            }
            _ => {
                let name = text(source, "name");
                for msg in dns1123_subdomain(name) {
                    errs.push(FieldError::invalid(
                        &child(&p, "name"),
                        BadValue::str(name),
                        msg,
                    ));
                }
                let k = text(source, "key");
                if k.is_empty() {
                    errs.push(FieldError::required(&child(&p, "key"), ""));
                } else {
                    for msg in super::common::config_map_key(k) {
                        errs.push(FieldError::invalid(
                            &child(&p, "key"),
                            BadValue::str(k),
                            msg,
                        ));
                    }
                }
            }
        }
    }
    if count == 0 {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(""),
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        ));
    } else if !text(var, "value").is_empty() {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(""),
            "may not be specified when `value` is not empty",
        ));
    } else if count > 1 {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(""),
            "may not have more than one field specified at a time",
        ));
    }
    errs
}

/// `ValidateEnvFrom`.
fn env_from(sources: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let p = index(path, i);
        let prefix = text(source, "prefix");
        if !prefix.is_empty() && !relaxed_env_name(prefix) {
            errs.push(FieldError::invalid(
                &child(&p, "prefix"),
                BadValue::str(prefix),
                "a valid environment variable name must consist only of printable ASCII characters other than '='",
            ));
        }
        let mut count = 0;
        for key in ["configMapRef", "secretRef"] {
            if !set(source, key) {
                continue;
            }
            count += 1;
            let name = text(get(source, key), "name");
            let np = child(&child(&p, key), "name");
            if name.is_empty() {
                errs.push(FieldError::required(&np, ""));
            } else {
                for msg in NameRule::DnsSubdomain.check(name, true) {
                    errs.push(FieldError::invalid(&np, BadValue::str(name), msg));
                }
            }
        }
        if count == 0 {
            errs.push(FieldError::invalid(
                path,
                BadValue::str(""),
                "must specify one of: `configMapRef` or `secretRef`",
            ));
        } else if count > 1 {
            errs.push(FieldError::invalid(
                path,
                BadValue::str(""),
                "may not have more than one field specified at a time",
            ));
        }
    }
    errs
}

/// `ValidateVolumeMounts`.
fn volume_mounts(c: &Value, volumes: &[(String, Value)], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut mount_points = HashSet::new();
    for (i, mount) in list(c, "volumeMounts").iter().enumerate() {
        let p = index(path, i);
        let name = text(mount, "name");
        if name.is_empty() {
            errs.push(FieldError::required(&child(&p, "name"), ""));
        }
        if !volumes.iter().any(|(n, _)| n == name) {
            errs.push(FieldError::not_found(
                &child(&p, "name"),
                BadValue::str(name),
            ));
        }
        let mount_path = text(mount, "mountPath");
        if mount_path.is_empty() {
            errs.push(FieldError::required(&child(&p, "mountPath"), ""));
        }
        if !mount_points.insert(mount_path) {
            errs.push(FieldError::invalid(
                &child(&p, "mountPath"),
                BadValue::str(mount_path),
                "must be unique",
            ));
        }
        let sub_path = text(mount, "subPath");
        let sub_path_expr = text(mount, "subPathExpr");
        if !sub_path.is_empty() {
            errs.extend(local_descending_path(sub_path, &child(path, "subPath")));
        }
        if !sub_path_expr.is_empty() {
            if !sub_path.is_empty() {
                errs.push(FieldError::invalid(
                    &child(&p, "subPathExpr"),
                    BadValue::str(sub_path_expr),
                    "subPathExpr and subPath are mutually exclusive",
                ));
            }
            errs.extend(local_descending_path(
                sub_path_expr,
                &child(path, "subPathExpr"),
            ));
        }
    }
    errs
}

/// `validateLocalDescendingPath`: relative, without `..` segments.
fn local_descending_path(target: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if target.starts_with('/') {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(target),
            "must be a relative path",
        ));
    }
    if target.split(['/', '\\']).any(|s| s == "..") {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(target),
            "must not contain '..'",
        ));
    }
    errs
}

/// Whether a resource name is native (no domain, or a `kubernetes.io` one).
fn native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsStandardResourceName` for a name without a domain.
fn standard_resource(name: &str) -> bool {
    const STANDARD: [&str; 20] = [
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    ];
    STANDARD.contains(&name)
        || name.starts_with("hugepages-")
        || name.starts_with("requests.hugepages-")
}

/// `validateContainerResourceName`.
fn container_resource_name(name: &str, path: &str) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> = qualified_name(name)
        .into_iter()
        .map(|m| FieldError::invalid(path, BadValue::str(name), m))
        .collect();
    if !errs.is_empty() {
        return errs;
    }
    if !name.contains('/') {
        if !standard_resource(name) {
            errs.push(FieldError::invalid(
                path,
                BadValue::str(name),
                "must be a standard resource type or fully qualified",
            ));
        }
        let container = ["cpu", "memory", "ephemeral-storage"].contains(&name)
            || name.starts_with("hugepages-");
        if !container {
            errs.push(FieldError::invalid(
                path,
                BadValue::str(name),
                "must be a standard resource for containers",
            ));
        }
    } else if !native(name) && name.starts_with("requests.") {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(name),
            "doesn't follow extended resource name standard",
        ));
    }
    errs
}

/// `ValidateContainerResourceRequirements`; maps are walked in key order.
fn resources(requirements: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let limits_path = child(path, "limits");
    let requests_path = child(path, "requests");
    let limits = map(requirements, "limits");
    let requests = map(requirements, "requests");
    let mut cpu_or_memory = false;
    let mut huge_pages = false;
    for (name, q) in &limits {
        let p = key(&limits_path, name);
        errs.extend(container_resource_name(name, &p));
        errs.extend(quantity_value(name, &quantity::text(q), &p));
        huge_pages |= name.starts_with("hugepages-");
        cpu_or_memory |= *name == "cpu" || *name == "memory";
    }
    for (name, q) in &requests {
        let p = key(&requests_path, name);
        errs.extend(container_resource_name(name, &p));
        let q = quantity::text(q);
        errs.extend(quantity_value(name, &q, &p));
        let overcommit = native(name) && !name.starts_with("hugepages-");
        if let Some((_, limit)) = limits.iter().find(|(n, _)| n == name) {
            let limit = quantity::text(limit);
            let order = quantity::cmp(&q, &limit);
            if order.is_ne() && !overcommit {
                errs.push(FieldError::invalid(
                    &requests_path,
                    BadValue::str(q.as_str()),
                    format!("must be equal to {name} limit of {limit}"),
                ));
            } else if order.is_gt() {
                errs.push(FieldError::invalid(
                    &requests_path,
                    BadValue::str(q.as_str()),
                    format!("must be less than or equal to {name} limit of {limit}"),
                ));
            }
        } else if !overcommit {
            errs.push(FieldError::required(
                &limits_path,
                "Limit must be set for non overcommitable resources",
            ));
        }
        huge_pages |= name.starts_with("hugepages-");
        cpu_or_memory |= *name == "cpu" || *name == "memory";
    }
    if huge_pages && !cpu_or_memory {
        errs.push(FieldError::forbidden(
            path,
            "HugePages require cpu or memory",
        ));
    }
    errs
}

/// `ValidateResourceQuantityValue`: not negative, and whole for extended resources.
fn quantity_value(name: &str, q: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let v = quantity::value(q).unwrap_or(0.0);
    if v < 0.0 {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(q),
            "must be greater than or equal to 0",
        ));
    }
    if !native(name) && v.fract() != 0.0 {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(q),
            "must be an integer",
        ));
    }
    errs
}

/// `validateProbe`: one handler, and non-negative numbers.
fn probe_errors(probe: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = handler(probe, path, &["exec", "httpGet", "tcpSocket", "grpc"]);
    for key in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ] {
        errs.extend(nonnegative(int(probe, key).unwrap_or(0), &child(path, key)));
    }
    if let Some(g) = int(probe, "terminationGracePeriodSeconds")
        && g <= 0
    {
        errs.push(FieldError::invalid(
            &child(path, "terminationGracePeriodSeconds"),
            BadValue::Int(g),
            "must be greater than 0",
        ));
    }
    errs
}

/// `validateLifecycle`.
fn lifecycle(lifecycle: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["postStart", "preStop"] {
        if set(lifecycle, key) {
            errs.extend(handler(
                get(lifecycle, key),
                &child(path, key),
                &["exec", "httpGet", "tcpSocket", "sleep"],
            ));
        }
    }
    errs
}

/// `validateHandler` over the handler kinds `kinds` may hold.
fn handler(h: &Value, path: &str, kinds: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut count = 0;
    for kind in ["exec", "httpGet", "tcpSocket", "grpc", "sleep"] {
        if !kinds.contains(&kind) || !set(h, kind) {
            continue;
        }
        let p = child(path, kind);
        if count > 0 {
            errs.push(FieldError::forbidden(
                &p,
                "may not specify more than 1 handler type",
            ));
            continue;
        }
        count += 1;
        let action = get(h, kind);
        match kind {
            "exec" if list(action, "command").is_empty() => {
                errs.push(FieldError::required(&child(&p, "command"), ""));
            }
            "httpGet" => {
                if text(action, "path").is_empty() {
                    errs.push(FieldError::required(&child(&p, "path"), ""));
                }
                errs.extend(port_num_or_name(get(action, "port"), &child(&p, "port")));
                let scheme = text(action, "scheme");
                if scheme != "HTTP" && scheme != "HTTPS" {
                    errs.push(FieldError::not_supported(
                        &child(&p, "scheme"),
                        BadValue::str(scheme),
                        &strings(&["HTTP", "HTTPS"]),
                    ));
                }
            }
            "tcpSocket" => errs.extend(port_num_or_name(get(action, "port"), &child(&p, "port"))),
            "grpc" => {
                let port = int(action, "port").unwrap_or(0);
                for msg in port_num(port) {
                    errs.push(FieldError::invalid(
                        &child(&p, "port"),
                        BadValue::Int(port),
                        msg,
                    ));
                }
            }
            _ => {}
        }
    }
    if count == 0 {
        errs.push(FieldError::required(path, "must specify a handler type"));
    }
    errs
}

/// `checkHostPortConflicts`: a `protocol/hostIP/hostPort` used twice.
fn host_port_conflicts(containers: &[Value], path: &str) -> Vec<FieldError> {
    let mut seen = HashSet::new();
    let mut errs = Vec::new();
    for (ci, c) in containers.iter().enumerate() {
        for (pi, port) in list(c, "ports").iter().enumerate() {
            let host_port = int(port, "hostPort").unwrap_or(0);
            if host_port == 0 {
                continue;
            }
            let key = format!(
                "{}/{}/{host_port}",
                text(port, "protocol"),
                text(port, "hostIP")
            );
            if !seen.insert(key.clone()) {
                errs.push(FieldError::duplicate(
                    &format!("{path}[{ci}].ports[{pi}].hostPort"),
                    BadValue::Str(key),
                ));
            }
        }
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
                let msgs = crate::validation::names::label_value(value);
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
