//! Property names as the apiserver's CEL sees them (`apiextensions-apiserver`'s
//! `cel.Escape`).
//!
//! A CRD rule reads an object's properties as CEL fields. Names that are CEL keywords or that
//! contain `.`, `-`, `/` or `__` are escaped into identifiers (`namespace` → `__namespace__`,
//! `a-b` → `a__dash__b`); names with any other character, or starting with a digit, cannot be
//! written in a rule at all. The derive checks rules with these names at compile time, and the
//! runtime compiles rules with them, so both read a property the same way.
//!
//! ```
//! use kubegen_go::cel::{escape, unescape};
//!
//! assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
//! assert_eq!(escape("app.kubernetes.io/name").as_deref(),
//!            Some("app__dot__kubernetes__dot__io__slash__name"));
//! assert_eq!(escape("1st"), None);
//! assert_eq!(unescape("a__dash__b"), "a-b");
//! ```

/// The identifiers CEL reserves: its lexer's reserved words plus the literals.
pub const RESERVED: &[&str] = &[
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

/// The escapes of [`escape`], longest first, with what each stands for.
const ESCAPES: [(&str, &str); 4] = [
    ("__underscores__", "__"),
    ("__dot__", "."),
    ("__dash__", "-"),
    ("__slash__", "/"),
];

/// Whether `name` is one of CEL's reserved words: the apiserver lets a rule select such a
/// property both escaped and, where the parser allows it, as written (`self.namespace`).
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// The CEL identifier for property `name`, or `None` when no rule can name it.
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
        if let Some(after) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = after;
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

/// The property name behind a CEL identifier: [`escape`] undone.
pub fn unescape(identifier: &str) -> String {
    if let Some(word) = (identifier.strip_prefix("__")).and_then(|s| s.strip_suffix("__"))
        && is_reserved(word)
    {
        return word.to_owned();
    }
    let mut out = String::with_capacity(identifier.len());
    let mut rest = identifier;
    'scan: while let Some(c) = rest.chars().next() {
        for (escaped, plain) in ESCAPES {
            if let Some(after) = rest.strip_prefix(escaped) {
                out.push_str(plain);
                rest = after;
                continue 'scan;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
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
            ("café", None),
            ("a:b", None),
        ] {
            assert_eq!(escape(name).as_deref(), escaped, "{name}");
        }
    }

    #[test]
    fn unescaping_gives_back_every_name_that_escapes() {
        for name in [
            "replicas",
            "namespace",
            "while",
            "a-b.c/d",
            "x__y",
            "x___y",
            "__",
            "_x_",
            "app.kubernetes.io/name",
        ] {
            let escaped = escape(name).unwrap_or_else(|| panic!("{name} escapes"));
            assert_eq!(unescape(&escaped), name, "{escaped}");
        }
        // A plain identifier is its own name.
        assert_eq!(unescape("spec"), "spec");
    }
}
