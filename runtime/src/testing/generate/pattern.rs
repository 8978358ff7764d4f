//! Strings that match a schema's `pattern` as the apiserver reads it: Go's RE2 syntax, where
//! `\d`, `\w`, `\s` and `\b` are ASCII-only and a pattern is searched for, not anchored.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use regex_syntax::hir::{Capture, Hir, HirKind, Look, Repetition};

/// A compiled `pattern`: a matcher with Go's semantics, and generators for its matches.
pub(super) struct Pattern {
    matcher: regex::Regex,
    /// Generators with increasing bounds on unbounded repetitions (`*`, `+`, `{n,}`).
    generators: Vec<rand_regex::Regex>,
    anchored_start: bool,
    anchored_end: bool,
}

/// The repetition bounds generators are built with: short strings usually, long ones for
/// `minLength`s that need them.
const MAX_REPEATS: [u32; 3] = [4, 16, 128];

impl Pattern {
    /// Compiles `pattern` (Go RE2 syntax).
    pub(super) fn compile(pattern: &str) -> Result<Self, String> {
        let translated = go_semantics(pattern);
        let matcher = regex::Regex::new(&translated)
            .map_err(|e| format!("pattern {pattern:?} does not compile: {e}"))?;
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(&translated)
            .map_err(|e| format!("pattern {pattern:?} does not parse: {e}"))?;
        let anchored_start = hir.properties().look_set_prefix().contains(Look::Start);
        let anchored_end = hir.properties().look_set_suffix().contains(Look::End);
        let stripped = without_look_around(&hir);
        let generators = MAX_REPEATS
            .iter()
            .map(|&max| rand_regex::Regex::with_hir(stripped.clone(), max))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("cannot generate strings for pattern {pattern:?}: {e}"))?;
        Ok(Pattern {
            matcher,
            generators,
            anchored_start,
            anchored_end,
        })
    }

    /// Whether `s` matches, as Go's `regexp.MatchString` decides.
    pub(super) fn is_match(&self, s: &str) -> bool {
        self.matcher.is_match(s)
    }

    /// A candidate match: a string the pattern generates, sometimes with text around it where
    /// the pattern is not anchored (the apiserver searches for a match anywhere). Candidates
    /// can miss when look-arounds sit mid-pattern; callers check with [`Pattern::is_match`].
    pub(super) fn candidate(&self, rng: &mut ChaCha8Rng, min_chars: u64, filler: &str) -> String {
        let generator = if min_chars > 64 {
            &self.generators[2]
        } else if min_chars > 4 || rng.random_bool(0.2) {
            &self.generators[1]
        } else {
            &self.generators[0]
        };
        let mut s: String = rng.sample(generator);
        if !self.anchored_start && rng.random_bool(0.25) {
            s.insert_str(0, filler);
        }
        if !self.anchored_end && rng.random_bool(0.25) {
            s.push_str(filler);
        }
        s
    }
}

/// The pattern rewritten for Rust's `regex` with the meaning Go gives it: Perl classes and
/// word boundaries are ASCII in RE2 but Unicode in Rust.
pub(super) fn go_semantics(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let replacement = match (next, in_class) {
                    ('d', false) => "[0-9]",
                    ('d', true) => "0-9",
                    ('D', _) => "[^0-9]",
                    ('w', false) => "[0-9A-Za-z_]",
                    ('w', true) => "0-9A-Za-z_",
                    ('W', _) => "[^0-9A-Za-z_]",
                    ('s', false) => r"[\t\n\f\r ]",
                    ('s', true) => r"\t\n\f\r ",
                    ('S', _) => r"[^\t\n\f\r ]",
                    ('b', false) => r"(?-u:\b)",
                    ('B', false) => r"(?-u:\B)",
                    _ => {
                        out.push('\\');
                        out.push(next);
                        continue;
                    }
                };
                out.push_str(replacement);
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                // A `]` right after `[` or `[^` is a literal in both dialects.
                if chars.peek() == Some(&']') {
                    out.push(']');
                    chars.next();
                }
            }
            '[' if in_class && chars.peek() == Some(&':') => {
                // A POSIX class such as `[:alpha:]`, ASCII in both dialects.
                out.push('[');
                for c in chars.by_ref() {
                    out.push(c);
                    if c == ']' {
                        break;
                    }
                }
            }
            '[' => out.push_str(r"\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

/// `hir` with every look-around assertion (anchors, word boundaries) replaced by the empty
/// string, which rand_regex requires.
fn without_look_around(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(without_look_around(&r.sub)),
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            index: c.index,
            name: c.name.clone(),
            sub: Box::new(without_look_around(&c.sub)),
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(without_look_around).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.iter().map(without_look_around).collect())
        }
        _ => hir.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        let digits = Pattern::compile(r"^\d+$").unwrap();
        assert!(digits.is_match("123"));
        assert!(
            !digits.is_match("١٢٣"),
            "Arabic-Indic digits are not \\d in RE2"
        );
        let not_word = Pattern::compile(r"^[\W]$").unwrap();
        assert!(not_word.is_match("é"), "é is not an ASCII word character");
        assert!(Pattern::compile(r"^[^\s]+$").unwrap().is_match("a\u{a0}b"));
    }

    #[test]
    fn unanchored_patterns_match_anywhere() {
        let p = Pattern::compile("[a-z]{3}").unwrap();
        assert!(p.is_match("12abc34"));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut padded = 0;
        for _ in 0..200 {
            let s = p.candidate(&mut rng, 0, "#");
            assert!(p.is_match(&s), "{s:?}");
            padded += usize::from(s.contains('#'));
        }
        assert!(padded > 0, "text around unanchored matches is exercised");
    }

    #[test]
    fn anchored_candidates_match() {
        let p = Pattern::compile(r"^(\+|-)?[0-9]+(\.[0-9]*)?([KMG]i)?$").unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..200 {
            let s = p.candidate(&mut rng, 0, "#");
            assert!(p.is_match(&s), "{s:?}");
        }
    }
}
