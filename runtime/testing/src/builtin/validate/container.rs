//! Containers and init containers of a pod spec (`validateContainers`,
//! `validateInitContainers`, `validateContainerCommon` and what they call): names, images,
//! ports, env, volume mounts, pull and termination-message policies, resources, probes and
//! lifecycle handlers.

use std::collections::HashSet;

use serde_json::Value;

use super::common::{
    enum_required, get, int, list, map, nonnegative, port_name, port_num, port_num_or_name, set,
    strings, text,
};
use super::quantity;
use kubegen_runtime::validation::field::{child, index, key};
use kubegen_runtime::validation::names::{
    NameRule, dns1123_label, dns1123_subdomain, qualified_name,
};
use kubegen_runtime::validation::{BadValue, FieldError};

/// `validateContainers`.
pub(super) fn containers(spec: &Value, volumes: &[(String, Value)], path: &str) -> Vec<FieldError> {
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
pub(super) fn init_containers(
    spec: &Value,
    volumes: &[(String, Value)],
    path: &str,
) -> Vec<FieldError> {
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
pub(super) fn host_port_conflicts(containers: &[Value], path: &str) -> Vec<FieldError> {
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
