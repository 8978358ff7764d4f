//! The Kubernetes URL library as the apiserver has it (`k8s.io/apiserver/pkg/cel/library`'s
//! `urls.go`, and the `kubernetes.URL` type of `pkg/cel/url.go`), over Go's `net/url`
//! ([`go_url`]): `url(string)`, `isURL(string)` and the getters `getScheme`, `getHost`,
//! `getHostname`, `getPort`, `getEscapedPath` and `getQuery`. Two URLs are equal when Go
//! writes them back the same (`URL.String()`).

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::{Key, Map, Opaque};
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

use super::super::super::go_url::{self, Url};
use super::{fail, opaque};

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("url", url);
    ctx.add_function("isURL", |s: Arc<String>| go_url::is_request_uri(&s));
    ctx.add_function("getScheme", |This(this): This<Value>| {
        get(&this, |u| string(u.scheme.as_bytes()))
    });
    ctx.add_function("getHost", |This(this): This<Value>| {
        get(&this, |u| string(&u.host))
    });
    ctx.add_function("getHostname", |This(this): This<Value>| {
        get(&this, |u| string(u.hostname()))
    });
    ctx.add_function("getPort", |This(this): This<Value>| {
        get(&this, |u| string(u.port().as_bytes()))
    });
    ctx.add_function("getEscapedPath", |This(this): This<Value>| {
        get(&this, |u| string(u.escaped_path().as_bytes()))
    });
    ctx.add_function("getQuery", |This(this): This<Value>| get(&this, query));
}

/// A `kubernetes.URL`: the parsed URL, and Go's `String()` of it, which equality compares.
#[derive(Debug)]
struct UrlValue {
    url: Url,
    string: String,
}

impl PartialEq for UrlValue {
    fn eq(&self, other: &Self) -> bool {
        self.string == other.string
    }
}

impl Eq for UrlValue {}

impl Opaque for UrlValue {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

/// `url(string)`: the string must pass `url.ParseRequestURI` (an absolute URI or path); the
/// value is what `url.Parse` makes of it, which reads a `#` as the fragment.
fn url(s: Arc<String>) -> ResolveResult {
    let conversion = |e: go_url::ParseError| {
        fail(
            "url",
            format!("URL parse error during conversion from string: {e}"),
        )
    };
    go_url::parse_request_uri(&s).map_err(conversion)?;
    let url = go_url::parse(&s).map_err(conversion)?;
    let string = url.to_go_string();
    Ok(Value::Opaque(Arc::new(UrlValue { url, string })))
}

/// A getter of `<URL>`.
fn get(this: &Value, getter: impl Fn(&Url) -> Value) -> ResolveResult {
    let value = opaque::<UrlValue>(this).ok_or(ExecutionError::NoSuchOverload)?;
    Ok(getter(&value.url))
}

/// `getQuery()`: each decoded key with its decoded values, in order.
fn query(url: &Url) -> Value {
    let map: HashMap<Key, Value> = url
        .query()
        .into_iter()
        .map(|(key, values)| {
            let values = values.iter().map(|v| string(v)).collect();
            (
                Key::String(Arc::new(go_string(&key))),
                Value::List(Arc::new(values)),
            )
        })
        .collect();
    Value::Map(Map { map: Arc::new(map) })
}

fn string(s: &[u8]) -> Value {
    Value::String(Arc::new(go_string(s)))
}

/// A Go string (bytes) as CEL text: each byte that does not start a valid UTF-8 sequence
/// becomes U+FFFD, as Go reads it (a rune count, `encoding/json`).
fn go_string(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for chunk in s.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(chunk.invalid().iter().map(|_| char::REPLACEMENT_CHARACTER));
    }
    out
}

#[cfg(test)]
mod tests {
    //! Every rule and message here was also sent to kube-apiserver v1.36.2 (a dry-run create
    //! of a CRD with a rule a field), which answered the same.

    use serde_json::json;

    use super::*;
    use crate::checks::Schema;
    use crate::checks::cel::Validator;

    /// The errors of a create whose `spec.s` is `s` and holds `rule`.
    fn errors(rule: &str, s: &str) -> Vec<String> {
        let schema = Schema::new(&json!({"type": "object", "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "s": {"type": "string", "x-kubernetes-validations": [{"rule": rule}]}}},
        }}));
        let object = json!({"apiVersion": "v.example.com/v1", "kind": "Probe",
            "metadata": {"name": "p"}, "spec": {"s": s}});
        let outcome = Validator::new(&schema).validate(&schema, &object, None);
        outcome.errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn getters_answer_as_go_net_url() {
        let s = "HTTPS://u:p@Example.com:8443/a%2Fb/c%7e?x=1&x=2&y=%20&z;w=1&%zz=3#f";
        for rule in [
            "url(self).getScheme() == 'https'",
            "url(self).getHost() == 'Example.com:8443'",
            "url(self).getHostname() == 'Example.com'",
            "url(self).getPort() == '8443'",
            "url(self).getEscapedPath() == '/a%2Fb/c%7e'",
            "url(self).getQuery() == {'x': ['1', '2'], 'y': [' ']}",
            "url('https://[fe80::1%25en0]:443').getHostname() == 'fe80::1%en0'",
            "url('https://[::1]').getHost() == '[::1]' && url('https://[::1]').getPort() == ''",
            "url('https://h:443').getPort() == '443' && url('http://h:80').getHost() == 'h:80'",
            "url('https://é.com/ö').getHost() == 'é.com'",
            "url('https://h/a/../b').getEscapedPath() == '/a/../b'",
            "url('https://h').getEscapedPath() == '' && url('https://h/a b').getEscapedPath() == '/a%20b'",
            "url('/abs?q=1').getScheme() == '' && url('/abs?q=1').getHost() == ''",
            "url('mailto:a@b').getScheme() == 'mailto' && url('mailto:a@b').getEscapedPath() == ''",
            "url('http://localhost/x').getScheme() == 'http'",
            "url('https://h/p?a=%ff').getQuery()['a'][0].size() == 1",
            "url('https://h/p#a?b=1').getQuery() == {}",
        ] {
            assert_eq!(errors(rule, s), Vec::<String>::new(), "{rule}");
        }
    }

    #[test]
    fn urls_are_equal_when_go_writes_them_back_the_same() {
        for rule in [
            "url('HTTPS://h') == url('https://h')",
            "url('https://h/a%20b') == url('https://h/a b')",
            "url('https://h/%7Eu') != url('https://h/~u')",
            "url('https://h:443') != url('https://h')",
            "url('https://h/#') == url('https://h/')",
            "url('https://h?') != url('https://h')",
            "[url('https://h')].exists(u, u == url('https://h'))",
        ] {
            assert_eq!(errors(rule, ""), Vec::<String>::new(), "{rule}");
        }
    }

    #[test]
    fn is_url_is_parse_request_uri() {
        for (s, ok) in [
            ("https://example.com/a", true),
            ("/abs/path", true),
            ("/p#f", true),
            ("mailto:a@b", true),
            ("ftp://a:1:2/", true),
            ("*", true),
            ("example.com", false),
            ("not a url", false),
            ("", false),
            ("http://[x]/", false),
            ("http://[1.2.3.4]/", false),
            ("https://a:1:2/", false),
            ("https://h:port/", false),
            ("https://a b/", false),
            ("https://h/%zz", false),
            ("https://h/\u{1}", false),
        ] {
            let verdict = errors("isURL(self)", s).is_empty();
            assert_eq!(verdict, ok, "isURL({s:?})");
        }
    }

    #[test]
    fn conversions_fail_with_the_apiserver_message() {
        for (s, error) in [
            ("not a url", r#"parse "not a url": invalid URI for request"#),
            ("", r#"parse "": empty url"#),
            (
                "https://h:x",
                r#"parse "https://h:x": invalid port ":x" after host"#,
            ),
            ("http://[::1", r#"parse "http://[::1": missing ']' in host"#),
            (
                "https://a:1:2",
                r#"parse "https://a:1:2": invalid port ":1:2" after host"#,
            ),
            (
                "http://[1.2.3.4]",
                r#"parse "http://[1.2.3.4]": invalid IP-literal"#,
            ),
            (
                "http://[x]",
                r#"parse "http://[x]": invalid host: ParseAddr("x"): unable to parse IP"#,
            ),
            (
                "http://a%41",
                r#"parse "http://a%41": invalid URL escape "%41""#,
            ),
            (
                "http://u p@h",
                r#"parse "http://u p@h": net/url: invalid userinfo"#,
            ),
            // ParseRequestURI reads `#%zz` as part of the query; Parse then fails on it.
            (
                "https://h?x#%zz",
                r#"parse "https://h?x#%zz": invalid URL escape "%zz""#,
            ),
            (
                "http://[%ff]",
                r#"parse "http://[%ff]": invalid host: ParseAddr("\xff"): unable to parse IP"#,
            ),
            ("/p#%€", r#"parse "/p#%€": invalid URL escape "%\xe2\x82""#),
        ] {
            let want = format!(
                r#"spec.s: Invalid value: "string": URL parse error during conversion from string: {error} evaluating rule: url(self).getScheme() != ''"#
            );
            assert_eq!(errors("url(self).getScheme() != ''", s), [want], "{s:?}");
        }
    }

    #[test]
    fn go_strings_read_as_go_reads_them() {
        assert_eq!(go_string(b"a\xe2\x82b\xff"), "a\u{fffd}\u{fffd}b\u{fffd}");
        assert_eq!(go_string("é".as_bytes()), "é");
    }
}
