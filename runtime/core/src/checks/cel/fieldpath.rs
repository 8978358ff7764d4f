//! A rule's `fieldPath` (`.spec.ports['http']`) checked against the schema and turned into
//! the field path its errors are reported at (the apiserver's `ValidFieldPath`), and the
//! same walk over a CRD's JSON schema with the apiserver's reasons ([`resolve`]), for the
//! CRD checks of `fieldPath`s and selectable fields.

use serde_json::Value;

use super::super::field;
use super::super::schema::{Additional, Schema};

/// One lexical token of a field path: a delimiter or the text between delimiters.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Dot,
    Open,
    Close,
    Text(&'a str),
}

/// Splits as the apiserver's scanner does: `.`, `[` and `]` alone, a single-quoted string
/// (up to a quote not preceded by a backslash) whole, other text up to the next delimiter.
fn tokens(path: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        let b = rest.as_bytes();
        let len = if b[0] == b'\'' {
            (1..b.len())
                .find(|&i| b[i] == b'\'' && b[i - 1] != b'\\')
                .map_or(b.len(), |i| i + 1)
        } else {
            match b.iter().position(|c| matches!(c, b'.' | b'[' | b']')) {
                Some(0) => 1,
                Some(i) => i,
                None => b.len(),
            }
        };
        let (token, next) = rest.split_at(len);
        out.push(match token {
            "." => Token::Dot,
            "[" => Token::Open,
            "]" => Token::Close,
            text => Token::Text(text),
        });
        rest = next;
    }
    out
}

/// Go's single-quoted string escapes (`\'`, `\\`, `\n`, ...); `None` for an unknown one.
fn unescape(quoted: &str) -> Option<String> {
    let mut out = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('a') => '\u{7}',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('v') => '\u{b}',
            Some('\'') => '\'',
            Some('\\') => '\\',
            // A trailing backslash is kept, as Go's `\\.` matcher leaves it alone.
            None => '\\',
            Some(_) => return None,
        });
    }
    Some(out)
}

/// The field path `path` names below a node of `schema`, relative to that node (`a.b[k]`),
/// or `None` when it is not a valid path into the schema.
pub(super) fn normalize(path: &str, schema: &Schema) -> Option<String> {
    let tokens = tokens(path);
    let mut out = String::new();
    let mut schema = schema;
    let mut i = 0;
    while i < tokens.len() {
        let (name, next) = match (&tokens[i], tokens.get(i + 1)) {
            (Token::Dot, Some(Token::Text(name))) => ((*name).to_owned(), i + 2),
            (Token::Open, Some(Token::Text(quoted))) => {
                let inner = quoted.strip_prefix('\'')?.strip_suffix('\'')?;
                if !matches!(tokens.get(i + 2), Some(Token::Close)) {
                    return None;
                }
                (unescape(inner)?, i + 3)
            }
            _ => return None,
        };
        if !schema.properties.is_empty() {
            schema = schema.property(&name)?;
            out = field::child(&out, &name);
        } else if let Additional::Schema(values) = &schema.additional {
            schema = values;
            out = field::key(&out, &name);
        } else {
            return None;
        }
        i = next;
    }
    Some(out)
}

/// Where `path` leads from the JSON schema node `schema`: the field path (`spec.m[k]`) and the
/// node found, or the apiserver's reason why it leads nowhere (`does not refer to a valid
/// field`, `array notation is not allowed`, ...). `allow_array` permits `['name']` steps.
pub(crate) fn resolve<'s>(
    path: &str,
    schema: &'s Value,
    allow_array: bool,
) -> Result<(String, &'s Value), String> {
    let tokens = tokens(path);
    let end = || "unexpected end of JSON path".to_owned();
    let mut out = String::new();
    let mut node = schema;
    // One step down by `name`: a property, or a map value.
    let mut step = |name: &str| {
        let properties = node.get("properties").and_then(Value::as_object);
        if let Some(properties) = properties.filter(|p| !p.is_empty()) {
            node = properties
                .get(name)
                .ok_or("does not refer to a valid field")?;
            out = field::child(&out, name);
        } else if let Some(values) = node.get("additionalProperties").filter(|a| a.is_object()) {
            node = values;
            out = field::key(&out, name);
        } else {
            return Err("does not refer to a valid field");
        }
        Ok(())
    };
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Open => {
                if !allow_array {
                    return Err("array notation is not allowed".into());
                }
                let quoted = tokens.get(i + 1).map(text).ok_or_else(end)?;
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2)
                    .ok_or_else(|| format!("expected single quoted string but got {quoted}"))?;
                let name = unescape(inner).ok_or_else(|| {
                    format!(
                        "invalid string literal: invalid escape char {}",
                        bad_escape(inner)
                    )
                })?;
                step(&name)?;
                match tokens.get(i + 2) {
                    None => return Err(end()),
                    Some(Token::Close) => {}
                    Some(t) => return Err(format!("expected ] but got {}", text(t))),
                }
                i += 3;
            }
            Token::Dot => {
                step(tokens.get(i + 1).map(text).ok_or_else(end)?)?;
                i += 2;
            }
            t => return Err(format!("expected [ or . but got: {}", text(t))),
        }
    }
    Ok((out, node))
}

fn text<'a>(token: &Token<'a>) -> &'a str {
    match token {
        Token::Dot => ".",
        Token::Open => "[",
        Token::Close => "]",
        Token::Text(t) => t,
    }
}

/// The first escape [`unescape`] refuses, as Go quotes it (`\\q`).
fn bad_escape(quoted: &str) -> String {
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(next) = chars.next()
            && !"abfnrtv'\\".contains(next)
        {
            return format!("\\{next}");
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_follow_the_schema() {
        let schema = Schema::new(&json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "integer"},
                "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                    "x": {"type": "string"}}}},
            }},
        }}));
        let n = |p: &str| normalize(p, &schema);
        assert_eq!(n(".spec.a").as_deref(), Some("spec.a"));
        assert_eq!(
            n(".spec.m['some.key']").as_deref(),
            Some("spec.m[some.key]")
        );
        assert_eq!(n(".spec.m.k.x").as_deref(), Some("spec.m[k].x"));
        assert_eq!(n("['spec'].a").as_deref(), Some("spec.a"));
        assert_eq!(n(".spec.m['it\\'s']").as_deref(), Some("spec.m[it's]"));
        assert_eq!(n(".spec.b"), None, "not a property");
        assert_eq!(n("spec.a"), None, "must start with . or [");
        assert_eq!(n(".spec.a.b"), None, "a scalar has no fields");
        assert_eq!(n(".spec.m['k'"), None, "unclosed");
        assert_eq!(n(".spec.m[k]"), None, "keys are quoted");
    }

    #[test]
    fn resolving_gives_the_apiservers_reasons() {
        // Reasons as kube-apiserver v1.36.2 gave them for selectable fields.
        let schema = json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "color": {"type": "string"},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
            }},
        }});
        let r = |p: &str, arrays: bool| {
            resolve(p, &schema, arrays).map(|(path, node)| (path, node["type"].clone()))
        };
        assert_eq!(
            r(".spec.color", false),
            Ok(("spec.color".into(), json!("string")))
        );
        assert_eq!(
            r(".spec.m.x", false),
            Ok(("spec.m[x]".into(), json!("string")))
        );
        assert_eq!(
            r(".spec['m']['x']", true),
            Ok(("spec.m[x]".into(), json!("string")))
        );
        assert_eq!(r(".spec", false).map(|(p, _)| p), Ok("spec".into()));
        for (path, reason) in [
            (".spec.nope", "does not refer to a valid field"),
            (".metadata.name", "does not refer to a valid field"),
            ("spec.color", "expected [ or . but got: spec"),
            (".spec['color']", "array notation is not allowed"),
            (".spec.", "unexpected end of JSON path"),
            (".spec..color", "does not refer to a valid field"),
        ] {
            assert_eq!(r(path, false), Err(reason.into()), "{path}");
        }
        assert_eq!(
            r(".spec[color]", true),
            Err("expected single quoted string but got color".into())
        );
        assert_eq!(
            r(".spec['color'", true),
            Err("unexpected end of JSON path".into())
        );
    }
}
