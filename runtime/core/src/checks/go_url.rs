//! Go's `net/url` as kube-apiserver v1.36.2 runs it (go1.27.3): `parse` (`url.Parse`),
//! `parse_request_uri` (`url.ParseRequestURI`) and the `Url` methods the apiserver calls
//! (`Hostname`, `Port`, `EscapedPath`, `Query`, `String`). The `uri` format, CEL's URL library
//! and webhook URLs are checked with it; its errors are Go's, word for word (`parse "x":
//! invalid URI for request`), because they surface in messages compared with the apiserver's.
//!
//! Go's strings are bytes, and a decoded component need not be UTF-8 (`/%ff` is the path
//! `/` + byte 0xff), so the decoded fields are `Vec<u8>`; the raw ones are slices of the
//! input and stay `String`.
//!
//! Two GODEBUG settings shape the parser; the apiserver has go1.27's defaults for both:
//! `urlstrictcolons` (an `http` or `https` host may hold a colon only before its port, so
//! `http://a:b:80` fails) and `urlmaxqueryparams` ([`parse_query`] reads nothing from a query
//! of more than 10000 parameters).

use std::collections::BTreeMap;

use super::go_net;
use crate::go_print::quote;
use crate::go_print::quote_bytes;

/// A parsed URL, as Go's `url.URL`: `[scheme:][//[userinfo@]host][/]path[?query][#fragment]`,
/// or `scheme:opaque[?query][#fragment]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Url {
    /// Lower-cased.
    pub(crate) scheme: String,
    /// What follows `scheme:` when it does not start with `/` (`mailto:a@b`), still encoded.
    pub(crate) opaque: String,
    /// The user information before `@` in the authority.
    pub(crate) user: Option<Userinfo>,
    /// `host` or `host:port`, decoded; an IPv6 address keeps its brackets.
    pub(crate) host: Vec<u8>,
    /// Decoded.
    pub(crate) path: Vec<u8>,
    /// The path as written, when it is not the default encoding of `path`.
    pub(crate) raw_path: String,
    /// A scheme and a path with no authority (`http:/p`).
    pub(crate) omit_host: bool,
    /// A `?` with nothing after it.
    pub(crate) force_query: bool,
    /// The query as written, without `?`.
    pub(crate) raw_query: String,
    /// Decoded, without `#`.
    pub(crate) fragment: Vec<u8>,
    /// The fragment as written, when it is not the default encoding of `fragment`.
    pub(crate) raw_fragment: String,
}

/// Go's `url.Userinfo`: a user name (perhaps empty) and, after a `:`, a password.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Userinfo {
    pub(crate) username: Vec<u8>,
    pub(crate) password: Option<Vec<u8>>,
}

/// Go's `*url.Error` from `Parse` or `ParseRequestURI`: `parse "<url>": <reason>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parse {}: {reason}", quote(.url))]
pub(crate) struct ParseError {
    /// The string that failed (for `Parse`, without its fragment unless the fragment failed).
    pub(crate) url: String,
    pub(crate) reason: Reason,
}

/// Why a URL does not parse, in `net/url`'s words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Reason {
    #[error("net/url: invalid control character in URL")]
    ControlCharacter,
    #[error("empty url")]
    Empty,
    #[error("missing protocol scheme")]
    MissingScheme,
    /// `ParseRequestURI` of something neither absolute nor an absolute path.
    #[error("invalid URI for request")]
    NotForRequest,
    /// A relative reference like `a:b`, which reads as a scheme.
    #[error("first path segment in URL cannot contain colon")]
    ColonInFirstSegment,
    #[error("net/url: invalid userinfo")]
    InvalidUserinfo,
    /// `[` not at the start of the host, or brackets around an IPv4 address.
    #[error("invalid IP-literal")]
    InvalidIpLiteral,
    #[error("missing ']' in host")]
    MissingBracket,
    /// What follows the host is not `:` and digits.
    #[error("invalid port {} after host", quote(.0))]
    InvalidPort(String),
    /// A bracketed host that `netip.ParseAddr` refuses, with its error.
    #[error("invalid host: {0}")]
    InvalidHost(String),
    /// A `%` without two hex digits, or an escape a host may not use.
    #[error("invalid URL escape {}", quote_bytes(.0))]
    Escape(Vec<u8>),
    #[error("invalid character {} in host name", quote_char(*.0))]
    HostCharacter(char),
}

fn quote_char(c: char) -> String {
    quote(c.encode_utf8(&mut [0; 4]))
}

/// Where a string sits in a URL, which decides what may stand unescaped (Go's `encoding`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Component {
    Path,
    Host,
    Zone,
    UserPassword,
    Query,
    Fragment,
}

/// `shouldEscape`: whether `c` must be escaped in `component`.
fn should_escape(c: u8, component: Component) -> bool {
    use Component::*;
    if c.is_ascii_alphanumeric() {
        return false;
    }
    // A host also allows the sub-delimiters, `:` and `[ ]` (for a port and an IPv6
    // literal), and `< > "`, which Parse then refuses to see escaped.
    if matches!(component, Host | Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match component {
            Path => c == b'?',
            UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Query => true,
            Fragment => false,
            Host | Zone => true,
        },
        b'!' | b'(' | b')' | b'*' => component != Fragment,
        _ => true,
    }
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// `unescape`: decodes `%XX` (and, in a query, `+` as a space), refusing a malformed escape
/// and, in a host, what a host may not hold.
fn unescape(s: &str, component: Component) -> Result<Vec<u8>, Reason> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let (Some(hi), Some(lo)) = (
                    b.get(i + 1).copied().and_then(hex_value),
                    b.get(i + 2).copied().and_then(hex_value),
                ) else {
                    return Err(Reason::Escape(b[i..b.len().min(i + 3)].to_vec()));
                };
                let escape = &b[i..i + 3];
                // A host may %-encode only non-ASCII bytes, and `%25` (a zone's `%`).
                if component == Component::Host && hi < 8 && escape != b"%25" {
                    return Err(Reason::Escape(escape.to_vec()));
                }
                // A zone may encode what a host may hold, and a space.
                let byte = hi << 4 | lo;
                if component == Component::Zone
                    && escape != b"%25"
                    && byte != b' '
                    && should_escape(byte, Component::Host)
                {
                    return Err(Reason::Escape(escape.to_vec()));
                }
                out.push(byte);
                i += 3;
            }
            b'+' if component == Component::Query => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if matches!(component, Component::Host | Component::Zone)
                    && c < 0x80
                    && should_escape(c, component)
                {
                    return Err(Reason::HostCharacter(c as char));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `escape`: `%XX` for every byte `component` does not allow as is. The result is ASCII.
fn escape(s: &[u8], component: Component) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if c == b' ' && component == Component::Query {
            out.push('+');
        } else if should_escape(c, component) {
            out.extend([
                '%',
                HEX[usize::from(c >> 4)] as char,
                HEX[usize::from(c & 15)] as char,
            ]);
        } else {
            out.push(c as char);
        }
    }
    out
}

/// `getScheme`: `scheme` and the rest when `raw` starts with `[a-zA-Z][a-zA-Z0-9+.-]*:`, else
/// no scheme.
fn split_scheme(raw: &str) -> Result<(&str, &str), Reason> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(Reason::MissingScheme),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => break,
        }
    }
    Ok(("", raw))
}

/// `url.Parse`: an absolute URL or any relative reference, with a fragment.
pub(crate) fn parse(raw: &str) -> Result<Url, ParseError> {
    let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_reference(before, false).map_err(|reason| ParseError {
        url: before.to_owned(),
        reason,
    })?;
    if !fragment.is_empty() {
        url.set_fragment(fragment).map_err(|reason| ParseError {
            url: raw.to_owned(),
            reason,
        })?;
    }
    Ok(url)
}

/// `url.ParseRequestURI`: an absolute URL or an absolute path, as an HTTP request line holds
/// it (a `#` is part of the path or query, not a fragment).
pub(crate) fn parse_request_uri(raw: &str) -> Result<Url, ParseError> {
    parse_reference(raw, true).map_err(|reason| ParseError {
        url: raw.to_owned(),
        reason,
    })
}

/// Whether `url.ParseRequestURI(s)` succeeds: the `uri` format and CEL's `isURL`.
pub(crate) fn is_request_uri(s: &str) -> bool {
    parse_request_uri(s).is_ok()
}

/// `url.ParseRequestURI(s)`'s error, if it fails.
pub(crate) fn request_uri_error(s: &str) -> Option<String> {
    parse_request_uri(s).err().map(|e| e.to_string())
}

/// `url.ParseRequestURI(s)` succeeds with a scheme and a host (`https://example.com/x`): how
/// the apiserver recognizes a link (the `api-approved.kubernetes.io` annotation's).
pub(crate) fn is_url_with_host(s: &str) -> bool {
    parse_request_uri(s).is_ok_and(|u| !u.scheme.is_empty() && !u.host.is_empty())
}

/// Go's `parse`: everything but the fragment.
fn parse_reference(raw: &str, via_request: bool) -> Result<Url, Reason> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(Reason::ControlCharacter);
    }
    if raw.is_empty() && via_request {
        return Err(Reason::Empty);
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = split_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        rest = before;
        url.raw_query = query.to_owned();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // A rootless path after a scheme is opaque (RFC 3986).
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err(Reason::NotForRequest);
        }
        // `cache_object:foo/bar` is a malformed scheme, not a relative path.
        if rest.split('/').next().is_some_and(|s| s.contains(':')) {
            return Err(Reason::ColonInFirstSegment);
        }
    }
    let authority_follows = !url.scheme.is_empty() || !via_request && !rest.starts_with("///");
    if authority_follows && let Some(after) = rest.strip_prefix("//") {
        let (authority, path) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        (url.user, url.host) = parse_authority(&url.scheme, authority)?;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.set_path(rest)?;
    Ok(url)
}

/// `parseAuthority`: `[userinfo@]host[:port]`.
fn parse_authority(scheme: &str, authority: &str) -> Result<(Option<Userinfo>, Vec<u8>), Reason> {
    let Some(at) = authority.rfind('@') else {
        return Ok((None, parse_host(scheme, authority)?));
    };
    let host = parse_host(scheme, &authority[at + 1..])?;
    let userinfo = &authority[..at];
    if !valid_userinfo(userinfo) {
        return Err(Reason::InvalidUserinfo);
    }
    let user = match userinfo.split_once(':') {
        None => Userinfo {
            username: unescape(userinfo, Component::UserPassword)?,
            password: None,
        },
        Some((username, password)) => Userinfo {
            username: unescape(username, Component::UserPassword)?,
            password: Some(unescape(password, Component::UserPassword)?),
        },
    };
    Ok((Some(user), host))
}

/// `validUserinfo`: RFC 3986's userinfo characters, `%` (escapes are checked when decoding)
/// and `@` (`http://user:p@ss@host`).
fn valid_userinfo(s: &str) -> bool {
    s.bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c))
}

/// `parseHost`: a host and optional port, decoded.
fn parse_host(scheme: &str, host: &str) -> Result<Vec<u8>, Reason> {
    match host.rfind('[') {
        Some(0) => return parse_ip_literal(host),
        Some(_) => return Err(Reason::InvalidIpLiteral),
        None => {}
    }
    if let Some(first) = host.find(':') {
        // go.dev/issue/75223: an http or https host may not hold more colons than its port's;
        // other schemes keep the old reading (`postgres://h1:1,h2:2`), up to the last colon.
        let colon = match scheme {
            "http" | "https" => first,
            _ => host.rfind(':').unwrap_or(first),
        };
        if !valid_optional_port(&host.as_bytes()[colon..]) {
            return Err(Reason::InvalidPort(host[colon..].to_owned()));
        }
    }
    unescape(host, Component::Host)
}

/// An IP-literal host (RFC 3986, with RFC 6874's zones): `[fe80::1%25en0]:80`.
fn parse_ip_literal(host: &str) -> Result<Vec<u8>, Reason> {
    let close = host.rfind(']').ok_or(Reason::MissingBracket)?;
    let colon_port = &host[close + 1..];
    if !valid_optional_port(colon_port.as_bytes()) {
        return Err(Reason::InvalidPort(colon_port.to_owned()));
    }
    let inner = &host[1..close];
    // `%25` starts the zone, which may escape what the address may not.
    let mut address = match inner.find("%25") {
        Some(zone) => {
            let mut a = unescape(&inner[..zone], Component::Host)?;
            a.extend(unescape(&inner[zone..], Component::Zone)?);
            a
        }
        None => unescape(inner, Component::Host)?,
    };
    // Only an IPv6 address may stand in brackets (an IPv4-mapped one too, not plain IPv4).
    let addr = go_net::parse_addr(&address).map_err(Reason::InvalidHost)?;
    if addr.ip.is_ipv4() {
        return Err(Reason::InvalidIpLiteral);
    }
    address.insert(0, b'[');
    address.push(b']');
    address.extend_from_slice(colon_port.as_bytes());
    Ok(address)
}

/// `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// `validEncoded`: whether `s` is a valid encoding of a path or fragment, needing no
/// further escapes.
fn valid_encoded(s: &str, component: Component) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, component))
}

/// A path or fragment decoded, and as written when that is not the default encoding of it
/// (empty otherwise): Go's `setPath` and `setFragment`.
fn decode_keeping_raw(raw: &str, component: Component) -> Result<(Vec<u8>, String), Reason> {
    let decoded = unescape(raw, component)?;
    let kept = match escape(&decoded, component) == raw {
        true => String::new(),
        false => raw.to_owned(),
    };
    Ok((decoded, kept))
}

/// The kept form of a path or fragment, when it is a valid encoding of the decoded one
/// (`EscapedPath` and `EscapedFragment` prefer it to their own encoding).
fn as_written(raw: &str, decoded: &[u8], component: Component) -> Option<String> {
    let valid = !raw.is_empty()
        && valid_encoded(raw, component)
        && unescape(raw, component).is_ok_and(|d| d == decoded);
    valid.then(|| raw.to_owned())
}

/// `url.PathUnescape`: `%XX` escapes decoded (`+` stays `+`); `None` for a bad escape. The
/// in-memory server decodes request paths with it, as Go's HTTP server does.
pub fn unescape_path(raw: &str) -> Option<Vec<u8>> {
    unescape(raw, Component::Path).ok()
}

/// `url.ParseQuery` as `URL.Query()` keeps it: the decoded `key=value` pairs in order, `+`
/// read as a space. A pair holding a `;` or a bad `%` escape is left out, and a query of more
/// than 10000 parameters reads as empty. The in-memory server reads request queries with it.
pub fn parse_query(raw: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    const MAX_PARAMS: usize = 10000;
    if raw.matches('&').count() + 1 > MAX_PARAMS {
        return Vec::new();
    }
    raw.split('&')
        .filter(|pair| !pair.is_empty() && !pair.contains(';'))
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = unescape(key, Component::Query).ok()?;
            let value = unescape(value, Component::Query).ok()?;
            Some((key, value))
        })
        .collect()
}

impl Url {
    /// `setPath`: the decoded path, and the raw one when it is not the default encoding.
    fn set_path(&mut self, raw: &str) -> Result<(), Reason> {
        (self.path, self.raw_path) = decode_keeping_raw(raw, Component::Path)?;
        Ok(())
    }

    /// `setFragment`, as `set_path`.
    fn set_fragment(&mut self, raw: &str) -> Result<(), Reason> {
        (self.fragment, self.raw_fragment) = decode_keeping_raw(raw, Component::Fragment)?;
        Ok(())
    }

    /// `Hostname`: the host without a valid port or IPv6 brackets.
    pub(crate) fn hostname(&self) -> &[u8] {
        split_host_port(&self.host).0
    }

    /// `Port`: the digits after the host's last colon, or empty.
    pub(crate) fn port(&self) -> &str {
        // Only ASCII digits: always UTF-8.
        std::str::from_utf8(split_host_port(&self.host).1).unwrap_or_default()
    }

    /// `EscapedPath`: the path as written when that is a valid encoding of it, else Go's
    /// own encoding.
    pub(crate) fn escaped_path(&self) -> String {
        as_written(&self.raw_path, &self.path, Component::Path).unwrap_or_else(|| {
            match self.path == b"*" {
                true => "*".to_owned(),
                false => escape(&self.path, Component::Path),
            }
        })
    }

    /// `EscapedFragment`, as `escaped_path`.
    fn escaped_fragment(&self) -> String {
        as_written(&self.raw_fragment, &self.fragment, Component::Fragment)
            .unwrap_or_else(|| escape(&self.fragment, Component::Fragment))
    }

    /// `Query`: the query's decoded values by decoded key, each key's in the order they
    /// appear ([`parse_query`]).
    pub(crate) fn query(&self) -> BTreeMap<Vec<u8>, Vec<Vec<u8>>> {
        let mut values: BTreeMap<Vec<u8>, Vec<Vec<u8>>> = BTreeMap::new();
        for (key, value) in parse_query(&self.raw_query) {
            values.entry(key).or_default().push(value);
        }
        values
    }

    /// `String`: the URL written back in Go's canonical form, which the apiserver compares
    /// URLs by.
    pub(crate) fn to_go_string(&self) -> String {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if !self.opaque.is_empty() {
            out.push_str(&self.opaque);
        } else {
            let no_authority = self.omit_host && self.host.is_empty() && self.user.is_none();
            if (!self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some())
                && !no_authority
            {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some(user) = &self.user {
                    out.push_str(&escape(&user.username, Component::UserPassword));
                    if let Some(password) = &user.password {
                        out.push(':');
                        out.push_str(&escape(password, Component::UserPassword));
                    }
                    out.push('@');
                }
                out.push_str(&escape(&self.host, Component::Host));
            }
            let mut path = self.escaped_path();
            // With no authority, a path starting `//` would read back as one.
            if no_authority && path.starts_with("//") {
                path.replace_range(..1, "%2F");
            }
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                out.push('/');
            }
            // A relative path whose first segment has a colon would read as a scheme.
            if out.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                out.push_str("./");
            }
            out.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&self.escaped_fragment());
        }
        out
    }
}

/// `splitHostPort`: the host and the port after its last colon when that is a valid port,
/// with IPv6 brackets removed.
fn split_host_port(host_port: &[u8]) -> (&[u8], &[u8]) {
    let (mut host, mut port) = (host_port, &b""[..]);
    if let Some(colon) = host_port.iter().rposition(|&c| c == b':')
        && valid_optional_port(&host_port[colon..])
    {
        (host, port) = (&host_port[..colon], &host_port[colon + 1..]);
    }
    if let Some(inner) = host.strip_prefix(b"[").and_then(|h| h.strip_suffix(b"]")) {
        host = inner;
    }
    (host, port)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::*;

    /// What go1.27.3's `net/url` answered for each input (`testdata/url/gen.go`).
    const CORPUS: &str = include_str!("testdata/url/corpus.json");

    /// A Go string as the corpus writes it: text when it is UTF-8, else `{"hex": ...}`.
    fn text(s: &[u8]) -> Value {
        match std::str::from_utf8(s) {
            Ok(s) => json!(s),
            Err(_) => json!({"hex": s.iter().map(|b| format!("{b:02x}")).collect::<String>()}),
        }
    }

    /// A result as the corpus records it: empty fields left out; for a built (long) input,
    /// without its raw query and `String`.
    fn record(result: &Result<Url, ParseError>, built: bool) -> Value {
        let u = match result {
            Ok(u) => u,
            Err(e) => return json!({"error": e.to_string()}),
        };
        let mut r = Map::new();
        let mut put = |key: &str, value: Value| {
            let empty = matches!(&value, Value::String(s) if s.is_empty())
                || value == Value::Bool(false)
                || matches!(&value, Value::Array(a) if a.is_empty());
            if !empty {
                r.insert(key.to_owned(), value);
            }
        };
        put("scheme", json!(u.scheme));
        put("opaque", json!(u.opaque));
        if let Some(user) = &u.user {
            let mut v = json!({"username": text(&user.username)});
            if let Some(p) = &user.password {
                v["password"] = text(p);
            }
            put("user", v);
        }
        put("host", text(&u.host));
        put("path", text(&u.path));
        put("raw_path", json!(u.raw_path));
        put("omit_host", json!(u.omit_host));
        put("force_query", json!(u.force_query));
        if !built {
            put("raw_query", json!(u.raw_query));
        }
        put("fragment", text(&u.fragment));
        put("raw_fragment", json!(u.raw_fragment));
        put("hostname", text(u.hostname()));
        put("port", json!(u.port()));
        put("escaped_path", json!(u.escaped_path()));
        let query = u
            .query()
            .into_iter()
            .map(|(k, vs)| json!([text(&k), vs.iter().map(|v| text(v)).collect::<Vec<_>>()]));
        put("query", Value::Array(query.collect()));
        if !built {
            put("string", json!(u.to_go_string()));
        }
        Value::Object(r)
    }

    #[test]
    fn every_input_parses_as_in_go() {
        let corpus: Value = serde_json::from_str(CORPUS).expect("the corpus is JSON");
        assert_eq!(corpus["go"], "go1.27.3", "the apiserver's Go");
        let entries = corpus["entries"].as_array().expect("entries");
        assert!(entries.len() > 900, "the corpus is all there");
        let mut wrong = Vec::new();
        for entry in entries {
            let input = match entry.get("build") {
                Some(b) => {
                    let count = b["count"].as_u64().unwrap_or_default() as usize;
                    let (prefix, unit) = (b["prefix"].as_str(), b["unit"].as_str());
                    format!(
                        "{}{}",
                        prefix.unwrap_or_default(),
                        unit.unwrap_or_default().repeat(count)
                    )
                }
                None => entry["input"].as_str().unwrap_or_default().to_owned(),
            };
            let built = entry.get("build").is_some();
            for (name, got) in [
                ("request", record(&parse_request_uri(&input), built)),
                ("parse", record(&parse(&input), built)),
            ] {
                if got != entry[name] {
                    wrong.push(format!(
                        "{name} {input:?}:\n  ours {got}\n  Go's {}",
                        entry[name]
                    ));
                }
            }
            // The checks built on ParseRequestURI agree with it.
            let request = &entry["request"];
            assert_eq!(is_request_uri(&input), request.get("error").is_none());
            assert_eq!(
                request_uri_error(&input).as_deref(),
                request["error"].as_str()
            );
        }
        assert!(
            wrong.is_empty(),
            "{} of {} differ:\n{}",
            wrong.len(),
            entries.len() * 2,
            wrong.join("\n")
        );
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
            ("https://[x]/", false),
            ("https://h:1:2/", false),
        ] {
            assert_eq!(is_url_with_host(s), ok, "{s}");
        }
    }

    #[test]
    fn errors_read_as_go_writes_them() {
        let err = |s: &str| parse(s).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            err("http://[::1]:x"),
            r#"parse "http://[::1]:x": invalid port ":x" after host"#
        );
        assert_eq!(
            err("http://a b"),
            r#"parse "http://a b": invalid character " " in host name"#
        );
        assert_eq!(err("/%zz#f"), r#"parse "/%zz": invalid URL escape "%zz""#);
        assert_eq!(
            err("/p#%€"),
            r#"parse "/p#%€": invalid URL escape "%\xe2\x82""#
        );
        assert_eq!(
            err("http://[%ff]"),
            r#"parse "http://[%ff]": invalid host: ParseAddr("\xff"): unable to parse IP"#
        );
        assert_eq!(
            err("a:b\u{7f}"),
            r#"parse "a:b\x7f": net/url: invalid control character in URL"#
        );
    }
}
