//! The decoder: one pass over the bytes with an explicit stack (no recursion, so no input can
//! overflow the caller's stack), checking syntax as Go's scanner does, with its depth limit
//! and its error words, and building the value Go's `Unmarshal` into `interface{}` builds.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::number;
use super::text::{quote_char, unquote};
use super::{Decoded, MAX_DEPTH, SyntaxError, UnmarshalError};

/// The most duplicate fields sigs.k8s.io/json reports.
const MAX_DUPLICATES: usize = 100;

const END: &str = "unexpected end of JSON input";

/// A container being read: its entries so far and the key or index being read into.
enum Frame {
    Object(Map<String, Value>, String),
    Array(Vec<Value>),
}

/// The struct fields a decode also fills, as `Unmarshal` into a struct of strings does.
pub(super) struct Fields<'f> {
    names: &'f [&'f str],
    values: Vec<String>,
    error: Option<UnmarshalError>,
}

impl<'f> Fields<'f> {
    pub(super) fn new(names: &'f [&'f str]) -> Self {
        Fields {
            names,
            values: vec![String::new(); names.len()],
            error: None,
        }
    }

    /// One key of the top-level object and its value: a string sets the field whose name
    /// matches (case-insensitively, as Go matches), `null` leaves it, anything else is the
    /// first type error.
    fn observe(&mut self, key: &str, value: &Value) {
        let Some(i) = self.names.iter().position(|n| fold_eq(key, n)) else {
            return;
        };
        match value {
            Value::String(s) => self.values[i] = s.clone(),
            Value::Null => {}
            other if self.error.is_none() => {
                self.error = Some(UnmarshalError(format!(
                    "json: cannot unmarshal {} into Go struct field .{} of type string",
                    super::type_name(other),
                    self.names[i]
                )));
            }
            _ => {}
        }
    }

    /// The fields, given Go's name for the type of the top-level value.
    pub(super) fn finish(self, top: &str) -> Result<Vec<String>, UnmarshalError> {
        match top {
            "object" | "null" => match self.error {
                Some(e) => Err(e),
                None => Ok(self.values),
            },
            other => Err(UnmarshalError(format!(
                "json: cannot unmarshal {other} into Go value of type {}",
                struct_type(self.names)
            ))),
        }
    }
}

/// Go's name for an anonymous struct of `omitempty` string fields named after their keys
/// (`struct { APIVersion string "json:\"apiVersion,omitempty\"" ... }`), as its type errors
/// print it.
fn struct_type(names: &[&str]) -> String {
    let fields: Vec<String> = names
        .iter()
        .map(|n| format!(r#"{} string "json:\"{n},omitempty\"""#, go_field_name(n)))
        .collect();
    format!("struct {{ {} }}", fields.join("; "))
}

/// The exported Go field name for a JSON key: `apiVersion` → `APIVersion`, `kind` → `Kind`.
fn go_field_name(key: &str) -> String {
    match key {
        "apiVersion" => "APIVersion".to_owned(),
        _ => {
            let mut chars = key.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default()
        }
    }
}

/// Whether Go's `encoding/json` matches `key` to the field named `name` (ASCII): equal after
/// folding case with Unicode's simple folding, where the Kelvin sign folds to `K` and `ſ` to
/// `S` (and no other character to an ASCII letter: not the Turkish `İ` and `ı`).
fn fold_eq(key: &str, name: &str) -> bool {
    let mut folded = key.chars().map(|c| match c {
        '\u{212A}' => Some('K'),
        '\u{17F}' => Some('S'),
        c if c.is_ascii() => Some(c.to_ascii_uppercase()),
        _ => None,
    });
    let mut expected = name.chars().map(|c| c.to_ascii_uppercase());
    loop {
        match (folded.next(), expected.next()) {
            (None, None) => return true,
            (Some(Some(a)), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

pub(super) struct Parser<'a, 'f> {
    data: &'a [u8],
    pos: usize,
    stack: Vec<Frame>,
    depth: usize,
    duplicates: Vec<String>,
    seen_duplicates: HashSet<String>,
    number_error: Option<UnmarshalError>,
    fields: Fields<'f>,
}

type Step<T> = Result<T, SyntaxError>;

impl<'a, 'f> Parser<'a, 'f> {
    pub(super) fn new(data: &'a [u8], fields: Fields<'f>) -> Self {
        Parser {
            data,
            pos: 0,
            stack: Vec::new(),
            depth: 0,
            duplicates: Vec::new(),
            seen_duplicates: HashSet::new(),
            number_error: None,
            fields,
        }
    }

    fn error(&self, message: String) -> SyntaxError {
        SyntaxError {
            message,
            offset: self.pos,
        }
    }

    fn end(&self) -> SyntaxError {
        self.error(END.to_owned())
    }

    fn invalid(&self, c: u8, context: &str) -> SyntaxError {
        self.error(format!("invalid character {} {context}", quote_char(c)))
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.data.get(self.pos) {
            self.pos += 1;
        }
    }

    fn next(&mut self) -> Step<u8> {
        let c = *self.data.get(self.pos).ok_or_else(|| self.end())?;
        self.pos += 1;
        Ok(c)
    }

    /// The next byte inside a token, where the end of the input is what Go's scanner makes
    /// of it: it feeds a space, so the error names that space (`invalid character ' ' in
    /// literal true (expecting 'r')`).
    fn next_in_token(&mut self) -> u8 {
        match self.data.get(self.pos) {
            Some(&c) => {
                self.pos += 1;
                c
            }
            None => b' ',
        }
    }

    fn next_after_space(&mut self) -> Step<u8> {
        self.skip_space();
        self.next()
    }

    /// Reads the whole input: one value, then only whitespace. Nothing read is dropped
    /// recursively, whatever the outcome.
    pub(super) fn parse(mut self) -> Step<Decoded> {
        let value = match self.values() {
            Ok(value) => value,
            Err(e) => {
                for frame in std::mem::take(&mut self.stack) {
                    match frame {
                        Frame::Object(fields, _) => super::dismantle(Value::Object(fields)),
                        Frame::Array(items) => super::dismantle(Value::Array(items)),
                    }
                }
                return Err(e);
            }
        };
        self.skip_space();
        if let Some(&c) = self.data.get(self.pos) {
            super::dismantle(value);
            return Err(self.invalid(c, "after top-level value"));
        }
        let top = match self
            .data
            .iter()
            .find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            Some(b'{') => "object",
            Some(b'[') => "array",
            Some(b'"') => "string",
            Some(b't' | b'f') => "bool",
            Some(b'n') => "null",
            _ => "number",
        };
        let fields = std::mem::replace(&mut self.fields, Fields::new(&[])).finish(top);
        Ok(Decoded {
            value: match self.number_error {
                Some(e) => {
                    super::dismantle(value);
                    Err(e)
                }
                None => Ok(value),
            },
            duplicates: self.duplicates,
            depth: self.depth,
            fields,
        })
    }

    /// Enters a container opened by `c`, as Go's scanner counts it.
    fn open(&mut self, c: u8) -> Step<()> {
        let depth = self.stack.len() + 1;
        if depth > MAX_DEPTH {
            return Err(self.invalid(c, "exceeded max depth"));
        }
        self.depth = self.depth.max(depth);
        Ok(())
    }

    /// The value starting at the current position and everything nested in it.
    fn values(&mut self) -> Step<Value> {
        'value: loop {
            let c = self.next_after_space()?;
            let mut value = match c {
                b'{' => {
                    self.open(c)?;
                    match self.next_after_space()? {
                        b'}' => Value::Object(Map::new()),
                        b'"' => {
                            let key = self.key()?;
                            self.stack.push(Frame::Object(Map::new(), key));
                            continue 'value;
                        }
                        other => {
                            return Err(
                                self.invalid(other, "looking for beginning of object key string")
                            );
                        }
                    }
                }
                b'[' => {
                    self.open(c)?;
                    self.skip_space();
                    if self.data.get(self.pos) == Some(&b']') {
                        self.pos += 1;
                        Value::Array(Vec::new())
                    } else {
                        self.stack.push(Frame::Array(Vec::new()));
                        continue 'value;
                    }
                }
                b'"' => {
                    let start = self.pos;
                    self.string()?;
                    Value::String(unquote(&self.data[start..self.pos - 1]))
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.pos - 1;
                    self.number(c)?;
                    // The scanner let only ASCII through.
                    let literal = std::str::from_utf8(&self.data[start..self.pos]).unwrap_or("");
                    match number::convert(literal) {
                        Some(n) => Value::Number(n),
                        None => {
                            self.number_error.get_or_insert_with(|| {
                                UnmarshalError(format!(
                                    "json: cannot unmarshal number {literal} into Go value of type float64"
                                ))
                            });
                            // The value is not returned; a struct field still sees a number.
                            Value::from(0)
                        }
                    }
                }
                b't' => self.literal("true", Value::Bool(true))?,
                b'f' => self.literal("false", Value::Bool(false))?,
                b'n' => self.literal("null", Value::Null)?,
                other => return Err(self.invalid(other, "looking for beginning of value")),
            };
            // A value is complete: hand it to its container, closing those that end here.
            loop {
                match self.stack.last_mut() {
                    None => return Ok(value),
                    Some(Frame::Array(items)) => {
                        items.push(value);
                        match self.next_after_space()? {
                            b',' => continue 'value,
                            b']' => {
                                let Some(Frame::Array(items)) = self.stack.pop() else {
                                    unreachable!("the top frame is an array")
                                };
                                value = Value::Array(items);
                            }
                            other => return Err(self.invalid(other, "after array element")),
                        }
                    }
                    Some(Frame::Object(..)) => {
                        self.insert(value);
                        match self.next_after_space()? {
                            b',' => match self.next_after_space()? {
                                b'"' => {
                                    let key = self.key()?;
                                    let Some(Frame::Object(fields, k)) = self.stack.last_mut()
                                    else {
                                        unreachable!("the top frame is an object")
                                    };
                                    let duplicate = fields.contains_key(&key);
                                    *k = key;
                                    if duplicate {
                                        self.duplicate();
                                    }
                                    continue 'value;
                                }
                                other => {
                                    return Err(self.invalid(
                                        other,
                                        "looking for beginning of object key string",
                                    ));
                                }
                            },
                            b'}' => {
                                let Some(Frame::Object(fields, _)) = self.stack.pop() else {
                                    unreachable!("the top frame is an object")
                                };
                                value = Value::Object(fields);
                            }
                            other => {
                                return Err(self.invalid(other, "after object key:value pair"));
                            }
                        }
                    }
                }
            }
        }
    }

    /// Stores a value under the current key of the innermost object (the last one wins).
    fn insert(&mut self, value: Value) {
        let top_level = self.stack.len() == 1;
        let Some(Frame::Object(fields, key)) = self.stack.last_mut() else {
            return;
        };
        let key = std::mem::take(key);
        if top_level {
            self.fields.observe(&key, &value);
        }
        fields.insert(key, value);
    }

    /// Records that the key just read into the innermost object was there before, with its
    /// path (`spec.ports[0].name`): each path once and at most 100, as sigs.k8s.io/json's
    /// strict decoding reports them.
    fn duplicate(&mut self) {
        if self.duplicates.len() >= MAX_DUPLICATES {
            return;
        }
        let mut path = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Object(_, k) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                }
                Frame::Array(items) => path.push_str(&format!("[{}]", items.len())),
            }
        }
        if self.seen_duplicates.insert(path.clone()) {
            self.duplicates.push(path);
        }
    }

    /// An object key whose opening quote was read, then the `:` after it.
    fn key(&mut self) -> Step<String> {
        let start = self.pos;
        self.string()?;
        let key = unquote(&self.data[start..self.pos - 1]);
        match self.next_after_space()? {
            b':' => Ok(key),
            other => Err(self.invalid(other, "after object key")),
        }
    }

    /// The rest of a string whose opening quote was read.
    fn string(&mut self) -> Step<()> {
        loop {
            match self.next()? {
                b'"' => return Ok(()),
                b'\\' => match self.next_in_token() {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {}
                    b'u' => {
                        for _ in 0..4 {
                            let c = self.next_in_token();
                            if !c.is_ascii_hexdigit() {
                                return Err(self.invalid(c, r"in \u hexadecimal character escape"));
                            }
                        }
                    }
                    c => return Err(self.invalid(c, "in string escape code")),
                },
                c if c < 0x20 => return Err(self.invalid(c, "in string literal")),
                _ => {}
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    /// The rest of a number whose first byte was read.
    fn number(&mut self, first: u8) -> Step<()> {
        let mut c = first;
        if c == b'-' {
            c = self.next_in_token();
            if !c.is_ascii_digit() {
                return Err(self.invalid(c, "in numeric literal"));
            }
        }
        if c != b'0' {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let d = self.next_in_token();
            if !d.is_ascii_digit() {
                return Err(self.invalid(d, "after decimal point in numeric literal"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            let mut d = self.next_in_token();
            if d == b'+' || d == b'-' {
                d = self.next_in_token();
            }
            if !d.is_ascii_digit() {
                return Err(self.invalid(d, "in exponent of numeric literal"));
            }
            self.digits();
        }
        Ok(())
    }

    /// The rest of `true`, `false` or `null` whose first byte was read.
    fn literal(&mut self, word: &str, value: Value) -> Step<Value> {
        for expected in word.bytes().skip(1) {
            let c = self.next_in_token();
            if c != expected {
                return Err(self.invalid(
                    c,
                    &format!("in literal {word} (expecting {})", quote_char(expected)),
                ));
            }
        }
        Ok(value)
    }
}
