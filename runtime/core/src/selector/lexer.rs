//! Tokens of a label selector, cut the way the apiserver cuts them.
//!
//! The apiserver reads the selector byte by byte: whitespace is space, tab, CR and LF;
//! `=`, `!`, `(`, `)`, `,`, `>` and `<` are symbols (`!=` and `==` the only two-byte ones);
//! every run of other bytes is an identifier, or the keyword `in` / `notin`. A NUL byte reads
//! as the end of the input where a token would start, and is swallowed where it ends one.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token {
    End,
    OpenParen,
    CloseParen,
    Comma,
    /// `!`
    Not,
    /// `=`
    Equals,
    /// `==`
    DoubleEquals,
    /// `!=`
    NotEquals,
    /// `>`
    Greater,
    /// `<`
    Less,
    In,
    NotIn,
    Identifier,
}

/// A token and the text it was read from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Item<'a> {
    pub token: Token,
    pub text: &'a str,
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_symbol(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

struct Lexer<'a> {
    input: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// The next byte, or 0 at the end (a NUL byte also reads as 0).
    fn read(&mut self) -> u8 {
        match self.input.as_bytes().get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    fn next(&mut self) -> Item<'a> {
        let mut b = self.read();
        while is_whitespace(b) {
            b = self.read();
        }
        if b == 0 {
            return Item {
                token: Token::End,
                text: "",
            };
        }
        let start = self.pos - 1;
        if is_symbol(b) {
            self.symbol(start, b)
        } else {
            self.word(start)
        }
    }

    /// A symbol starting with `first` (already read at `start`).
    fn symbol(&mut self, start: usize, first: u8) -> Item<'a> {
        let single = match first {
            b'=' => Token::Equals,
            b'!' => Token::Not,
            b'(' => Token::OpenParen,
            b')' => Token::CloseParen,
            b',' => Token::Comma,
            b'>' => Token::Greater,
            _ => Token::Less,
        };
        let token = match (first, self.read()) {
            (_, 0) => single,
            (b'!', b'=') => Token::NotEquals,
            (b'=', b'=') => Token::DoubleEquals,
            _ => {
                self.pos -= 1;
                single
            }
        };
        // A two-byte symbol never grows further: the byte after it is looked at and, if it
        // is a NUL, swallowed, like the apiserver's scanner does.
        let end = match token {
            Token::NotEquals | Token::DoubleEquals => {
                let end = self.pos;
                if self.read() != 0 {
                    self.pos -= 1;
                }
                end
            }
            _ => start + 1,
        };
        Item {
            token,
            text: &self.input[start..end],
        }
    }

    /// An identifier or keyword starting at `start` (its first byte already read).
    fn word(&mut self, start: usize) -> Item<'a> {
        let bytes = self.input.as_bytes();
        let mut end = start + 1;
        self.pos = loop {
            match bytes.get(end) {
                None => break end,
                // A NUL ends the word and is dropped.
                Some(0) => break end + 1,
                Some(&b) if is_symbol(b) || is_whitespace(b) => break end,
                Some(_) => end += 1,
            }
        };
        // Only ASCII bytes end a word, so both ends are character boundaries.
        let text = &self.input[start..end];
        let token = match text {
            "in" => Token::In,
            "notin" => Token::NotIn,
            _ => Token::Identifier,
        };
        Item { token, text }
    }
}

/// Every token of `input`, ending with [`Token::End`].
pub(super) fn tokens(input: &str) -> Vec<Item<'_>> {
    let mut lexer = Lexer { input, pos: 0 };
    let mut items = Vec::new();
    loop {
        let item = lexer.next();
        items.push(item);
        if item.token == Token::End {
            return items;
        }
    }
}
