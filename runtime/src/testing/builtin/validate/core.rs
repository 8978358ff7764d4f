//! The core group (`pkg/apis/core/validation`): Pod (see [`super::pod`]), Service,
//! ConfigMap, Secret, ServiceAccount, PersistentVolumeClaim, Namespace and Event.
//!
//! Service IP and node port allocation errors (`failed to allocate IP …`) come from the
//! service registry's allocators, not from validation, and are not here.

use base64::Engine;
use serde_json::Value;

use super::common::{
    config_map_key, get, go_struct, int, labels, list, map, port_num, port_num_or_name, set, text,
};
use super::{Meta, Write, pod, quantity};
use crate::validation::field::{child, index, key};
use crate::validation::names::{dns1123_label, dns1123_subdomain, qualified_name};
use crate::validation::netfmt::{IpSyntax, is_cidr, is_ip};
use crate::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    Some(match (kind, write) {
        ("Pod", Write::Create) => meta.first(write, pod::pod_create(object)),
        ("Pod", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(meta.create());
            errs.extend(pod::pod_update(object, old));
            errs
        }
        ("ConfigMap", Write::Create) => meta.first(write, config_map(object)),
        ("ConfigMap", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(immutable_data(object, old, &["data", "binaryData"]));
            errs.extend(meta.create());
            errs.extend(config_map(object));
            errs
        }
        ("Secret", Write::Create) => meta.first(write, secret(object)),
        ("Secret", Write::Update(old)) => {
            let mut errs = meta.update(old);
            let t = get(object, "type");
            errs.extend(super::common::immutable(
                t,
                get(old, "type"),
                "type",
                BadValue::of(t),
            ));
            errs.extend(immutable_data(object, old, &["data"]));
            errs.extend(meta.create());
            errs.extend(secret(object));
            errs
        }
        ("ServiceAccount", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(meta.create());
            errs
        }
        ("Service", Write::Create) => meta.first(write, service(object)),
        ("Service", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(service_update(get(object, "spec"), get(old, "spec")));
            errs.extend(meta.create());
            errs.extend(service(object));
            errs
        }
        ("PersistentVolumeClaim", Write::Create) => {
            meta.first(write, pvc_spec(get(object, "spec")))
        }
        ("PersistentVolumeClaim", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(meta.create());
            errs.extend(pvc_spec(get(object, "spec")));
            errs.extend(pvc_update(object, old));
            errs
        }
        ("Namespace", Write::Create) => meta.first(write, namespace_finalizers(object)),
        ("Event", Write::Create) => legacy_event(object, false),
        ("Event", Write::Update(_)) => legacy_event(object, false),
        _ => return None,
    })
}

/// The strict checks of an Event written through events.k8s.io, on the object converted to
/// the core shape (`involvedObject`, `message`, `reportingComponent`, ...):
/// `ValidateEventCreate` and `ValidateEventUpdate` for a request of a newer API than v1.
pub(super) fn strict_event(event: &Value, write: Write<'_>, meta: &Meta<'_>) -> Vec<FieldError> {
    let mut errs = legacy_event(event, true);
    match write {
        Write::Create => {
            errs.extend(meta.create());
            errs.extend(event_series(event));
            if !set(event, "eventTime") {
                errs.push(FieldError::required("eventTime", ""));
            }
            let t = text(event, "type");
            if t != "Normal" && t != "Warning" {
                errs.push(FieldError::invalid(
                    "type",
                    BadValue::str(""),
                    format!("has invalid value: {t}"),
                ));
            }
        }
        Write::Update(old) | Write::Status(old) => {
            errs.extend(meta.update(old));
            if get(event, "series") != get(old, "series") {
                errs.extend(event_series(event));
            }
            // `reason` twice, as Go checks it.
            for key in [
                "involvedObject",
                "reason",
                "message",
                "source",
                "firstTimestamp",
                "lastTimestamp",
                "count",
                "reason",
                "type",
                "eventTime",
                "action",
                "related",
                "reportingComponent",
                "reportingInstance",
            ] {
                let (new, before) = (get(event, key), get(old, key));
                if new != before {
                    let path = if key == "reportingComponent" {
                        "reportingController"
                    } else {
                        key
                    };
                    let shown = match new {
                        Value::Object(_) => BadValue::Json(new.clone()),
                        other => BadValue::of(other),
                    };
                    errs.push(FieldError::invalid(path, shown, "field is immutable"));
                }
            }
        }
    }
    errs
}

/// `legacyValidateEvent`; `strict` for a request through events.k8s.io (its field is
/// named `reportingController` there).
fn legacy_event(event: &Value, strict: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let namespace = text(get(event, "metadata"), "namespace");
    let involved_ns = text(get(event, "involvedObject"), "namespace");
    let mismatch = || {
        FieldError::invalid(
            "involvedObject.namespace",
            BadValue::str(involved_ns),
            "does not match event.namespace",
        )
    };
    if !set(event, "eventTime") {
        if involved_ns.is_empty() {
            if !namespace.is_empty() && namespace != "default" {
                errs.push(mismatch());
            }
        } else if namespace != involved_ns {
            errs.push(mismatch());
        }
    } else {
        if involved_ns.is_empty() && namespace != "default" && namespace != "kube-system" {
            errs.push(mismatch());
        }
        let controller_path = if strict {
            "reportingController"
        } else {
            "reportingComponent"
        };
        let controller = text(event, "reportingComponent");
        if controller.is_empty() {
            errs.push(FieldError::required(controller_path, ""));
        }
        for msg in qualified_name(controller) {
            errs.push(FieldError::invalid(
                controller_path,
                BadValue::str(controller),
                msg,
            ));
        }
        for (key, limit) in [("reportingInstance", 128), ("action", 128), ("reason", 128)] {
            let value = text(event, key);
            if value.is_empty() {
                errs.push(FieldError::required(key, ""));
            }
            if value.len() > limit {
                errs.push(at_most(key, limit));
            }
        }
        if text(event, "message").len() > 1024 {
            errs.push(at_most("message", 1024));
        }
    }
    for msg in dns1123_subdomain(namespace) {
        errs.push(FieldError::invalid(
            "namespace",
            BadValue::str(namespace),
            msg,
        ));
    }
    errs
}

fn at_most(path: &str, limit: usize) -> FieldError {
    FieldError::invalid(
        path,
        BadValue::str(""),
        format!("can have at most {limit} characters"),
    )
}

/// `validateV1EventSeries`.
fn event_series(event: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let series = get(event, "series");
    if series.is_object() {
        if int(series, "count").unwrap_or(0) < 2 {
            errs.push(FieldError::invalid(
                "series.count",
                BadValue::str(""),
                "should be at least 2",
            ));
        }
        if !set(series, "lastObservedTime") {
            errs.push(FieldError::required("series.lastObservedTime", ""));
        }
    }
    errs
}

const MAX_SECRET_SIZE: i64 = 1024 * 1024;

/// `ValidateConfigMap` after the metadata (maps in key order).
fn config_map(cm: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let binary = map(cm, "binaryData");
    let mut size = 0;
    for (k, v) in map(cm, "data") {
        let p = key("data", k);
        for msg in config_map_key(k) {
            errs.push(FieldError::invalid(&p, BadValue::str(k), msg));
        }
        if binary.iter().any(|(b, _)| *b == k) {
            errs.push(FieldError::invalid(
                &p,
                BadValue::str(k),
                "duplicate of key present in binaryData",
            ));
        }
        size += v.as_str().map_or(0, str::len);
    }
    for (k, v) in &binary {
        for msg in config_map_key(k) {
            errs.push(FieldError::invalid(
                &key("binaryData", k),
                BadValue::str(*k),
                msg,
            ));
        }
        size += decoded(v).len();
    }
    if size as i64 > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long("", MAX_SECRET_SIZE));
    }
    errs
}

/// The bytes of a base64 `[]byte` field (empty when it is not base64: the decoder has
/// refused those already).
fn decoded(value: &Value) -> Vec<u8> {
    let s = value.as_str().unwrap_or("");
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .unwrap_or_default()
}

/// `immutable: true` freezes `fields` and `immutable` itself.
fn immutable_data(object: &Value, old: &Value, fields: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return errs;
    }
    const FROZEN: &str = "field is immutable when `immutable` is set";
    if object.get("immutable") != Some(&Value::Bool(true)) {
        errs.push(FieldError::forbidden("immutable", FROZEN));
    }
    for field in fields {
        let empty = |v: &Value| v.is_null() || v.as_object().is_some_and(|m| m.is_empty());
        let (new, before) = (get(object, field), get(old, field));
        if new != before && !(empty(new) && empty(before) && new.is_null() == before.is_null()) {
            errs.push(FieldError::forbidden(field, FROZEN));
        }
    }
    errs
}

/// `ValidateSecret` after the metadata.
fn secret(secret: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let data = map(secret, "data");
    let mut size = 0;
    for (k, v) in &data {
        for msg in config_map_key(k) {
            errs.push(FieldError::invalid(&key("data", k), BadValue::str(*k), msg));
        }
        size += decoded(v).len();
    }
    if size as i64 > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long("data", MAX_SECRET_SIZE));
    }
    let has = |k: &str| data.iter().any(|(d, _)| *d == k);
    let bytes = |k: &str| data.iter().find(|(d, _)| *d == k).map(|(_, v)| decoded(v));
    let required = |k: &str| FieldError::required(&key("data", k), "");
    match text(secret, "type") {
        "kubernetes.io/service-account-token" => {
            let annotations = get(get(secret, "metadata"), "annotations");
            if text(annotations, "kubernetes.io/service-account.name").is_empty() {
                errs.push(FieldError::required(
                    "metadata.annotations[kubernetes.io/service-account.name]",
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" => errs.extend(json_key(&bytes(".dockercfg"), ".dockercfg")),
        "kubernetes.io/dockerconfigjson" => {
            errs.extend(json_key(&bytes(".dockerconfigjson"), ".dockerconfigjson"));
        }
        "kubernetes.io/basic-auth" => {
            if !has("username") && !has("password") {
                errs.push(required("username"));
                errs.push(required("password"));
            }
        }
        "kubernetes.io/ssh-auth" => {
            if bytes("ssh-privatekey").is_none_or(|b| b.is_empty()) {
                errs.push(required("ssh-privatekey"));
            }
        }
        "kubernetes.io/tls" => {
            for k in ["tls.crt", "tls.key"] {
                if !has(k) {
                    errs.push(required(k));
                }
            }
        }
        _ => {}
    }
    errs
}

/// A docker config key: present, and a JSON object.
fn json_key(bytes: &Option<Vec<u8>>, name: &str) -> Option<FieldError> {
    let path = key("data", name);
    let Some(bytes) = bytes else {
        return Some(FieldError::required(&path, ""));
    };
    let problem = match kubegen_go::json::decode(bytes, &[]) {
        Err(e) => Some(e.to_string()),
        Ok(d) => match d.value {
            Err(e) => Some(e.to_string()),
            Ok(Value::Object(_)) | Ok(Value::Null) => None,
            Ok(other) => Some(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                kubegen_go::json::type_name(&other)
            )),
        },
    };
    problem.map(|p| FieldError::invalid(&path, BadValue::str("<secret contents redacted>"), p))
}

/// `ValidateNamespace`'s `spec.finalizers`.
fn namespace_finalizers(ns: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in list(get(ns, "spec"), "finalizers") {
        let f = f.as_str().unwrap_or("");
        let path = "spec.finalizers";
        for msg in qualified_name(f) {
            errs.push(FieldError::invalid(path, BadValue::str(f), msg));
        }
        if !f.contains('/') && f != "kubernetes" {
            errs.push(FieldError::invalid(
                path,
                BadValue::str(f),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
    errs
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|s| (*s).to_owned()).collect()
}

fn headless(spec: &Value) -> bool {
    list(spec, "clusterIPs").first().and_then(Value::as_str) == Some("None")
}

/// `ValidateService` after the metadata.
fn service(svc: &Value) -> Vec<FieldError> {
    let spec = get(svc, "spec");
    let mut errs = Vec::new();
    let kind = text(spec, "type");
    let ports = list(spec, "ports");
    if ports.is_empty() && !headless(spec) && kind != "ExternalName" {
        errs.push(FieldError::required("spec.ports", ""));
    }
    match kind {
        "LoadBalancer" | "NodePort" if headless(spec) => errs.push(FieldError::invalid(
            "spec.clusterIPs[0]",
            BadValue::str("None"),
            format!("may not be set to 'None' for {kind} services"),
        )),
        "ExternalName" => {
            for key in ["clusterIPs", "ipFamilies"] {
                if !list(spec, key).is_empty() {
                    errs.push(FieldError::forbidden(
                        &child("spec", key),
                        "may not be set for ExternalName services",
                    ));
                }
            }
            if set(spec, "ipFamilyPolicy") {
                errs.push(FieldError::forbidden(
                    "spec.ipFamilyPolicy",
                    "may not be set for ExternalName services",
                ));
            }
            let name = text(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            if cname.is_empty() {
                errs.push(FieldError::required("spec.externalName", ""));
            } else {
                for msg in dns1123_subdomain(cname) {
                    errs.push(FieldError::invalid(
                        "spec.externalName",
                        BadValue::str(cname),
                        msg,
                    ));
                }
            }
        }
        _ => {}
    }
    let mut names = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        errs.extend(service_port(
            port,
            ports.len() > 1,
            &mut names,
            &index("spec.ports", i),
        ));
    }
    if set(spec, "selector") {
        errs.extend(labels(get(spec, "selector"), "spec.selector"));
    }
    match text(spec, "sessionAffinity") {
        "" => errs.push(FieldError::required("spec.sessionAffinity", "")),
        "ClientIP" => errs.extend(client_ip_config(get(spec, "sessionAffinityConfig"))),
        "None" => {
            if set(spec, "sessionAffinityConfig") {
                errs.push(FieldError::forbidden(
                    "spec.sessionAffinityConfig",
                    "must not be set when session affinity is None",
                ));
            }
        }
        other => errs.push(FieldError::not_supported(
            "spec.sessionAffinity",
            BadValue::str(other),
            &strings(&["ClientIP", "None"]),
        )),
    }
    errs.extend(cluster_ips(spec));
    for (i, ip) in list(spec, "externalIPs").iter().enumerate() {
        let ip = ip.as_str().unwrap_or("");
        if !is_ip(ip, IpSyntax::Sloppy) {
            errs.push(invalid_ip(&index("spec.externalIPs", i), ip));
        }
    }
    match kind {
        "" => errs.push(FieldError::required("spec.type", "")),
        "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName" => {}
        other => errs.push(FieldError::not_supported(
            "spec.type",
            BadValue::str(other),
            &strings(&["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]),
        )),
    }
    if kind == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if int(port, "nodePort").unwrap_or(0) != 0 {
                errs.push(FieldError::forbidden(
                    &format!("spec.ports[{i}].nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let node_port = int(port, "nodePort").unwrap_or(0);
        if node_port == 0 {
            continue;
        }
        let k = (text(port, "protocol"), node_port);
        if node_ports.contains(&k) {
            errs.push(FieldError::duplicate(
                &format!("spec.ports[{i}].nodePort"),
                BadValue::Int(node_port),
            ));
        }
        node_ports.push(k);
    }
    let mut seen = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let k = (text(port, "protocol"), int(port, "port").unwrap_or(0));
        if seen.contains(&k) {
            errs.push(FieldError::duplicate(
                &index("spec.ports", i),
                go_struct(&[
                    ("Name", Value::String(String::new())),
                    ("Protocol", Value::String(k.0.to_owned())),
                    ("AppProtocol", Value::Null),
                    ("Port", Value::from(k.1)),
                    ("TargetPort", Value::from(0)),
                    ("NodePort", Value::from(0)),
                ]),
            ));
        }
        seen.push(k);
    }
    let ranges = list(spec, "loadBalancerSourceRanges");
    if !ranges.is_empty() {
        let p = "spec.LoadBalancerSourceRanges";
        if kind != "LoadBalancer" {
            errs.push(FieldError::forbidden(
                p,
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
        for (i, r) in ranges.iter().enumerate() {
            let r = r.as_str().unwrap_or("").trim();
            if !is_cidr(r) {
                errs.push(invalid_cidr(&index(p, i), r));
            }
        }
    }
    if set(spec, "allocateLoadBalancerNodePorts") && kind != "LoadBalancer" {
        errs.push(FieldError::forbidden(
            "spec.allocateLoadBalancerNodePorts",
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    if kind == "LoadBalancer" && !set(spec, "allocateLoadBalancerNodePorts") {
        errs.push(FieldError::required("allocateLoadBalancerNodePorts", ""));
    }
    errs.extend(traffic_policies(spec, kind));
    errs
}

fn invalid_ip(path: &str, ip: &str) -> FieldError {
    FieldError::invalid(
        path,
        BadValue::str(ip),
        "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
    )
}

fn invalid_cidr(path: &str, cidr: &str) -> FieldError {
    FieldError::invalid(
        path,
        BadValue::str(cidr),
        "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
    )
}

/// `validateServicePort`.
fn service_port<'v>(
    port: &'v Value,
    require_name: bool,
    names: &mut Vec<&'v str>,
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = text(port, "name");
    let name_path = child(path, "name");
    if require_name && name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else if !name.is_empty() {
        for msg in dns1123_label(name) {
            errs.push(FieldError::invalid(&name_path, BadValue::str(name), msg));
        }
        if names.contains(&name) {
            errs.push(FieldError::duplicate(&name_path, BadValue::str(name)));
        } else {
            names.push(name);
        }
    }
    let number = int(port, "port").unwrap_or(0);
    for msg in port_num(number) {
        errs.push(FieldError::invalid(
            &child(path, "port"),
            BadValue::Int(number),
            msg,
        ));
    }
    errs.extend(pod::protocol(port, path));
    errs.extend(port_num_or_name(
        get(port, "targetPort"),
        &child(path, "targetPort"),
    ));
    if let Some(Value::String(app)) = port.get("appProtocol") {
        for msg in qualified_name(app) {
            errs.push(FieldError::invalid(
                &child(path, "appProtocol"),
                BadValue::str(app.as_str()),
                msg,
            ));
        }
    }
    errs
}

/// `validateClientIPAffinityConfig`.
fn client_ip_config(config: &Value) -> Vec<FieldError> {
    let when = "when session affinity type is ClientIP";
    if config.is_null() {
        return vec![FieldError::required("spec.sessionAffinityConfig", when)];
    }
    let client_ip = get(config, "clientIP");
    if client_ip.is_null() {
        return vec![FieldError::required(
            "spec.sessionAffinityConfig.clientIP",
            when,
        )];
    }
    let p = "spec.sessionAffinityConfig.clientIP.timeoutSeconds";
    match int(client_ip, "timeoutSeconds") {
        None => vec![FieldError::required(p, when)],
        Some(t) if t <= 0 || t > 86400 => vec![FieldError::invalid(
            p,
            BadValue::Int(t),
            "must be greater than 0 and less than 86400",
        )],
        Some(_) => Vec::new(),
    }
}

/// `ValidateServiceClusterIPsRelatedFields`.
fn cluster_ips(spec: &Value) -> Vec<FieldError> {
    if text(spec, "type") == "ExternalName" {
        return Vec::new();
    }
    let mut errs = Vec::new();
    let ips: Vec<&str> = list(spec, "clusterIPs")
        .iter()
        .map(|v| v.as_str().unwrap_or(""))
        .collect();
    let shown = BadValue::Json(get(spec, "clusterIPs").clone());
    let cluster_ip = text(spec, "clusterIP");
    if !cluster_ip.is_empty() {
        if ips.is_empty() {
            errs.push(FieldError::required("spec.clusterIPs", ""));
        } else if ips[0] != cluster_ip {
            errs.push(FieldError::invalid(
                "spec.clusterIPs",
                shown.clone(),
                "first value must match `clusterIP`",
            ));
        }
    } else if !ips.is_empty() {
        errs.push(FieldError::invalid(
            "spec.clusterIPs",
            shown.clone(),
            "must be empty when `clusterIP` is not specified",
        ));
    }
    let mut families = Vec::new();
    for (i, family) in list(spec, "ipFamilies").iter().enumerate() {
        let family = family.as_str().unwrap_or("");
        let p = index("spec.ipFamilies", i);
        if family != "IPv4" && family != "IPv6" {
            errs.push(FieldError::not_supported(
                &p,
                BadValue::str(family),
                &strings(&["IPv4", "IPv6"]),
            ));
        }
        if families.contains(&family) {
            errs.push(FieldError::duplicate(&p, BadValue::str(family)));
        }
        families.push(family);
    }
    if let Some(Value::String(policy)) = spec.get("ipFamilyPolicy")
        && !["SingleStack", "PreferDualStack", "RequireDualStack"].contains(&policy.as_str())
    {
        errs.push(FieldError::not_supported(
            "spec.ipFamilyPolicy",
            BadValue::str(policy.as_str()),
            &strings(&["PreferDualStack", "RequireDualStack", "SingleStack"]),
        ));
    }
    let mut invalid = false;
    for (i, ip) in ips.iter().enumerate() {
        if i == 0 && *ip == "None" {
            if ips.len() > 1 {
                invalid = true;
                errs.push(FieldError::invalid(
                    "spec.clusterIPs",
                    shown.clone(),
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        if !is_ip(ip, IpSyntax::Sloppy) {
            invalid = true;
            errs.push(invalid_ip(&index("spec.clusterIPs", i), ip));
        }
    }
    if ips.len() > 2 {
        errs.push(FieldError::invalid(
            "spec.clusterIPs",
            shown.clone(),
            "may only hold up to 2 values",
        ));
    }
    if invalid {
        return errs;
    }
    if ips.len() > 1 && ips[0].contains(':') == ips[1].contains(':') {
        errs.push(FieldError::invalid(
            "spec.clusterIPs",
            shown,
            "may specify no more than one IP for each IP family",
        ));
    }
    if !headless(spec) {
        for (i, (ip, family)) in ips.iter().zip(&families).enumerate() {
            let v6 = ip.contains(':');
            let wanted = match (*family, v6) {
                ("IPv4", true) => Some("IPv4"),
                ("IPv6", false) => Some("IPv6"),
                _ => None,
            };
            if let Some(wanted) = wanted {
                errs.push(FieldError::invalid(
                    &index("spec.clusterIPs", i),
                    BadValue::str(*ip),
                    format!("expected an {wanted} value as indicated by `ipFamilies[{i}]`"),
                ));
            }
        }
    }
    errs
}

/// `validateServiceExternalTrafficPolicy`, `validateServiceInternalTrafficFieldsValue` and
/// `validateServiceTrafficDistribution`.
fn traffic_policies(spec: &Value, kind: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let external =
        kind == "LoadBalancer" || kind == "NodePort" || !list(spec, "externalIPs").is_empty();
    let policy = text(spec, "externalTrafficPolicy");
    if !external {
        if !policy.is_empty() {
            errs.push(FieldError::invalid(
                "spec.externalTrafficPolicy",
                BadValue::str(policy),
                "may only be set for externally-accessible services",
            ));
        }
    } else if policy.is_empty() {
        errs.push(FieldError::required("spec.externalTrafficPolicy", ""));
    } else if policy != "Cluster" && policy != "Local" {
        errs.push(FieldError::not_supported(
            "spec.externalTrafficPolicy",
            BadValue::str(policy),
            &strings(&["Cluster", "Local"]),
        ));
    }
    let health = int(spec, "healthCheckNodePort").unwrap_or(0);
    if kind == "LoadBalancer" && policy == "Local" {
        if health == 0 {
            errs.push(FieldError::required("spec.healthCheckNodePort", ""));
        } else {
            for msg in port_num(health) {
                errs.push(FieldError::invalid(
                    "spec.healthCheckNodePort",
                    BadValue::Int(health),
                    msg,
                ));
            }
        }
    } else if health != 0 {
        errs.push(FieldError::invalid(
            "spec.healthCheckNodePort",
            BadValue::Int(health),
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ));
    }
    match spec.get("internalTrafficPolicy").and_then(Value::as_str) {
        None if ["NodePort", "LoadBalancer", "ClusterIP"].contains(&kind) => {
            errs.push(FieldError::required("spec.internalTrafficPolicy", ""));
        }
        Some(p) if p != "Cluster" && p != "Local" => errs.push(FieldError::not_supported(
            "spec.internalTrafficPolicy",
            BadValue::str(p),
            &strings(&["Cluster", "Local"]),
        )),
        _ => {}
    }
    if let Some(Value::String(d)) = spec.get("trafficDistribution")
        && !["PreferClose", "PreferSameZone", "PreferSameNode"].contains(&d.as_str())
    {
        errs.push(FieldError::not_supported(
            "spec.trafficDistribution",
            BadValue::str(d.as_str()),
            &strings(&["PreferClose", "PreferSameZone", "PreferSameNode"]),
        ));
    }
    errs
}

/// The update rules of `ValidateServiceUpdate` before the new Service's own checks: the
/// primary cluster IP and IP family may not change (except to or from ExternalName).
fn service_update(spec: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if text(old, "type") == "ExternalName" || text(spec, "type") == "ExternalName" {
        return errs;
    }
    let ips = list(spec, "clusterIPs");
    let old_ips = list(old, "clusterIPs");
    let shown = BadValue::Json(get(spec, "clusterIPs").clone());
    if !old_ips.is_empty() {
        if ips.first() != old_ips.first() {
            errs.push(FieldError::invalid(
                "spec.clusterIPs[0]",
                shown.clone(),
                "may not change once set",
            ));
        }
        if old_ips.len() > 1 && ips.len() > 1 && ips[1] != old_ips[1] {
            errs.push(FieldError::invalid(
                "spec.clusterIPs[1]",
                shown,
                "may not change once set",
            ));
        }
    }
    let families = list(spec, "ipFamilies");
    let old_families = list(old, "ipFamilies");
    if !old_families.is_empty() && families.first() != old_families.first() {
        errs.push(FieldError::invalid(
            "spec.ipFamilies[0]",
            BadValue::Json(get(spec, "ipFamilies").clone()),
            "may not change once set",
        ));
    }
    let old_class = get(old, "loadBalancerClass");
    let class = get(spec, "loadBalancerClass");
    if text(old, "type") == "LoadBalancer"
        && text(spec, "type") == "LoadBalancer"
        && class != old_class
    {
        errs.push(FieldError::invalid(
            "spec.loadBalancerClass",
            BadValue::of(class),
            "may not change once set",
        ));
    }
    errs
}

/// `ValidatePersistentVolumeClaimSpec` at `spec`.
fn pvc_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let modes = list(spec, "accessModes");
    if modes.is_empty() {
        errs.push(FieldError::required(
            "spec.accessModes",
            "at least 1 access mode is required",
        ));
    }
    if set(spec, "selector") {
        errs.extend(super::common::label_selector(
            get(spec, "selector"),
            "spec.selector",
        ));
    }
    const SUPPORTED: [&str; 4] = [
        "ReadOnlyMany",
        "ReadWriteMany",
        "ReadWriteOnce",
        "ReadWriteOncePod",
    ];
    let (mut once_pod, mut other) = (false, false);
    for mode in modes {
        let mode = mode.as_str().unwrap_or("");
        if !SUPPORTED.contains(&mode) {
            errs.push(FieldError::not_supported(
                "spec.accessModes",
                BadValue::str(mode),
                &strings(&SUPPORTED),
            ));
        } else if mode == "ReadWriteOncePod" {
            once_pod = true;
        } else {
            other = true;
        }
    }
    if once_pod && other {
        errs.push(FieldError::forbidden(
            "spec.accessModes",
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    let storage_path = "spec.resources[storage]";
    match get(get(spec, "resources"), "requests").get("storage") {
        None => errs.push(FieldError::required(storage_path, "")),
        Some(q) => {
            let q = quantity::text(q);
            if quantity::value(&q).unwrap_or(0.0) <= 0.0 {
                errs.push(FieldError::invalid(
                    storage_path,
                    BadValue::str(q.as_str()),
                    "must be greater than zero",
                ));
            }
        }
    }
    let class = text(spec, "storageClassName");
    if !class.is_empty() {
        for msg in dns1123_subdomain(class) {
            errs.push(FieldError::invalid(
                "spec.storageClassName",
                BadValue::str(class),
                msg,
            ));
        }
    }
    if let Some(Value::String(mode)) = spec.get("volumeMode")
        && mode != "Block"
        && mode != "Filesystem"
    {
        errs.push(FieldError::not_supported(
            "spec.volumeMode",
            BadValue::str(mode.as_str()),
            &strings(&["Block", "Filesystem"]),
        ));
    }
    errs
}

/// The update rules of `ValidatePersistentVolumeClaimUpdate` after the new claim's checks.
fn pvc_update(pvc: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (spec, old_spec) = (get(pvc, "spec"), get(old, "spec"));
    let mut new_clone = spec.clone();
    let mut old_clone = old_spec.clone();
    if text(old_spec, "volumeName").is_empty() {
        set_or_remove(&mut old_clone, "volumeName", spec.get("volumeName"));
    }
    if old_spec.get("storageClassName").is_none() && spec.get("storageClassName").is_some() {
        set_or_remove(&mut new_clone, "storageClassName", None);
    }
    let bound = text(get(pvc, "status"), "phase") == "Bound";
    if bound {
        if let Some(Value::Object(requests)) = new_clone
            .get_mut("resources")
            .and_then(|r| r.get_mut("requests"))
        {
            match get(get(old_spec, "resources"), "requests").get("storage") {
                Some(s) => {
                    requests.insert("storage".into(), s.clone());
                }
                None => {
                    requests.remove("storage");
                }
            }
        }
        set_or_remove(
            &mut new_clone,
            "volumeAttributesClassName",
            old_spec.get("volumeAttributesClassName"),
        );
    }
    if new_clone != old_clone {
        errs.push(FieldError::forbidden(
            "spec",
            format!(
                "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{}",
                super::diff::unified(&old_clone, &new_clone)
            ),
        ));
    }
    let size = |s: &Value| quantity::text(get(get(get(s, "resources"), "requests"), "storage"));
    let (new_size, status_size) = (
        size(spec),
        quantity::text(get(get(get(old, "status"), "capacity"), "storage")),
    );
    if quantity::cmp(&new_size, &size(old_spec)).is_lt()
        && quantity::cmp(&new_size, &status_size).is_le()
    {
        errs.push(FieldError::forbidden(
            "spec.resources.requests.storage",
            "field can not be less than status.capacity",
        ));
    }
    let mode = get(spec, "volumeMode");
    errs.extend(super::common::immutable(
        mode,
        get(old_spec, "volumeMode"),
        "volumeMode",
        BadValue::of(mode),
    ));
    errs
}

fn set_or_remove(object: &mut Value, key: &str, value: Option<&Value>) {
    if let Value::Object(m) = object {
        match value {
            Some(v) => {
                m.insert(key.to_owned(), v.clone());
            }
            None => {
                m.remove(key);
            }
        }
    }
}
