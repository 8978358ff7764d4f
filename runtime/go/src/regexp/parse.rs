//! Go's parser (`regexp/syntax.Parse` with the `Perl` flags `regexp.Compile` uses): a stack
//! machine reading the pattern left to right. Literals, classes and assertions are pushed;
//! a repetition wraps the top of the stack; `|` and `)` collapse the stack down to the last
//! `(` (see `stack.rs`). Every error carries the text Go names in it.

use std::collections::HashMap;

use super::error::{Error, ErrorCode};
use super::tree::{Arena, Flags, Id, Op};
use super::unicode::min_fold_rune;
use super::{MAX_RUNE, Rune};

/// The most a repetition count, or the product of nested counts, may be.
const MAX_REPEAT: i32 = 1000;

/// A parsed pattern: the arena and the root of its tree.
pub(super) struct Tree {
    pub(super) arena: Arena,
    pub(super) root: Id,
}

/// The parser's state; its methods live beside the constructs they read (`class.rs`,
/// `stack.rs`, `limits.rs`).
pub(super) struct Parser<'p> {
    /// The whole pattern, which some errors name.
    pub(super) whole: &'p str,
    pub(super) flags: Flags,
    pub(super) arena: Arena,
    pub(super) stack: Vec<Id>,
    num_cap: u32,
    /// Runes pushed in literals and classes, against Go's limit.
    pub(super) num_runes: usize,
    /// Product of the repetition counts seen before size tracking starts.
    pub(super) repeats: i64,
    /// Cached heights, once the tree is big enough to need the depth limit.
    pub(super) height: Option<HashMap<Id, i32>>,
    /// Cached program sizes, once the tree is big enough to need the size limit.
    pub(super) size: Option<HashMap<Id, i64>>,
}

/// Parses `pattern` as `regexp.Compile` does.
pub(super) fn parse(pattern: &str) -> Result<Tree, Error> {
    let mut p = Parser {
        whole: pattern,
        flags: Flags::PERL,
        arena: Arena::default(),
        stack: Vec::new(),
        num_cap: 0,
        num_runes: 0,
        repeats: 0,
        height: None,
        size: None,
    };
    let mut t = pattern;
    // The repetition operator just read, which another may not follow.
    let mut last_repeat = "";
    while let Some(&c) = t.as_bytes().first() {
        let mut repeat = "";
        match c {
            b'(' if t.as_bytes().get(1) == Some(&b'?') => t = p.parse_perl_flags(t)?,
            b'(' => {
                p.num_cap += 1;
                let cap = p.num_cap;
                let id = p.op(Op::LeftParen)?;
                p.arena.nodes[id].cap = cap;
                t = &t[1..];
            }
            b'|' => {
                p.parse_vertical_bar()?;
                t = &t[1..];
            }
            b')' => {
                p.parse_right_paren()?;
                t = &t[1..];
            }
            b'^' => {
                p.op(if p.flags.has(Flags::ONE_LINE) {
                    Op::BeginText
                } else {
                    Op::BeginLine
                })?;
                t = &t[1..];
            }
            b'$' => {
                if p.flags.has(Flags::ONE_LINE) {
                    let id = p.op(Op::EndText)?;
                    let node = &mut p.arena.nodes[id];
                    node.flags = node.flags.with(Flags::WAS_DOLLAR);
                } else {
                    p.op(Op::EndLine)?;
                }
                t = &t[1..];
            }
            b'.' => {
                p.op(if p.flags.has(Flags::DOT_NL) {
                    Op::AnyChar
                } else {
                    Op::AnyCharNotNl
                })?;
                t = &t[1..];
            }
            b'[' => t = p.parse_class(t)?,
            b'*' | b'+' | b'?' => {
                let op = match c {
                    b'*' => Op::Star,
                    b'+' => Op::Plus,
                    _ => Op::Quest,
                };
                let before = t;
                t = p.repeat(op, 0, 0, before, &t[1..], last_repeat)?;
                repeat = before;
            }
            b'{' => match parse_repeat(t) {
                // Not a well-formed count: `{` is a literal.
                None => {
                    p.literal('{' as Rune)?;
                    t = &t[1..];
                }
                Some((min, max, after)) => {
                    let before = t;
                    if !(0..=MAX_REPEAT).contains(&min)
                        || max > MAX_REPEAT
                        || (max >= 0 && min > max)
                    {
                        return Err(Error::new(
                            ErrorCode::InvalidRepeatSize,
                            consumed(before, after),
                        ));
                    }
                    t = p.repeat(Op::Repeat, min, max, before, after, last_repeat)?;
                    repeat = before;
                }
            },
            b'\\' => t = p.parse_backslash(t)?,
            _ => {
                let (c, rest) = next_rune(t);
                p.literal(c)?;
                t = rest;
            }
        }
        last_repeat = repeat;
    }
    p.concat()?;
    if p.swap_vertical_bar() {
        p.stack.pop();
    }
    p.alternate()?;
    match p.stack[..] {
        [root] => Ok(Tree {
            arena: p.arena,
            root,
        }),
        _ => Err(Error::new(ErrorCode::MissingParen, pattern)),
    }
}

/// The part of `before` that `after` no longer holds.
pub(super) fn consumed<'a>(before: &'a str, after: &str) -> &'a str {
    &before[..before.len() - after.len()]
}

/// The first rune of `s` and the rest; U+FFFD and `""` at the end, as Go's decoder answers.
pub(super) fn next_rune(s: &str) -> (Rune, &str) {
    match s.chars().next() {
        Some(c) => (c as Rune, &s[c.len_utf8()..]),
        None => (char::REPLACEMENT_CHARACTER as Rune, s),
    }
}

/// `{min}`, `{min,}` (max -1) or `{min,max}` at the start of `s`, with what follows it. A
/// count too big to read is -1 (refused by the caller); anything else is not a count.
fn parse_repeat(s: &str) -> Option<(i32, i32, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_int(s)?;
    let (max, s) = match s.strip_prefix(',') {
        None => (min, s),
        Some(s) if s.starts_with('}') => (-1, s),
        Some(s) => parse_int(s)?,
    };
    let min = if max < -1 { -1 } else { min };
    let rest = s.strip_prefix('}')?;
    Some((min, max.max(-1), rest))
}

/// A decimal count without leading zeros; -2 when too big to read (so that `{1,huge}` is
/// told from `{1,}`).
fn parse_int(s: &str) -> Option<(i32, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && s.starts_with('0')) {
        return None;
    }
    let mut n: i32 = 0;
    for d in s[..digits].bytes() {
        if n >= 100_000_000 {
            n = -2;
            break;
        }
        n = n * 10 + i32::from(d - b'0');
    }
    Some((n, &s[digits..]))
}

fn is_alnum(c: Rune) -> bool {
    u8::try_from(c).is_ok_and(|b| b.is_ascii_alphanumeric())
}

fn unhex(c: Rune) -> Option<Rune> {
    char::from_u32(c as u32)
        .and_then(|c| c.to_digit(16))
        .map(|d| d as Rune)
}

impl<'p> Parser<'p> {
    /// Pushes a literal rune (folded to its orbit's smallest under `(?i)`).
    pub(super) fn literal(&mut self, r: Rune) -> Result<(), Error> {
        let id = self.arena.alloc(Op::Literal);
        let r = if self.flags.has(Flags::FOLD_CASE) {
            min_fold_rune(r)
        } else {
            r
        };
        let node = &mut self.arena.nodes[id];
        node.flags = self.flags;
        node.runes = vec![r];
        self.push(id)?;
        Ok(())
    }

    /// Pushes a node with `op` and the current flags.
    pub(super) fn op(&mut self, op: Op) -> Result<Id, Error> {
        let id = self.arena.alloc(op);
        self.arena.nodes[id].flags = self.flags;
        // Only a class can merge into the stack instead of being pushed.
        Ok(self.push(id)?.unwrap_or(id))
    }

    /// Wraps the top of the stack in a repetition. `before` starts at the operator, `after`
    /// follows it; returns where parsing goes on (past a non-greedy `?`).
    fn repeat<'a>(
        &mut self,
        op: Op,
        min: i32,
        max: i32,
        before: &'a str,
        mut after: &'a str,
        last_repeat: &str,
    ) -> Result<&'a str, Error> {
        let mut flags = self.flags;
        if let Some(rest) = after.strip_prefix('?') {
            after = rest;
            flags = flags.toggled(Flags::NON_GREEDY);
        }
        if !last_repeat.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidRepeatOp,
                &last_repeat[..last_repeat.len() - after.len()],
            ));
        }
        let missing = || Error::new(ErrorCode::MissingRepeatArgument, consumed(before, after));
        let &sub = self.stack.last().ok_or_else(missing)?;
        if self.arena.nodes[sub].op.is_pseudo() {
            return Err(missing());
        }
        let id = self.arena.alloc(op);
        let node = &mut self.arena.nodes[id];
        (node.min, node.max, node.flags, node.subs) = (min, max, flags, vec![sub]);
        if let Some(top) = self.stack.last_mut() {
            *top = id;
        }
        self.check_limits(id)?;
        if op == Op::Repeat && (min >= 2 || max >= 2) && !self.repeat_is_valid(id, MAX_REPEAT) {
            return Err(Error::new(
                ErrorCode::InvalidRepeatSize,
                consumed(before, after),
            ));
        }
        Ok(after)
    }

    /// Whether the nested counts under `id` stay within `n` copies of the innermost thing.
    fn repeat_is_valid(&self, id: Id, mut n: i32) -> bool {
        let node = &self.arena.nodes[id];
        if node.op == Op::Repeat {
            let m = if node.max < 0 { node.min } else { node.max };
            if node.max == 0 {
                return true;
            }
            if m > n {
                return false;
            }
            if m > 0 {
                n /= m;
            }
        }
        node.subs.iter().all(|&sub| self.repeat_is_valid(sub, n))
    }

    /// `(?flags)`, `(?flags:`, `(?P<name>` or `(?<name>` at the start of `s`.
    fn parse_perl_flags<'a>(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let b = s.as_bytes();
        let named = if b.len() > 4 && b[2] == b'P' && b[3] == b'<' {
            Some(4)
        } else if b.len() > 3 && b[2] == b'<' {
            Some(3)
        } else {
            None
        };
        if let Some(name_start) = named {
            let Some(end) = s.find('>') else {
                return Err(Error::new(ErrorCode::InvalidNamedCapture, s));
            };
            let name = &s[name_start..end];
            let valid =
                !name.is_empty() && name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric());
            if !valid {
                return Err(Error::new(ErrorCode::InvalidNamedCapture, &s[..=end]));
            }
            self.num_cap += 1;
            let cap = self.num_cap;
            let id = self.op(Op::LeftParen)?;
            let node = &mut self.arena.nodes[id];
            node.cap = cap;
            node.name = name.to_owned();
            return Ok(&s[end + 1..]);
        }

        let mut t = &s[2..];
        let mut flags = self.flags;
        let mut negated = false;
        let mut saw_flag = false;
        while !t.is_empty() {
            let (c, rest) = next_rune(t);
            t = rest;
            match char::from_u32(c as u32) {
                Some('i') => flags = flags.with(Flags::FOLD_CASE),
                Some('m') => flags = flags.without(Flags::ONE_LINE),
                Some('s') => flags = flags.with(Flags::DOT_NL),
                Some('U') => flags = flags.with(Flags::NON_GREEDY),
                Some('-') if !negated => {
                    negated = true;
                    // Clearing is setting on the inverse; inverted back at the end.
                    flags = flags.inverted();
                    saw_flag = false;
                    continue;
                }
                Some(end @ (':' | ')')) => {
                    if negated {
                        if !saw_flag {
                            break;
                        }
                        flags = flags.inverted();
                    }
                    if end == ':' {
                        self.op(Op::LeftParen)?;
                    }
                    self.flags = flags;
                    return Ok(t);
                }
                _ => break,
            }
            saw_flag = true;
        }
        Err(Error::new(ErrorCode::InvalidPerlOp, consumed(s, t)))
    }

    /// A `|`: the branch so far becomes one node below a `|` marker.
    fn parse_vertical_bar(&mut self) -> Result<(), Error> {
        self.concat()?;
        if !self.swap_vertical_bar() {
            self.op(Op::VerticalBar)?;
        }
        Ok(())
    }

    /// A `)`: everything since the matching `(` becomes its group.
    fn parse_right_paren(&mut self) -> Result<(), Error> {
        self.concat()?;
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate()?;
        let unexpected = || Error::new(ErrorCode::UnexpectedParen, self.whole);
        let n = self.stack.len();
        if n < 2 {
            return Err(unexpected());
        }
        let (body, open) = (self.stack[n - 1], self.stack[n - 2]);
        self.stack.truncate(n - 2);
        if self.arena.nodes[open].op != Op::LeftParen {
            return Err(unexpected());
        }
        self.flags = self.arena.nodes[open].flags;
        if self.arena.nodes[open].cap == 0 {
            self.push(body)?;
        } else {
            let node = &mut self.arena.nodes[open];
            node.op = Op::Capture;
            node.subs = vec![body];
            self.push(open)?;
        }
        Ok(())
    }

    /// A backslash outside a class: an assertion, `\Q..\E`, a class escape or an escaped rune.
    fn parse_backslash<'a>(&mut self, t: &'a str) -> Result<&'a str, Error> {
        match t.as_bytes().get(1) {
            Some(b'A') => return self.op(Op::BeginText).map(|_| &t[2..]),
            Some(b'b') => return self.op(Op::WordBoundary).map(|_| &t[2..]),
            Some(b'B') => return self.op(Op::NoWordBoundary).map(|_| &t[2..]),
            Some(b'C') => return Err(Error::new(ErrorCode::InvalidEscape, &t[..2])),
            Some(b'z') => return self.op(Op::EndText).map(|_| &t[2..]),
            Some(b'Q') => {
                let quoted = &t[2..];
                let (lit, rest) = quoted.split_once(r"\E").unwrap_or((quoted, ""));
                for c in lit.chars() {
                    self.literal(c as Rune)?;
                }
                return Ok(rest);
            }
            _ => {}
        }
        let id = self.arena.alloc(Op::CharClass);
        self.arena.nodes[id].flags = self.flags;
        let mut class = Vec::new();
        let rest = match self.parse_unicode_class(t, &mut class)? {
            Some(rest) => Some(rest),
            None => self.parse_perl_class_escape(t, &mut class),
        };
        if let Some(rest) = rest {
            self.arena.nodes[id].runes = class;
            self.push(id)?;
            return Ok(rest);
        }
        self.arena.free(id);
        let (c, rest) = self.parse_escape(t)?;
        self.literal(c)?;
        Ok(rest)
    }

    /// An escaped rune at the start of `s` (a backslash first): octal, hex, C escapes and
    /// escaped punctuation.
    pub(super) fn parse_escape<'a>(&self, s: &'a str) -> Result<(Rune, &'a str), Error> {
        let t = &s[1..];
        if t.is_empty() {
            return Err(Error::new(ErrorCode::TrailingBackslash, ""));
        }
        let (c, mut t) = next_rune(t);
        let octal = |t: &str| {
            t.as_bytes()
                .first()
                .filter(|b| (b'0'..=b'7').contains(b))
                .copied()
        };
        let invalid = |t: &str| Error::new(ErrorCode::InvalidEscape, consumed(s, t));
        match char::from_u32(c as u32).unwrap_or(char::REPLACEMENT_CHARACTER) {
            // A lone non-zero digit would be a back-reference, which Go does not have.
            '1'..='7' if octal(t).is_none() => Err(invalid(t)),
            '0'..='7' => {
                let mut r = c - '0' as Rune;
                for _ in 1..3 {
                    let Some(d) = octal(t) else { break };
                    r = r * 8 + Rune::from(d - b'0');
                    t = &t[1..];
                }
                Ok((r, t))
            }
            'x' => self.parse_hex(s, t),
            'a' => Ok((0x07, t)),
            'f' => Ok((0x0c, t)),
            'n' => Ok(('\n' as Rune, t)),
            'r' => Ok(('\r' as Rune, t)),
            't' => Ok(('\t' as Rune, t)),
            'v' => Ok((0x0b, t)),
            // Escaped ASCII punctuation is itself; letters, digits and non-ASCII are not.
            _ if c < 0x80 && !is_alnum(c) => Ok((c, t)),
            _ => Err(invalid(t)),
        }
    }

    /// `\xhh` or `\x{h..}`; `s` starts at the backslash, `t` after the `x`.
    fn parse_hex<'a>(&self, s: &'a str, t: &'a str) -> Result<(Rune, &'a str), Error> {
        let invalid = |t: &str| Error::new(ErrorCode::InvalidEscape, consumed(s, t));
        if t.is_empty() {
            return Err(invalid(t));
        }
        let (c, mut t) = next_rune(t);
        if c == '{' as Rune {
            let mut r: Rune = 0;
            let mut digits = 0;
            loop {
                if t.is_empty() {
                    return Err(invalid(t));
                }
                let (c, rest) = next_rune(t);
                t = rest;
                if c == '}' as Rune {
                    break;
                }
                let Some(v) = unhex(c) else {
                    return Err(invalid(t));
                };
                r = r * 16 + v;
                if r > MAX_RUNE {
                    return Err(invalid(t));
                }
                digits += 1;
            }
            if digits == 0 {
                return Err(invalid(t));
            }
            return Ok((r, t));
        }
        let x = unhex(c);
        let (c, t) = next_rune(t);
        match (x, unhex(c)) {
            (Some(x), Some(y)) => Ok((x * 16 + y, t)),
            _ => Err(invalid(t)),
        }
    }
}
