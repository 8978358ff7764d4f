//! The Kubernetes IP and CIDR libraries: kube-cel's values, with the apiserver's parsing
//! (Go's `net/netip`) deciding what is valid and how a conversion fails (`IP Address "1.2.3"
//! parse error during conversion from string: ...`). The URL library is kubegen's own
//! (`urls`).

use std::sync::Arc;

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::netip::{self, is_4in6};
use super::{fail, kube_cel};
use crate::go_print::quote;

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("ip", ip);
    ctx.add_function("isIP", |s: Arc<String>| ip_addr(&s).is_ok());
    ctx.add_function("ip.isCanonical", |s: Arc<String>| -> ResolveResult {
        ip_addr(&s).map_err(|e| fail("ip.isCanonical", e))?;
        kube_cel("ip.isCanonical", None, &[Value::String(s)])
    });
    ctx.add_function("cidr", cidr);
    ctx.add_function("isCIDR", |s: Arc<String>| prefix(&s).is_ok());
    ctx.add_function("containsIP", contains_ip);
    ctx.add_function("containsCIDR", contains_cidr);
}

/// `parseIPAddr`: an address without a zone and not IPv4-mapped.
fn ip_addr(raw: &str) -> Result<(), String> {
    let addr = netip::parse_addr(raw).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {e}",
            quote(raw)
        )
    })?;
    if addr.zoned {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            quote(raw)
        ));
    }
    if is_4in6(&addr.ip) {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        ));
    }
    Ok(())
}

/// `parseCIDR`, with the message `cidr()` fails with.
fn prefix(raw: &str) -> Result<(), String> {
    let wrap =
        |e: String| format!("network address parse error during conversion from string: {e}");
    let (ip, _) = netip::parse_prefix(raw).map_err(|e| wrap(wrap(e)))?;
    if is_4in6(&ip) {
        return Err(wrap(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        )));
    }
    Ok(())
}

/// `ip(string)`, or `<cidr>.ip()`.
fn ip(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    if ftx.this.is_none()
        && let [Value::String(s)] = args.as_slice()
    {
        ip_addr(s).map_err(|e| fail("ip", e))?;
    }
    kube_cel("ip", ftx.this.clone(), &args)
}

fn cidr(s: Arc<String>) -> ResolveResult {
    prefix(&s).map_err(|e| fail("cidr", e))?;
    kube_cel("cidr", None, &[Value::String(s)])
}

/// `<cidr>.containsIP(string)`: an invalid address makes the overload not match.
fn contains_ip(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    if let [Value::String(s)] = args.as_slice()
        && ip_addr(s).is_err()
    {
        return Err(ExecutionError::NoSuchOverload);
    }
    kube_cel("containsIP", Some(this), &args)
}

/// `<cidr>.containsCIDR(string)`: an invalid prefix fails as `cidr()` does.
fn contains_cidr(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    if let [Value::String(s)] = args.as_slice() {
        prefix(s).map_err(|e| fail("containsCIDR", e))?;
    }
    kube_cel("containsCIDR", Some(this), &args)
}
