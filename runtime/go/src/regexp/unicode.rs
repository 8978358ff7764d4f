//! The Unicode side of Go's patterns: class names (`\p{Greek}`, `\pL`, `\p{Letter}`) resolved
//! as `regexp/syntax` resolves them, and simple case folding (`unicode.SimpleFold`), both from
//! tables generated from Go's package `unicode` (`tables.rs`).

use super::Rune;
use super::tables::{NAMES, SIMPLE_FOLD};

/// A range table as Go's `unicode.RangeTable` lists it: `(lo, hi, stride)`, the 16-bit ranges
/// first. The order and the strides matter: a class is built range by range as Go builds it,
/// so its size counts against Go's limits exactly as in Go.
pub(super) type Table = &'static [(u32, u32, u32)];

/// The lowest and highest code points simple case folding changes, as `regexp/syntax` bounds
/// them (the tables' own bounds; checked by a test).
pub(super) const MIN_FOLD: Rune = 0x41;
pub(super) const MAX_FOLD: Rune = 0x1e943;

static ANY: Table = &[(0, 0xffff, 1), (0x10000, 0x10ffff, 1)];
static ASCII: Table = &[(0, 0x7f, 1)];
/// ASCII and the two code points outside it that fold into it (ſ and the Kelvin sign).
static ASCII_FOLD: Table = &[(0, 0x7f, 1), (0x17f, 0x17f, 1), (0x212a, 0x212a, 1)];

/// A named class: its table, the code points outside it that fold into it, and whether the
/// class is the table's complement (`Assigned` is "not unassigned").
pub(super) struct Named {
    pub(super) table: Table,
    pub(super) fold: Option<Table>,
    pub(super) negated: bool,
}

/// The class `\p{name}` names, looked up as Go does: case-insensitively after the first
/// letter, ignoring `_`, `-` and spaces; `Any`, `Assigned` and `ASCII` first, then general
/// categories, scripts and the categories' long names (`Letter`, `Decimal_Number`).
pub(super) fn named_class(name: &str) -> Option<Named> {
    let name = canonical_name(name);
    let (table, fold, negated) = match name.as_str() {
        "Any" => (ANY, Some(ANY), false),
        "Ascii" => (ASCII, Some(ASCII_FOLD), false),
        "Assigned" => {
            let (_, cn, fold) = lookup("Cn")?;
            (*cn, *fold, true)
        }
        other => {
            let (_, table, fold) = lookup(other)?;
            (*table, *fold, false)
        }
    };
    Some(Named {
        table,
        fold,
        negated,
    })
}

fn lookup(canonical: &str) -> Option<&'static (&'static str, Table, Option<Table>)> {
    NAMES
        .binary_search_by(|(name, _, _)| (*name).cmp(canonical))
        .ok()
        .map(|i| &NAMES[i])
}

/// Whether `r` is in the general category `name` (`L`, `Nd`, ...), as Go's `unicode.Is`
/// answers with the category's table; `false` for a name that is no category.
pub(crate) fn in_category(name: &str, r: u32) -> bool {
    let Some((_, table, _)) = lookup(name) else {
        return false;
    };
    // The ranges are sorted and disjoint: the last one starting at or below `r` is the only
    // one that can hold it.
    let i = table.partition_point(|&(lo, _, _)| lo <= r);
    let Some(&(lo, hi, stride)) = i.checked_sub(1).and_then(|i| table.get(i)) else {
        return false;
    };
    r <= hi && (r - lo).is_multiple_of(stride.max(1))
}

/// The spelling Go looks names up by: the first letter upper case, the others lower case,
/// with `_`, `-` and spaces dropped.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for c in name.chars() {
        if matches!(c, '_' | '-' | ' ') {
            continue;
        }
        if first {
            out.push(c.to_ascii_uppercase());
            first = false;
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// `unicode.SimpleFold`: the next code point in `r`'s case-folding orbit (the smallest one
/// above `r`, or the smallest of the orbit after its largest), or `r` when nothing folds to it.
pub(super) fn simple_fold(r: Rune) -> Rune {
    let Ok(key) = u32::try_from(r) else {
        return r;
    };
    match SIMPLE_FOLD.binary_search_by_key(&key, |&(from, _)| from) {
        // Code points are at most 0x10ffff, so they fit a Rune.
        Ok(i) => SIMPLE_FOLD[i].1 as Rune,
        Err(_) => r,
    }
}

/// The smallest code point in `r`'s orbit: how Go stores a case-insensitive literal.
pub(super) fn min_fold_rune(r: Rune) -> Rune {
    if !(MIN_FOLD..=MAX_FOLD).contains(&r) {
        return r;
    }
    let mut min = r;
    let mut f = simple_fold(r);
    while f != r {
        min = min.min(f);
        f = simple_fold(f);
    }
    min
}

/// The code points of `r`'s orbit other than `r`, in orbit order.
pub(super) fn fold_orbit(r: Rune) -> impl Iterator<Item = Rune> {
    let mut f = simple_fold(r);
    std::iter::from_fn(move || {
        if f == r {
            return None;
        }
        let out = f;
        f = simple_fold(f);
        Some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kelvin_sign_and_long_s_fold_with_ascii() {
        assert_eq!(simple_fold('k' as Rune), 0x212a);
        assert_eq!(simple_fold(0x212a), 'K' as Rune);
        assert_eq!(simple_fold('K' as Rune), 'k' as Rune);
        assert_eq!(min_fold_rune(0x17f), 'S' as Rune);
        assert_eq!(
            fold_orbit('s' as Rune).collect::<Vec<_>>(),
            [0x17f, 'S' as Rune]
        );
        assert_eq!(simple_fold('1' as Rune), '1' as Rune);
    }

    #[test]
    fn folding_lies_within_go_s_bounds() {
        let (lo, hi) = (SIMPLE_FOLD[0].0, SIMPLE_FOLD[SIMPLE_FOLD.len() - 1].0);
        assert_eq!((lo as Rune, hi as Rune), (MIN_FOLD, MAX_FOLD));
        assert!(SIMPLE_FOLD.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn names_are_found_as_go_finds_them() {
        assert!(named_class("Greek").is_some());
        assert!(named_class("greek").is_some());
        assert!(named_class("Old_Italic").is_some());
        assert!(named_class("OLD-ITALIC").is_some());
        assert!(named_class("Letter").is_some());
        assert!(named_class("LC").is_some());
        assert!(named_class("Assigned").is_some_and(|n| n.negated));
        assert!(named_class("Klingon").is_none());
        assert!(named_class("").is_none());
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
