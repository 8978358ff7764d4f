//! Go's `net/netip` parsers as the Kubernetes IP and CIDR libraries call them, for their
//! error messages (`ParseAddr("1.2.3"): IPv4 address too short`,
//! `netip.ParsePrefix("10.0.0.1/33"): prefix length out of range`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::go_print::quote;

/// A parsed address and whether it carried an IPv6 zone (`fe80::1%eth0`).
pub(super) struct Addr {
    pub(super) ip: IpAddr,
    pub(super) zoned: bool,
}

fn addr_error(input: &str, message: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => {
            format!("ParseAddr({}): {message} (at {})", quote(input), quote(at))
        }
        _ => format!("ParseAddr({}): {message}", quote(input)),
    }
}

/// `netip.ParseAddr`.
pub(super) fn parse_addr(s: &str) -> Result<Addr, String> {
    for c in s.bytes() {
        match c {
            b'.' => {
                let mut fields = [0u8; 4];
                ipv4_fields(s, s, &mut fields)?;
                return Ok(Addr {
                    ip: IpAddr::V4(Ipv4Addr::from(fields)),
                    zoned: false,
                });
            }
            b':' => return ipv6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

/// `parseIPv4Fields` over `part`, a suffix of `input`.
fn ipv4_fields(input: &str, part: &str, fields: &mut [u8; 4]) -> Result<(), String> {
    let b = part.as_bytes();
    let (mut val, mut pos, mut digits) = (0u32, 0usize, 0);
    for i in 0..b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                if digits == 1 && val == 0 {
                    return Err(addr_error(
                        input,
                        "IPv4 field has octet with leading zero",
                        None,
                    ));
                }
                val = val * 10 + u32::from(c - b'0');
                digits += 1;
                if val > 255 {
                    return Err(addr_error(input, "IPv4 field has value >255", None));
                }
            }
            b'.' => {
                if i == 0 || i == b.len() - 1 || b[i - 1] == b'.' {
                    let at = &part[i..];
                    return Err(addr_error(
                        input,
                        "IPv4 field must have at least one digit",
                        Some(at),
                    ));
                }
                if pos == 3 {
                    return Err(addr_error(input, "IPv4 address too long", None));
                }
                fields[pos] = val as u8;
                pos += 1;
                val = 0;
                digits = 0;
            }
            _ => {
                return Err(addr_error(input, "unexpected character", Some(&part[i..])));
            }
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(())
}

/// `parseIPv6`.
fn ipv6(input: &str) -> Result<Addr, String> {
    let (mut s, zoned) = match input.split_once('%') {
        Some((_, "")) => return Err(addr_error(input, "zone must be a non-empty string", None)),
        Some((addr, _)) => (addr, true),
        None => (input, false),
    };
    let addr_len = s.len();
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(Addr {
                ip: IpAddr::V6(Ipv6Addr::UNSPECIFIED),
                zoned,
            });
        }
    }
    let mut i = 0;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < b.len() {
            let Some(d) = (b[off] as char).to_digit(16) else {
                break;
            };
            acc = (acc << 4) + d;
            if off > 3 {
                return Err(addr_error(
                    input,
                    "each group must have 4 or less digits",
                    Some(s),
                ));
            }
            if acc > 0xFFFF {
                return Err(addr_error(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            let message = "each colon-separated field must have at least one digit";
            return Err(addr_error(input, message, Some(s)));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                let message =
                    "embedded IPv4 address must replace the final 2 fields of the address";
                return Err(addr_error(input, message, Some(s)));
            }
            if i + 4 > 16 {
                let message =
                    "too many hex fields to fit an embedded IPv4 at the end of the address";
                return Err(addr_error(input, message, Some(s)));
            }
            let mut fields = [0u8; 4];
            ipv4_fields(input, &input[addr_len - s.len()..addr_len], &mut fields)?;
            ip[i..i + 4].copy_from_slice(&fields);
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_error(
                input,
                "unexpected character, want colon",
                Some(s),
            ));
        }
        if s.len() == 1 {
            return Err(addr_error(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_error(input, "address string too short", None));
        };
        let n = 16 - i;
        ip.copy_within(e..i, e + n);
        ip[e..e + n].fill(0);
    } else if ellipsis.is_some() {
        let message = "the :: must expand to at least one field of zeros";
        return Err(addr_error(input, message, Some(s)));
    }
    Ok(Addr {
        ip: IpAddr::V6(Ipv6Addr::from(ip)),
        zoned,
    })
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
