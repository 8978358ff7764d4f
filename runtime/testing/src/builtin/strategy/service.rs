//! A Service's cluster IPs, IP families and node ports
//! (`pkg/registry/core/service/storage/alloc.go` with its `ipallocator` and `portallocator`), for a
//! single-stack IPv4 cluster with `--service-cluster-ip-range=10.0.0.0/24` and the node port range
//! 30000-32767, as the recorded apiserver runs.
//!
//! The apiserver picks a random free address and port; [`ServiceAllocator`] picks the
//! lowest free one of the same band (the apiserver keeps the lowest addresses and ports
//! for explicit requests and allocates dynamically above them first), so tests can predict
//! what they get.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use serde_json::{Value, json};

use kubegen_runtime::validation::{BadValue, FieldError};

/// The network of the service cluster IP range.
const NETWORK: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 0);
const PREFIX: u32 = 24;
const RANGE: &str = "10.0.0.0/24";
/// The node port range.
const PORTS: std::ops::RangeInclusive<u32> = 30000..=32767;

/// Why a Service's addresses or ports could not be allocated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AllocationError {
    /// The request asked for something the allocators refuse (an address or port in use
    /// or out of range, a family this cluster lacks): a 422 `Invalid` of the Service with
    /// these causes.
    Invalid(Vec<FieldError>),
    /// A range is full: a 500 `InternalError` with this message.
    Internal(String),
}

/// The cluster IP and node port allocators of one apiserver.
///
/// Hold one per server, beside the stored objects and under the same lock: call
/// [`allocate`](Self::allocate) on every Service create (after defaulting and
/// `prepare_for_create`, before validation), [`update`](Self::update) on every update,
/// and [`release`](Self::release) when a Service is deleted or a create/update fails
/// afterwards. A dry run works on a clone. The server's own `default/kubernetes` Service
/// (clusterIP `10.0.0.1`) goes through `allocate` like any other, so its address is
/// taken.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServiceAllocator {
    ips: BTreeSet<u32>,
    ports: BTreeSet<u32>,
}

impl ServiceAllocator {
    /// `allocateCreate`: the IP family fields, the cluster IPs (the requested ones, or the
    /// next free one) and the node ports of NodePort and LoadBalancer Services (and the
    /// health check node port of a LoadBalancer with `externalTrafficPolicy: Local`).
    /// Nothing stays allocated when it fails.
    pub(crate) fn allocate(&mut self, service: &mut Value) -> Result<(), AllocationError> {
        let mut trial = self.clone();
        normalize_cluster_ips(service);
        init_ip_families(service, None)?;
        trial.allocate_cluster_ips(service)?;
        trial.allocate_node_ports(service, None)?;
        *self = trial;
        Ok(())
    }

    /// The allocations of an update from `old`: values the request left out are kept
    /// from `old` (`patchAllocatedValues`), a change to or from ExternalName allocates or
    /// releases the cluster IP, node ports follow the ports and the type.
    pub(crate) fn update(
        &mut self,
        service: &mut Value,
        old: &Value,
    ) -> Result<(), AllocationError> {
        let mut trial = self.clone();
        keep_allocated_values(service, old);
        normalize_cluster_ips(service);
        init_ip_families(service, Some(old))?;
        let (before, after) = (kind(old), kind(service));
        if before == "ExternalName" && after != "ExternalName" {
            trial.allocate_cluster_ips(service)?;
        } else if before != "ExternalName" && after == "ExternalName" {
            trial.release_cluster_ips(old);
        }
        trial.allocate_node_ports(service, Some(old))?;
        *self = trial;
        Ok(())
    }

    /// Frees what `service` holds.
    pub(crate) fn release(&mut self, service: &Value) {
        self.release_cluster_ips(service);
        for port in node_ports(service) {
            self.ports.remove(&port);
        }
    }

    fn release_cluster_ips(&mut self, service: &Value) {
        for ip in strings(service.pointer("/spec/clusterIPs")) {
            if let Some(offset) = offset_of(&ip) {
                self.ips.remove(&offset);
            }
        }
    }

    fn allocate_cluster_ips(&mut self, service: &mut Value) -> Result<(), AllocationError> {
        if kind(service) == "ExternalName" {
            return Ok(());
        }
        let requested = strings(service.pointer("/spec/clusterIPs"));
        if requested.first().is_some_and(|ip| ip == "None") {
            return Ok(());
        }
        let ip = match requested.first().filter(|ip| !ip.is_empty()) {
            Some(ip) => {
                let invalid = |detail: String| {
                    AllocationError::Invalid(vec![FieldError::invalid(
                        "spec.clusterIPs",
                        BadValue::Json(json!(requested)),
                        format!("failed to allocate IP {ip}: {detail}"),
                    )])
                };
                let Some(offset) = offset_of(ip) else {
                    return Err(invalid(format!(
                        "the provided IP ({ip}) is not in the valid range. The range of valid IPs is {RANGE}"
                    )));
                };
                if !self.ips.insert(offset) {
                    return Err(invalid("provided IP is already allocated".into()));
                }
                ip.clone()
            }
            None => {
                let size = (1u32 << (32 - PREFIX)) - 2;
                let offset = next_free(&self.ips, 1..=size, band_offset(size))
                    .ok_or_else(|| internal("failed to allocate a serviceIP: range is full"))?;
                self.ips.insert(offset);
                Ipv4Addr::from(u32::from(NETWORK) + offset).to_string()
            }
        };
        let spec = &mut service["spec"];
        spec["clusterIP"] = ip.clone().into();
        spec["clusterIPs"] = json!([ip]);
        Ok(())
    }

    fn allocate_node_ports(
        &mut self,
        service: &mut Value,
        old: Option<&Value>,
    ) -> Result<(), AllocationError> {
        let held: BTreeSet<u32> = old.map(node_ports).unwrap_or_default();
        let wanted = matches!(kind(service), "NodePort" | "LoadBalancer");
        let allocate_new = kind(service) == "NodePort"
            || service.pointer("/spec/allocateLoadBalancerNodePorts") != Some(&json!(false));
        let mut kept = BTreeSet::new();
        if wanted && let Some(Value::Array(ports)) = service.pointer_mut("/spec/ports") {
            // Ports with the same number share one node port.
            let mut by_port: Vec<(Value, u32)> = Vec::new();
            for (i, port) in ports.iter_mut().enumerate() {
                let requested = port.get("nodePort").and_then(Value::as_u64).unwrap_or(0) as u32;
                let number = port.get("port").cloned().unwrap_or(Value::Null);
                if requested == 0 && !allocate_new {
                    continue;
                }
                let shared = by_port.iter().find(|(n, _)| *n == number).map(|(_, p)| *p);
                let node_port = match (requested, shared) {
                    (0, Some(shared)) => shared,
                    (0, None) => self.next_port()?,
                    (requested, _) => {
                        if !held.contains(&requested) && !kept.contains(&requested) {
                            self.take_port(requested, &format!("spec.ports[{i}].nodePort"))?;
                        }
                        requested
                    }
                };
                port["nodePort"] = node_port.into();
                kept.insert(node_port);
                by_port.push((number, node_port));
            }
        }
        let needs_health_check = kind(service) == "LoadBalancer"
            && service.pointer("/spec/externalTrafficPolicy") == Some(&json!("Local"));
        if needs_health_check {
            let requested = service
                .pointer("/spec/healthCheckNodePort")
                .and_then(Value::as_u64)
                .unwrap_or(0) as u32;
            let port = match requested {
                0 => self.next_port()?,
                p if held.contains(&p) || kept.contains(&p) => p,
                p => {
                    self.take_port(p, "spec.healthCheckNodePort")?;
                    p
                }
            };
            service["spec"]["healthCheckNodePort"] = port.into();
            kept.insert(port);
        }
        for port in held.difference(&kept) {
            self.ports.remove(port);
        }
        Ok(())
    }

    fn next_port(&mut self) -> Result<u32, AllocationError> {
        let size = PORTS.end() - PORTS.start() + 1;
        let offset = next_free(
            &self.ports.iter().map(|p| p - PORTS.start()).collect(),
            0..=size - 1,
            band_offset(size),
        )
        .ok_or_else(|| internal("failed to allocate a nodePort: range is full"))?;
        let port = PORTS.start() + offset;
        self.ports.insert(port);
        Ok(port)
    }

    fn take_port(&mut self, port: u32, field: &str) -> Result<(), AllocationError> {
        let detail = if !PORTS.contains(&port) {
            format!(
                "provided port is not in the valid range. The range of valid ports is {}-{}",
                PORTS.start(),
                PORTS.end()
            )
        } else if !self.ports.insert(port) {
            "provided port is already allocated".to_owned()
        } else {
            return Ok(());
        };
        Err(AllocationError::Invalid(vec![FieldError::invalid(
            field,
            BadValue::Int(port.into()),
            detail,
        )]))
    }
}

fn internal(message: &str) -> AllocationError {
    AllocationError::Internal(message.to_owned())
}

fn kind(service: &Value) -> &str {
    service
        .pointer("/spec/type")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn strings(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or("").to_owned())
        .collect()
}

fn node_ports(service: &Value) -> BTreeSet<u32> {
    let ports = service.pointer("/spec/ports").and_then(Value::as_array);
    let health = service.pointer("/spec/healthCheckNodePort");
    ports
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("nodePort"))
        .chain(health)
        .filter_map(Value::as_u64)
        .filter(|p| *p != 0)
        .map(|p| p as u32)
        .collect()
}

/// The offset of `ip` in the range (1 for 10.0.0.1), if it is a usable address of it.
fn offset_of(ip: &str) -> Option<u32> {
    let ip: Ipv4Addr = ip.parse().ok()?;
    let offset = u32::from(ip).checked_sub(u32::from(NETWORK))?;
    (1..(1 << (32 - PREFIX)) - 1)
        .contains(&offset)
        .then_some(offset)
}

/// Where dynamic allocation starts (`calculateRangeOffset`): the band below is kept for
/// explicit requests as long as the band above has room.
fn band_offset(size: u32) -> u32 {
    if size < 16 {
        0
    } else {
        (size / 16).clamp(16, 256)
    }
}

/// The lowest free value of `range` at or above `range.start() + band`, else the lowest
/// free one below it.
fn next_free(
    taken: &BTreeSet<u32>,
    range: std::ops::RangeInclusive<u32>,
    band: u32,
) -> Option<u32> {
    let split = range.start() + band;
    (split..=*range.end())
        .chain(*range.start()..split)
        .find(|v| !taken.contains(v))
}

/// `initIPFamilyFields` for a single-stack IPv4 cluster: `ipFamilyPolicy` (the stored one
/// on update, `RequireDualStack` for a headless Service without selector, else
/// `SingleStack`) and `ipFamilies` (inferred from the cluster IPs, else IPv4; a headless
/// selectorless Service not SingleStack also lists IPv6).
fn init_ip_families(service: &mut Value, old: Option<&Value>) -> Result<(), AllocationError> {
    if kind(service) == "ExternalName" {
        return Ok(());
    }
    let headless_selectorless = service.pointer("/spec/clusterIP") == Some(&json!("None"))
        && service
            .pointer("/spec/selector")
            .and_then(Value::as_object)
            .is_none_or(|s| s.is_empty());
    let spec = &mut service["spec"];
    if spec.get("ipFamilyPolicy").is_none_or(Value::is_null) {
        let stored = old
            .and_then(|o| o.pointer("/spec/ipFamilyPolicy"))
            .filter(|p| !p.is_null());
        spec["ipFamilyPolicy"] = match stored {
            Some(policy) => policy.clone(),
            None if headless_selectorless => "RequireDualStack".into(),
            None => "SingleStack".into(),
        };
    }
    let policy = spec["ipFamilyPolicy"].as_str().unwrap_or("").to_owned();
    let mut families = strings(spec.get("ipFamilies"));
    let mut errors = Vec::new();
    let cluster_ips = strings(spec.get("clusterIPs"));
    for (i, ip) in cluster_ips.iter().enumerate() {
        if ip == "None" {
            break;
        }
        if i < families.len() {
            continue;
        }
        match ip.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V4(_)) => families.push("IPv4".into()),
            Ok(std::net::IpAddr::V6(_)) => errors.push(FieldError::invalid(
                &format!("spec.clusterIPs[{i}]"),
                BadValue::Json(json!(cluster_ips)),
                "IPv6 is not configured on this cluster",
            )),
            Err(_) => {}
        }
    }
    if !errors.is_empty() {
        return Err(AllocationError::Invalid(errors));
    }
    if headless_selectorless {
        if families.is_empty() {
            families.push("IPv4".into());
        }
        if families.len() < 2 && policy != "SingleStack" {
            let other = if families[0] == "IPv4" {
                "IPv6"
            } else {
                "IPv4"
            };
            families.push(other.into());
        }
        spec["ipFamilies"] = json!(families);
        return Ok(());
    }
    if policy == "RequireDualStack" {
        errors.push(FieldError::invalid(
            "spec.ipFamilyPolicy",
            BadValue::str(policy.as_str()),
            "this cluster is not configured for dual-stack services",
        ));
    }
    for (i, family) in families.iter().enumerate() {
        if family != "IPv4" {
            errors.push(FieldError::invalid(
                &format!("spec.ipFamilies[{i}]"),
                BadValue::str(family.as_str()),
                "not configured on this cluster",
            ));
        }
    }
    if !errors.is_empty() {
        return Err(AllocationError::Invalid(errors));
    }
    if families.is_empty() {
        families.push("IPv4".into());
    }
    spec["ipFamilies"] = json!(families);
    Ok(())
}

/// `patchAllocatedValues`: an update that leaves out the cluster IPs, a port's node port
/// (matched by port name) or the health check node port keeps the stored one while the
/// type still needs it.
fn keep_allocated_values(service: &mut Value, old: &Value) {
    let needs_ip = |s: &Value| kind(s) != "ExternalName";
    let needs_node_port = |s: &Value| matches!(kind(s), "NodePort" | "LoadBalancer");
    if needs_ip(old) && needs_ip(service) {
        let spec = &mut service["spec"];
        if super::defaults::unset_or_zero(spec, "clusterIP")
            && let Some(ip) = old.pointer("/spec/clusterIP")
        {
            spec["clusterIP"] = ip.clone();
        }
        if super::defaults::empty(spec, "clusterIPs")
            && let Some(ips) = old.pointer("/spec/clusterIPs").filter(|v| v.is_array())
        {
            spec["clusterIPs"] = ips.clone();
        }
    }
    if needs_node_port(old) && needs_node_port(service) {
        let used: BTreeSet<u32> = node_ports(old)
            .intersection(&node_ports(service))
            .copied()
            .collect();
        let by_name: Vec<(Value, u32)> = old
            .pointer("/spec/ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| {
                let name = p.get("name").cloned().unwrap_or(json!(""));
                (
                    name,
                    p.get("nodePort").and_then(Value::as_u64).unwrap_or(0) as u32,
                )
            })
            .collect();
        if let Some(Value::Array(ports)) = service.pointer_mut("/spec/ports") {
            for port in ports {
                if port.get("nodePort").and_then(Value::as_u64).unwrap_or(0) != 0 {
                    continue;
                }
                let name = port.get("name").cloned().unwrap_or(json!(""));
                if let Some((_, stored)) = by_name.iter().rev().find(|(n, _)| *n == name)
                    && *stored != 0
                    && !used.contains(stored)
                {
                    port["nodePort"] = (*stored).into();
                }
            }
        }
    }
    let needs_health_check = |s: &Value| {
        kind(s) == "LoadBalancer"
            && s.pointer("/spec/externalTrafficPolicy") == Some(&json!("Local"))
    };
    if needs_health_check(old)
        && needs_health_check(service)
        && super::defaults::unset_or_zero(&service["spec"], "healthCheckNodePort")
        && let Some(port) = old.pointer("/spec/healthCheckNodePort")
    {
        service["spec"]["healthCheckNodePort"] = port.clone();
    }
}

/// The Service strategy's `dropTypeDependentFields` on update: when the type changes to
/// one that no longer needs a value the apiserver may have filled in, and the request
/// kept the stored value, the value goes (cluster IPs and IP family fields, node ports,
/// the health check node port, `allocateLoadBalancerNodePorts`, `loadBalancerClass`,
/// `externalTrafficPolicy`); a Service that is not a LoadBalancer has an empty
/// `status.loadBalancer`. Call it after the stored status is copied in.
pub(super) fn drop_type_dependent_fields(service: &mut Value, old: &Value) {
    let needs_ip = |s: &Value| kind(s) != "ExternalName";
    let needs_node_port = |s: &Value| matches!(kind(s), "NodePort" | "LoadBalancer");
    let load_balancer = |s: &Value| kind(s) == "LoadBalancer";
    let needs_health_check = |s: &Value| {
        load_balancer(s) && s.pointer("/spec/externalTrafficPolicy") == Some(&json!("Local"))
    };
    let externally_accessible = |s: &Value| {
        needs_node_port(s)
            || (kind(s) == "ClusterIP"
                && s.pointer("/spec/externalIPs")
                    .and_then(Value::as_array)
                    .is_some_and(|ips| !ips.is_empty()))
    };
    let same = |service: &Value, key: &str| {
        let pointer = format!("/spec/{key}");
        let (new, old) = (service.pointer(&pointer), old.pointer(&pointer));
        let nothing =
            |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v == &json!([]) || v == &json!(""));
        new == old || (nothing(new) && nothing(old))
    };
    let mut drop = Vec::new();
    if needs_ip(old) && !needs_ip(service) {
        if same(service, "clusterIPs") {
            drop.extend(["clusterIP", "clusterIPs"]);
        }
        if same(service, "ipFamilies") {
            drop.push("ipFamilies");
        }
        if same(service, "ipFamilyPolicy") {
            drop.push("ipFamilyPolicy");
        }
    }
    if needs_node_port(old)
        && !needs_node_port(service)
        && node_ports_as_listed(service) == node_ports_as_listed(old)
        && let Some(Value::Array(ports)) = service.pointer_mut("/spec/ports")
    {
        for port in ports.iter_mut().filter_map(Value::as_object_mut) {
            port.remove("nodePort");
        }
    }
    if needs_health_check(old)
        && !needs_health_check(service)
        && same(service, "healthCheckNodePort")
    {
        drop.push("healthCheckNodePort");
    }
    if load_balancer(old) && !load_balancer(service) {
        let given = |s: &Value| {
            s.pointer("/spec/allocateLoadBalancerNodePorts")
                .filter(|v| v.is_boolean())
                .cloned()
        };
        if given(service).is_some() && given(service) == given(old) {
            drop.push("allocateLoadBalancerNodePorts");
        }
        if same(service, "loadBalancerClass") {
            drop.push("loadBalancerClass");
        }
    }
    if externally_accessible(old)
        && !externally_accessible(service)
        && same(service, "externalTrafficPolicy")
    {
        drop.push("externalTrafficPolicy");
    }
    if needs_ip(old) && !needs_ip(service) && same(service, "internalTrafficPolicy") {
        drop.push("internalTrafficPolicy");
    }
    if let Some(spec) = service.get_mut("spec").and_then(Value::as_object_mut) {
        for key in drop {
            spec.remove(key);
        }
    }
    if !load_balancer(service)
        && let Some(status) = service.get_mut("status").and_then(Value::as_object_mut)
    {
        status.insert("loadBalancer".into(), json!({}));
    }
}

/// Each port's node port in order, 0 where it has none (`sameNodePorts` compares these).
fn node_ports_as_listed(service: &Value) -> Vec<u64> {
    service
        .pointer("/spec/ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| p.get("nodePort").and_then(Value::as_u64).unwrap_or(0))
        .collect()
}

/// `normalizeClusterIPs`: a lone `clusterIP` becomes `clusterIPs: [clusterIP]`, and
/// `clusterIP` reads back as `clusterIPs[0]`. The REST storage does it after the field
/// manager has tracked the request, so `clusterIPs` is nobody's field.
pub(super) fn normalize_cluster_ips(service: &mut Value) {
    let Some(spec) = service.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    if super::defaults::empty(spec, "clusterIPs")
        && let Some(ip) = spec
            .get("clusterIP")
            .filter(|ip| ip.as_str().is_some_and(|s| !s.is_empty()))
            .cloned()
    {
        spec["clusterIPs"] = json!([ip]);
    }
    if let Some(first) = spec.pointer("/clusterIPs/0").cloned() {
        spec["clusterIP"] = first;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(spec: Value) -> Value {
        json!({"metadata": {"name": "s"}, "spec": spec})
    }

    #[test]
    fn addresses_come_from_the_upper_band_first_and_requests_are_honoured() {
        let mut alloc = ServiceAllocator::default();
        let mut kubernetes = service(
            json!({"type": "ClusterIP", "clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"]}),
        );
        alloc.allocate(&mut kubernetes).unwrap();
        assert_eq!(kubernetes["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(kubernetes["spec"]["ipFamilyPolicy"], "SingleStack");
        let mut a = service(json!({"type": "ClusterIP"}));
        alloc.allocate(&mut a).unwrap();
        assert_eq!(a["spec"]["clusterIP"], "10.0.0.17");
        assert_eq!(a["spec"]["clusterIPs"], json!(["10.0.0.17"]));
        let mut again = service(json!({"type": "ClusterIP", "clusterIPs": ["10.0.0.17"]}));
        let Err(AllocationError::Invalid(errors)) = alloc.allocate(&mut again) else {
            panic!("a taken address is refused");
        };
        assert_eq!(
            errors[0].to_string(),
            "spec.clusterIPs: Invalid value: [\"10.0.0.17\"]: failed to allocate IP 10.0.0.17: provided IP is already allocated"
        );
        let mut outside = service(json!({"type": "ClusterIP", "clusterIPs": ["10.1.0.1"]}));
        assert!(alloc.allocate(&mut outside).is_err());
        alloc.release(&a);
        let mut b = service(json!({"type": "ClusterIP"}));
        alloc.allocate(&mut b).unwrap();
        assert_eq!(b["spec"]["clusterIP"], "10.0.0.17");
    }

    #[test]
    fn node_ports_are_allocated_shared_and_released() {
        let mut alloc = ServiceAllocator::default();
        let mut np = service(json!({"type": "NodePort", "ports": [
            {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
            {"name": "dns-udp", "port": 53, "protocol": "UDP"},
            {"name": "http", "port": 80, "nodePort": 30000},
        ]}));
        alloc.allocate(&mut np).unwrap();
        let ports = &np["spec"]["ports"];
        assert_eq!(ports[0]["nodePort"], 30173);
        assert_eq!(ports[1]["nodePort"], 30173);
        assert_eq!(ports[2]["nodePort"], 30000);
        let mut clash =
            service(json!({"type": "NodePort", "ports": [{"port": 1, "nodePort": 30000}]}));
        let Err(AllocationError::Invalid(errors)) = alloc.allocate(&mut clash) else {
            panic!("a taken port is refused");
        };
        assert_eq!(errors[0].field, "spec.ports[0].nodePort");
        // Nothing of the failed create stays allocated.
        assert_eq!(alloc.ips.len(), 1);

        // An update that leaves a node port out keeps the one of the stored port of the
        // same name; one that turns the Service into a ClusterIP one releases them.
        let mut updated = service(
            json!({"type": "NodePort", "ports": [{"name": "dns-tcp", "port": 53, "protocol": "TCP"}]}),
        );
        alloc.update(&mut updated, &np).unwrap();
        assert_eq!(updated["spec"]["ports"][0]["nodePort"], 30173);
        assert_eq!(updated["spec"]["clusterIP"], np["spec"]["clusterIP"]);
        assert!(alloc.ports.contains(&30173) && !alloc.ports.contains(&30000));
        let mut cluster_ip = service(json!({"type": "ClusterIP", "ports": [{"port": 53}]}));
        alloc.update(&mut cluster_ip, &updated).unwrap();
        assert!(alloc.ports.is_empty());
    }

    #[test]
    fn a_local_load_balancer_gets_a_health_check_port() {
        let mut alloc = ServiceAllocator::default();
        let mut lb = service(
            json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": [{"port": 80}]}),
        );
        alloc.allocate(&mut lb).unwrap();
        assert_eq!(lb["spec"]["ports"][0]["nodePort"], 30173);
        assert_eq!(lb["spec"]["healthCheckNodePort"], 30174);
        alloc.release(&lb);
        assert!(alloc.ports.is_empty() && alloc.ips.is_empty());
    }

    #[test]
    fn a_type_change_drops_what_the_old_type_was_given() {
        let mut alloc = ServiceAllocator::default();
        let mut old = service(
            json!({"type": "LoadBalancer", "externalTrafficPolicy": "Cluster",
            "allocateLoadBalancerNodePorts": true, "ports": [{"port": 80}]}),
        );
        alloc.allocate(&mut old).unwrap();
        old["status"] = json!({"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}});
        let mut new = old.clone();
        new["spec"]["type"] = "ClusterIP".into();
        drop_type_dependent_fields(&mut new, &old);
        alloc.update(&mut new, &old).unwrap();
        assert!(new["spec"]["ports"][0].get("nodePort").is_none());
        assert!(new["spec"].get("externalTrafficPolicy").is_none());
        assert!(new["spec"].get("allocateLoadBalancerNodePorts").is_none());
        assert_eq!(new["spec"]["clusterIP"], old["spec"]["clusterIP"]);
        assert_eq!(new["status"], json!({"loadBalancer": {}}));
        assert!(alloc.ports.is_empty());
        let mut external = new.clone();
        external["spec"]["type"] = "ExternalName".into();
        external["spec"]["externalName"] = "example.com".into();
        drop_type_dependent_fields(&mut external, &new);
        alloc.update(&mut external, &new).unwrap();
        for key in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            assert!(external["spec"].get(key).is_none(), "{key}");
        }
        assert!(alloc.ips.is_empty());
    }

    #[test]
    fn headless_services_get_no_address() {
        let mut alloc = ServiceAllocator::default();
        let mut headless =
            service(json!({"type": "ClusterIP", "clusterIP": "None", "clusterIPs": ["None"]}));
        alloc.allocate(&mut headless).unwrap();
        assert_eq!(headless["spec"]["ipFamilies"], json!(["IPv4", "IPv6"]));
        assert_eq!(headless["spec"]["ipFamilyPolicy"], "RequireDualStack");
        let mut with_selector = service(
            json!({"type": "ClusterIP", "clusterIP": "None", "clusterIPs": ["None"], "selector": {"a": "b"}}),
        );
        alloc.allocate(&mut with_selector).unwrap();
        assert_eq!(with_selector["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(with_selector["spec"]["ipFamilyPolicy"], "SingleStack");
        let mut dual = service(json!({"type": "ClusterIP", "ipFamilyPolicy": "RequireDualStack"}));
        assert!(alloc.allocate(&mut dual).is_err());
        assert!(alloc.ips.is_empty());
    }

    #[test]
    fn a_lone_cluster_ip_becomes_the_list() {
        let mut svc = service(json!({"type": "ClusterIP", "clusterIP": "10.0.0.9"}));
        normalize_cluster_ips(&mut svc);
        assert_eq!(svc["spec"]["clusterIPs"], json!(["10.0.0.9"]));
        let mut both = service(json!({"clusterIP": "10.0.0.8", "clusterIPs": ["10.0.0.9"]}));
        normalize_cluster_ips(&mut both);
        assert_eq!(both["spec"]["clusterIP"], "10.0.0.9");
    }
}
