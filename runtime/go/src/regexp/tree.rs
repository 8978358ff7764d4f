//! The parse tree Go's parser builds (`syntax.Regexp`), kept in an arena: nodes are freed and
//! reused in the order Go's parser frees and reuses them, because Go's size and depth limits
//! are counted on this tree and on those allocations.

use super::Rune;

/// A node's operator, in Go's order (merging classes compares operators by it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Op {
    /// Matches nothing.
    #[default]
    NoMatch,
    /// Matches the empty string.
    EmptyMatch,
    /// The runes in order (each with its case-folding orbit under `FOLD_CASE`).
    Literal,
    /// One rune of the class.
    CharClass,
    /// One rune but `\n`.
    AnyCharNotNl,
    /// One rune.
    AnyChar,
    /// `(?m)^`.
    BeginLine,
    /// `(?m)$`.
    EndLine,
    /// `^`, `\A`.
    BeginText,
    /// `$`, `\z`.
    EndText,
    /// `\b` (ASCII).
    WordBoundary,
    /// `\B` (ASCII).
    NoWordBoundary,
    /// A capturing group.
    Capture,
    /// `*`.
    Star,
    /// `+`.
    Plus,
    /// `?`.
    Quest,
    /// `{min,max}` (`max` -1 when unbounded).
    Repeat,
    /// A concatenation.
    Concat,
    /// An alternation.
    Alternate,
    /// An open `(` on the parse stack (not in finished trees).
    LeftParen,
    /// A `|` on the parse stack (not in finished trees).
    VerticalBar,
}

impl Op {
    /// Whether the operator only marks a place on the parse stack.
    pub(super) fn is_pseudo(self) -> bool {
        self >= Op::LeftParen
    }
}

/// Parse flags, with Go's bit values (nodes carry them and compare them whole).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Flags(pub(super) u16);

impl Flags {
    /// `(?i)`.
    pub(super) const FOLD_CASE: Flags = Flags(1);
    /// Negated classes match `\n` (always on for `regexp.Compile`).
    const CLASS_NL: Flags = Flags(1 << 2);
    /// `(?s)`: `.` matches `\n`.
    pub(super) const DOT_NL: Flags = Flags(1 << 3);
    /// `^` and `$` are the text's ends (on unless `(?m)`).
    pub(super) const ONE_LINE: Flags = Flags(1 << 4);
    /// `(?U)`, or a repetition's `?`.
    pub(super) const NON_GREEDY: Flags = Flags(1 << 5);
    /// Perl's extensions (always on).
    const PERL_X: Flags = Flags(1 << 6);
    /// `\p{..}` classes (always on).
    const UNICODE_GROUPS: Flags = Flags(1 << 7);
    /// An end of text written `$` rather than `\z`.
    pub(super) const WAS_DOLLAR: Flags = Flags(1 << 8);
    /// What `regexp.Compile` parses with (`syntax.Perl`).
    pub(super) const PERL: Flags =
        Flags(Flags::CLASS_NL.0 | Flags::ONE_LINE.0 | Flags::PERL_X.0 | Flags::UNICODE_GROUPS.0);
    pub(super) const NONE: Flags = Flags(0);

    pub(super) fn has(self, f: Flags) -> bool {
        self.0 & f.0 != 0
    }

    pub(super) fn with(self, f: Flags) -> Flags {
        Flags(self.0 | f.0)
    }

    pub(super) fn without(self, f: Flags) -> Flags {
        Flags(self.0 & !f.0)
    }

    pub(super) fn toggled(self, f: Flags) -> Flags {
        Flags(self.0 ^ f.0)
    }

    pub(super) fn inverted(self) -> Flags {
        Flags(!self.0)
    }

    pub(super) fn only(self, f: Flags) -> Flags {
        Flags(self.0 & f.0)
    }
}

/// An index into the arena.
pub(super) type Id = usize;

/// One node of the tree.
#[derive(Clone, Debug, Default)]
pub(super) struct Node {
    pub(super) op: Op,
    pub(super) flags: Flags,
    /// A literal's runes, or a class's `lo, hi` pairs.
    pub(super) runes: Vec<Rune>,
    pub(super) subs: Vec<Id>,
    pub(super) min: i32,
    pub(super) max: i32,
    /// A capture's index (0 for a non-capturing `(?:` on the stack).
    pub(super) cap: u32,
    pub(super) name: String,
}

/// The nodes of one parse; a finished tree is the node its root id names.
#[derive(Debug, Default)]
pub(super) struct Arena {
    pub(super) nodes: Vec<Node>,
    /// Freed nodes, the last freed reused first.
    free: Vec<Id>,
    /// Nodes allocated fresh (not reused), as Go counts them.
    pub(super) allocated: usize,
}

impl Arena {
    /// A new node with `op`, reusing the last freed one if any.
    pub(super) fn alloc(&mut self, op: Op) -> Id {
        let node = Node {
            op,
            ..Node::default()
        };
        match self.free.pop() {
            Some(id) => {
                self.nodes[id] = node;
                id
            }
            None => {
                self.allocated += 1;
                self.nodes.push(node);
                self.nodes.len() - 1
            }
        }
    }

    /// Frees a node for reuse.
    pub(super) fn free(&mut self, id: Id) {
        self.free.push(id);
    }

    /// Whether two trees are the same (`Regexp.Equal`).
    pub(super) fn equal(&self, x: Id, y: Id) -> bool {
        let (a, b) = (&self.nodes[x], &self.nodes[y]);
        if a.op != b.op {
            return false;
        }
        let greedy_same = a.flags.only(Flags::NON_GREEDY) == b.flags.only(Flags::NON_GREEDY);
        match a.op {
            Op::EndText => a.flags.only(Flags::WAS_DOLLAR) == b.flags.only(Flags::WAS_DOLLAR),
            Op::Literal | Op::CharClass => {
                a.flags.only(Flags::FOLD_CASE) == b.flags.only(Flags::FOLD_CASE)
                    && a.runes == b.runes
            }
            Op::Alternate | Op::Concat => {
                a.subs.len() == b.subs.len()
                    && a.subs.iter().zip(&b.subs).all(|(&s, &t)| self.equal(s, t))
            }
            Op::Star | Op::Plus | Op::Quest => greedy_same && self.equal(a.subs[0], b.subs[0]),
            Op::Repeat => {
                greedy_same && a.min == b.min && a.max == b.max && self.equal(a.subs[0], b.subs[0])
            }
            Op::Capture => a.cap == b.cap && a.name == b.name && self.equal(a.subs[0], b.subs[0]),
            _ => true,
        }
    }

    /// Whether the node matches exactly one rune: a one-rune literal, a class, or a dot.
    pub(super) fn is_char_class(&self, id: Id) -> bool {
        let n = &self.nodes[id];
        matches!(n.op, Op::CharClass | Op::AnyCharNotNl | Op::AnyChar)
            || (n.op == Op::Literal && n.runes.len() == 1)
    }
}
