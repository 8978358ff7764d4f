//! Services (`ValidateService`, `ValidateServiceUpdate`).
//!
//! IP and node port allocation errors (`failed to allocate IP …`) come from the service
//! registry's allocators, not from validation, and are not here; neither is the
//! strategy's `PrepareForUpdate`, which keeps allocated IPs a patch clears and drops the
//! fields a type change leaves behind.

use serde_json::Value;

use super::common::{
    get, go_struct, int, labels, list, port_num, port_num_or_name, set, strings, text,
};
use super::container;
use kubegen_runtime::validation::field::{child, index};
use kubegen_runtime::validation::go_net::{IpSyntax, is_cidr, is_ip};
use kubegen_runtime::validation::names::{dns1123_label, dns1123_subdomain, qualified_name};
use kubegen_runtime::validation::{BadValue, FieldError};

fn headless(spec: &Value) -> bool {
    list(spec, "clusterIPs").first().and_then(Value::as_str) == Some("None")
}

/// `ValidateService` after the metadata.
pub(super) fn service(svc: &Value) -> Vec<FieldError> {
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
    errs.extend(container::protocol(port, path));
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
pub(super) fn service_update(spec: &Value, old: &Value) -> Vec<FieldError> {
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
