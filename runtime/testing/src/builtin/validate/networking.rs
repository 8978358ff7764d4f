//! `networking.k8s.io/v1`: Ingress, IngressClass and NetworkPolicy
//! (`pkg/apis/networking/validation`).

use serde_json::Value;

use super::common::{get, int, label_selector, list, port_name, port_num, set, strings, text};
use super::{Meta, Write};
use kubegen_runtime::validation::field::{child, index};
use kubegen_runtime::validation::go_net::{IpSyntax, is_cidr, is_ip};
use kubegen_runtime::validation::names::{dns1123_label, dns1123_subdomain};
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    let spec = get(object, "spec");
    let own = match (kind, write) {
        ("Ingress", Write::Create | Write::Update(_)) => ingress_spec(spec),
        ("NetworkPolicy", Write::Create | Write::Update(_)) => network_policy_spec(spec),
        _ => return None,
    };
    Some(meta.first(write, own))
}

/// `ValidateIngressSpec`.
fn ingress_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rules = list(spec, "rules");
    if rules.is_empty() && !set(spec, "defaultBackend") {
        errs.push(FieldError::invalid(
            "spec",
            BadValue::Json(get(spec, "rules").clone()),
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if set(spec, "defaultBackend") {
        errs.extend(backend(get(spec, "defaultBackend"), "spec.defaultBackend"));
    }
    for (i, rule) in rules.iter().enumerate() {
        let p = index("spec.rules", i);
        let host = text(rule, "host");
        if !host.is_empty() {
            let host_path = child(&p, "host");
            if is_ip(host, IpSyntax::Sloppy) {
                errs.push(FieldError::invalid(
                    &host_path,
                    BadValue::str(host),
                    "must be a DNS name, not an IP address",
                ));
            }
            let msgs = if host.contains('*') {
                wildcard_subdomain(host)
            } else {
                dns1123_subdomain(host)
            };
            for msg in msgs {
                errs.push(FieldError::invalid(&host_path, BadValue::str(host), msg));
            }
        }
        if set(rule, "http") {
            let http = get(rule, "http");
            let hp = child(&p, "http");
            let paths = list(http, "paths");
            if paths.is_empty() {
                errs.push(FieldError::required(&child(&hp, "paths"), ""));
            }
            for (j, path) in paths.iter().enumerate() {
                errs.extend(http_path(path, &index(&child(&hp, "paths"), j)));
            }
        }
    }
    for (i, tls) in list(spec, "tls").iter().enumerate() {
        let p = index("spec.tls", i);
        for (j, host) in list(tls, "hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or("");
            let msgs = if host.contains('*') {
                wildcard_subdomain(host)
            } else {
                dns1123_subdomain(host)
            };
            for msg in msgs {
                errs.push(FieldError::invalid(
                    &index(&child(&p, "hosts"), j),
                    BadValue::str(host),
                    msg,
                ));
            }
        }
        let secret = text(tls, "secretName");
        if !secret.is_empty() {
            for msg in dns1123_subdomain(secret) {
                errs.push(FieldError::invalid(
                    &child(&p, "secretName"),
                    BadValue::str(secret),
                    msg,
                ));
            }
        }
    }
    let class = text(spec, "ingressClassName");
    if set(spec, "ingressClassName") {
        for msg in dns1123_subdomain(class) {
            errs.push(FieldError::invalid(
                "spec.ingressClassName",
                BadValue::str(class),
                msg,
            ));
        }
    }
    errs
}

/// `IsWildcardDNS1123Subdomain`.
fn wildcard_subdomain(host: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if host.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    let rest = host.strip_prefix("*.");
    if rest.is_none_or(|r| !dns1123_subdomain(r).is_empty() || r.len() > 253) {
        errs.push("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned());
    }
    errs
}

/// `validateHTTPIngressPath`.
fn http_path(path: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(path_type) = path.get("pathType").and_then(Value::as_str) else {
        return vec![FieldError::required(
            &child(p, "pathType"),
            "pathType must be specified",
        )];
    };
    let value = text(path, "path");
    let path_path = child(p, "path");
    match path_type {
        "Exact" | "Prefix" => {
            if !value.starts_with('/') {
                errs.push(FieldError::invalid(
                    &path_path,
                    BadValue::str(value),
                    "must be an absolute path",
                ));
            }
            if !value.is_empty() {
                for seq in ["//", "/./", "/../", "%2f", "%2F"] {
                    if value.contains(seq) {
                        errs.push(FieldError::invalid(
                            &path_path,
                            BadValue::str(value),
                            format!("must not contain '{seq}'"),
                        ));
                    }
                }
                for suffix in ["/..", "/."] {
                    if value.ends_with(suffix) {
                        errs.push(FieldError::invalid(
                            &path_path,
                            BadValue::str(value),
                            format!("cannot end with '{suffix}'"),
                        ));
                    }
                }
            }
        }
        "ImplementationSpecific" => {
            if !value.is_empty() && !value.starts_with('/') {
                errs.push(FieldError::invalid(
                    &path_path,
                    BadValue::str(value),
                    "must be an absolute path",
                ));
            }
        }
        other => errs.push(FieldError::not_supported(
            &child(p, "pathType"),
            BadValue::str(other),
            &strings(&["Exact", "ImplementationSpecific", "Prefix"]),
        )),
    }
    errs.extend(backend(get(path, "backend"), &child(p, "backend")));
    errs
}

/// `validateIngressBackend`.
fn backend(backend: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match (set(backend, "resource"), set(backend, "service")) {
        (true, true) => errs.push(FieldError::invalid(
            p,
            BadValue::str(""),
            "cannot set both resource and service backends",
        )),
        (true, false) => {
            let resource = get(backend, "resource");
            let rp = child(p, "resource");
            for key in ["kind", "name"] {
                if text(resource, key).is_empty() {
                    errs.push(FieldError::required(&child(&rp, key), ""));
                }
            }
        }
        (false, true) => {
            let service = get(backend, "service");
            let sp = child(p, "service");
            let name = text(service, "name");
            if name.is_empty() {
                errs.push(FieldError::required(&child(&sp, "name"), ""));
            } else {
                for msg in dns1123_label(name) {
                    errs.push(FieldError::invalid(
                        &child(&sp, "name"),
                        BadValue::str(name),
                        msg,
                    ));
                }
            }
            let port = get(service, "port");
            let port_name_value = text(port, "name");
            let number = int(port, "number").unwrap_or(0);
            if !port_name_value.is_empty() && number != 0 {
                errs.push(FieldError::invalid(
                    p,
                    BadValue::str(""),
                    "cannot set both port name & port number",
                ));
            } else if !port_name_value.is_empty() {
                for msg in port_name(port_name_value) {
                    errs.push(FieldError::invalid(
                        &format!("{sp}.port.name"),
                        BadValue::str(port_name_value),
                        msg,
                    ));
                }
            } else if number != 0 {
                for msg in port_num(number) {
                    errs.push(FieldError::invalid(
                        &format!("{sp}.port.number"),
                        BadValue::Int(number),
                        msg,
                    ));
                }
            } else {
                errs.push(FieldError::required(p, "port name or number is required"));
            }
        }
        (false, false) => errs.push(FieldError::invalid(
            p,
            BadValue::str(""),
            "resource or service backend is required",
        )),
    }
    errs
}

/// `ValidateNetworkPolicySpec`.
fn network_policy_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = label_selector(get(spec, "podSelector"), "spec.podSelector");
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in list(spec, direction).iter().enumerate() {
            let p = index(&child("spec", direction), i);
            for (j, port) in list(rule, "ports").iter().enumerate() {
                errs.extend(policy_port(port, &index(&child(&p, "ports"), j)));
            }
            for (j, peer) in list(rule, peers).iter().enumerate() {
                errs.extend(policy_peer(peer, &index(&child(&p, peers), j)));
            }
        }
    }
    let types = list(spec, "policyTypes");
    if types.len() > 2 {
        errs.push(FieldError::invalid(
            "spec.policyTypes",
            BadValue::Json(get(spec, "policyTypes").clone()),
            "may not specify more than two policyTypes",
        ));
        return errs;
    }
    for (i, t) in types.iter().enumerate() {
        let t = t.as_str().unwrap_or("");
        if t != "Ingress" && t != "Egress" {
            errs.push(FieldError::not_supported(
                &index("spec.policyTypes", i),
                BadValue::str(t),
                &strings(&["Ingress", "Egress"]),
            ));
        }
    }
    errs
}

/// `ValidateNetworkPolicyPort`.
fn policy_port(port: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(Value::String(protocol)) = port.get("protocol")
        && !["TCP", "UDP", "SCTP"].contains(&protocol.as_str())
    {
        errs.push(FieldError::not_supported(
            &child(p, "protocol"),
            BadValue::str(protocol.as_str()),
            &strings(&["TCP", "UDP", "SCTP"]),
        ));
    }
    let end = int(port, "endPort");
    match port.get("port").filter(|v| !v.is_null()) {
        Some(Value::String(name)) => {
            if let Some(e) = end {
                errs.push(FieldError::invalid(
                    &child(p, "endPort"),
                    BadValue::Int(e),
                    "may not be specified when `port` is non-numeric",
                ));
            }
            for msg in port_name(name) {
                errs.push(FieldError::invalid(
                    &child(p, "port"),
                    BadValue::str(name.as_str()),
                    msg,
                ));
            }
        }
        Some(number) => {
            let n = number.as_i64().unwrap_or(0);
            for msg in port_num(n) {
                errs.push(FieldError::invalid(
                    &child(p, "port"),
                    BadValue::Int(n),
                    msg,
                ));
            }
            if let Some(e) = end {
                if e < n {
                    errs.push(FieldError::invalid(
                        &child(p, "endPort"),
                        BadValue::Int(n),
                        "must be greater than or equal to `port`",
                    ));
                }
                for msg in port_num(e) {
                    errs.push(FieldError::invalid(
                        &child(p, "endPort"),
                        BadValue::Int(e),
                        msg,
                    ));
                }
            }
        }
        None => {
            if let Some(e) = end {
                errs.push(FieldError::invalid(
                    &child(p, "endPort"),
                    BadValue::Int(e),
                    "may not be specified when `port` is not specified",
                ));
            }
        }
    }
    errs
}

/// `ValidateNetworkPolicyPeer`.
fn policy_peer(peer: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut count = 0;
    for key in ["podSelector", "namespaceSelector"] {
        if set(peer, key) {
            count += 1;
            errs.extend(label_selector(get(peer, key), &child(p, key)));
        }
    }
    if set(peer, "ipBlock") {
        count += 1;
        let block = get(peer, "ipBlock");
        let bp = child(p, "ipBlock");
        let cidr = text(block, "cidr");
        if cidr.is_empty() {
            errs.push(FieldError::required(&child(&bp, "cidr"), ""));
        } else if !is_cidr(cidr) {
            errs.push(invalid_cidr(&child(&bp, "cidr"), cidr));
        } else {
            for (i, except) in list(block, "except").iter().enumerate() {
                let except = except.as_str().unwrap_or("");
                if !is_cidr(except) {
                    errs.push(invalid_cidr(&index(&child(&bp, "except"), i), except));
                }
            }
        }
    }
    if count == 0 {
        errs.push(FieldError::required(p, "must specify a peer"));
    } else if count > 1 && set(peer, "ipBlock") {
        errs.push(FieldError::forbidden(
            p,
            "may not specify both ipBlock and another peer",
        ));
    }
    errs
}

fn invalid_cidr(path: &str, cidr: &str) -> FieldError {
    FieldError::invalid(
        path,
        BadValue::str(cidr),
        "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
    )
}
