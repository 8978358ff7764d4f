//! Go's `unicode` predicates, where Kubernetes' checks and messages depend on them: the
//! apiserver refuses a `fieldManager` with a character `unicode.IsPrint` rejects, and Go's
//! `%q` escapes exactly those characters. Answered from the tables of Go's own `unicode`
//! package (see [`crate::regexp`]), so unassigned and format characters count as Go counts
//! them.

use crate::regexp::in_category;

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation and symbols (categories L,
/// M, N, P and S), and the ASCII space. Other spaces, control, format, private-use and
/// unassigned characters are not printable.
pub fn is_print(c: char) -> bool {
    c == ' '
        || ["L", "M", "N", "P", "S"]
            .iter()
            .any(|category| in_category(category, c as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_as_go_says() {
        // unicode.IsPrint in go1.27.3.
        for c in [
            'a', 'Z', '0', '~', ' ', 'é', '\u{fffd}', '😀', '\u{300}', '€', '\u{a7}',
        ] {
            assert!(is_print(c), "{c:?} is printable");
        }
        for c in [
            '\t',
            '\n',
            '\0',
            '\u{7f}',
            '\u{85}',
            '\u{a0}',
            '\u{ad}',
            '\u{200b}',
            '\u{2028}',
            '\u{3000}',
            '\u{378}',
            '\u{e000}',
            '\u{feff}',
            '\u{10ffff}',
        ] {
            assert!(!is_print(c), "{c:?} is not printable");
        }
    }
}
