//! Go's limits on a pattern, checked as each node is pushed: runes in classes, the size of
//! the program the tree compiles to, and the tree's height. Sizes and heights are cached per
//! node, and only once the tree has grown big enough to need them, exactly as Go does, so
//! that a pattern near a limit gets Go's verdict.

use std::collections::HashMap;

use super::error::{Error, ErrorCode};
use super::parse::Parser;
use super::tree::{Id, Op};

/// Runes allowed in all literals and classes (Go: 128 MB of 4-byte runes).
const MAX_RUNES: usize = (128 << 20) / 4;
/// Instructions allowed in the compiled program (Go: 128 MB of 40-byte instructions).
const MAX_SIZE: i64 = (128 << 20) / 40;
/// The tree's greatest height.
const MAX_HEIGHT: i32 = 1000;

impl Parser<'_> {
    /// Frees a node for reuse, forgetting its cached height (but not its size, as Go).
    pub(super) fn reuse(&mut self, id: Id) {
        if let Some(height) = &mut self.height {
            height.remove(&id);
        }
        self.arena.free(id);
    }

    pub(super) fn check_limits(&mut self, id: Id) -> Result<(), Error> {
        if self.num_runes > MAX_RUNES {
            return Err(Error::new(ErrorCode::Large, self.whole));
        }
        self.check_size(id)?;
        self.check_height(id)
    }

    fn check_size(&mut self, id: Id) -> Result<(), Error> {
        if self.size.is_none() {
            // Until the node count times the product of repetitions could pass the limit,
            // sizes are not worth tracking.
            if self.repeats == 0 {
                self.repeats = 1;
            }
            let node = &self.arena.nodes[id];
            if node.op == Op::Repeat {
                let n = i64::from(if node.max == -1 { node.min } else { node.max }).max(1);
                self.repeats = if n > MAX_SIZE / self.repeats {
                    MAX_SIZE
                } else {
                    self.repeats * n
                };
            }
            if (self.arena.allocated as i64) < MAX_SIZE / self.repeats {
                return Ok(());
            }
            self.size = Some(HashMap::new());
            for on_stack in self.stack.clone() {
                self.check_size(on_stack)?;
            }
        }
        if self.calc_size(id, true) > MAX_SIZE {
            return Err(Error::new(ErrorCode::Large, self.whole));
        }
        Ok(())
    }

    /// The instructions `id` compiles to (an estimate, as Go's).
    fn calc_size(&mut self, id: Id, force: bool) -> i64 {
        if !force && let Some(&size) = self.size.as_ref().and_then(|s| s.get(&id)) {
            return size;
        }
        let node = &self.arena.nodes[id];
        let (op, min, max) = (node.op, i64::from(node.min), i64::from(node.max));
        let subs = node.subs.clone();
        let literal = node.runes.len() as i64;
        let sub = |p: &mut Self| p.calc_size(subs[0], false);
        let size = match op {
            Op::Literal => literal,
            Op::Capture | Op::Star => 2 + sub(self),
            Op::Plus | Op::Quest => 1 + sub(self),
            Op::Concat | Op::Alternate => {
                let total: i64 = subs.iter().map(|&s| self.calc_size(s, false)).sum();
                let bars = if op == Op::Alternate && subs.len() > 1 {
                    subs.len() as i64 - 1
                } else {
                    0
                };
                total + bars
            }
            Op::Repeat => {
                let sub = sub(self);
                match (min, max) {
                    (0, -1) => 2 + sub,
                    (_, -1) => 1 + min * sub,
                    _ => max * sub + (max - min),
                }
            }
            _ => 0,
        }
        .max(1);
        if let Some(sizes) = &mut self.size {
            sizes.insert(id, size);
        }
        size
    }

    fn check_height(&mut self, id: Id) -> Result<(), Error> {
        if self.arena.allocated < MAX_HEIGHT as usize {
            return Ok(());
        }
        if self.height.is_none() {
            self.height = Some(HashMap::new());
            for on_stack in self.stack.clone() {
                self.check_height(on_stack)?;
            }
        }
        if self.calc_height(id, true) > MAX_HEIGHT {
            return Err(Error::new(ErrorCode::NestingDepth, self.whole));
        }
        Ok(())
    }

    fn calc_height(&mut self, id: Id, force: bool) -> i32 {
        if !force && let Some(&h) = self.height.as_ref().and_then(|h| h.get(&id)) {
            return h;
        }
        let subs = self.arena.nodes[id].subs.clone();
        let h = subs
            .iter()
            .map(|&s| 1 + self.calc_height(s, false))
            .fold(1, i32::max);
        if let Some(heights) = &mut self.height {
            heights.insert(id, h);
        }
        h
    }
}
