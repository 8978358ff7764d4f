//! Regular expressions as CEL's `matches`, `find` and `findAll` run them in the apiserver:
//! Go's RE2 dialect (ASCII `\d`, `\w`, `\s`, `\b`), and Go's `regexp.Compile` error text
//! (`error parsing regexp: missing closing ]: `[``) for a pattern that does not compile.
//! Compiled patterns are cached, as a rule usually matches against the same few.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use regex::Regex;
use regex_syntax::ast::{self, ErrorKind};

use super::super::schema::go_regex;

/// How many compiled patterns the cache keeps before it starts over.
const CACHE_SIZE: usize = 256;

/// A pattern compiled, or Go's error for it.
type Compiled = Result<Arc<Regex>, String>;

static CACHE: LazyLock<Mutex<HashMap<String, Compiled>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Compiles `pattern` as Go's `regexp.Compile` does, or returns Go's error message.
pub(super) fn compile(pattern: &str) -> Result<Arc<Regex>, String> {
    if let Some(hit) = CACHE.lock().get(pattern) {
        return hit.clone();
    }
    let compiled = compile_uncached(pattern);
    let mut cache = CACHE.lock();
    if cache.len() >= CACHE_SIZE {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), compiled.clone());
    compiled
}

fn compile_uncached(pattern: &str) -> Result<Arc<Regex>, String> {
    if let Err(e) = ast::parse::Parser::new().parse(pattern) {
        return Err(go_error(pattern, &e));
    }
    Regex::new(&go_regex(pattern))
        .map(Arc::new)
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => go_message("expression too large", pattern),
            // Translation errors (an unknown Unicode class is the usual one).
            _ => go_message("invalid character class range", pattern),
        })
}

/// `regexp/syntax.Error.Error()`.
fn go_message(code: &str, text: &str) -> String {
    format!("error parsing regexp: {code}: `{text}`")
}

/// Go's error for a pattern Rust's parser refused, with the part of the pattern Go names.
fn go_error(pattern: &str, e: &ast::Error) -> String {
    let span = e.span();
    let at = |start: usize, end: usize| pattern.get(start..end).unwrap_or(pattern);
    let spanned = at(span.start.offset, span.end.offset);
    let (code, text) = match e.kind() {
        ErrorKind::ClassUnclosed => ("missing closing ]", at(span.start.offset, pattern.len())),
        ErrorKind::GroupUnclosed => ("missing closing )", pattern),
        ErrorKind::GroupUnopened => ("unexpected )", pattern),
        ErrorKind::RepetitionMissing => ("missing argument to repetition operator", spanned),
        ErrorKind::EscapeUnexpectedEof => ("trailing backslash at end of expression", ""),
        ErrorKind::EscapeUnrecognized
        | ErrorKind::UnsupportedBackreference
        | ErrorKind::EscapeHexEmpty
        | ErrorKind::EscapeHexInvalid
        | ErrorKind::EscapeHexInvalidDigit
        | ErrorKind::ClassEscapeInvalid => ("invalid escape sequence", spanned),
        ErrorKind::ClassRangeInvalid | ErrorKind::ClassRangeLiteral => {
            ("invalid character class range", spanned)
        }
        ErrorKind::UnicodeClassInvalid => ("invalid character class range", spanned),
        ErrorKind::RepetitionCountInvalid => ("invalid repeat count", spanned),
        ErrorKind::GroupNameDuplicate { .. }
        | ErrorKind::GroupNameEmpty
        | ErrorKind::GroupNameInvalid
        | ErrorKind::GroupNameUnexpectedEof => ("invalid named capture", spanned),
        ErrorKind::NestLimitExceeded(_) => ("expression nests too deeply", pattern),
        ErrorKind::CaptureLimitExceeded => ("expression too large", pattern),
        _ => ("invalid or unsupported Perl syntax", spanned),
    };
    go_message(code, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_go_writes_them() {
        let err = |p: &str| compile(p).err().unwrap_or_default();
        // Each expected text is what kube-apiserver v1.36.2 answered for the pattern.
        assert_eq!(err("(["), "error parsing regexp: missing closing ]: `[`");
        assert!(compile("^[a-z]+$").is_ok());
    }

    #[test]
    fn perl_classes_are_ascii() {
        let re = compile(r"^\d+$").unwrap_or_else(|e| panic!("{e}"));
        assert!(re.is_match("123"));
        assert!(!re.is_match("١٢٣"));
    }
}
