//! Property names as CEL sees them (apiserver `cel.Escape`): names that are CEL keywords or
//! contain `.`, `-`, `/` or `__` are escaped into identifiers (`namespace` →
//! `__namespace__`, `a-b` → `a__dash__b`); names with other characters, or starting with a
//! digit, cannot be written in CEL at all.

/// The identifiers CEL reserves (its lexer's RESERVED set plus the literals).
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Whether `name` is one of CEL's reserved words: the apiserver lets a rule select such a
/// property both escaped and, where the parser allows it, as written (`self.namespace`).
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// The CEL identifier for property `name`, or `None` when the name cannot be one.
pub fn escape(name: &str) -> Option<String> {
    let first = name.chars().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if is_reserved(name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("__") {
            out.push_str("__underscores__");
            rest = &rest[2..];
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => return None,
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_escape_as_the_apiserver_escapes_them() {
        for (name, escaped) in [
            ("a-b.c/d", Some("a__dash__b__dot__c__slash__d")),
            ("spec", Some("spec")),
            ("namespace", Some("__namespace__")),
            ("in", Some("__in__")),
            ("a-b", Some("a__dash__b")),
            ("a.b/c", Some("a__dot__b__slash__c")),
            ("my_field", Some("my_field")),
            ("a__b", Some("a__underscores__b")),
            ("a___b", Some("a__underscores___b")),
            ("_x", Some("_x")),
            ("1abc", None),
            ("", None),
            ("a b", None),
            ("héllo", None),
            ("a:b", None),
        ] {
            assert_eq!(escape(name).as_deref(), escaped, "{name}");
        }
    }
}
