//! The query string as the apiserver reads it: Go's `net/url.ParseQuery`, and the
//! conversions of its `ParameterCodec` (the first value of a scalar, Go's bool rule).

use kubegen_core::checks::go_url;

/// One decoded `key=value` pair.
#[derive(Clone, Debug)]
struct Param {
    key: String,
    /// The value's bytes, as Go holds them.
    raw: Vec<u8>,
    /// The value as text (bytes that are not UTF-8 become U+FFFD).
    text: String,
}

/// A request's query parameters, in order.
#[derive(Clone, Debug, Default)]
pub(super) struct Query {
    params: Vec<Param>,
}

impl Query {
    /// `url.ParseQuery`, keeping what `URL.Query()` keeps (kubegen-core's
    /// [`parse_query`](kubegen_core::checks::go_url::parse_query)): segments split on `&`; a
    /// segment holding a `;` or a bad `%` escape is dropped whole; `+` is a space; and a query
    /// with more than 10,000 parameters is dropped entirely.
    pub(super) fn parse(raw: Option<&str>) -> Query {
        let params = go_url::parse_query(raw.unwrap_or(""))
            .into_iter()
            .map(|(key, raw)| Param {
                key: String::from_utf8_lossy(&key).into_owned(),
                text: String::from_utf8_lossy(&raw).into_owned(),
                raw,
            })
            .collect();
        Query { params }
    }

    fn values(&self, key: &str) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(move |p| p.key == key)
    }

    /// The first value of `key`, as the apiserver reads a scalar option.
    pub(super) fn first(&self, key: &str) -> Option<&str> {
        self.values(key).next().map(|p| p.text.as_str())
    }

    /// The first value of `key`, as bytes.
    pub(super) fn first_raw(&self, key: &str) -> Option<&[u8]> {
        self.values(key).next().map(|p| p.raw.as_slice())
    }

    /// Every value of `key`, as the apiserver reads a list option (`dryRun`).
    pub(super) fn all(&self, key: &str) -> Vec<&str> {
        self.values(key).map(|p| p.text.as_str()).collect()
    }

    /// Whether `key` is given at all (even empty).
    pub(super) fn has(&self, key: &str) -> bool {
        self.values(key).next().is_some()
    }

    /// A boolean option as Go's `ParameterCodec` converts it: absent is `None`; the first
    /// value `0` or `false` (in any case) is false; anything else, empty included, is true.
    pub(super) fn go_bool(&self, key: &str) -> Option<bool> {
        self.first(key)
            .map(|v| !(v == "0" || equal_fold(v, "false")))
    }
}

/// Go's `strings.EqualFold` against an ASCII word: case-insensitive, with the long s (ſ)
/// folding to `s` as Unicode simple folding does.
fn equal_fold(value: &str, ascii: &str) -> bool {
    let mut expected = ascii.chars();
    for c in value.chars() {
        let Some(e) = expected.next() else {
            return false;
        };
        let same = c.eq_ignore_ascii_case(&e)
            || (c == '\u{17f}' && e.eq_ignore_ascii_case(&'s'))
            || (c == '\u{212a}' && e.eq_ignore_ascii_case(&'k'));
        if !same {
            return false;
        }
    }
    expected.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_parsed_as_go_parses_them() {
        let q = Query::parse(Some(
            "dryRun=%zz&dryRun=x;y&dryRun=All&a=b+c%20d&a=2&e&f=%ff&&g=1=2",
        ));
        assert_eq!(q.all("dryRun"), ["All"]);
        assert_eq!(q.first("a"), Some("b c d"));
        assert_eq!(q.first("e"), Some(""));
        assert_eq!(q.first_raw("f"), Some(&b"\xff"[..]));
        assert_eq!(q.first("g"), Some("1=2"));
        assert!(!q.has("missing"));
        let many = vec!["dryRun=x"; 10_001].join("&");
        assert!(!Query::parse(Some(&many)).has("dryRun"));
        let most = vec!["dryRun=x"; 10_000].join("&");
        assert!(Query::parse(Some(&most)).has("dryRun"));
    }

    #[test]
    fn booleans_follow_go() {
        for (query, expected) in [
            ("force=false", Some(false)),
            ("force=FALSE", Some(false)),
            ("force=fal%C5%BFe", Some(false)),
            ("force=0", Some(false)),
            ("force=", Some(true)),
            ("force", Some(true)),
            ("force=x", Some(true)),
            ("force=true&force=false", Some(true)),
            ("other=1", None),
        ] {
            assert_eq!(
                Query::parse(Some(query)).go_bool("force"),
                expected,
                "{query}"
            );
        }
    }
}
