//! A parsed Go pattern as a regex-syntax `Hir`, with Go's meaning: classes and case-folding
//! orbits spelled out from Go's tables, `\b` and `\B` ASCII, `$` the end of the text (and
//! `(?m)$` the end of a line, `\n` only). regex-automata runs it with the same leftmost-first
//! priorities as Go.

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look, Repetition};

use super::parse::Tree;
use super::tree::{Flags, Id, Op};
use super::unicode::fold_orbit;
use super::{MAX_RUNE, Rune};

/// The tree as a `Hir`.
pub(super) fn to_hir(tree: &Tree) -> Hir {
    convert(tree, tree.root)
}

fn convert(tree: &Tree, id: Id) -> Hir {
    let node = &tree.arena.nodes[id];
    let sub = || convert(tree, node.subs[0]);
    let repeat = |min: u32, max: Option<u32>| {
        Hir::repetition(Repetition {
            min,
            max,
            greedy: !node.flags.has(Flags::NON_GREEDY),
            sub: Box::new(sub()),
        })
    };
    match node.op {
        Op::NoMatch | Op::LeftParen | Op::VerticalBar => Hir::fail(),
        Op::EmptyMatch => Hir::empty(),
        Op::Literal => {
            let fold = node.flags.has(Flags::FOLD_CASE);
            Hir::concat(node.runes.iter().map(|&r| literal(r, fold)).collect())
        }
        Op::CharClass => class(node.runes.chunks_exact(2).map(|p| (p[0], p[1]))),
        Op::AnyCharNotNl => class([(0, '\n' as Rune - 1), ('\n' as Rune + 1, MAX_RUNE)]),
        Op::AnyChar => class([(0, MAX_RUNE)]),
        Op::BeginLine => Hir::look(Look::StartLF),
        Op::EndLine => Hir::look(Look::EndLF),
        Op::BeginText => Hir::look(Look::Start),
        Op::EndText => Hir::look(Look::End),
        Op::WordBoundary => Hir::look(Look::WordAscii),
        Op::NoWordBoundary => Hir::look(Look::WordAsciiNegate),
        // Groups only matter for submatches, which nothing here reports.
        Op::Capture => sub(),
        Op::Star => repeat(0, None),
        Op::Plus => repeat(1, None),
        Op::Quest => repeat(0, Some(1)),
        // Counts are at most 1000 (checked by the parser).
        Op::Repeat => repeat(node.min as u32, u32::try_from(node.max).ok()),
        Op::Concat => Hir::concat(node.subs.iter().map(|&s| convert(tree, s)).collect()),
        Op::Alternate => Hir::alternation(node.subs.iter().map(|&s| convert(tree, s)).collect()),
    }
}

/// One rune; with its whole case-folding orbit when `fold`.
fn literal(r: Rune, fold: bool) -> Hir {
    let orbit: Vec<Rune> = if fold {
        fold_orbit(r).collect()
    } else {
        Vec::new()
    };
    if orbit.is_empty() {
        return match char::from_u32(r as u32) {
            Some(c) => Hir::literal(c.to_string().into_bytes()),
            // A surrogate (`\x{D800}`): no text holds one.
            None => Hir::fail(),
        };
    }
    class(std::iter::once(r).chain(orbit).map(|r| (r, r)))
}

/// A class of code points; surrogates, which no UTF-8 text holds, are left out.
fn class(ranges: impl IntoIterator<Item = (Rune, Rune)>) -> Hir {
    const SURROGATES: (Rune, Rune) = (0xd800, 0xdfff);
    let mut out = Vec::new();
    let mut add = |lo: Rune, hi: Rune| {
        if let (Some(lo), Some(hi)) = (char::from_u32(lo as u32), char::from_u32(hi as u32))
            && lo <= hi
        {
            out.push(ClassUnicodeRange::new(lo, hi));
        }
    };
    for (lo, hi) in ranges {
        add(lo, hi.min(SURROGATES.0 - 1));
        add(lo.max(SURROGATES.1 + 1), hi);
    }
    Hir::class(Class::Unicode(ClassUnicode::new(out)))
}

/// How deeply `hir` nests.
pub(super) fn depth(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Repetition(r) => 1 + depth(&r.sub),
        HirKind::Capture(c) => 1 + depth(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            1 + subs.iter().map(depth).max().unwrap_or(0)
        }
        _ => 1,
    }
}
