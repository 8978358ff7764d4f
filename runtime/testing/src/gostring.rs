//! Go strings are bytes: a query parameter can carry any byte (`%ff`), and Go's checks and
//! messages read it rune by rune, each byte that starts no valid UTF-8 sequence being one
//! U+FFFD of width 1. These helpers read bytes that way.

use kubegen_core::go_print;

/// Go's `for i, r := range s`: each rune with its byte offset, an invalid byte being
/// U+FFFD of width 1.
pub(super) fn runes(bytes: &[u8]) -> Vec<(usize, char, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            out.push((offset, c, c.len_utf8()));
            offset += c.len_utf8();
        }
        for _ in chunk.invalid() {
            out.push((offset, char::REPLACEMENT_CHARACTER, 1));
            offset += 1;
        }
    }
    out
}

pub(super) use go_print::quote_bytes as quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_go_reads_them() {
        assert_eq!(
            runes(b"a\xe2\x82b\xc3\xa9"),
            [
                (0, 'a', 1),
                (1, '\u{fffd}', 1),
                (2, '\u{fffd}', 1),
                (3, 'b', 1),
                (4, 'é', 2)
            ]
        );
        assert_eq!(quote(b"a\xff\t\"\xc3\xa9"), r#""a\xff\t\"é""#);
    }
}
