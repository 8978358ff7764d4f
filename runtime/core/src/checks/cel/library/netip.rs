//! Go's `net/netip` parsers as the Kubernetes IP and CIDR libraries call them, for their
//! error messages (`ParseAddr("1.2.3"): IPv4 address too short`,
//! `netip.ParsePrefix("10.0.0.1/33"): prefix length out of range`).

use std::net::IpAddr;

use super::super::super::go_net::{self, Addr};
use crate::go_print::quote;

/// `netip.ParseAddr` (`go_net`'s, which `net/url` also checks bracketed hosts with).
pub(super) fn parse_addr(s: &str) -> Result<Addr, String> {
    go_net::parse_addr(s.as_bytes())
}

/// `netip.ParsePrefix`: the address and the prefix length.
pub(super) fn parse_prefix(s: &str) -> Result<(IpAddr, u8), String> {
    let fail = |message: &str| format!("netip.ParsePrefix({}): {message}", quote(s));
    let Some(slash) = s.rfind('/') else {
        return Err(fail("no '/'"));
    };
    let addr = parse_addr(&s[..slash]).map_err(|e| fail(&e))?;
    if addr.ip.is_ipv6() && addr.zoned {
        return Err(fail("IPv6 zones cannot be present in a prefix"));
    }
    let bits = &s[slash + 1..];
    let bad_bits = || fail(&format!("bad bits after slash: {}", quote(bits)));
    if bits.len() > 1 && !(b'1'..=b'9').contains(&bits.as_bytes()[0]) {
        return Err(bad_bits());
    }
    let bits: i64 = go_atoi(bits).ok_or_else(bad_bits)?;
    let max = if addr.ip.is_ipv4() { 32 } else { 128 };
    if !(0..=max).contains(&bits) {
        return Err(fail("prefix length out of range"));
    }
    Ok((addr.ip, bits as u8))
}

/// `strconv.Atoi`: an optional sign and decimal digits.
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

/// Whether an IPv6 address is an IPv4-mapped one (`::ffff:1.2.3.4`).
pub(super) fn is_4in6(ip: &IpAddr) -> bool {
    matches!(ip, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_go_writes_them() {
        let err = |s: &str| parse_addr(s).err().unwrap_or_default();
        assert_eq!(err("foo"), r#"ParseAddr("foo"): unable to parse IP"#);
        assert_eq!(
            err("1.2.3"),
            r#"ParseAddr("1.2.3"): IPv4 address too short"#
        );
        assert_eq!(
            err("1.2.3.256"),
            r#"ParseAddr("1.2.3.256"): IPv4 field has value >255"#
        );
        assert_eq!(
            err("01.2.3.4"),
            r#"ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero"#
        );
        assert_eq!(
            err("1..2.3"),
            r#"ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")"#
        );
        assert_eq!(
            err("::g"),
            r#"ParseAddr("::g"): each colon-separated field must have at least one digit (at "g")"#
        );
        assert!(parse_addr("2001:db8::1").is_ok());
        assert!(parse_addr("::ffff:1.2.3.4").is_ok_and(|a| is_4in6(&a.ip)));
        let prefix = |s: &str| parse_prefix(s).err().unwrap_or_default();
        assert_eq!(
            prefix("10.0.0.1/33"),
            r#"netip.ParsePrefix("10.0.0.1/33"): prefix length out of range"#
        );
        assert_eq!(
            prefix("10.0.0.1"),
            r#"netip.ParsePrefix("10.0.0.1"): no '/'"#
        );
        assert_eq!(
            prefix("10.0.0.0/08"),
            r#"netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08""#
        );
    }
}
