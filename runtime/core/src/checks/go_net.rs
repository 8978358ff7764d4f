//! Go's network-address parsers as the apiserver's string formats use them: `net.ParseIP`
//! (strict, and the "sloppy" Go 1.16 variant Kubernetes keeps for IPv4), `net.ParseCIDR`,
//! `net.ParseMAC`, `net/url.ParseRequestURI` and `net/mail.ParseAddress`.

use crate::go_print;

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

/// The first malformed `%` escape in `s` (`%` not followed by two hex digits), as Go quotes
/// it in `invalid URL escape "%zz"`.
fn bad_escape(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() || !(b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit()) {
                let end = (i + 3).min(b.len());
                return Some(s.get(i..end).unwrap_or(&s[i..]));
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    None
}

fn escape_error(s: &str) -> Result<(), String> {
    match bad_escape(s) {
        Some(e) => Err(format!("invalid URL escape {}", go_print::quote(e))),
        None => Ok(()),
    }
}

/// The characters `net/url` leaves unescaped in a host (besides letters, digits and
/// non-ASCII bytes).
fn host_char_ok(c: u8) -> bool {
    c >= 0x80 || c.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"%".contains(&c)
}

/// `parseHost`'s checks, with Go's error.
fn host_error(host: &str) -> Result<(), String> {
    let b = host.as_bytes();
    let port_ok = |p: &str| {
        p.is_empty() || (p.starts_with(':') && p[1..].bytes().all(|c| c.is_ascii_digit()))
    };
    let bad_port = |p: &str| format!("invalid port {} after host", go_print::quote(p));
    if host.starts_with('[') {
        let Some(close) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        if !port_ok(&host[close + 1..]) {
            return Err(bad_port(&host[close + 1..]));
        }
    } else if let Some(colon) = host.rfind(':')
        && !port_ok(&host[colon..])
    {
        return Err(bad_port(&host[colon..]));
    }
    escape_error(host)?;
    // In a host, %-escapes may only encode non-ASCII bytes (or be %25 in a zone).
    for (i, _) in host.match_indices('%') {
        let hi = b[i + 1];
        if (hi as char).to_digit(16).is_some_and(|d| d < 8) && &host[i..i + 3] != "%25" {
            return Err(format!(
                "invalid URL escape {}",
                go_print::quote(&host[i..i + 3])
            ));
        }
    }
    match b.iter().find(|&&c| !host_char_ok(c)) {
        Some(&c) => Err(format!(
            "invalid character {} in host name",
            go_print::quote(&(c as char).to_string())
        )),
        None => Ok(()),
    }
}

fn userinfo_ok(user: &str) -> bool {
    user.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c))
        && bad_escape(user).is_none()
}

/// `url.ParseRequestURI(s)` succeeds: an absolute URI, or an absolute path.
pub(crate) fn is_request_uri(s: &str) -> bool {
    request_uri_error(s).is_none()
}

/// `url.ParseRequestURI(s)` succeeds with a scheme and a host (`https://example.com/x`): how
/// the apiserver recognizes a link (the `api-approved.kubernetes.io` annotation's).
pub(crate) fn is_url_with_host(s: &str) -> bool {
    matches!(reason(s), Ok((scheme, host)) if !scheme.is_empty() && !host.is_empty())
}

/// Why `url.ParseRequestURI(s)` fails, in Go's words (`parse "x": invalid URI for
/// request`), or `None` when it succeeds.
pub(crate) fn request_uri_error(s: &str) -> Option<String> {
    reason(s)
        .err()
        .map(|r| format!("parse {}: {r}", go_print::quote(s)))
}

/// The scheme and host of `s` when `url.ParseRequestURI` accepts it (both may be empty), or
/// Go's reason why not.
fn reason(s: &str) -> Result<(&str, &str), String> {
    if s.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if s.is_empty() {
        return Err("empty url".to_owned());
    }
    if s == "*" {
        return Ok(("", ""));
    }
    // The scheme: letters, then letters, digits, `+`, `-`, `.` up to a colon.
    let mut scheme = "";
    let mut rest = s;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => {
                scheme = &s[..i];
                rest = &s[i + 1..];
                break;
            }
            _ => break,
        }
    }
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        rest.split_once('?').map_or(rest, |(r, _)| r)
    };
    if !rest.starts_with('/') {
        // With a scheme, a rootless rest is an opaque part; without one, not a request URI.
        return match scheme.is_empty() {
            true => Err("invalid URI for request".to_owned()),
            false => Ok((scheme, "")),
        };
    }
    let mut path = rest;
    let mut host = "";
    if !scheme.is_empty() && rest.starts_with("//") {
        let authority = &rest[2..];
        let (authority, p) = match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        };
        path = p;
        host = match authority.rfind('@') {
            Some(i) => {
                if !userinfo_ok(&authority[..i]) {
                    return Err("net/url: invalid userinfo".to_owned());
                }
                &authority[i + 1..]
            }
            None => authority,
        };
        host_error(host)?;
    }
    escape_error(path).map(|()| (scheme, host))
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
    fn request_uris_follow_go() {
        for ok in [
            "http://example.com/a?b#c",
            "/abs/path",
            "mailto:a@b",
            "http:",
            "*",
            "http://[::1]:80/",
            "http://user:pw@host/",
        ] {
            assert!(is_request_uri(ok), "{ok}");
        }
        for bad in [
            "",
            "rel/path",
            ":x",
            "http://a b/",
            "http://host:port/",
            "/%zz",
            "http://a\u{1}",
        ] {
            assert!(!is_request_uri(bad), "{bad}");
        }
    }

    #[test]
    fn links_need_a_scheme_and_a_host() {
        // As `go run` printed `url.ParseRequestURI` succeeding with a host and a scheme.
        for (s, ok) in [
            ("https://github.com/kubernetes/enhancements/pull/1111", true),
            ("http://x", true),
            ("https://", false),
            ("https:///x", false),
            ("mailto:a@b", false),
            ("github.com/x", false),
            ("//github.com/x", false),
            ("https://user@/x", false),
            ("https://:80", true),
            ("https://a b/", false),
            ("https://x?y#z", true),
            ("ftp://h/p", true),
            ("https://h/%zz", false),
            ("x://h", true),
        ] {
            assert_eq!(is_url_with_host(s), ok, "{s}");
        }
    }
}
