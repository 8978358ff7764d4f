//! Strings as Go's `encoding/json` reads and writes them: bytes that are not UTF-8 and lone
//! surrogate escapes become U+FFFD one by one, and error messages quote a byte as Go's
//! scanner does.

use std::borrow::Cow;

/// The replacement character Go substitutes for what is not a character.
const REPLACEMENT: char = '\u{FFFD}';

/// `data` as a Go program converting it with `[]rune` or encoding it to JSON sees it: every
/// byte that does not start a valid UTF-8 sequence is one U+FFFD, and decoding resumes at the
/// next byte. (Rust's `String::from_utf8_lossy` replaces a broken sequence as a whole, so
/// `"\xe2\x82"` is one U+FFFD there and two in Go.)
pub fn lossy(data: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(data) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(data.len() + 8);
    push_lossy(&mut out, data);
    Cow::Owned(out)
}

fn push_lossy(out: &mut String, mut data: &[u8]) {
    loop {
        match std::str::from_utf8(data) {
            Ok(s) => {
                out.push_str(s);
                return;
            }
            Err(e) => {
                let (valid, rest) = data.split_at(e.valid_up_to());
                // `valid` was just checked.
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(REPLACEMENT);
                data = &rest[1..];
            }
        }
    }
}

/// The four hex digits of a `\u` escape at the start of `s` (`s` begins with the backslash).
fn hex4(s: &[u8]) -> Option<u32> {
    if s.len() < 6 || s[0] != b'\\' || s[1] != b'u' {
        return None;
    }
    let digits = std::str::from_utf8(&s[2..6]).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// The text of a JSON string literal whose quotes are removed, `raw` already checked by the
/// scanner (escapes well formed, no control characters). Invalid UTF-8 and surrogate escapes
/// that are not a high half followed by a low half become U+FFFD, as Go's `unquote` does.
pub(crate) fn unquote(raw: &[u8]) -> String {
    if !raw.contains(&b'\\')
        && let Ok(s) = std::str::from_utf8(raw)
    {
        return s.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let start = i;
        while i < raw.len() && raw[i] != b'\\' {
            i += 1;
        }
        push_lossy(&mut out, &raw[start..i]);
        if i >= raw.len() {
            break;
        }
        let Some(&escape) = raw.get(i + 1) else { break };
        let simple = match escape {
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'u' => None,
            other => Some(char::from(other)),
        };
        if let Some(c) = simple {
            out.push(c);
            i += 2;
            continue;
        }
        let Some(unit) = hex4(&raw[i..]) else { break };
        i += 6;
        if (0xD800..0xE000).contains(&unit) {
            let low = hex4(&raw[i..]);
            if (0xD800..0xDC00).contains(&unit)
                && let Some(low) = low.filter(|l| (0xDC00..0xE000).contains(l))
            {
                let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                out.push(char::from_u32(c).unwrap_or(REPLACEMENT));
                i += 6;
            } else {
                out.push(REPLACEMENT);
            }
            continue;
        }
        out.push(char::from_u32(unit).unwrap_or(REPLACEMENT));
    }
    out
}

/// A byte as Go's JSON scanner quotes it in an error: `'n'`, `'\n'`, `'\x00'`, `'\u009e'`,
/// `'ï'` (a byte past ASCII is shown as the rune of the same number).
pub(crate) fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        b'\\' => r"'\\'".to_owned(),
        0x07 => r"'\a'".to_owned(),
        0x08 => r"'\b'".to_owned(),
        0x0c => r"'\f'".to_owned(),
        b'\n' => r"'\n'".to_owned(),
        b'\r' => r"'\r'".to_owned(),
        b'\t' => r"'\t'".to_owned(),
        0x0b => r"'\v'".to_owned(),
        0x00..=0x1f | 0x7f => format!(r"'\x{c:02x}'"),
        // U+0080..U+009F, U+00A0 and U+00AD are not printable for strconv.Quote.
        0x80..=0xa0 | 0xad => format!(r"'\u{c:04x}'"),
        _ => format!("'{}'", char::from(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_bytes_are_replaced_one_by_one() {
        assert_eq!(lossy(b"a\xffb"), "a\u{FFFD}b");
        assert_eq!(lossy(b"\xe2\x82x"), "\u{FFFD}\u{FFFD}x");
        assert_eq!(lossy(b"\xed\xa0\x80"), "\u{FFFD}\u{FFFD}\u{FFFD}");
        assert_eq!(lossy(b"\xc0\xaf"), "\u{FFFD}\u{FFFD}");
        assert_eq!(lossy("é😀".as_bytes()), "é😀");
    }

    #[test]
    fn surrogate_escapes_pair_or_become_replacements() {
        assert_eq!(unquote(br"\ud83d\ude00"), "😀");
        assert_eq!(unquote(br"a\ud800b"), "a\u{FFFD}b");
        assert_eq!(unquote(br"a\udc00b"), "a\u{FFFD}b");
        assert_eq!(unquote(br"\ude00\ud83d"), "\u{FFFD}\u{FFFD}");
        assert_eq!(unquote(br"\ud83d\ud83d\ude00"), "\u{FFFD}😀");
        assert_eq!(
            unquote(br#"\u0000\/\"\\\b\f\n\r\t"#),
            "\0/\"\\\u{8}\u{c}\n\r\t"
        );
        assert_eq!(unquote(b"k\xffy"), "k\u{FFFD}y");
    }
}
