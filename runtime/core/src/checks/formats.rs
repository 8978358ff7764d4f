//! The string formats the apiserver validates for custom resources (v1.36), with Go's
//! semantics (kube-openapi's `strfmt` registry).
//!
//! A format the apiserver does not know is stripped from the schema and so never checked;
//! `int32`/`int64` on integers and `float`/`double` on numbers are kept (they bound the
//! value's range instead). Known approximations of Go's behaviour: `email` (Go's RFC 5322
//! parser, see `go_net::is_email`), `\p{..}` classes in `hostname` follow Rust's Unicode
//! tables rather than Go's, and unassigned code points print unescaped in `%q`.

use std::sync::LazyLock;

use regex::Regex;

use super::go_net::{self, IpSyntax};

use kubegen_go::formats::normalize;
pub use kubegen_go::formats::{is_string_format, is_validated};

fn re(pattern: &str) -> Regex {
    // The patterns below are constants that compile; a failure is a bug caught by the tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("format pattern {pattern}: {e}"))
}

static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static UUID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
});
static UUID4: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static UUID5: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$",
    )
});
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    let n = r"(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
    let s = r"[\t\n\f\r ]*";
    re(&format!(r"^rgb\({s}{n}{s},{s}{n}{s},{s}{n}{s}\)$"))
});
static BASE64: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
});
static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$"));
static SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
static LONG_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
static DATE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
});
static DURATION_PART: LazyLock<Regex> = LazyLock::new(|| re(r"(([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+))"));

/// Whether `value` is valid for the string format `format` (any spelling Go accepts:
/// `date-time` and `datetime` are one format). Unknown formats accept everything.
pub fn validates(format: &str, value: &str) -> bool {
    match normalize(format).as_str() {
        "bsonobjectid" => value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => go_net::is_request_uri(value),
        "email" => go_net::is_email(value),
        "hostname" => {
            HOSTNAME.is_match(value)
                && value.len() <= 255
                && value.split('.').all(|p| p.len() <= 63)
        }
        "ipv4" => go_net::is_ip(value, IpSyntax::Sloppy) && value.contains('.'),
        "ipv6" => go_net::is_ip(value, IpSyntax::Strict) && value.contains(':'),
        "cidr" => go_net::is_cidr(value),
        "mac" => go_net::is_mac(value),
        "uuid" => UUID.is_match(value),
        "uuid3" => UUID3.is_match(value),
        "uuid4" => UUID4.is_match(value),
        "uuid5" => UUID5.is_match(value),
        "isbn" => is_isbn10(value) || is_isbn13(value),
        "isbn10" => is_isbn10(value),
        "isbn13" => is_isbn13(value),
        "creditcard" => is_credit_card(value),
        "ssn" => value.len() == 11 && SSN.is_match(value),
        "hexcolor" => HEX_COLOR.is_match(value),
        "rgbcolor" => RGB_COLOR.is_match(value),
        "byte" => BASE64.is_match(value),
        "date" => is_date(value),
        "duration" => is_go_duration(value) || is_scala_duration(value),
        "datetime" => is_date_time(value),
        "k8sshortname" => value.len() <= 63 && SHORT_NAME.is_match(value),
        "k8slongname" => value.len() <= 253 && LONG_NAME.is_match(value),
        _ => true,
    }
}

/// ISBN digits with ASCII whitespace and dashes removed.
fn isbn_digits(value: &str) -> Vec<u8> {
    value
        .bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'-'))
        .collect()
}

fn is_isbn10(value: &str) -> bool {
    let d = isbn_digits(value);
    let shape = d.len() == 10
        && d[..9].iter().all(u8::is_ascii_digit)
        && (d[9].is_ascii_digit() || d[9] == b'X');
    if !shape {
        return false;
    }
    let mut sum: u32 = (0..9)
        .map(|i| (i as u32 + 1) * u32::from(d[i] - b'0'))
        .sum();
    sum += 10
        * if d[9] == b'X' {
            10
        } else {
            u32::from(d[9] - b'0')
        };
    sum.is_multiple_of(11)
}

fn is_isbn13(value: &str) -> bool {
    let d = isbn_digits(value);
    if d.len() != 13 || !d.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = (0..12)
        .map(|i| [1, 3][i % 2] * u32::from(d[i] - b'0'))
        .sum();
    u32::from(d[12] - b'0') == (10 - sum % 10) % 10
}

fn is_credit_card(value: &str) -> bool {
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        let mut n = u32::from(b - b'0');
        if i % 2 == 1 {
            n *= 2;
            if n >= 10 {
                n = n % 10 + 1;
            }
        }
        sum += n;
    }
    sum.is_multiple_of(10)
}

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, a real date.
fn is_date(value: &str) -> bool {
    parse_date(value).is_some()
}

/// The year, month and day of a `time.Parse("2006-01-02", s)` date.
pub(super) fn parse_date(value: &str) -> Option<(i64, u32, u32)> {
    let b = value.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !digits(0..4) || !digits(5..7) {
        return None;
    }
    if !digits(8..10) {
        return None;
    }
    let year: i64 = value[0..4].parse().ok()?;
    let month: u32 = value[5..7].parse().ok()?;
    let day: u32 = value[8..10].parse().ok()?;
    ((1..=12).contains(&month) && day >= 1 && day <= days_in(month, year))
        .then_some((year, month, day))
}

/// kube-openapi's `IsDateTime`: a date, a `t` (either case), and a time of day with an
/// optional fraction and a `z` or `±hh:mm` offset. Only the text between the first and
/// second `t` is checked as the time, as Go does.
fn is_date_time(value: &str) -> bool {
    if value.len() < 4 {
        return false;
    }
    let lower = value.to_lowercase();
    let parts: Vec<&str> = lower.split('t').collect();
    if parts.len() < 2 || !is_date(parts[0]) {
        return false;
    }
    match DATE_TIME.captures(parts[1]) {
        Some(c) => &c[1] <= "23" && &c[2] <= "59" && &c[3] <= "59",
        None => false,
    }
}

fn is_go_duration(value: &str) -> bool {
    go_duration(value).is_some()
}

fn is_scala_duration(value: &str) -> bool {
    scala_duration(value).is_some()
}

/// strfmt's `ParseDuration`: Go's syntax, else the fallback syntax; nanoseconds.
pub(super) fn duration_nanos(value: &str) -> Option<i64> {
    go_duration(value).or_else(|| scala_duration(value))
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units ns, us, µs,
/// ms, s, m, h, or `0`, within ±2^63 nanoseconds; nanoseconds.
pub(super) fn go_duration(value: &str) -> Option<i64> {
    const LIMIT: u64 = 1 << 63;
    let (neg, s) = match value.as_bytes().first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    if s == "0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return None;
        }
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (int, after) = rest.split_at(int_len);
        let mut v: u64 = 0;
        for d in int.bytes() {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            if v > LIMIT {
                return None;
            }
        }
        // Fraction digits past what a u64 holds are dropped, as Go's leadingFraction does.
        let (mut f, mut scale, mut post, mut after) = (0u64, 1f64, false, after);
        if let Some(a) = after.strip_prefix('.') {
            let n = a.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for d in a[..n].bytes() {
                if overflow {
                    continue;
                }
                match f
                    .checked_mul(10)
                    .and_then(|x| x.checked_add(u64::from(d - b'0')))
                {
                    Some(x) if x <= LIMIT => {
                        f = x;
                        scale *= 10.0;
                    }
                    _ => overflow = true,
                }
            }
            post = n > 0;
            after = &a[n..];
        }
        if int.is_empty() && !post {
            return None;
        }
        let unit_len = after
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map_or(after.len(), |(i, _)| i);
        let (unit, next) = after.split_at(unit_len);
        let unit: u64 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        if v > LIMIT / unit {
            return None;
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return None;
            }
        }
        total += v;
        if total > LIMIT {
            return None;
        }
        rest = next;
    }
    if neg {
        Some((total as i64).wrapping_neg())
    } else if total > LIMIT - 1 {
        None
    } else {
        Some(total as i64)
    }
}

/// kube-openapi's fallback duration syntax: some `<digits> <unit>` pair anywhere, with
/// units such as `d`, `days`, `w`, `weeks`, `hr`, `sec` (compared case-insensitively, the
/// longest spelling of each unit also as a prefix); nanoseconds (Go's wrapping arithmetic).
fn scala_duration(value: &str) -> Option<i64> {
    const UNITS: &[(&[&str], i64)] = &[
        (&["ns", "nano"], 1),
        (&["us", "µs", "micro"], 1_000),
        (&["ms", "milli"], 1_000_000),
        (&["s", "sec"], 1_000_000_000),
        (&["m", "min"], 60_000_000_000),
        (&["h", "hr", "hour"], 3_600_000_000_000),
        (&["d", "day"], 86_400_000_000_000),
        (&["w", "wk", "week"], 604_800_000_000_000),
    ];
    let mut total: Option<i64> = None;
    for m in DURATION_PART.captures_iter(value) {
        let factor = m[2].parse::<i64>().ok()?;
        let unit = m[3].to_lowercase();
        let unit = unit.trim();
        for (variants, multiplier) in UNITS {
            let last = variants.len() - 1;
            for (i, v) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(v)) || v.to_lowercase() == unit {
                    let sum = total.unwrap_or(0);
                    total = Some(sum.wrapping_add(factor.wrapping_mul(*multiplier)));
                }
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_accept_go_and_scala_forms() {
        for ok in [
            "1h30m", "-1.5s", "0", "300ms", "1µs", "5 days", "3 weeks", "2hours",
        ] {
            assert!(validates("duration", ok), "{ok}");
        }
        for bad in ["x", "", "1", "1y", ".s", "5 x"] {
            assert!(!validates("duration", bad), "{bad}");
        }
    }
}
