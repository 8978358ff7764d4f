//! Go's `regexp`: the patterns a CRD's `pattern` and CEL's `matches`, `find` and `findAll`
//! hold, parsed and matched as the apiserver does.
//!
//! Go's syntax (RE2's, read by `regexp/syntax.Parse` with the `Perl` flags `regexp.Compile`
//! uses) differs from the `regex` crate's in ways that change verdicts:
//!
//! - `\d`, `\s`, `\w`, `\b`, `\B` and the POSIX classes are ASCII only; `\s` has no `\v`.
//! - Brackets have no set operations or nesting: `[a&&b]` and `[[a]]` are runes.
//! - Escaped punctuation is always the rune: `\<` and `\>` are `<` and `>`, not word edges.
//! - `(?x)`, `(?u)`, `(?R)`, look-arounds and `\k<name>` are errors; `{` that does not start
//!   a well-formed count (`a{01}`, `a{,3}`) is a rune; stacked repetitions (`a**`,
//!   `a{2}{3}`) are errors; counts stop at 1000, nested ones multiplied.
//! - `(?i)` folds with Go's `unicode.SimpleFold` (`k`, `K` and the Kelvin sign are one).
//! - Class names and contents are Go's Unicode tables (Unicode 17.0.0 for Go 1.27).
//!
//! Errors read as Go writes them, for example
//! ``error parsing regexp: missing closing ]: `[a` ``.
//!
//! ```
//! use kubegen_go::regexp::Regexp;
//!
//! let re = Regexp::new(r"^\w+$").unwrap();
//! assert!(re.is_match("abc_123"));
//! assert!(!re.is_match("héllo"), "\\w is ASCII in Go");
//! assert!(Regexp::new(r"\<").unwrap().is_match("a<b"), "an escaped < is a <");
//! assert!(Regexp::new("(?x) a").is_err());
//! ```

mod class;
mod error;
mod hir;
mod limits;
mod parse;
mod ranges;
mod stack;
#[rustfmt::skip]
mod tables;
mod tree;
mod unicode;

pub(crate) use unicode::in_category;

use std::ops::Range;

use regex_automata::meta;
use regex_syntax::hir::Hir;

pub use error::{Error, ErrorCode};

/// A code point as Go's parser holds it (Go's `rune`): classes may hold surrogates.
type Rune = i32;
const MAX_RUNE: Rune = 0x10ffff;

/// A compiled Go regular expression (`regexp.Regexp`, compiled by `regexp.Compile`).
///
/// Matching is unanchored (a match anywhere in the text counts, as in Go) and leftmost-first.
#[derive(Clone, Debug)]
pub struct Regexp {
    source: String,
    hir: Hir,
    matcher: meta::Regex,
}

impl Regexp {
    /// Compiles `pattern` as Go's `regexp.Compile` does, or returns Go's error for it.
    pub fn new(pattern: &str) -> Result<Regexp, Error> {
        let hir = parse_hir(pattern)?;
        let matcher = build(&hir).ok_or_else(|| Error::new(ErrorCode::Large, pattern))?;
        Ok(Regexp {
            source: pattern.to_owned(),
            hir,
            matcher,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `text` holds a match (`MatchString`).
    pub fn is_match(&self, text: &str) -> bool {
        self.matcher.is_match(text)
    }

    /// The leftmost match in `text` (`FindStringIndex`).
    pub fn find<'t>(&self, text: &'t str) -> Option<Match<'t>> {
        self.matcher.find(text).map(|m| Match {
            text,
            range: m.range(),
        })
    }

    /// The successive non-overlapping matches in `text` (`FindAllStringIndex` with no
    /// limit): an empty match right after a match is skipped, and an empty match moves on by
    /// one rune.
    pub fn find_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = Match<'t>> + 'r
    where
        't: 'r,
    {
        self.matcher.find_iter(text).map(move |m| Match {
            text,
            range: m.range(),
        })
    }

    /// The pattern as a regex-syntax [`Hir`] with Go's meaning (captures left out), for tools
    /// that work on one, such as generators of matching strings.
    pub fn hir(&self) -> &Hir {
        &self.hir
    }
}

/// A match: where it is in the text, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match<'t> {
    text: &'t str,
    range: Range<usize>,
}

impl<'t> Match<'t> {
    /// The byte offset the match starts at.
    pub fn start(&self) -> usize {
        self.range.start
    }

    /// The byte offset just past the match.
    pub fn end(&self) -> usize {
        self.range.end
    }

    /// The matched text.
    pub fn as_str(&self) -> &'t str {
        &self.text[self.range.clone()]
    }
}

/// Checks `pattern` as Go's `regexp.Compile` does, without building a matcher (what a CRD's
/// validation does with a `pattern`).
pub fn check(pattern: &str) -> Result<(), Error> {
    parse::parse(pattern).map(drop)
}

/// The matcher for a `Hir`. Go's own limits (counts, size, depth) already bound the pattern,
/// so the engine's default size limits, which would refuse patterns Go runs (such as
/// `\pL{1000}`), are lifted. The engine compiles recursively: a deeply nested pattern (Go
/// allows a depth of 1000) is compiled on a thread with a stack to match.
fn build(hir: &Hir) -> Option<meta::Regex> {
    /// Nesting the calling thread's stack is trusted with.
    const SHALLOW: usize = 64;
    /// Stack per level of nesting, with room for unoptimized builds.
    const PER_LEVEL: usize = 16 << 10;
    let config = meta::Config::new()
        .nfa_size_limit(None)
        .onepass_size_limit(None)
        .dfa_size_limit(None);
    let compile = || {
        meta::Builder::new()
            .configure(config)
            .build_from_hir(hir)
            .ok()
    };
    let depth = hir::depth(hir);
    if depth <= SHALLOW {
        return compile();
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kubegen-go-regexp".into())
            .stack_size((1 << 20) + depth * PER_LEVEL)
            .spawn_scoped(scope, compile)
            .ok()?
            .join()
            .ok()?
    })
}

fn parse_hir(pattern: &str) -> Result<Hir, Error> {
    let tree = parse::parse(pattern)?;
    Ok(hir::to_hir(&tree))
}

/// The Unicode version of the tables classes and case folding use.
pub const UNICODE_VERSION: &str = tables::UNICODE_VERSION;

/// The Go release the tables and the test corpus come from.
pub const GO_VERSION: &str = tables::GO_VERSION;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_and_find_iter_report_go_s_matches() {
        let re = Regexp::new("a*").unwrap_or_else(|e| panic!("{e}"));
        let spans: Vec<_> = re
            .find_iter("baaab")
            .map(|m| (m.start(), m.end()))
            .collect();
        // The empty match at 4, right after `aaa`, is skipped as in Go.
        assert_eq!(spans, [(0, 0), (1, 4), (5, 5)]);
        let re = Regexp::new(r"\d+").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(re.find("ab12c345").map(|m| m.as_str()), Some("12"));
        assert_eq!(re.find("١٢٣"), None, "Arabic-Indic digits are not \\d");
        assert_eq!(re.as_str(), r"\d+");
    }

    #[test]
    fn deep_patterns_compile_on_a_test_thread_s_stack() {
        let p = format!("{}{}", "(?:a|b".repeat(499), ")".repeat(499));
        let re = Regexp::new(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(re.is_match("a"));
        assert_eq!(
            check(&format!("{}{}", "(?:a|b".repeat(700), ")".repeat(700))).map_err(|e| e.code()),
            Err(ErrorCode::NestingDepth)
        );
    }

    #[test]
    fn the_hir_keeps_go_s_meaning() {
        let re = Regexp::new(r"(?i)k\b").unwrap_or_else(|e| panic!("{e}"));
        let props = re.hir().properties();
        assert_eq!(props.minimum_len(), Some(1));
        assert!(
            props
                .look_set()
                .contains(regex_syntax::hir::Look::WordAscii)
        );
    }
}
