//! The encoder: a value written as Go's `json.Marshal` writes a `map[string]interface{}`
//! (keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, floats in Go's format), with an
//! explicit stack so no depth of nesting can overflow the caller's stack.

use serde_json::{Number, Value};

use super::number::format_float;

const HEX: &[u8; 16] = b"0123456789abcdef";

enum Frame<'v> {
    Object(serde_json::map::Iter<'v>),
    Array(std::slice::Iter<'v, Value>),
}

/// `value` as Go's `json.Marshal` writes it (the apiserver's responses add a newline).
pub fn to_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    write_value(&mut out, value);
    out
}

/// [`to_vec`], appended to `out`.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Null => out.extend_from_slice(b"null"),
                Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
                Value::Number(n) => write_number(out, n),
                Value::String(s) => write_string(out, s),
                Value::Array(items) => {
                    out.push(b'[');
                    stack.push(Frame::Array(items.iter()));
                }
                Value::Object(fields) => {
                    out.push(b'{');
                    stack.push(Frame::Object(fields.iter()));
                }
            }
        }
        // The next value of the innermost container, closing the ones that are done.
        let Some(frame) = stack.last_mut() else {
            return;
        };
        // Every value ends in a byte other than `[` and `{`, so the last byte tells whether
        // the container has an entry yet.
        let first = matches!(out.last(), Some(b'[' | b'{'));
        match frame {
            Frame::Array(items) => match items.next() {
                Some(v) => {
                    if !first {
                        out.push(b',');
                    }
                    next = Some(v);
                }
                None => {
                    out.push(b']');
                    stack.pop();
                }
            },
            Frame::Object(fields) => match fields.next() {
                Some((k, v)) => {
                    if !first {
                        out.push(b',');
                    }
                    write_string(out, k);
                    out.push(b':');
                    next = Some(v);
                }
                None => {
                    out.push(b'}');
                    stack.pop();
                }
            },
        }
    }
}

/// A number as Go holds it in an unstructured object: an int64, or else a float64 (a
/// uint64 past int64's range included).
fn write_number(out: &mut Vec<u8>, n: &Number) {
    match (n.as_i64(), n.as_f64()) {
        (Some(i), _) => {
            use std::io::Write as _;
            let _ = write!(out, "{i}"); // writing to a Vec cannot fail
        }
        (None, Some(f)) => out.extend_from_slice(format_float(f).as_bytes()),
        (None, None) => out.extend_from_slice(b"0"),
    }
}

/// A string as Go's encoder quotes it with HTML escaping on.
/// The bytes [`write_string`] looks at: what Go escapes, and the first byte of U+2028 and
/// U+2029.
const NOTED: [bool; 256] = {
    let mut noted = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        noted[b] = true;
        b += 1;
    }
    let mut i = 0;
    let others = *b"\"\\<>&\xe2";
    while i < others.len() {
        noted[others[i] as usize] = true;
        i += 1;
    }
    noted
};

pub(crate) fn write_string(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    // Byte by byte: everything Go escapes is ASCII but U+2028 and U+2029 (E2 80 A8, E2 80 A9).
    while i < bytes.len() {
        let b = bytes[i];
        if !NOTED[usize::from(b)] {
            i += 1;
            continue;
        }
        let (escape, len): (&[u8], usize) = match b {
            b'"' => (br#"\""#, 1),
            b'\\' => (br"\\", 1),
            0x08 => (br"\b", 1),
            0x0c => (br"\f", 1),
            b'\n' => (br"\n", 1),
            b'\r' => (br"\r", 1),
            b'\t' => (br"\t", 1),
            0x00..=0x1f | b'<' | b'>' | b'&' => (b"", 1),
            0xe2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9)) =>
            {
                (b"", 3)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..i]);
        if escape.is_empty() {
            let code = match len {
                3 => 0x2028 + u32::from(bytes[i + 2] - 0xa8),
                _ => u32::from(b),
            };
            out.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((code >> shift) & 0xf) as usize]);
            }
        } else {
            out.extend_from_slice(escape);
        }
        i += len;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_written_as_go_writes_them() {
        let v = json!({"b": [1, -2, 1.5, 1e21, "", {}], "a": "<x>&\u{2028}\u{7f}\u{1}\n\"é", "c": {"": null, "t": true}});
        assert_eq!(
            String::from_utf8(to_vec(&v)).unwrap(),
            r#"{"a":"\u003cx\u003e\u0026\u2028"#.to_owned()
                + "\u{7f}"
                + r#"\u0001\n\"é","b":[1,-2,1.5,1e+21,"",{}],"c":{"":null,"t":true}}"#
        );
    }

    #[test]
    fn only_u2028_and_u2029_are_escaped_beyond_ascii() {
        let mut out = Vec::new();
        // U+2027 (E2 80 A7), U+2028, U+2029, U+202A (E2 80 AA), the euro sign (E2 82 AC).
        write_string(
            &mut out,
            "a\u{2027}\u{2028}\u{2029}\u{202a}\u{20ac}\u{1f}\u{e2}",
        );
        let expected = "\"a\u{2027}\\u2028\\u2029\u{202a}\u{20ac}\\u001f\u{e2}\"";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn deep_values_do_not_overflow_the_stack() {
        let mut v = json!(1);
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let out = to_vec(&v);
        assert_eq!(out.len(), 200_001);
        super::super::dismantle(v);
    }
}
