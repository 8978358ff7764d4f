//! JSON syntax errors worded as Go's `encoding/json` words them, because the apiserver puts
//! that text into the `Status` it returns for a malformed body (`invalid character 'n'
//! looking for beginning of object key string`). serde_json still does the parsing; this only
//! finds the first error the way Go's scanner does and names it the same way.

/// Go's error for the first syntax error in `data`, or `None` when `data` is one valid JSON
/// value (surrounded by whitespace at most).
pub fn syntax_error(data: &[u8]) -> Option<String> {
    Scanner::new(data).top().err()
}

/// The paths of keys that appear twice in one object (`spec.replicas`, `spec.ports[0].name`),
/// which the apiserver's strict decoder reports as `duplicate field`. Empty for invalid JSON.
pub fn duplicate_fields(data: &[u8]) -> Vec<String> {
    let mut scanner = Scanner::new(data);
    match scanner.top() {
        Ok(()) => scanner.duplicates,
        Err(_) => Vec::new(),
    }
}

/// Go's name for the JSON type of a value that does not fit: `json: cannot unmarshal array
/// into Go value of type ...` uses these words.
pub fn type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

const END: &str = "unexpected end of JSON input";

struct Scanner<'a> {
    data: &'a [u8],
    pos: usize,
    /// Where the scanner is: object keys and `[i]` list indexes.
    path: Vec<String>,
    duplicates: Vec<String>,
}

type Scan = Result<(), String>;

/// A byte as Go's scanner quotes it in an error: `'n'`, `'\n'`, `'\u009e'`.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        b'\\' => r"'\\'".to_owned(),
        0x07 => r"'\a'".to_owned(),
        0x08 => r"'\b'".to_owned(),
        0x0c => r"'\f'".to_owned(),
        b'\n' => r"'\n'".to_owned(),
        b'\r' => r"'\r'".to_owned(),
        b'\t' => r"'\t'".to_owned(),
        0x0b => r"'\v'".to_owned(),
        0x00..=0x1f | 0x7f => format!(r"'\x{c:02x}'"),
        // Go converts the byte to a rune: U+0080..U+00FF, quoted when not printable.
        0x80..=0xa0 | 0xad => format!(r"'\u{c:04x}'"),
        0x80..=0xff => format!("'{}'", char::from(c)),
        _ => format!("'{}'", char::from(c)),
    }
}

fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

impl<'a> Scanner<'a> {
    fn new(data: &'a [u8]) -> Self {
        Scanner {
            data,
            pos: 0,
            path: Vec::new(),
            duplicates: Vec::new(),
        }
    }

    fn path_to(&self, key: &str) -> String {
        let mut out = String::new();
        for part in self.path.iter().map(String::as_str).chain([key]) {
            if !out.is_empty() && !part.starts_with('[') {
                out.push('.');
            }
            out.push_str(part);
        }
        out
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn top(&mut self) -> Scan {
        self.value()?;
        self.skip_space();
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(invalid(c, "after top-level value")),
        }
    }

    fn value(&mut self) -> Scan {
        self.skip_space();
        let Some(c) = self.next() else {
            return Err(END.into());
        };
        match c {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(c),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            c => Err(invalid(c, "looking for beginning of value")),
        }
    }

    fn object(&mut self) -> Scan {
        self.skip_space();
        match self.next() {
            None => return Err(END.into()),
            Some(b'}') => return Ok(()),
            Some(b'"') => {}
            Some(c) => return Err(invalid(c, "looking for beginning of object key string")),
        }
        let mut keys = std::collections::HashSet::new();
        loop {
            let start = self.pos - 1;
            self.string()?;
            let key: String =
                serde_json::from_slice(&self.data[start..self.pos]).unwrap_or_default();
            if !keys.insert(key.clone()) {
                self.duplicates.push(self.path_to(&key));
            }
            self.skip_space();
            match self.next() {
                None => return Err(END.into()),
                Some(b':') => {}
                Some(c) => return Err(invalid(c, "after object key")),
            }
            self.path.push(key);
            let value = self.value();
            self.path.pop();
            value?;
            self.skip_space();
            match self.next() {
                None => return Err(END.into()),
                Some(b'}') => return Ok(()),
                Some(b',') => {}
                Some(c) => return Err(invalid(c, "after object key:value pair")),
            }
            self.skip_space();
            match self.next() {
                None => return Err(END.into()),
                Some(b'"') => {}
                Some(c) => return Err(invalid(c, "looking for beginning of object key string")),
            }
        }
    }

    fn array(&mut self) -> Scan {
        self.skip_space();
        match self.peek() {
            None => return Err(END.into()),
            Some(b']') => {
                self.pos += 1;
                return Ok(());
            }
            Some(_) => {}
        }
        let mut index = 0;
        loop {
            self.path.push(format!("[{index}]"));
            let value = self.value();
            self.path.pop();
            value?;
            index += 1;
            self.skip_space();
            match self.next() {
                None => return Err(END.into()),
                Some(b']') => return Ok(()),
                Some(b',') => {}
                Some(c) => return Err(invalid(c, "after array element")),
            }
        }
    }

    /// The rest of a string whose opening quote was read.
    fn string(&mut self) -> Scan {
        loop {
            match self.next() {
                None => return Err(END.into()),
                Some(b'"') => return Ok(()),
                Some(b'\\') => match self.next() {
                    None => return Err(END.into()),
                    Some(b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"') => {}
                    Some(b'u') => {
                        for _ in 0..4 {
                            match self.next() {
                                None => return Err(END.into()),
                                Some(c) if c.is_ascii_hexdigit() => {}
                                Some(c) => {
                                    return Err(invalid(c, r"in \u hexadecimal character escape"));
                                }
                            }
                        }
                    }
                    Some(c) => return Err(invalid(c, "in string escape code")),
                },
                Some(c) if c < 0x20 => return Err(invalid(c, "in string literal")),
                Some(_) => {}
            }
        }
    }

    /// The rest of a number whose first byte was read.
    fn number(&mut self, first: u8) -> Scan {
        let mut c = first;
        if c == b'-' {
            match self.next() {
                None => return Err(END.into()),
                Some(d @ b'0'..=b'9') => c = d,
                Some(d) => return Err(invalid(d, "in numeric literal")),
            }
        }
        if c != b'0' {
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            match self.next() {
                None => return Err(END.into()),
                Some(b'0'..=b'9') => {}
                Some(d) => return Err(invalid(d, "after decimal point in numeric literal")),
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            let mut d = self.next();
            if matches!(d, Some(b'+' | b'-')) {
                d = self.next();
            }
            match d {
                None => return Err(END.into()),
                Some(b'0'..=b'9') => {}
                Some(d) => return Err(invalid(d, "in exponent of numeric literal")),
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// The rest of `true`, `false` or `null` whose first byte was read.
    fn literal(&mut self, word: &str) -> Scan {
        for expected in word.bytes().skip(1) {
            match self.next() {
                None => return Err(END.into()),
                Some(c) if c == expected => {}
                Some(c) => {
                    return Err(invalid(
                        c,
                        &format!("in literal {word} (expecting {})", quote_char(expected)),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{duplicate_fields, syntax_error};

    #[test]
    fn words_errors_as_go_does() {
        // Each expectation is what Go's encoding/json (and so the apiserver) reports.
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"a": [1, 2.5e-3, "x\u00e9", true, null]}"#, None),
            ("  {}  ", None),
            (
                "{not json",
                Some("invalid character 'n' looking for beginning of object key string"),
            ),
            ("", Some("unexpected end of JSON input")),
            ("{\"a\": 1", Some("unexpected end of JSON input")),
            ("{\"a\" 1}", Some("invalid character '1' after object key")),
            (
                "{\"a\": 1 \"b\"}",
                Some("invalid character '\"' after object key:value pair"),
            ),
            ("[1 2]", Some("invalid character '2' after array element")),
            (
                "[1,]",
                Some("invalid character ']' looking for beginning of value"),
            ),
            ("{} x", Some("invalid character 'x' after top-level value")),
            ("01", Some("invalid character '1' after top-level value")),
            ("-x", Some("invalid character 'x' in numeric literal")),
            (
                "1.x",
                Some("invalid character 'x' after decimal point in numeric literal"),
            ),
            (
                "1ex",
                Some("invalid character 'x' in exponent of numeric literal"),
            ),
            ("tru", Some("unexpected end of JSON input")),
            (
                "trux",
                Some("invalid character 'x' in literal true (expecting 'e')"),
            ),
            (
                "\"a\nb\"",
                Some(r"invalid character '\n' in string literal"),
            ),
            (
                r#""\q""#,
                Some("invalid character 'q' in string escape code"),
            ),
            (
                r#""\u12g4""#,
                Some(r"invalid character 'g' in \u hexadecimal character escape"),
            ),
            (
                "'a'",
                Some(r"invalid character '\'' looking for beginning of value"),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(
                syntax_error(input.as_bytes()).as_deref(),
                *want,
                "{input:?}"
            );
        }
        assert_eq!(
            duplicate_fields(
                br#"{"spec": {"replicas": 1, "replicas": 2, "ports": [{"n": 1, "n": 2}]}}"#
            ),
            ["spec.replicas", "spec.ports[0].n"]
        );
        assert_eq!(
            syntax_error(&[0x9e]).as_deref(),
            Some(r"invalid character '\u009e' looking for beginning of value")
        );
    }
}
