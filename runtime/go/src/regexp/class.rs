//! Character classes: `[...]` brackets, Perl's `\d \s \w` (ASCII in Go), POSIX's
//! `[[:alpha:]]` (ASCII) and Unicode's `\pL`, `\p{Greek}`, `\P{..}`, `\p{^..}`.
//!
//! Go's brackets are plain: no nested classes and no set operations, so `[a&&b]`, `[[a]]`
//! and `[a~~b]` are runes, and `[a--b]` is the range `a` to `-` (refused, as it runs
//! backwards).

use super::Rune;
use super::error::{Error, ErrorCode};
use super::parse::{Parser, consumed, next_rune};
use super::ranges::{
    append_class, append_folded_class, append_folded_range, append_negated_class,
    append_negated_table, append_range, append_table, clean_class, negate_class,
};
use super::tree::{Flags, Op};
use super::unicode::named_class;

/// A class escape's ranges (ASCII, clean) and whether it is negated.
struct Group {
    negated: bool,
    class: &'static [Rune],
}

const DIGIT: &[Rune] = &[0x30, 0x39];
const PERL_SPACE: &[Rune] = &[0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20];
const WORD: &[Rune] = &[0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];

/// `\d \D \s \S \w \W`: ASCII only, and `\s` is `[\t\n\f\r ]` (no `\v`).
fn perl_group(c: u8) -> Option<Group> {
    let (negated, class) = match c {
        b'd' => (false, DIGIT),
        b'D' => (true, DIGIT),
        b's' => (false, PERL_SPACE),
        b'S' => (true, PERL_SPACE),
        b'w' => (false, WORD),
        b'W' => (true, WORD),
        _ => return None,
    };
    Some(Group { negated, class })
}

/// `[:name:]` or `[:^name:]`: the POSIX classes, ASCII only.
fn posix_group(name: &str) -> Option<Group> {
    let inner = name.strip_prefix("[:")?.strip_suffix(":]")?;
    let (negated, inner) = match inner.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let class: &'static [Rune] = match inner {
        "alnum" => &[0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
        "alpha" => &[0x41, 0x5a, 0x61, 0x7a],
        "ascii" => &[0x00, 0x7f],
        "blank" => &[0x09, 0x09, 0x20, 0x20],
        "cntrl" => &[0x00, 0x1f, 0x7f, 0x7f],
        "digit" => DIGIT,
        "graph" => &[0x21, 0x7e],
        "lower" => &[0x61, 0x7a],
        "print" => &[0x20, 0x7e],
        "punct" => &[0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
        "space" => &[0x09, 0x0d, 0x20, 0x20],
        "upper" => &[0x41, 0x5a],
        "word" => WORD,
        "xdigit" => &[0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
        _ => return None,
    };
    Some(Group { negated, class })
}

impl Parser<'_> {
    /// A `[...]` class at the start of `s`; pushes it and returns what follows.
    pub(super) fn parse_class<'a>(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let id = self.arena.alloc(Op::CharClass);
        self.arena.nodes[id].flags = self.flags;
        let mut class = Vec::new();
        let mut t = &s[1..];
        let negated = t.starts_with('^');
        if negated {
            t = &t[1..];
        }
        // `]` first in the class is a rune, not its end.
        let mut first = true;
        while !t.starts_with(']') || first {
            first = false;
            if t.len() > 2
                && t.starts_with("[:")
                && let Some(rest) = self.parse_named_class(t, &mut class)?
            {
                t = rest;
                continue;
            }
            if let Some(rest) = self.parse_unicode_class(t, &mut class)? {
                t = rest;
                continue;
            }
            if let Some(rest) = self.parse_perl_class_escape(t, &mut class) {
                t = rest;
                continue;
            }
            let range_start = t;
            let (lo, rest) = self.parse_class_char(t, s)?;
            t = rest;
            let mut hi = lo;
            // A `-` before the closing `]` is a rune: `[a-]` is `a` or `-`.
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (end, rest) = self.parse_class_char(&t[1..], s)?;
                t = rest;
                hi = end;
                if hi < lo {
                    return Err(Error::new(
                        ErrorCode::InvalidCharRange,
                        consumed(range_start, t),
                    ));
                }
            }
            if self.flags.has(Flags::FOLD_CASE) {
                append_folded_range(&mut class, lo, hi);
            } else {
                append_range(&mut class, lo, hi);
            }
        }
        clean_class(&mut class);
        if negated {
            negate_class(&mut class);
        }
        self.arena.nodes[id].runes = class;
        self.push(id)?;
        Ok(&t[1..])
    }

    /// One rune in a class, escaped or not; `whole` is the class, named when it never closes.
    fn parse_class_char<'a>(&self, s: &'a str, whole: &str) -> Result<(Rune, &'a str), Error> {
        if s.is_empty() {
            return Err(Error::new(ErrorCode::MissingBracket, whole));
        }
        if s.starts_with('\\') {
            return self.parse_escape(s);
        }
        Ok(next_rune(s))
    }

    /// `\d`, `\s`, `\w` or their negations at the start of `s`, appended to `class`.
    pub(super) fn parse_perl_class_escape<'a>(
        &self,
        s: &'a str,
        class: &mut Vec<Rune>,
    ) -> Option<&'a str> {
        let b = s.as_bytes();
        if b.len() < 2 || b[0] != b'\\' {
            return None;
        }
        let group = perl_group(b[1])?;
        self.append_group(class, &group);
        Some(&s[2..])
    }

    /// `[:name:]` at the start of `s`, appended to `class`; `None` when `s` does not hold a
    /// `:]` (then the `[` is a rune), an error for an unknown name.
    fn parse_named_class<'a>(
        &self,
        s: &'a str,
        class: &mut Vec<Rune>,
    ) -> Result<Option<&'a str>, Error> {
        let Some(end) = s[2..].find(":]") else {
            return Ok(None);
        };
        let (name, rest) = s.split_at(end + 4);
        let group =
            posix_group(name).ok_or_else(|| Error::new(ErrorCode::InvalidCharRange, name))?;
        self.append_group(class, &group);
        Ok(Some(rest))
    }

    fn append_group(&self, class: &mut Vec<Rune>, group: &Group) {
        let folded;
        let ranges = if self.flags.has(Flags::FOLD_CASE) {
            let mut tmp = Vec::new();
            append_folded_class(&mut tmp, group.class);
            clean_class(&mut tmp);
            folded = tmp;
            &folded[..]
        } else {
            group.class
        };
        if group.negated {
            append_negated_class(class, ranges);
        } else {
            append_class(class, ranges);
        }
    }

    /// `\pN`, `\p{Name}`, `\PN`, `\P{Name}` (and `\p{^Name}`) at the start of `s`, appended to
    /// `class`; `None` when `s` starts with neither.
    pub(super) fn parse_unicode_class<'a>(
        &self,
        s: &'a str,
        class: &mut Vec<Rune>,
    ) -> Result<Option<&'a str>, Error> {
        let b = s.as_bytes();
        if b.len() < 2 || b[0] != b'\\' || (b[1] != b'p' && b[1] != b'P') {
            return Ok(None);
        }
        let mut negated = b[1] == b'P';
        let (c, after) = next_rune(&s[2..]);
        let (seq, mut name, rest) = if c != '{' as Rune {
            let seq = consumed(s, after);
            (seq, &seq[2..], after)
        } else {
            let Some(end) = s.find('}') else {
                return Err(Error::new(ErrorCode::InvalidCharRange, s));
            };
            (&s[..=end], &s[3..end], &s[end + 1..])
        };
        if let Some(inner) = name.strip_prefix('^') {
            negated = !negated;
            name = inner;
        }
        let named =
            named_class(name).ok_or_else(|| Error::new(ErrorCode::InvalidCharRange, seq))?;
        negated ^= named.negated;
        match named.fold {
            Some(fold) if self.flags.has(Flags::FOLD_CASE) => {
                let mut tmp = Vec::new();
                append_table(&mut tmp, named.table);
                append_table(&mut tmp, fold);
                clean_class(&mut tmp);
                if negated {
                    append_negated_class(class, &tmp);
                } else {
                    append_class(class, &tmp);
                }
            }
            _ if negated => append_negated_table(class, named.table),
            _ => append_table(class, named.table),
        }
        Ok(Some(rest))
    }
}
