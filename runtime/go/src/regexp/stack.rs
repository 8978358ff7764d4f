//! The parse stack: pushing nodes (merging adjacent literals, turning one-rune classes into
//! literals), collapsing a branch into a concatenation and branches into an alternation, and
//! the factoring Go applies to alternations (common prefixes pulled out, one-rune branches
//! merged into a class). None of it changes what a pattern matches, but Go counts its limits
//! on the tree this builds, so it is done as Go does it.

use super::error::Error;
use super::parse::Parser;
use super::ranges::{append_class, append_literal, class_contains, clean_class};
use super::tree::{Flags, Id, Op};
use super::unicode::simple_fold;
use super::{MAX_RUNE, Rune};

impl Parser<'_> {
    /// Pushes `id`; returns `None` when it merged into the literal below instead.
    pub(super) fn push(&mut self, id: Id) -> Result<Option<Id>, Error> {
        let node = &self.arena.nodes[id];
        self.num_runes += node.runes.len();
        let r = &node.runes;
        let is_class = node.op == Op::CharClass;
        let one_rune = is_class && r.len() == 2 && r[0] == r[1];
        // `[Aa]` or `[Δδ]`: one rune and its only case pair.
        let case_pair = is_class
            && ((r.len() == 4
                && r[0] == r[1]
                && r[2] == r[3]
                && simple_fold(r[0]) == r[2]
                && simple_fold(r[2]) == r[0])
                || (r.len() == 2
                    && r[0] + 1 == r[1]
                    && simple_fold(r[0]) == r[1]
                    && simple_fold(r[1]) == r[0]));
        if one_rune || case_pair {
            let rune = r[0];
            let flags = if one_rune {
                self.flags.without(Flags::FOLD_CASE)
            } else {
                self.flags.with(Flags::FOLD_CASE)
            };
            if self.maybe_concat(rune, flags) {
                return Ok(None);
            }
            let node = &mut self.arena.nodes[id];
            node.op = Op::Literal;
            node.runes.truncate(1);
            node.flags = flags;
        } else {
            self.maybe_concat(-1, Flags::NONE);
        }
        self.stack.push(id);
        self.check_limits(id)?;
        Ok(Some(id))
    }

    /// Appends the top literal to the literal below it when their case folding agrees. With
    /// a rune `r`, the freed top node is reused for it (and `true` returned: `r` is pushed).
    fn maybe_concat(&mut self, r: Rune, flags: Flags) -> bool {
        let n = self.stack.len();
        if n < 2 {
            return false;
        }
        let (top, below) = (self.stack[n - 1], self.stack[n - 2]);
        let (t, b) = (&self.arena.nodes[top], &self.arena.nodes[below]);
        if t.op != Op::Literal
            || b.op != Op::Literal
            || t.flags.only(Flags::FOLD_CASE) != b.flags.only(Flags::FOLD_CASE)
        {
            return false;
        }
        let moved = std::mem::take(&mut self.arena.nodes[top].runes);
        self.arena.nodes[below].runes.extend(moved);
        if r >= 0 {
            let node = &mut self.arena.nodes[top];
            node.runes = vec![r];
            node.flags = flags;
            return true;
        }
        self.stack.pop();
        self.reuse(top);
        false
    }

    /// Where the nodes above the last `(` or `|` start.
    fn branch_start(&self) -> usize {
        self.stack
            .iter()
            .rposition(|&id| self.arena.nodes[id].op.is_pseudo())
            .map_or(0, |i| i + 1)
    }

    /// Replaces the nodes above the last `(` or `|` by their concatenation.
    pub(super) fn concat(&mut self) -> Result<Option<Id>, Error> {
        self.maybe_concat(-1, Flags::NONE);
        let subs = self.stack.split_off(self.branch_start());
        if subs.is_empty() {
            let empty = self.arena.alloc(Op::EmptyMatch);
            return self.push(empty);
        }
        let id = self.collapse(subs, Op::Concat)?;
        self.push(id)
    }

    /// Replaces the branches above the last `(` by their alternation.
    pub(super) fn alternate(&mut self) -> Result<Option<Id>, Error> {
        let subs = self.stack.split_off(self.branch_start());
        let Some(&last) = subs.last() else {
            let none = self.arena.alloc(Op::NoMatch);
            return self.push(none);
        };
        self.clean_alt(last);
        let id = self.collapse(subs, Op::Alternate)?;
        self.push(id)
    }

    /// Tidies a class about to become a branch: sorted, and `.` or `(?s).` when it is one.
    fn clean_alt(&mut self, id: Id) {
        let node = &mut self.arena.nodes[id];
        if node.op != Op::CharClass {
            return;
        }
        clean_class(&mut node.runes);
        if node.runes == [0, MAX_RUNE] {
            node.runes.clear();
            node.op = Op::AnyChar;
        } else if node.runes == [0, '\n' as Rune - 1, '\n' as Rune + 1, MAX_RUNE] {
            node.runes.clear();
            node.op = Op::AnyCharNotNl;
        }
    }

    /// One node applying `op` to `subs`, flattening subs that already apply it, and
    /// factoring alternations.
    fn collapse(&mut self, subs: Vec<Id>, op: Op) -> Result<Id, Error> {
        if let [only] = subs[..] {
            return Ok(only);
        }
        let id = self.arena.alloc(op);
        let mut flat = Vec::with_capacity(subs.len());
        for sub in subs {
            if self.arena.nodes[sub].op == op {
                flat.extend(self.arena.nodes[sub].subs.clone());
                self.reuse(sub);
            } else {
                flat.push(sub);
            }
        }
        if op == Op::Alternate {
            flat = self.factor(flat)?;
            if let [only] = flat[..] {
                self.reuse(id);
                return Ok(only);
            }
        }
        self.arena.nodes[id].subs = flat;
        Ok(id)
    }

    /// Factors an alternation's branches: common literal prefixes (`abc|abd` is
    /// `ab(?:c|d)`), common leading classes, runs of one-rune branches into one class, runs
    /// of empty branches into one.
    fn factor(&mut self, sub: Vec<Id>) -> Result<Vec<Id>, Error> {
        if sub.len() < 2 {
            return Ok(sub);
        }
        let sub = self.factor_prefixes(sub)?;
        let sub = self.factor_leading_classes(sub)?;
        let sub = self.merge_one_rune_branches(sub);
        let mut out: Vec<Id> = Vec::with_capacity(sub.len());
        for (i, &id) in sub.iter().enumerate() {
            let empty = |j: usize| self.arena.nodes[sub[j]].op == Op::EmptyMatch;
            if i + 1 < sub.len() && empty(i) && empty(i + 1) {
                continue;
            }
            out.push(id);
        }
        Ok(out)
    }

    /// Round one: runs of branches starting with the same literal runes.
    fn factor_prefixes(&mut self, mut sub: Vec<Id>) -> Result<Vec<Id>, Error> {
        let mut out = Vec::with_capacity(sub.len());
        let (mut prefix, mut prefix_flags) = (Vec::new(), Flags::NONE);
        let mut start = 0;
        for i in 0..=sub.len() {
            let (mut next, mut next_flags) = (Vec::new(), Flags::NONE);
            if i < sub.len() {
                (next, next_flags) = self.leading_string(sub[i]);
                if next_flags == prefix_flags {
                    let same = prefix.iter().zip(&next).take_while(|(a, b)| a == b).count();
                    if same > 0 {
                        prefix.truncate(same);
                        continue;
                    }
                }
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1 {
                let lit = self.arena.alloc(Op::Literal);
                self.arena.nodes[lit].flags = prefix_flags;
                self.arena.nodes[lit].runes = prefix.clone();
                for branch in &mut sub[start..i] {
                    *branch = self.remove_leading_string(*branch, prefix.len());
                    self.check_limits(*branch)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let concat = self.arena.alloc(Op::Concat);
                self.arena.nodes[concat].subs = vec![lit, suffix];
                out.push(concat);
            }
            start = i;
            (prefix, prefix_flags) = (next, next_flags);
        }
        Ok(out)
    }

    /// Round two: runs of branches starting with the same class (or fixed repetition of a
    /// class); more complex prefixes are left alone, as merging them would change priorities.
    fn factor_leading_classes(&mut self, mut sub: Vec<Id>) -> Result<Vec<Id>, Error> {
        let mut out = Vec::with_capacity(sub.len());
        let mut first: Option<Id> = None;
        let mut start = 0;
        for i in 0..=sub.len() {
            let mut next = None;
            if i < sub.len() {
                next = self.leading_regexp(sub[i]);
                if let (Some(f), Some(n)) = (first, next)
                    && self.arena.equal(f, n)
                    && self.is_factorable(f)
                {
                    continue;
                }
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1
                && let Some(prefix) = first
            {
                for (j, branch) in sub.iter_mut().enumerate().take(i).skip(start) {
                    // The first branch's leading node becomes the shared prefix.
                    *branch = self.remove_leading_regexp(*branch, j != start);
                    self.check_limits(*branch)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let concat = self.arena.alloc(Op::Concat);
                self.arena.nodes[concat].subs = vec![prefix, suffix];
                out.push(concat);
            }
            start = i;
            first = next;
        }
        Ok(out)
    }

    fn is_factorable(&self, id: Id) -> bool {
        let node = &self.arena.nodes[id];
        self.arena.is_char_class(id)
            || (node.op == Op::Repeat
                && node.min == node.max
                && self.arena.is_char_class(node.subs[0]))
    }

    /// Round three: runs of one-rune branches become one class.
    fn merge_one_rune_branches(&mut self, mut sub: Vec<Id>) -> Vec<Id> {
        let mut out = Vec::with_capacity(sub.len());
        let mut start = 0;
        for i in 0..=sub.len() {
            if i < sub.len() && self.arena.is_char_class(sub[i]) {
                continue;
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1 {
                // Merge into the most complex of the run.
                let mut max = start;
                for j in start + 1..i {
                    let (m, n) = (&self.arena.nodes[sub[max]], &self.arena.nodes[sub[j]]);
                    if m.op < n.op || (m.op == n.op && m.runes.len() < n.runes.len()) {
                        max = j;
                    }
                }
                sub.swap(start, max);
                for j in start + 1..i {
                    self.merge_char_class(sub[start], sub[j]);
                    self.reuse(sub[j]);
                }
                self.clean_alt(sub[start]);
                out.push(sub[start]);
            }
            if i < sub.len() {
                out.push(sub[i]);
            }
            start = i + 1;
        }
        out
    }

    /// The literal runes a branch starts with, and whether they fold.
    fn leading_string(&self, mut id: Id) -> (Vec<Rune>, Flags) {
        let node = &self.arena.nodes[id];
        if node.op == Op::Concat && !node.subs.is_empty() {
            id = node.subs[0];
        }
        let node = &self.arena.nodes[id];
        if node.op != Op::Literal {
            return (Vec::new(), Flags::NONE);
        }
        (node.runes.clone(), node.flags.only(Flags::FOLD_CASE))
    }

    /// The branch without its first `n` literal runes.
    fn remove_leading_string(&mut self, id: Id, n: usize) -> Id {
        let node = &self.arena.nodes[id];
        if node.op == Op::Concat && !node.subs.is_empty() {
            let first = self.remove_leading_string(node.subs[0], n);
            self.arena.nodes[id].subs[0] = first;
            if self.arena.nodes[first].op != Op::EmptyMatch {
                return id;
            }
            self.reuse(first);
            let node = &mut self.arena.nodes[id];
            match node.subs.len() {
                0 | 1 => {
                    node.op = Op::EmptyMatch;
                    node.subs.clear();
                }
                2 => {
                    let rest = node.subs[1];
                    self.reuse(id);
                    return rest;
                }
                _ => {
                    node.subs.remove(0);
                }
            }
            return id;
        }
        let node = &mut self.arena.nodes[id];
        if node.op == Op::Literal {
            node.runes.drain(..n.min(node.runes.len()));
            if node.runes.is_empty() {
                node.op = Op::EmptyMatch;
            }
        }
        id
    }

    /// The node a branch starts with (`None` for an empty branch).
    fn leading_regexp(&self, id: Id) -> Option<Id> {
        let node = &self.arena.nodes[id];
        match node.op {
            Op::EmptyMatch => None,
            Op::Concat if !node.subs.is_empty() => {
                let first = node.subs[0];
                (self.arena.nodes[first].op != Op::EmptyMatch).then_some(first)
            }
            _ => Some(id),
        }
    }

    /// The branch without its first node, which is freed when `free`.
    fn remove_leading_regexp(&mut self, id: Id, free: bool) -> Id {
        let node = &self.arena.nodes[id];
        if node.op == Op::Concat && !node.subs.is_empty() {
            if free {
                self.reuse(node.subs[0]);
            }
            let node = &mut self.arena.nodes[id];
            node.subs.remove(0);
            match node.subs.len() {
                0 => {
                    node.op = Op::EmptyMatch;
                    node.subs.clear();
                }
                1 => {
                    let rest = node.subs[0];
                    self.reuse(id);
                    return rest;
                }
                _ => {}
            }
            return id;
        }
        if free {
            self.reuse(id);
        }
        self.arena.alloc(Op::EmptyMatch)
    }

    /// Makes `dst` match what `src` matches too; `dst` is the more complex of the two.
    fn merge_char_class(&mut self, dst: Id, src: Id) {
        let s = self.arena.nodes[src].clone();
        let d = &mut self.arena.nodes[dst];
        match d.op {
            Op::AnyCharNotNl if matches_rune(&s, '\n' as Rune) => d.op = Op::AnyChar,
            Op::CharClass if s.op == Op::Literal => {
                append_literal(&mut d.runes, s.runes[0], s.flags.has(Flags::FOLD_CASE))
            }
            Op::CharClass => append_class(&mut d.runes, &s.runes),
            Op::Literal if !(s.runes[0] == d.runes[0] && s.flags == d.flags) => {
                let r0 = d.runes[0];
                d.op = Op::CharClass;
                d.runes.clear();
                append_literal(&mut d.runes, r0, d.flags.has(Flags::FOLD_CASE));
                append_literal(&mut d.runes, s.runes[0], s.flags.has(Flags::FOLD_CASE));
            }
            _ => {}
        }
    }

    /// With a branch above a `|` marker: merges it into the branch below the marker when
    /// both are one rune, or else swaps it below the marker. Returns whether either happened.
    pub(super) fn swap_vertical_bar(&mut self) -> bool {
        let n = self.stack.len();
        if n >= 3
            && self.arena.nodes[self.stack[n - 2]].op == Op::VerticalBar
            && self.arena.is_char_class(self.stack[n - 1])
            && self.arena.is_char_class(self.stack[n - 3])
        {
            let (mut top, mut below) = (self.stack[n - 1], self.stack[n - 3]);
            if self.arena.nodes[top].op > self.arena.nodes[below].op {
                (top, below) = (below, top);
                self.stack[n - 3] = below;
            }
            self.merge_char_class(below, top);
            self.reuse(top);
            self.stack.pop();
            return true;
        }
        if n >= 2 && self.arena.nodes[self.stack[n - 2]].op == Op::VerticalBar {
            if n >= 3 {
                self.clean_alt(self.stack[n - 3]);
            }
            self.stack.swap(n - 2, n - 1);
            return true;
        }
        false
    }
}

/// Whether a one-rune node matches `r` (a literal by its rune alone, as Go checks it).
fn matches_rune(node: &super::tree::Node, r: Rune) -> bool {
    match node.op {
        Op::Literal => node.runes.len() == 1 && node.runes[0] == r,
        Op::CharClass => class_contains(&node.runes, r),
        Op::AnyCharNotNl => r != '\n' as Rune,
        Op::AnyChar => true,
        _ => false,
    }
}
