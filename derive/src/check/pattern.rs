//! Regular expressions as the apiserver reads them: Go's RE2 syntax, parsed by kubegen-go's port
//! of Go's `regexp/syntax`. Used for `#[validate(pattern)]` and for the constant patterns of
//! CEL's `matches`, `find` and `findAll`.

use kubegen_go::regexp::{self, Error, ErrorCode};

const SYNTAX: &str = "Kubernetes matches patterns with Go's RE2 syntax";

/// Why the apiserver refuses `pattern`: Go's message and what to write instead. `None` when
/// Go accepts it.
pub fn refused(pattern: &str) -> Option<String> {
    let e = regexp::check(pattern).err()?;
    Some(format!("{e}; {}", hint(&e)))
}

fn hint(e: &Error) -> String {
    let expr = e.expr();
    match e.code() {
        ErrorCode::InvalidPerlOp => perl_op(expr),
        ErrorCode::InvalidNamedCapture if expr.starts_with("(?<=") || expr.starts_with("(?<!") => {
            format!("{SYNTAX}, which has no look-behinds")
        }
        ErrorCode::InvalidNamedCapture => "a group's name is letters, digits and `_`".into(),
        ErrorCode::InvalidEscape => escape(expr),
        ErrorCode::InvalidRepeatOp => {
            "one repetition cannot repeat another (and `*+` is not possessive): group the first, as in `(?:a{2}){3}`".into()
        }
        ErrorCode::InvalidRepeatSize => {
            "a count is at most 1000, and nested counts multiplied are at most 1000 too".into()
        }
        ErrorCode::InvalidCharRange if expr.starts_with("\\p") || expr.starts_with("\\P") => {
            format!(
                "{SYNTAX}, whose Unicode classes are the general categories (`L`, `Lu`, `Nd`, or long names such as `Letter`), the scripts (`Greek`, `Han`) and `Any`, `ASCII`, `Assigned`"
            )
        }
        ErrorCode::InvalidCharRange if expr.starts_with("[:") => {
            "the POSIX classes are alnum, alpha, ascii, blank, cntrl, digit, graph, lower, print, punct, space, upper, word and xdigit".into()
        }
        ErrorCode::InvalidCharRange if expr.ends_with("--") => format!(
            "{SYNTAX}, whose classes have no set operations: `--` is read as a range ending in `-`"
        ),
        ErrorCode::InvalidCharRange => "a range goes up, as `a-z` (not `z-a`)".into(),
        ErrorCode::MissingBracket => {
            "close the class with `]` (a `]` right after `[` or `[^` belongs to the class)".into()
        }
        ErrorCode::MissingParen | ErrorCode::UnexpectedParen => {
            "parentheses must pair up; a literal one is written `\\(` or `\\)`".into()
        }
        ErrorCode::MissingRepeatArgument => {
            "`*`, `+`, `?` and `{n}` repeat what comes before them; a literal one is escaped, as `\\*`".into()
        }
        ErrorCode::TrailingBackslash => "a literal backslash is written `\\\\`".into(),
        _ => "Go limits a pattern's nesting to 1000 and its compiled size to about 3 million instructions".into(),
    }
}

/// `(?` followed by something Go does not know.
fn perl_op(expr: &str) -> String {
    match expr.strip_prefix("(?").and_then(|rest| rest.chars().last()) {
        Some('=' | '!') => format!("{SYNTAX}, which has no look-aheads"),
        Some('#') => format!("{SYNTAX}, which has no `(?#...)` comments"),
        Some('>') => format!("{SYNTAX}, which has no atomic groups"),
        Some('P' | '\'' | '<') => {
            "a named group is written `(?P<name>...)` or `(?<name>...)`; there are no back-references".into()
        }
        Some(c) if c.is_ascii_alphabetic() => {
            format!("{SYNTAX}; `(?{c})` is not part of it: its flags are i, m, s and U")
        }
        _ => format!(
            "{SYNTAX}, where a group starts `(`, `(?:`, `(?flags)`, `(?flags:` or `(?P<name>`"
        ),
    }
}

/// A backslash before something Go gives no meaning.
fn escape(expr: &str) -> String {
    match expr.chars().nth(1) {
        Some('1'..='9') => format!("{SYNTAX}, which has no back-references"),
        Some('x') => "a hex escape is `\\x41` or `\\x{10FFFF}`".into(),
        Some('C') => format!("{SYNTAX}, which has no `\\C` (any byte)"),
        // Outside a class these are assertions or quoting; inside one they are refused.
        Some(c @ ('b' | 'B' | 'A' | 'z' | 'Q' | 'E')) => format!(
            "inside `[...]` `\\{c}` means nothing in Go (for a backspace write `\\x08`); `\\E` only ends `\\Q`"
        ),
        Some(c) if c.is_ascii_alphanumeric() => format!(
            "{SYNTAX}, where `\\{c}` means nothing: escape only punctuation, or use \\a \\f \\t \\n \\r \\v, \\x41, \\0, \\d \\s \\w, \\b \\B \\A \\z, \\pL, \\p{{Greek}} or \\Q...\\E"
        ),
        _ => "only ASCII punctuation can be escaped".into(),
    }
}
