//! Label keys and values: what the apiserver accepts, and its words for what it does not.
//!
//! The sentences are the apiserver's own (its `content.IsLabelKey` and `IsLabelValue`
//! checks), so that an in-memory answer reads like a real one.

/// The longest label value, and the longest name part of a label key, in bytes.
pub const LABEL_MAX_LENGTH: usize = 63;

/// The longest DNS subdomain (a label key's prefix), in bytes.
const SUBDOMAIN_MAX_LENGTH: usize = 253;

const NAME_RULE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must \
     start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or \
     '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const VALUE_RULE: &str = "a valid label must be an empty string or consist of alphanumeric \
     characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. \
     'MyValue',  or 'my_value',  or '12345', regex used for validation is \
     '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const SUBDOMAIN_RULE: &str = "a lowercase RFC 1123 subdomain must consist of lower case \
     alphanumeric characters, '-' or '.', and must start and end with an alphanumeric \
     character (e.g. 'example.com', regex used for validation is \
     '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// Why `key` is not a label key (a qualified name: an optional DNS subdomain prefix and `/`,
/// then a name of at most 63 alphanumerics, `-`, `_` or `.`), one sentence per problem; empty
/// when it is one.
///
/// ```
/// use kubegen_core::selector::label_key_problems;
/// assert!(label_key_problems("example.com/team").is_empty());
/// assert_eq!(label_key_problems("/team"), ["prefix part must be non-empty"]);
/// ```
pub fn label_key_problems(key: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => name,
        [prefix, name] => {
            if prefix.is_empty() {
                problems.push("prefix part must be non-empty".to_owned());
            } else {
                problems.extend(
                    subdomain_problems(prefix)
                        .into_iter()
                        .map(|p| format!("prefix part {p}")),
                );
            }
            name
        }
        _ => {
            problems.push(format!(
                "a valid label key {NAME_RULE} with an optional DNS subdomain prefix and '/' \
                 (e.g. 'example.com/MyName')"
            ));
            return problems;
        }
    };
    if name.is_empty() {
        problems.push("name part must be non-empty".to_owned());
    } else if name.len() > LABEL_MAX_LENGTH {
        problems.push(format!(
            "name part must be no more than {LABEL_MAX_LENGTH} bytes"
        ));
    }
    if !is_label_name(name) {
        problems.push(format!("name part {NAME_RULE}"));
    }
    problems
}

/// Why `value` is not a label value (empty, or at most 63 alphanumerics, `-`, `_` or `.`
/// starting and ending with an alphanumeric), one sentence per problem; empty when it is one.
pub fn label_value_problems(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if value.len() > LABEL_MAX_LENGTH {
        problems.push(format!("must be no more than {LABEL_MAX_LENGTH} bytes"));
    }
    if !value.is_empty() && !is_label_name(value) {
        problems.push(VALUE_RULE.to_owned());
    }
    problems
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`: a label name, or a non-empty label value.
fn is_label_name(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// A lowercase RFC 1123 subdomain: dot-separated labels of lowercase alphanumerics and `-`,
/// each starting and ending with an alphanumeric.
fn subdomain_problems(s: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if s.len() > SUBDOMAIN_MAX_LENGTH {
        problems.push(format!("must be no more than {SUBDOMAIN_MAX_LENGTH} bytes"));
    }
    let lower_alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let label_ok = |l: &str| {
        let b = l.as_bytes();
        b.first().is_some_and(lower_alnum)
            && b.last().is_some_and(lower_alnum)
            && b.iter().all(|c| lower_alnum(c) || *c == b'-')
    };
    if !s.split('.').all(label_ok) {
        problems.push(SUBDOMAIN_RULE.to_owned());
    }
    problems
}
