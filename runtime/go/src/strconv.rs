//! Go's `strconv` where the apiserver's messages show it: `Quote` (`%q`), `unicode.IsPrint`,
//! and `FormatFloat` in the `'g'` format Go's `%v` uses.

use std::fmt::Write;

/// `strconv.FormatFloat(f, 'g', -1, bits)` (`bits` 32 or 64), which is also Go's `%v` of a
/// float: the shortest digits that read back as the same float, with an exponent of at least
/// two digits when it is below -4 or at least 6 (`1e+06`, `1e-05`, `123456`, `NaN`, `+Inf`).
pub fn format_g(f: f64, bits: u32) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    // Rust prints the shortest round-tripping digits, as Go's shortest mode does.
    let (scientific, plain) = match bits {
        32 => (format!("{:e}", f as f32), format!("{}", f as f32)),
        _ => (format!("{f:e}"), format!("{f}")),
    };
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if f != 0.0 && !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    plain
}

pub use crate::unicode::is_print;

/// Go's `strconv.Quote` (`%q`): a double-quoted string with Go escapes.
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// Go's `strconv.Quote` of a Go string, which need not be UTF-8: as [`quote`], with each byte
/// that starts no valid UTF-8 sequence written `\xNN`, as Go decodes it.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{7}' => out.push_str("\\a"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{b}' => out.push_str("\\v"),
                c if is_print(c) => out.push(c),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if (c as u32) < 0x10000 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_quote_as_go_quotes_them() {
        assert_eq!(quote_bytes(b"a\"b"), r#""a\"b""#);
        assert_eq!(quote_bytes("é\n".as_bytes()), r#""é\n""#);
        assert_eq!(quote_bytes(b"%\xe2\x82"), r#""%\xe2\x82""#);
        assert_eq!(quote_bytes(b"\xffa\xc3"), r#""\xffa\xc3""#);
    }

    #[test]
    fn floats_print_like_go_percent_v() {
        // Reference values are what Go's fmt.Sprintf("%v", float64) prints; 1.0000005e+06
        // and 1e+06 were also observed in kube-apiserver v1.36.2 messages.
        for (f, want) in [
            (1_000_000.5, "1.0000005e+06"),
            (1e6, "1e+06"),
            (100_000.0, "100000"),
            (123_456.0, "123456"),
            (0.5, "0.5"),
            (3.0, "3"),
            (-2.25, "-2.25"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
        ] {
            assert_eq!(format_g(f, 64), want, "{f}");
        }
        // As 32-bit floats (sigs.k8s.io/yaml's float keys).
        for (f, want) in [
            (1.2345678901, "1.2345679"),
            (123456789.0, "1.2345679e+08"),
            (16777217.0, "1.6777216e+07"),
            (1000.0, "1000"),
        ] {
            assert_eq!(format_g(f, 32), want, "{f}");
        }
    }

    #[test]
    fn strings_quote_like_go() {
        assert_eq!(quote("Slow"), "\"Slow\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("tab\there\n"), "\"tab\\there\\n\"");
        assert_eq!(quote("\u{1}\u{7f}"), "\"\\x01\\x7f\"");
        assert_eq!(quote("é日本"), "\"é日本\"");
        assert_eq!(quote("\u{a0}\u{200b}"), "\"\\u00a0\\u200b\"");
        assert_eq!(quote("\u{f0000}"), "\"\\U000f0000\"");
    }
}
