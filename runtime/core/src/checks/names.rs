//! Kubernetes' name and label syntax checks (apimachinery `util/validation` and
//! `api/validate/content`), each returning the apiserver's messages.

use std::sync::LazyLock;

use regex::Regex;

const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

fn anchored(fmt: &str) -> Regex {
    // The formats above are constants that compile; the tests exercise each.
    Regex::new(&format!("^{fmt}$")).unwrap_or_else(|e| panic!("{fmt}: {e}"))
}

static LABEL_KEY: LazyLock<Regex> = LazyLock::new(|| anchored(LABEL_KEY_FMT));
static LABEL_VALUE: LazyLock<Regex> = LazyLock::new(|| anchored(LABEL_VALUE_FMT));
static DNS1123_LABEL: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1123_LABEL_FMT));
static DNS1123_SUBDOMAIN: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1123_SUBDOMAIN_FMT));
static DNS1035_LABEL: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1035_LABEL_FMT));

/// `RegexError`: the message, examples, and the regular expression used.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{re}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{re}')"));
    s
}

/// apimachinery words length limits two ways: `content.MaxLenError` (label keys and values,
/// and the DNS prefix of a qualified name) counts bytes, `validation.MaxLenError` (object
/// names) counts characters.
fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} bytes")
}

fn max_len_characters(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `IsQualifiedName` (label keys, annotation keys, finalizers): an optional DNS subdomain
/// prefix and `/`, then a name of at most 63 characters.
pub fn qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                errs.extend(
                    dns1123_subdomain_with(prefix, max_len_error)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    LABEL_KEY_MSG,
                    LABEL_KEY_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !LABEL_KEY.is_match(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !LABEL_VALUE.is_match(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`, as object names are checked.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    dns1123_subdomain_with(value, max_len_characters)
}

fn dns1123_subdomain_with(value: &str, too_long: fn(usize) -> String) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(too_long(253));
    }
    if !DNS1123_SUBDOMAIN.is_match(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123Label`.
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_characters(63));
    }
    if !DNS1123_LABEL.is_match(value) {
        if DNS1123_SUBDOMAIN.is_match(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1035Label`.
pub(crate) fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_characters(63));
    }
    if !DNS1035_LABEL.is_match(value) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `IsPathSegmentName` (`prefix` = false) and `IsPathSegmentPrefix`.
pub fn path_segment(name: &str, prefix: bool) -> Vec<String> {
    if !prefix && (name == "." || name == "..") {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// How an object's name is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain` (custom resources).
    DnsSubdomain,
    /// `ValidatePathSegmentName` (the generic checks, embedded resources).
    PathSegment,
    /// `NameIsDNSLabel` (namespaces).
    DnsLabel,
    /// `NameIsDNS1035Label`.
    Dns1035Label,
}

impl NameRule {
    /// The messages for `name`; a `prefix` (generateName) may end in `-`.
    pub fn check(self, name: &str, prefix: bool) -> Vec<String> {
        let masked;
        let name = if prefix && self != NameRule::PathSegment {
            masked = mask_trailing_dash(name);
            masked.as_str()
        } else {
            name
        };
        match self {
            NameRule::DnsSubdomain => dns1123_subdomain(name),
            NameRule::DnsLabel => dns1123_label(name),
            NameRule::Dns1035Label => dns1035_label(name),
            NameRule::PathSegment => path_segment(name, prefix),
        }
    }
}

/// The largest character boundary of `s` at or before byte `at` (`str::floor_char_boundary`,
/// stable only since Rust 1.91).
pub(crate) fn floor_char_boundary(s: &str, at: usize) -> usize {
    (0..=at.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

/// `maskTrailingDash`: a `generateName` may end in `-`, so its last two bytes become `a`
/// before it is checked as a name. Go cuts bytes, so a character before the dash may be cut
/// in half; each byte left of it becomes a control character here instead, which no name
/// format accepts either, so lengths (in bytes) and verdicts stay Go's.
fn mask_trailing_dash(name: &str) -> String {
    if name.len() <= 1 || !name.ends_with('-') {
        return name.to_owned();
    }
    let cut = name.len() - 2;
    let whole = floor_char_boundary(name, cut);
    let mut masked = String::with_capacity(name.len());
    masked.push_str(&name[..whole]);
    masked.extend(std::iter::repeat_n('\u{1}', cut - whole));
    masked.push('a');
    masked
}

#[cfg(test)]
mod tests {
    use super::*;

    // Messages as kube-apiserver v1.36.2 returned them for labels, names and finalizers.
    #[test]
    fn messages_match_the_apiserver() {
        assert_eq!(
            dns1123_subdomain("Bad_Name"),
            [
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert_eq!(
            qualified_name("bad key!"),
            [
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert_eq!(
            qualified_name("a/b/c"),
            [
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ]
        );
        assert_eq!(
            label_value("bad value!"),
            [
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ]
        );
        assert!(qualified_name("example.com/ok").is_empty());
        assert_eq!(qualified_name("/x"), ["prefix part must be non-empty"]);
        assert!(NameRule::DnsSubdomain.check("bad-", true).is_empty());
        assert!(!NameRule::DnsSubdomain.check("Bad_", true).is_empty());
        assert_eq!(
            path_segment("a/b%", false),
            ["may not contain '/'", "may not contain '%'"]
        );
        assert_eq!(path_segment("..", false), ["may not be '..'"]);
        assert_eq!(dns1123_label("a.b"), ["must not contain dots"]);
        assert_eq!(
            label_value(&"a".repeat(64))[0],
            "must be no more than 63 bytes"
        );
        assert!(dns1035_label("1abc")[0].starts_with("a DNS-1035 label"));
    }

    // The issue's crash: a multi-byte character before the trailing dash.
    #[test]
    fn a_prefix_with_a_multi_byte_character_before_its_dash_is_checked_without_panicking() {
        assert_eq!(mask_trailing_dash("fz-ä-"), "fz-\u{1}a");
        assert_eq!(mask_trailing_dash("fz-€-"), "fz-\u{1}\u{1}a");
        assert_eq!(mask_trailing_dash("web-"), "wea");
        assert_eq!(mask_trailing_dash("-"), "-");
        assert_eq!(mask_trailing_dash("é-"), "\u{1}a");
        for rule in [
            NameRule::DnsSubdomain,
            NameRule::DnsLabel,
            NameRule::Dns1035Label,
        ] {
            assert_eq!(rule.check("fz-ä-", true).len(), 1, "{rule:?}");
            assert!(rule.check("fz-a-", true).is_empty(), "{rule:?}");
        }
    }
}
