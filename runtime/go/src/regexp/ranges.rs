//! Character classes as Go builds them: a flat list of `lo, hi` pairs, appended to range by
//! range (merging with the last two ranges where they touch), sorted and merged at the end.
//! The list's length counts against Go's limit on runes in classes, so it is built step for
//! step as Go builds it.

use super::unicode::{MAX_FOLD, MIN_FOLD, Table, simple_fold};
use super::{MAX_RUNE, Rune};

/// Appends `lo..=hi`, widening one of the last two ranges instead where they overlap or touch.
pub(super) fn append_range(r: &mut Vec<Rune>, lo: Rune, hi: Rune) {
    let n = r.len();
    for back in [2, 4] {
        if n >= back {
            let (rlo, rhi) = (r[n - back], r[n - back + 1]);
            if lo <= rhi + 1 && rlo <= hi + 1 {
                r[n - back] = rlo.min(lo);
                r[n - back + 1] = rhi.max(hi);
                return;
            }
        }
    }
    r.extend([lo, hi]);
}

/// Appends `lo..=hi` and every code point that folds to one in it.
pub(super) fn append_folded_range(r: &mut Vec<Rune>, mut lo: Rune, mut hi: Rune) {
    if (lo <= MIN_FOLD && hi >= MAX_FOLD) || hi < MIN_FOLD || lo > MAX_FOLD {
        return append_range(r, lo, hi);
    }
    if lo < MIN_FOLD {
        append_range(r, lo, MIN_FOLD - 1);
        lo = MIN_FOLD;
    }
    if hi > MAX_FOLD {
        append_range(r, MAX_FOLD + 1, hi);
        hi = MAX_FOLD;
    }
    for c in lo..=hi {
        append_range(r, c, c);
        let mut f = simple_fold(c);
        while f != c {
            append_range(r, f, f);
            f = simple_fold(f);
        }
    }
}

/// Appends one code point, with its case-folding orbit when `fold`.
pub(super) fn append_literal(r: &mut Vec<Rune>, x: Rune, fold: bool) {
    if fold {
        append_folded_range(r, x, x);
    } else {
        append_range(r, x, x);
    }
}

/// Appends a clean class.
pub(super) fn append_class(r: &mut Vec<Rune>, x: &[Rune]) {
    for pair in x.chunks_exact(2) {
        append_range(r, pair[0], pair[1]);
    }
}

/// Appends a class with every code point that folds into it.
pub(super) fn append_folded_class(r: &mut Vec<Rune>, x: &[Rune]) {
    for pair in x.chunks_exact(2) {
        append_folded_range(r, pair[0], pair[1]);
    }
}

/// Appends the complement of a clean class.
pub(super) fn append_negated_class(r: &mut Vec<Rune>, x: &[Rune]) {
    let mut next = 0;
    for pair in x.chunks_exact(2) {
        if next < pair[0] {
            append_range(r, next, pair[0] - 1);
        }
        next = pair[1] + 1;
    }
    if next <= MAX_RUNE {
        append_range(r, next, MAX_RUNE);
    }
}

/// The code points of a table's entries, range by range (a strided entry one by one).
fn table_ranges(table: Table) -> impl Iterator<Item = (Rune, Rune)> {
    table.iter().flat_map(|&(lo, hi, stride)| {
        // Table entries are code points (at most 0x10ffff), so they fit a Rune.
        let (lo, hi) = (lo as Rune, hi as Rune);
        let step = stride.max(1) as usize;
        let singles = (stride != 1).then(|| (lo..=hi).step_by(step).map(|c| (c, c)));
        let whole = (stride == 1).then_some((lo, hi));
        whole.into_iter().chain(singles.into_iter().flatten())
    })
}

/// Appends a table.
pub(super) fn append_table(r: &mut Vec<Rune>, table: Table) {
    for (lo, hi) in table_ranges(table) {
        append_range(r, lo, hi);
    }
}

/// Appends the complement of a table.
pub(super) fn append_negated_table(r: &mut Vec<Rune>, table: Table) {
    let mut next = 0;
    for (lo, hi) in table_ranges(table) {
        if next < lo {
            append_range(r, next, lo - 1);
        }
        next = hi + 1;
    }
    if next <= MAX_RUNE {
        append_range(r, next, MAX_RUNE);
    }
}

/// Sorts the ranges (by start, the longer first) and merges the ones that overlap or touch.
pub(super) fn clean_class(r: &mut Vec<Rune>) {
    let mut pairs: Vec<(Rune, Rune)> = r.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut merged: Vec<(Rune, Rune)> = Vec::with_capacity(pairs.len());
    for (lo, hi) in pairs {
        match merged.last_mut() {
            Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    r.clear();
    r.extend(merged.into_iter().flat_map(|(lo, hi)| [lo, hi]));
}

/// Replaces a clean class by its complement.
pub(super) fn negate_class(r: &mut Vec<Rune>) {
    let mut out = Vec::with_capacity(r.len() + 2);
    append_negated_class(&mut out, r);
    *r = out;
}

/// Whether a clean or unclean class holds `c`.
pub(super) fn class_contains(r: &[Rune], c: Rune) -> bool {
    r.chunks_exact(2).any(|p| p[0] <= c && c <= p[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_ranges_take_in_the_orbits() {
        let mut r = Vec::new();
        append_folded_range(&mut r, 'k' as Rune, 'k' as Rune);
        clean_class(&mut r);
        assert_eq!(
            r,
            [
                'K' as Rune,
                'K' as Rune,
                'k' as Rune,
                'k' as Rune,
                0x212a,
                0x212a
            ]
        );
    }

    #[test]
    fn negation_and_cleaning() {
        let mut r = vec![
            'b' as Rune,
            'c' as Rune,
            'a' as Rune,
            'a' as Rune,
            'x' as Rune,
            'z' as Rune,
        ];
        clean_class(&mut r);
        assert_eq!(r, ['a' as Rune, 'c' as Rune, 'x' as Rune, 'z' as Rune]);
        negate_class(&mut r);
        assert_eq!(
            r,
            [
                0,
                'a' as Rune - 1,
                'd' as Rune,
                'w' as Rune,
                '{' as Rune,
                MAX_RUNE
            ]
        );
        let mut all = vec![0, MAX_RUNE];
        negate_class(&mut all);
        assert!(all.is_empty());
    }
}
