//! The `timeout` query parameter, read before anything else as the apiserver's
//! request-deadline filter reads it: Go's `time.ParseDuration`, whose errors are the 400's
//! message.

/// Go's `time.ParseDuration` of `value` (bytes, as Go holds a query value): the duration in
/// nanoseconds, or Go's error text (`time: missing unit in duration "1"`).
pub(crate) fn parse(value: &[u8]) -> Result<i64, String> {
    let invalid = |message: &str| Err(format!("time: {message} {}", quote(value)));
    let mut s = value;
    let mut negative = false;
    if let Some((&sign @ (b'-' | b'+'), rest)) = s.split_first() {
        negative = sign == b'-';
        s = rest;
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return invalid("invalid duration");
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return invalid("invalid duration");
        }
        // The integer part; an overflow is an invalid duration.
        let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut whole: u64 = 0;
        for &b in &s[..digits] {
            if whole > (1 << 63) / 10 {
                return invalid("invalid duration");
            }
            whole = whole * 10 + u64::from(b - b'0');
            if whole > 1 << 63 {
                return invalid("invalid duration");
            }
        }
        s = &s[digits..];
        // The fraction: digits past what fits are ignored.
        let (mut fraction, mut scale, mut fraction_digits) = (0u64, 1f64, 0);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            fraction_digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
            let mut overflow = false;
            for &b in &s[..fraction_digits] {
                if overflow || fraction > ((1u64 << 63) - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(b - b'0');
                if next > 1 << 63 {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            s = &s[fraction_digits..];
        }
        if digits == 0 && fraction_digits == 0 {
            return invalid("invalid duration");
        }
        let unit_len = s
            .iter()
            .take_while(|b| !(**b == b'.' || b.is_ascii_digit()))
            .count();
        if unit_len == 0 {
            return invalid("missing unit in duration");
        }
        let (unit, rest) = s.split_at(unit_len);
        s = rest;
        let Some(nanos) = unit_nanos(unit) else {
            return invalid(&format!("unknown unit {} in duration", quote(unit)));
        };
        if whole > (1 << 63) / nanos {
            return invalid("invalid duration");
        }
        let mut v = whole * nanos;
        if fraction > 0 {
            v += (fraction as f64 * (nanos as f64 / scale)) as u64;
            if v > 1 << 63 {
                return invalid("invalid duration");
            }
        }
        total += v;
        if total > 1 << 63 {
            return invalid("invalid duration");
        }
    }
    if negative {
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).or_else(|_| invalid("invalid duration"))
}

fn unit_nanos(unit: &[u8]) -> Option<u64> {
    Some(match unit {
        b"ns" => 1,
        // "us", "µs" (micro sign) and "μs" (Greek mu).
        b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// The `time` package's own quoting: `"` and `\` escaped, bytes that are not printable
/// ASCII written `\xNN` (a whole valid rune's bytes, one invalid byte alone).
fn quote(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for (offset, c, width) in crate::gostring::runes(bytes) {
        match c {
            '"' | '\\' => out.extend(['\\', c]),
            ' '..='~' => out.push(c),
            // A whole rune's bytes (a literal U+FFFD is three), or one invalid byte.
            _ => out.extend(
                bytes[offset..offset + width]
                    .iter()
                    .map(|b| format!("\\x{b:02x}")),
            ),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_parsed_as_go_parses_them() {
        // Each answer is go1.27.3's time.ParseDuration.
        let cases: &[(&[u8], Result<i64, &str>)] = &[
            (b"1h", Ok(3_600_000_000_000)),
            (b"-1s", Ok(-1_000_000_000)),
            (b"0", Ok(0)),
            (b"0s", Ok(0)),
            (b"1.5m", Ok(90_000_000_000)),
            (b".5s", Ok(500_000_000)),
            (b"1h2m3.5s", Ok(3_723_500_000_000)),
            ("2µs".as_bytes(), Ok(2_000)),
            (b"x", Err(r#"time: invalid duration "x""#)),
            (b"", Err(r#"time: invalid duration """#)),
            (b"-", Err(r#"time: invalid duration "-""#)),
            (b".s", Err(r#"time: invalid duration ".s""#)),
            (b"1", Err(r#"time: missing unit in duration "1""#)),
            (b"1e9s", Err(r#"time: unknown unit "e" in duration "1e9s""#)),
            (
                b"99999999999h",
                Err(r#"time: invalid duration "99999999999h""#),
            ),
            (
                b"9223372036854775808ns",
                Err(r#"time: invalid duration "9223372036854775808ns""#),
            ),
            (b"-9223372036854775808ns", Ok(i64::MIN)),
            (
                b"1\xffs",
                Err(r#"time: unknown unit "\xffs" in duration "1\xffs""#),
            ),
            (
                "1é".as_bytes(),
                Err(r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#),
            ),
            (b"1\"", Err(r#"time: unknown unit "\"" in duration "1\"""#)),
        ];
        for (input, expected) in cases {
            assert_eq!(
                parse(input),
                expected.map_err(str::to_owned),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }
}
