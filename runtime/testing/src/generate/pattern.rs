//! Strings that match a schema's `pattern` as the apiserver reads it: Go's regexp (kubegen-go's
//! port), where `\d`, `\w`, `\s` and `\b` are ASCII-only, classes and case folding follow
//! Go's Unicode tables, and a pattern is searched for, not anchored. Candidates are drawn from
//! the pattern's own `Hir`, so they are Go's matches, not Rust's.

use kubegen_go::regexp::Regexp;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use regex_syntax::hir::{Capture, Hir, HirKind, Look, Repetition, Visitor, visit};

/// A compiled `pattern`: a matcher with Go's semantics, and generators for its matches.
pub(super) struct Pattern {
    matcher: Regexp,
    /// Generators with increasing bounds on unbounded repetitions (`*`, `+`, `{n,}`).
    generators: Vec<rand_regex::Regex>,
    anchored_start: bool,
    anchored_end: bool,
}

/// The repetition bounds generators are built with: short strings usually, long ones for
/// `minLength`s that need them.
const MAX_REPEATS: [u32; 3] = [4, 16, 128];

/// How deeply a pattern may nest for the generator, which (as the `Hir` it walks) recurses.
const MAX_DEPTH: usize = 64;

impl Pattern {
    /// Compiles `pattern` (Go's syntax).
    pub(super) fn compile(pattern: &str) -> Result<Self, String> {
        let matcher = Regexp::new(pattern)
            .map_err(|e| format!("pattern {pattern:?} does not compile: {e}"))?;
        let hir = matcher.hir();
        if depth(hir) > MAX_DEPTH {
            return Err(format!(
                "pattern {pattern:?} nests more than {MAX_DEPTH} deep; the generator cannot draw from it"
            ));
        }
        let anchored_start = hir.properties().look_set_prefix().contains(Look::Start);
        let anchored_end = hir.properties().look_set_suffix().contains(Look::End);
        let stripped = without_look_around(hir);
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

/// How deeply `hir` nests (found without recursing).
fn depth(hir: &Hir) -> usize {
    #[derive(Default)]
    struct Depth {
        now: usize,
        max: usize,
    }
    impl Visitor for Depth {
        type Output = usize;
        type Err = std::convert::Infallible;
        fn finish(self) -> Result<usize, Self::Err> {
            Ok(self.max)
        }
        fn visit_pre(&mut self, _: &Hir) -> Result<(), Self::Err> {
            self.now += 1;
            self.max = self.max.max(self.now);
            Ok(())
        }
        fn visit_post(&mut self, _: &Hir) -> Result<(), Self::Err> {
            self.now -= 1;
            Ok(())
        }
    }
    match visit(hir, Depth::default()) {
        Ok(depth) => depth,
        Err(never) => match never {},
    }
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
    fn candidates_are_go_s_matches() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // `\<` is `<` in Go (a word start in Rust), `[[:word:]]` ASCII, `(?i)k` takes in the
        // Kelvin sign, and `\w` is ASCII even under `(?i)` but for ſ and the Kelvin sign.
        for pattern in [
            r"^\<\w+\>$",
            r"^[[:word:]]{3}$",
            r"^(?i)k+$",
            r"^(?i)\w+$",
            r"^\pL\d$",
        ] {
            let p = Pattern::compile(pattern).unwrap_or_else(|e| panic!("{e}"));
            for _ in 0..100 {
                let s = p.candidate(&mut rng, 0, "#");
                assert!(p.is_match(&s), "{pattern}: {s:?}");
            }
        }
        assert!(Pattern::compile("(?x) a").is_err());
        assert!(Pattern::compile(&format!("{}{}", "(?:a|b".repeat(100), ")".repeat(100))).is_err());
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
