//! Go's network-address parsers as the apiserver's string formats use them: `net.ParseIP`
//! (strict, and the "sloppy" Go 1.16 variant Kubernetes keeps for IPv4), `net.ParseCIDR`,
//! `net.ParseMAC`, `net/netip.ParseAddr` (with which `net/url` checks bracketed hosts) and
//! `net/mail.ParseAddress`. `net/url` itself is `go_url`'s; the checks the `uri` format and
//! the CRD annotations make with it are re-exported here.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub(crate) use super::go_url::{is_request_uri, is_url_with_host, request_uri_error};
use crate::go_print::quote_bytes;

/// How strictly an IP literal is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum IpSyntax {
    /// Today's `net.ParseIP`: no leading zeros in IPv4 fields, at most 4 hex digits a group.
    Strict,
    /// `k8s.io/utils/net.ParseIPSloppy` (Go 1.16's parser): leading zeros allowed.
    Sloppy,
}

fn parse_ipv4(s: &str, syntax: IpSyntax) -> bool {
    let fields: Vec<&str> = s.split('.').collect();
    fields.len() == 4
        && fields.iter().all(|f| {
            !f.is_empty()
                && f.bytes().all(|b| b.is_ascii_digit())
                && match syntax {
                    IpSyntax::Strict => f.len() <= 3 && !(f.len() > 1 && f.starts_with('0')),
                    IpSyntax::Sloppy => true,
                }
                && f.trim_start_matches('0').len() <= 3
                && f.parse::<u32>().is_ok_and(|n| n <= 255)
        })
}

fn parse_ipv6(s: &str, syntax: IpSyntax) -> bool {
    // Split at the one allowed "::".
    let (head, tail, ellipsis) = match s.find("::") {
        Some(i) => (&s[..i], &s[i + 2..], true),
        None => (s, "", false),
    };
    if tail.contains("::") {
        return false;
    }
    let groups = |part: &str, last: bool| -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let fields: Vec<&str> = part.split(':').collect();
        let mut n = 0;
        for (i, f) in fields.iter().enumerate() {
            if last && i == fields.len() - 1 && f.contains('.') {
                if !parse_ipv4(f, syntax) {
                    return None;
                }
                n += 2;
                continue;
            }
            let ok = !f.is_empty()
                && f.bytes().all(|b| b.is_ascii_hexdigit())
                && match syntax {
                    IpSyntax::Strict => f.len() <= 4,
                    IpSyntax::Sloppy => u32::from_str_radix(f, 16).is_ok_and(|v| v <= 0xFFFF),
                };
            if !ok {
                return None;
            }
            n += 1;
        }
        Some(n)
    };
    let (Some(h), Some(t)) = (groups(head, !ellipsis), groups(tail, true)) else {
        return false;
    };
    if ellipsis { h + t < 8 } else { h == 8 }
}

/// `net.ParseIP(s) != nil`.
pub fn is_ip(s: &str, syntax: IpSyntax) -> bool {
    if s.contains(':') {
        parse_ipv6(s, syntax)
    } else {
        parse_ipv4(s, syntax)
    }
}

/// `net.ParseCIDR` (sloppy): an address, `/`, and a decimal prefix length within the
/// address's bit width (an IPv4 address written in IPv6 form counts 128 bits).
pub fn is_cidr(s: &str) -> bool {
    let Some((addr, mask)) = s.split_once('/') else {
        return false;
    };
    let bits = if parse_ipv4(addr, IpSyntax::Sloppy) {
        32
    } else if addr.contains(':') && parse_ipv6(addr, IpSyntax::Sloppy) {
        128
    } else {
        return false;
    };
    !mask.is_empty()
        && mask.bytes().all(|b| b.is_ascii_digit())
        && mask.trim_start_matches('0').len() <= 3
        && mask.parse::<u32>().is_ok_and(|n| n <= bits)
}

/// `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx:..`, `xx-xx-..` or `xxxx.xxxx.xxxx`.
pub(crate) fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    let hex2 = |x: &[u8]| x.len() >= 2 && x[0].is_ascii_hexdigit() && x[1].is_ascii_hexdigit();
    if b[2] == b':' || b[2] == b'-' {
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if !matches!(n, 6 | 8 | 20) {
            return false;
        }
        (0..n).all(|i| {
            let x = &b[i * 3..];
            hex2(x) && (x.len() == 2 || x[2] == b[2])
        })
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if !matches!(n, 6 | 8 | 20) {
            return false;
        }
        (0..b.len())
            .step_by(5)
            .all(|x| hex2(&b[x..]) && hex2(&b[x + 2..]) && (b.len() == x + 4 || b[x + 4] == b'.'))
    } else {
        false
    }
}

/// An address `netip.ParseAddr` accepts: the IP and whether it carried an IPv6 zone
/// (`fe80::1%eth0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Addr {
    pub(crate) ip: IpAddr,
    pub(crate) zoned: bool,
}

/// `netip.ParseAddr`, failing with Go's text (`ParseAddr("1.2.3"): IPv4 address too short`).
/// It reads bytes because `net/url` calls it on a bracketed host after unescaping it, which
/// need not be UTF-8 (`[%ff]`).
pub(crate) fn parse_addr(s: &[u8]) -> Result<Addr, String> {
    for &c in s {
        match c {
            b'.' => {
                let fields = ipv4_fields(s, s)?;
                return Ok(Addr {
                    ip: IpAddr::V4(Ipv4Addr::from(fields)),
                    zoned: false,
                });
            }
            b':' => return parse_addr_ipv6(s),
            // An IPv6 zone without its address.
            b'%' => return Err(addr_error(s, "missing IPv6 address", b"")),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", b""))
}

/// `parseAddrError`: the input, what is wrong, and where (`at`, when not empty).
fn addr_error(input: &[u8], message: &str, at: &[u8]) -> String {
    let mut out = format!("ParseAddr({}): {message}", quote_bytes(input));
    if !at.is_empty() {
        out.push_str(&format!(" (at {})", quote_bytes(at)));
    }
    out
}

/// `parseIPv4Fields`: the four fields of `part`, dotted decimal at the end of `input`.
fn ipv4_fields(input: &[u8], part: &[u8]) -> Result<[u8; 4], String> {
    let mut fields = [0u8; 4];
    let (mut value, mut pos, mut digits) = (0u32, 0usize, 0);
    for (i, &c) in part.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    let message = "IPv4 field has octet with leading zero";
                    return Err(addr_error(input, message, b""));
                }
                value = value * 10 + u32::from(c - b'0');
                digits += 1;
                if value > 255 {
                    return Err(addr_error(input, "IPv4 field has value >255", b""));
                }
            }
            b'.' => {
                if i == 0 || i == part.len() - 1 || part[i - 1] == b'.' {
                    let message = "IPv4 field must have at least one digit";
                    return Err(addr_error(input, message, &part[i..]));
                }
                if pos == 3 {
                    return Err(addr_error(input, "IPv4 address too long", b""));
                }
                fields[pos] = value as u8;
                pos += 1;
                (value, digits) = (0, 0);
            }
            _ => return Err(addr_error(input, "unexpected character", &part[i..])),
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", b""));
    }
    fields[3] = value as u8;
    Ok(fields)
}

/// `parseIPv6`: hex groups, at most one `::`, an optional dotted IPv4 tail and `%zone`.
fn parse_addr_ipv6(input: &[u8]) -> Result<Addr, String> {
    let fail = |message: &str, at: &[u8]| Err(addr_error(input, message, at));
    let (mut s, zoned) = match input.iter().position(|&c| c == b'%') {
        Some(i) if i + 1 == input.len() => return fail("zone must be a non-empty string", b""),
        Some(i) => (&input[..i], true),
        None => (input, false),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis = None;
    if s.starts_with(b"::") {
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
        let (mut digits, mut group) = (0, 0u32);
        while let Some(d) = s.get(digits).and_then(|&c| (c as char).to_digit(16)) {
            group = (group << 4) + d;
            if digits > 3 {
                return fail("each group must have 4 or less digits", s);
            }
            if group > 0xFFFF {
                return fail("IPv6 field has value >=2^16", s);
            }
            digits += 1;
        }
        if digits == 0 {
            return fail("each colon-separated field must have at least one digit", s);
        }
        if s.get(digits) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                let message =
                    "embedded IPv4 address must replace the final 2 fields of the address";
                return fail(message, s);
            }
            if i + 4 > 16 {
                let message =
                    "too many hex fields to fit an embedded IPv4 at the end of the address";
                return fail(message, s);
            }
            ip[i..i + 4].copy_from_slice(&ipv4_fields(input, s)?);
            s = b"";
            i += 4;
            break;
        }
        ip[i..i + 2].copy_from_slice(&(group as u16).to_be_bytes());
        i += 2;
        s = &s[digits..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' {
            return fail("unexpected character, want colon", s);
        }
        if s.len() == 1 {
            return fail("colon must be followed by more characters", s);
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return fail("multiple :: in address", s);
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return fail("trailing garbage after address", s);
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return fail("address string too short", b"");
        };
        // Move what follows the `::` to the end; zeros fill the gap.
        let n = 16 - i;
        ip.copy_within(e..i, e + n);
        ip[e..e + n].fill(0);
    } else if ellipsis.is_some() {
        return fail("the :: must expand to at least one field of zeros", s);
    }
    Ok(Addr {
        ip: IpAddr::V6(Ipv6Addr::from(ip)),
        zoned,
    })
}

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
}

fn dot_atom(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|atom| !atom.is_empty() && atom.chars().all(is_atext))
}

fn quoted_string(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return false;
    };
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '"' => return false,
            c if c.is_ascii_control() && c != '\t' => return false,
            _ => {}
        }
    }
    true
}

fn addr_spec(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    let local_ok = dot_atom(local) || quoted_string(local);
    let domain_ok = dot_atom(domain)
        || (domain.starts_with('[')
            && domain.ends_with(']')
            && domain.len() >= 2
            && domain[1..domain.len() - 1]
                .chars()
                .all(|c| !c.is_ascii_control() && !"[]\\".contains(c)));
    local_ok && domain_ok
}

/// `net/mail.ParseAddress(s)` succeeds with a non-empty address: `local@domain`, or
/// `Display Name <local@domain>`. An approximation of Go's RFC 5322 parser: comments and
/// folding whitespace inside the address are not accepted, and display names are checked
/// only for balanced quotes.
pub(crate) fn is_email(s: &str) -> bool {
    let s = s.trim_matches(|c| c == ' ' || c == '\t' || c == '\r' || c == '\n');
    if let Some(inner) = s.strip_suffix('>')
        && let Some(open) = inner.rfind('<')
    {
        let name = inner[..open].trim();
        return name.matches('"').count() % 2 == 0 && addr_spec(&inner[open + 1..]);
    }
    addr_spec(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_literals_follow_go() {
        assert!(is_ip("1.2.3.4", IpSyntax::Strict));
        assert!(!is_ip("01.2.3.4", IpSyntax::Strict));
        assert!(is_ip("01.2.3.4", IpSyntax::Sloppy));
        assert!(!is_ip("1.2.3", IpSyntax::Sloppy));
        assert!(!is_ip("256.1.1.1", IpSyntax::Sloppy));
        assert!(is_ip("::1", IpSyntax::Strict));
        assert!(is_ip("::ffff:1.2.3.4", IpSyntax::Strict));
        assert!(is_ip("2001:db8::8a2e:370:7334", IpSyntax::Strict));
        assert!(!is_ip("2001:db8:::1", IpSyntax::Strict));
        assert!(!is_ip("1:2:3:4:5:6:7:8:9", IpSyntax::Strict));
        assert!(is_ip("1:2:3:4:5:6:7:8", IpSyntax::Strict));
        assert!(!is_ip("1:2:3:4:5:6:7::8", IpSyntax::Strict));
        assert!(!is_ip("fe80::1%eth0", IpSyntax::Strict));
    }

    #[test]
    fn macs_follow_go() {
        assert!(is_mac("00:11:22:33:44:55"));
        assert!(is_mac("00-11-22-33-44-55"));
        assert!(is_mac("0011.2233.4455"));
        assert!(is_mac("00:11:22:33:44:55:66:77"));
        assert!(!is_mac("00:11:22:33:44"));
        assert!(!is_mac("00:11-22:33:44:55"));
        assert!(!is_mac("0011.2233.445"));
    }

    #[test]
    fn addresses_fail_as_netip_words_it() {
        let err = |s: &[u8]| parse_addr(s).err().unwrap_or_default();
        // As go1.27.3's netip.ParseAddr printed them.
        for (input, want) in [
            (&b"foo"[..], r#"ParseAddr("foo"): unable to parse IP"#),
            (b"", r#"ParseAddr(""): unable to parse IP"#),
            (b"%eth0", r#"ParseAddr("%eth0"): missing IPv6 address"#),
            (b"1.2.3", r#"ParseAddr("1.2.3"): IPv4 address too short"#),
            (
                b"1.2.3.4.5",
                r#"ParseAddr("1.2.3.4.5"): IPv4 address too long"#,
            ),
            (
                b"1.2.3.256",
                r#"ParseAddr("1.2.3.256"): IPv4 field has value >255"#,
            ),
            (
                b"01.2.3.4",
                r#"ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero"#,
            ),
            (
                b"1..2.3",
                r#"ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")"#,
            ),
            (
                b"1.2.3.x",
                r#"ParseAddr("1.2.3.x"): unexpected character (at "x")"#,
            ),
            (
                b"::g",
                r#"ParseAddr("::g"): each colon-separated field must have at least one digit (at "g")"#,
            ),
            (
                b"12345::",
                r#"ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")"#,
            ),
            (b"1:2", r#"ParseAddr("1:2"): address string too short"#),
            (
                b"1:",
                r#"ParseAddr("1:"): colon must be followed by more characters (at ":")"#,
            ),
            (
                b"1::2::3",
                r#"ParseAddr("1::2::3"): multiple :: in address (at ":3")"#,
            ),
            (
                b"1:2:3:4:5:6:7:8::",
                r#"ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros"#,
            ),
            (
                b"1:2:3:4:5:6:7:8:9",
                r#"ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")"#,
            ),
            (
                b"1:2:3:1.2.3.4",
                r#"ParseAddr("1:2:3:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")"#,
            ),
            (
                b"fe80::1%",
                r#"ParseAddr("fe80::1%"): zone must be a non-empty string"#,
            ),
            (
                b"1::x",
                r#"ParseAddr("1::x"): each colon-separated field must have at least one digit (at "x")"#,
            ),
            (
                b"1:2x",
                r#"ParseAddr("1:2x"): unexpected character, want colon (at "x")"#,
            ),
            (b"\xff", r#"ParseAddr("\xff"): unable to parse IP"#),
        ] {
            assert_eq!(err(input), want, "{}", quote_bytes(input));
        }
        let ok = |s: &str| parse_addr(s.as_bytes()).ok();
        assert_eq!(ok("1.2.3.4").map(|a| a.ip.is_ipv4()), Some(true));
        assert_eq!(ok("::ffff:1.2.3.4").map(|a| a.ip.is_ipv6()), Some(true));
        assert_eq!(ok("fe80::1%eth0").map(|a| a.zoned), Some(true));
        assert_eq!(
            ok("2001:db8::1").map(|a| a.ip),
            Some("2001:db8::1".parse().unwrap())
        );
        assert_eq!(ok("::").map(|a| a.ip), Some("::".parse().unwrap()));
        assert_eq!(
            ok("1:2:3:4:5:6:1.2.3.4").map(|a| a.ip),
            Some("1:2:3:4:5:6:1.2.3.4".parse().unwrap())
        );
    }
}
