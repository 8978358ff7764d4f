//! What go-yaml v2 makes of a scalar decoded into `interface{}`: YAML 1.1's types, resolved
//! from the text of plain scalars (`yes` and `on` are booleans, `012` is octal, `1_000` an
//! int, `.inf` a float, `~` null) or named by a tag (`!!str`, `!!int`, `!!binary`, ...).

use base64::Engine as _;

use super::Error;

const TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// A scalar's Go value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Scalar {
    Null,
    Bool(bool),
    /// Go's `int`.
    Int(i64),
    /// A `uint64` past int64's range.
    Uint(u64),
    Float(f64),
    /// A string; from `!!binary`, bytes that need not be UTF-8.
    Str(Vec<u8>),
}

/// A tag as go-yaml's messages show it: `!!int` for YAML's own.
fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_owned(),
    }
}

/// The value of a scalar with text `value`, tag `tag` (empty for none) and whether it is
/// plain and untagged (`implicit`).
pub(super) fn scalar(tag: &str, value: &str, implicit: bool) -> Result<Scalar, Error> {
    if tag.is_empty() && !implicit {
        return Ok(Scalar::Str(value.as_bytes().to_vec()));
    }
    let long = |name: &str| format!("{TAG_PREFIX}{name}");
    if tag == long("binary") {
        let text: Vec<u8> = value
            .bytes()
            .filter(|b| !matches!(b, b'\r' | b'\n'))
            .collect();
        let engine = base64::engine::GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            base64::engine::GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
        );
        return engine
            .decode(text)
            .map(Scalar::Str)
            .map_err(|_| Error::new("yaml: !!binary value contains invalid base64 data".into()));
    }
    let resolvable = ["", "str", "bool", "int", "float", "null", "timestamp"]
        .iter()
        .any(|t| {
            if t.is_empty() {
                tag.is_empty()
            } else {
                tag == long(t)
            }
        });
    if !resolvable {
        // Unknown tags (`!foo`, `!`) leave the text as it is.
        return Ok(Scalar::Str(value.as_bytes().to_vec()));
    }
    let (resolved_tag, resolved) = resolve_text(tag, value);
    if tag.is_empty() || tag == long("str") || tag == long(resolved_tag) {
        return Ok(resolved);
    }
    // `!!float 1` is the float 1.
    if tag == long("float")
        && let Scalar::Int(i) = resolved
    {
        return Ok(Scalar::Float(i as f64));
    }
    Err(Error::new(format!(
        "yaml: cannot decode {} `{value}` as a {}",
        short_tag(&long(resolved_tag)),
        short_tag(tag)
    )))
}

/// The type and value go-yaml's `resolve` finds for `text` (tag `tag`, resolvable).
fn resolve_text(tag: &str, text: &str) -> (&'static str, Scalar) {
    let as_str = || ("str", Scalar::Str(text.as_bytes().to_vec()));
    if tag.ends_with(":str") {
        return as_str();
    }
    let hint = match text.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => return as_str(),
    };
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return ("bool", Scalar::Bool(true));
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return ("bool", Scalar::Bool(false));
        }
        "" | "~" | "null" | "Null" | "NULL" => return ("null", Scalar::Null),
        ".nan" | ".NaN" | ".NAN" => return ("float", Scalar::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return ("float", Scalar::Float(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return ("float", Scalar::Float(f64::NEG_INFINITY)),
        "<<" => return ("merge", Scalar::Str(text.as_bytes().to_vec())),
        _ => {}
    }
    match hint {
        b'.' => {
            if let Some(f) = decimal_float(text) {
                return ("float", Scalar::Float(f));
            }
        }
        b'D' | b'S' => {
            // A timestamp decodes into interface{} as its text, like a string would.
            let plain = text.replace('_', "");
            if let Some(i) = parse_int(&plain) {
                return ("int", Scalar::Int(i));
            }
            if let Some(u) = parse_uint(&plain) {
                return ("int", Scalar::Uint(u));
            }
            if is_yaml_float(&plain)
                && let Some(f) = decimal_float(&plain)
            {
                return ("float", Scalar::Float(f));
            }
            if let Some(bits) = plain.strip_prefix("0b") {
                if let Some(i) = parse_int_radix(bits, 2) {
                    return ("int", Scalar::Int(i));
                }
                if let Some(u) = parse_uint_radix(bits, 2) {
                    return ("int", Scalar::Uint(u));
                }
            } else if let Some(bits) = plain.strip_prefix("-0b")
                && let Some(i) = parse_int_radix(&format!("-{bits}"), 2)
            {
                return ("int", Scalar::Int(i));
            }
            if tag.ends_with(":timestamp") && is_timestamp(text) {
                return ("timestamp", Scalar::Str(text.as_bytes().to_vec()));
            }
        }
        _ => {}
    }
    as_str()
}

/// Go's `strconv.ParseFloat` on decimal text: `None` for a syntax error or an overflow.
fn decimal_float(text: &str) -> Option<f64> {
    let ok = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    let f: f64 = text.parse().ok().filter(|_| ok)?;
    f.is_finite().then_some(f)
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Whether go-yaml reads `text` as a timestamp (`2001-12-14`, `2001-12-14T21:59:43Z`, ...):
/// four digits and a `-`, then a date of one or two digit parts, and an optional time.
fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let (date, time) = match text[5..].find(['T', 't', ' ']) {
        Some(i) => (&text[5..5 + i], Some(&text[6 + i..])),
        None => (&text[5..], None),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let small = |p: &str| (1..=2).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit());
    parts.len() == 2
        && parts.iter().all(|p| small(p))
        && time.is_none_or(|t| t.split(':').count() == 3)
}

/// Go's `strconv.ParseUint(text, radix, 64)`: digits of the base only.
fn parse_uint_radix(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go's `strconv.ParseInt(text, radix, 64)`: an optional sign, then digits of the base.
fn parse_int_radix(text: &str, radix: u32) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'+') => (false, &text[1..]),
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    signed(negative, parse_uint_radix(digits, radix)?)
}

fn signed(negative: bool, magnitude: u64) -> Option<i64> {
    match negative {
        false => i64::try_from(magnitude).ok(),
        true if magnitude <= 1 << 63 => Some((magnitude as i64).wrapping_neg()),
        true => None,
    }
}

/// Go's `strconv.ParseUint(text, 0, 64)`: a base prefix (`0x`, `0o`, `0b`, or a leading `0`
/// for octal) decides the base.
pub(super) fn parse_uint(text: &str) -> Option<u64> {
    let (digits, radix) = match text.as_bytes() {
        [] => return None,
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'b') => (&text[2..], 2),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'o') => (&text[2..], 8),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'x') => (&text[2..], 16),
        [b'0', ..] => (&text[1..], 8),
        _ => (text, 10),
    };
    // A lone `0` is octal with no digits after the prefix.
    if digits.is_empty() && text == "0" {
        return Some(0);
    }
    parse_uint_radix(digits, radix)
}

/// Go's `strconv.ParseInt(text, 0, 64)`.
pub(super) fn parse_int(text: &str) -> Option<i64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'+') => (false, &text[1..]),
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    if rest.is_empty() {
        return None;
    }
    signed(negative, parse_uint(rest)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Scalar {
        scalar("", text, true).unwrap()
    }

    #[test]
    fn plain_scalars_resolve_as_yaml_1_1() {
        assert_eq!(plain("yes"), Scalar::Bool(true));
        assert_eq!(plain("Off"), Scalar::Bool(false));
        assert_eq!(plain("~"), Scalar::Null);
        assert_eq!(plain(""), Scalar::Null);
        assert_eq!(plain("012"), Scalar::Int(10));
        assert_eq!(plain("0x10"), Scalar::Int(16));
        assert_eq!(plain("-0x10"), Scalar::Int(-16));
        assert_eq!(plain("0o17"), Scalar::Int(15));
        assert_eq!(plain("0b101"), Scalar::Int(5));
        assert_eq!(plain("-0b101"), Scalar::Int(-5));
        assert_eq!(plain("1_000"), Scalar::Int(1000));
        assert_eq!(plain("+1"), Scalar::Int(1));
        assert_eq!(plain("09"), Scalar::Float(9.0));
        assert_eq!(plain("1.0"), Scalar::Float(1.0));
        assert_eq!(plain(".5"), Scalar::Float(0.5));
        assert_eq!(plain("9223372036854775808"), Scalar::Uint(1 << 63));
        assert_eq!(plain("-9223372036854775808"), Scalar::Int(i64::MIN));
        assert_eq!(plain("1e309"), Scalar::Str(b"1e309".to_vec()));
        assert!(matches!(plain(".inf"), Scalar::Float(f) if f == f64::INFINITY));
        assert_eq!(plain("2001-12-14"), Scalar::Str(b"2001-12-14".to_vec()));
        assert_eq!(plain("0x"), Scalar::Str(b"0x".to_vec()));
        assert_eq!(plain("_1"), Scalar::Str(b"_1".to_vec()));
        assert_eq!(
            scalar("", "yes", false).unwrap(),
            Scalar::Str(b"yes".to_vec())
        );
    }

    #[test]
    fn tags_name_types() {
        let tag = |t: &str, v: &str| scalar(&format!("{TAG_PREFIX}{t}"), v, false);
        assert_eq!(tag("str", "12").unwrap(), Scalar::Str(b"12".to_vec()));
        assert_eq!(tag("float", "1").unwrap(), Scalar::Float(1.0));
        assert_eq!(
            tag("binary", "aGk=\n").unwrap(),
            Scalar::Str(b"hi".to_vec())
        );
        assert_eq!(
            tag("int", "abc").unwrap_err().to_string(),
            "yaml: cannot decode !!str `abc` as a !!int"
        );
        assert_eq!(
            scalar("!foo", "1", false).unwrap(),
            Scalar::Str(b"1".to_vec())
        );
    }
}
