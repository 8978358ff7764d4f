//! Strings in the formats the apiserver validates for custom resources (kube-openapi's
//! strfmt registry, as filtered by apiextensions' `formats.go`), across the whole range it
//! accepts: the lenient corners too, since a Rust type has to decode those.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

type Rng = ChaCha8Rng;

/// A string the apiserver accepts for `format`, or `None` for a format it does not validate
/// on strings (any string is accepted then).
pub(super) fn generate(format: &str, rng: &mut Rng) -> Option<String> {
    // The apiserver normalizes format names by dropping dashes (`date-time` is `datetime`).
    let s = match format.replace('-', "").as_str() {
        "bsonobjectid" => {
            let upper = rng.random_bool(0.3);
            hex(rng, 24, upper)
        }
        "uri" => uri(rng),
        "email" => email(rng),
        "hostname" => hostname(rng),
        "ipv4" => ipv4(rng),
        "ipv6" => ipv6(rng),
        "cidr" => cidr(rng),
        "mac" => mac(rng),
        "uuid" => uuid(rng, None),
        "uuid3" => uuid(rng, Some('3')),
        "uuid4" => uuid(rng, Some('4')),
        "uuid5" => uuid(rng, Some('5')),
        "isbn" => {
            if rng.random_bool(0.5) {
                isbn10(rng)
            } else {
                isbn13(rng)
            }
        }
        "isbn10" => isbn10(rng),
        "isbn13" => isbn13(rng),
        "creditcard" => credit_card(rng),
        "ssn" => ssn(rng),
        "hexcolor" => hex_color(rng),
        "rgbcolor" => rgb_color(rng),
        "byte" => base64(rng),
        "date" => date(rng),
        "duration" => duration(rng),
        "datetime" => date_time(rng),
        "k8sshortname" => short_name(rng, 63),
        "k8slongname" => long_name(rng),
        _ => return None,
    };
    Some(s)
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items.choose(rng).copied().unwrap_or_default()
}

fn hex(rng: &mut Rng, n: usize, upper: bool) -> String {
    let digits: &[u8] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    (0..n)
        .map(|_| digits[rng.random_range(0..16u32) as usize] as char)
        .collect()
}

fn digits(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

fn lower_alnum(rng: &mut Rng, n: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..n)
        .map(|_| CHARS[rng.random_range(0..CHARS.len() as u32) as usize] as char)
        .collect()
}

/// A DNS-1123 label (`k8s-short-name`): `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most `max` long.
pub(super) fn short_name(rng: &mut Rng, max: u32) -> String {
    let len = if rng.random_bool(0.1) {
        max
    } else {
        rng.random_range(1..=max.min(12))
    } as usize;
    let mut s = lower_alnum(rng, len);
    if len > 2 {
        // Dashes inside, never at either end.
        for _ in 0..rng.random_range(0..3u32) {
            let at = rng.random_range(1..len as u32 - 1) as usize;
            s.replace_range(at..at + 1, "-");
        }
    }
    s
}

/// A DNS-1123 subdomain (`k8s-long-name`), at most 253 long.
pub(super) fn long_name(rng: &mut Rng) -> String {
    let mut s = short_name(rng, 63);
    for _ in 0..rng.random_range(0..4u32) {
        let next = short_name(rng, 63);
        if s.len() + 1 + next.len() > 253 {
            break;
        }
        s.push('.');
        s.push_str(&next);
    }
    s
}

fn uri(rng: &mut Rng) -> String {
    // Go's url.ParseRequestURI: an absolute URI, or an absolute path.
    let host = pick(
        rng,
        &[
            "example.com",
            "127.0.0.1",
            "[::1]",
            "a.b-c.example",
            "user:pw@host",
        ],
    );
    let path = pick(
        rng,
        &["", "/", "/a/b", "/%41%20b", "/a;b=c", "/ünï/😀", "//x"],
    );
    // Without a path, Go reads a fragment as part of the host: keep it after a query.
    let query = pick(rng, &["", "?", "?a=1&b=2", "?q=%2F&x", "?#frag", "?a=1#f"]);
    match rng.random_range(0..5u32) {
        0 => format!("/{}{query}", lower_alnum(rng, 3)),
        1 => format!(
            "{}:{}",
            pick(rng, &["mailto", "urn", "x-y+z.w"]),
            pick(rng, &["a@b.c", "isbn:0451450523", "opaque/part"])
        ),
        2 => format!(
            "{}://{host}:{}{path}{query}",
            pick(rng, &["http", "https", "ftp"]),
            rng.random_range(0..65536u32)
        ),
        _ => format!(
            "{}://{host}{path}{query}",
            pick(rng, &["http", "https", "s3", "git+ssh"])
        ),
    }
}

fn email(rng: &mut Rng) -> String {
    // Go's net/mail.ParseAddress: an addr-spec, optionally with a display name.
    let local = pick(
        rng,
        &[
            "a",
            "first.last",
            "x+tag",
            "\"quoted local\"",
            "o'neil",
            "_-_",
        ],
    );
    let domain = pick(
        rng,
        &[
            "example.com",
            "b",
            "sub.example.co.uk",
            "xn--bcher-kva.example",
        ],
    );
    let addr = format!("{local}@{domain}");
    match rng.random_range(0..4u32) {
        0 => format!("Name <{addr}>"),
        1 => format!("\"Last, First\" <{addr}>"),
        2 => format!("<{addr}>"),
        _ => addr,
    }
}

fn hostname(rng: &mut Rng) -> String {
    // kube-openapi's HostnamePattern: letters (any script), digits and symbols, dashes inside
    // labels, a top-level domain of 2 to 63 letters; a single label needs no dot.
    const LABEL_CHARS: &[&str] = &["a", "z", "Q", "0", "9", "é", "ж", "中", "€", "+"];
    let label = |rng: &mut Rng| -> String {
        let len = rng.random_range(1..=8u32);
        let mut chars: Vec<&str> = (0..len).map(|_| pick(rng, LABEL_CHARS)).collect();
        if len > 2 && rng.random_bool(0.3) {
            chars.insert(1, "-");
        }
        chars.concat()
    };
    if rng.random_bool(0.2) {
        // The single-label form: at most one dash between runs of label characters.
        let mut s = pick(rng, LABEL_CHARS).to_owned();
        if rng.random_bool(0.5) {
            s.push('-');
            s.push_str(pick(rng, LABEL_CHARS));
        }
        return s;
    }
    let mut parts: Vec<String> = (0..rng.random_range(1..=3u32))
        .map(|_| label(rng))
        .collect();
    let tld_len = rng.random_range(2..=6u32);
    parts.push(
        (0..tld_len)
            .map(|_| pick(rng, &["a", "Z", "é", "ж"]))
            .collect(),
    );
    parts.join(".")
}

fn octet(rng: &mut Rng) -> String {
    let n = rng.random_range(0..256u32);
    // ParseIPSloppy accepts leading zeros.
    if rng.random_bool(0.1) {
        format!("{n:03}")
    } else {
        n.to_string()
    }
}

fn ipv4(rng: &mut Rng) -> String {
    if rng.random_bool(0.1) {
        // An IPv4-mapped IPv6 address parses, and it contains a dot.
        let plain: Vec<String> = (0..4)
            .map(|_| rng.random_range(0..256u32).to_string())
            .collect();
        return format!("::ffff:{}", plain.join("."));
    }
    (0..4).map(|_| octet(rng)).collect::<Vec<_>>().join(".")
}

fn ipv6(rng: &mut Rng) -> String {
    let groups: Vec<String> = (0..8)
        .map(|_| format!("{:x}", rng.random_range(0..=0xffffu32)))
        .collect();
    match rng.random_range(0..5u32) {
        0 => "::".into(),
        1 => format!("::{}", groups[7]),
        2 => format!("{}::{}", groups[0..3].join(":"), groups[6]),
        3 => format!(
            "::ffff:{}.{}.{}.{}",
            rng.random_range(0..256u32),
            rng.random_range(0..256u32),
            rng.random_range(0..256u32),
            rng.random_range(0..256u32)
        ),
        _ => groups.join(":").to_uppercase(),
    }
}

fn cidr(rng: &mut Rng) -> String {
    if rng.random_bool(0.5) {
        let ip = (0..4).map(|_| octet(rng)).collect::<Vec<_>>().join(".");
        format!("{ip}/{}", rng.random_range(0..=32u32))
    } else {
        let groups: Vec<String> = (0..8)
            .map(|_| format!("{:x}", rng.random_range(0..=0xffffu32)))
            .collect();
        format!("{}/{}", groups.join(":"), rng.random_range(0..=128u32))
    }
}

fn mac(rng: &mut Rng) -> String {
    // net.ParseMAC: 6, 8 or 20 octets, colon- or dash-separated pairs, or dotted quads.
    let octets = *[6usize, 8, 20].choose(rng).unwrap_or(&6);
    let upper = rng.random_bool(0.3);
    match rng.random_range(0..3u32) {
        0 => (0..octets / 2)
            .map(|_| hex(rng, 4, upper))
            .collect::<Vec<_>>()
            .join("."),
        n => {
            let sep = if n == 1 { ":" } else { "-" };
            (0..octets)
                .map(|_| hex(rng, 2, upper))
                .collect::<Vec<_>>()
                .join(sep)
        }
    }
}

fn uuid(rng: &mut Rng, version: Option<char>) -> String {
    let upper = rng.random_bool(0.3);
    let mut groups = [
        hex(rng, 8, upper),
        hex(rng, 4, upper),
        hex(rng, 4, upper),
        hex(rng, 4, upper),
        hex(rng, 12, upper),
    ];
    if let Some(v) = version {
        groups[2].replace_range(0..1, &v.to_string());
        if v != '3' {
            let variant = pick(rng, &["8", "9", "a", "b"]);
            let variant = if upper {
                variant.to_uppercase()
            } else {
                variant.to_owned()
            };
            groups[3].replace_range(0..1, &variant);
        }
    }
    // Each dash is optional.
    let mut s = groups[0].clone();
    for g in &groups[1..] {
        if rng.random_bool(0.8) {
            s.push('-');
        }
        s.push_str(g);
    }
    s
}

/// Dashes and spaces sprinkled between characters, which ISBN checks strip.
fn sprinkle(rng: &mut Rng, s: &str, separators: &[&str]) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && rng.random_bool(0.15) {
            out.push_str(pick(rng, separators));
        }
        out.push(c);
    }
    out
}

fn isbn10(rng: &mut Rng) -> String {
    let body: Vec<u32> = (0..9).map(|_| rng.random_range(0..10u32)).collect();
    let sum: u32 = body
        .iter()
        .enumerate()
        .map(|(i, d)| (i as u32 + 1) * d)
        .sum();
    let check = match sum % 11 {
        10 => 'X',
        d => char::from_digit(d, 10).unwrap_or('0'),
    };
    let s: String = body
        .iter()
        .filter_map(|d| char::from_digit(*d, 10))
        .chain([check])
        .collect();
    sprinkle(rng, &s, &["-", " ", "\t"])
}

fn isbn13(rng: &mut Rng) -> String {
    let body: Vec<u32> = (0..12).map(|_| rng.random_range(0..10u32)).collect();
    let sum: u32 = body
        .iter()
        .enumerate()
        .map(|(i, d)| if i % 2 == 0 { *d } else { 3 * d })
        .sum();
    let check = (10 - sum % 10) % 10;
    let s: String = body
        .iter()
        .chain([&check])
        .filter_map(|d| char::from_digit(*d, 10))
        .collect();
    sprinkle(rng, &s, &["-", " "])
}

fn credit_card(rng: &mut Rng) -> String {
    // A Visa, Mastercard or Amex number with a valid Luhn digit; the apiserver strips every
    // non-digit before checking, so anything may be mixed in.
    let (prefix, len) = *[
        ("4", 16usize),
        ("4", 13),
        ("51", 16),
        ("55", 16),
        ("34", 15),
        ("37", 15),
        ("6011", 16),
    ]
    .choose(rng)
    .unwrap_or(&("4", 16));
    let mut number: Vec<u32> = prefix.chars().filter_map(|c| c.to_digit(10)).collect();
    while number.len() < len - 1 {
        number.push(rng.random_range(0..10u32));
    }
    let sum: u32 = number
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 0 {
                let d2 = d * 2;
                if d2 >= 10 { d2 - 9 } else { d2 }
            } else {
                d
            }
        })
        .sum();
    number.push((10 - sum % 10) % 10);
    let s: String = number
        .iter()
        .filter_map(|d| char::from_digit(*d, 10))
        .collect();
    sprinkle(rng, &s, &["-", " ", "x", "/"])
}

fn ssn(rng: &mut Rng) -> String {
    // `^\d{3}[- ]?\d{2}[- ]?\d{4}$`, and exactly 11 bytes long: both separators present.
    let sep = |rng: &mut Rng| pick(rng, &["-", " "]);
    format!(
        "{}{}{}{}{}",
        digits(rng, 3),
        sep(rng),
        digits(rng, 2),
        sep(rng),
        digits(rng, 4)
    )
}

fn hex_color(rng: &mut Rng) -> String {
    let hash = if rng.random_bool(0.7) { "#" } else { "" };
    let n = if rng.random_bool(0.5) { 3 } else { 6 };
    let upper = rng.random_bool(0.3);
    format!("{hash}{}", hex(rng, n, upper))
}

fn rgb_color(rng: &mut Rng) -> String {
    let space = |rng: &mut Rng| pick(rng, &["", " ", "  ", "\t"]);
    let parts: Vec<String> = (0..3)
        .map(|_| {
            format!(
                "{}{}{}",
                space(rng),
                rng.random_range(0..256u32),
                space(rng)
            )
        })
        .collect();
    format!("rgb({})", parts.join(","))
}

fn base64(rng: &mut Rng) -> String {
    // Standard alphabet, padded, never empty.
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s: String = (0..4 * rng.random_range(0..4u32))
        .map(|_| CHARS[rng.random_range(0..64u32) as usize] as char)
        .collect();
    let tail = rng.random_range(2..=4u32);
    for _ in 0..tail {
        s.push(CHARS[rng.random_range(0..64u32) as usize] as char);
    }
    for _ in tail..4 {
        s.push('=');
    }
    s
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DD`, any valid calendar date from year 0000 to 9999.
fn date(rng: &mut Rng) -> String {
    let year = match rng.random_range(0..6u32) {
        0 => *[0u32, 1, 1970, 2000, 9999].choose(rng).unwrap_or(&2000),
        _ => rng.random_range(1900..2100u32),
    };
    let month = rng.random_range(1..=12u32);
    let day = if rng.random_bool(0.2) {
        days_in_month(year, month)
    } else {
        rng.random_range(1..=days_in_month(year, month))
    };
    format!("{year:04}-{month:02}-{day:02}")
}

/// What kube-openapi's `IsDateTime` accepts: a date, `t` in either case, `HH:MM:SS` up to
/// 23:59:59, an optional fraction introduced by any character, `z` in either case or an
/// offset of any two-digit hours and minutes, and anything after a further `t`.
fn date_time(rng: &mut Rng) -> String {
    let mut s = date(rng);
    s.push_str(pick(rng, &["T", "T", "T", "t"]));
    let (h, m, sec) = if rng.random_bool(0.2) {
        (23, 59, 59)
    } else {
        (
            rng.random_range(0..24u32),
            rng.random_range(0..60u32),
            rng.random_range(0..60u32),
        )
    };
    s.push_str(&format!("{h:02}:{m:02}:{sec:02}"));
    if rng.random_bool(0.4) {
        s.push_str(pick(rng, &[".", ".", ",", "x"]));
        let n = *[1usize, 3, 6, 9, 12].choose(rng).unwrap_or(&3);
        s.push_str(&digits(rng, n));
    }
    match rng.random_range(0..6u32) {
        0 | 1 => s.push('Z'),
        2 => s.push('z'),
        3 => s.push_str(&format!(
            "{}{:02}:{:02}",
            pick(rng, &["+", "-"]),
            rng.random_range(0..24u32),
            rng.random_range(0..60u32)
        )),
        4 => s.push_str(&format!(
            "{}{:02}:{:02}",
            pick(rng, &["+", "-"]),
            rng.random_range(0..100u32),
            rng.random_range(0..100u32)
        )),
        _ => s.push_str(pick(rng, &["+00:00", "-00:00"])),
    }
    if rng.random_bool(0.05) {
        s.push_str(pick(rng, &["T", "t", "tail"]));
    }
    s
}

/// Go's `time.ParseDuration` forms, and the looser "number unit" runs kube-openapi also takes.
fn duration(rng: &mut Rng) -> String {
    const GO_UNITS: &[&str] = &["ns", "us", "µs", "μs", "ms", "s", "m", "h"];
    const LOOSE_UNITS: &[&str] = &[
        "ns", "nano", "us", "micro", "ms", "milli", "s", "sec", "m", "min", "h", "hr", "hour",
        "hours", "d", "day", "days", "w", "wk", "week", "weeks", "Minutes", "SEC",
    ];
    if rng.random_bool(0.6) {
        let mut s = pick(rng, &["", "", "", "-", "+"]).to_owned();
        if rng.random_bool(0.1) {
            s.push('0');
            return s;
        }
        for _ in 0..rng.random_range(1..=3u32) {
            s.push_str(&rng.random_range(0..1000u32).to_string());
            if rng.random_bool(0.2) {
                s.push('.');
                s.push_str(&digits(rng, 2));
            }
            s.push_str(pick(rng, GO_UNITS));
        }
        s
    } else {
        let parts: Vec<String> = (0..rng.random_range(1..=3u32))
            .map(|_| {
                format!(
                    "{}{}{}",
                    rng.random_range(0..100u32),
                    pick(rng, &["", " ", "  "]),
                    pick(rng, LOOSE_UNITS)
                )
            })
            .collect();
        parts.join(pick(rng, &[" ", ", ", " and "]))
    }
}
