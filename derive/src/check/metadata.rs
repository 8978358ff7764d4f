//! The CRD's own metadata from `#[resource(...)]`: `label(...)` and `annotation(...)` as
//! the apiserver checks object metadata, the CRD's name (`<plural>.<group>`, at most 253
//! characters), and the approval a group under `k8s.io` or `kubernetes.io` needs.

use super::resource::plural;
use super::*;

/// The annotation that records a Kubernetes API review.
const APPROVAL: &str = "api-approved.kubernetes.io";

/// The annotations of an object may hold this many bytes in all.
const ANNOTATIONS_SIZE: usize = 256 * 1024;

pub(super) fn metadata(r: &ResourceArgs, errors: &mut Accumulator) {
    for (what, list) in [("label", &r.labels), ("annotation", &r.annotations)] {
        for (i, kv) in list.iter().enumerate() {
            // The apiserver compares annotation keys in lower case.
            let key = match what {
                "label" => kv.key.clone(),
                _ => kv.key.to_lowercase(),
            };
            if let Some(problem) = qualified_name_problem(&key) {
                errors.push(error_at(
                    kv.span(),
                    format!(
                        "{what} key `{}` {problem}; the apiserver wants a qualified name: an optional DNS subdomain and `/`, then at most 63 letters, digits, `-`, `_` or `.` that start and end with a letter or digit (e.g. `app.kubernetes.io/name`)",
                        kv.key
                    ),
                ));
            }
            if what == "label" && !is_label_value(&kv.value) {
                errors.push(error_at(
                    kv.span(),
                    format!(
                        "label value `{}` is not a label value, which the apiserver requires: at most 63 letters, digits, `-`, `_` or `.` that start and end with a letter or digit, or nothing",
                        kv.value
                    ),
                ));
            }
            if list[..i].iter().any(|o| o.key == kv.key) {
                errors.push(error_at(
                    kv.span(),
                    format!("{what} `{}` is given twice", kv.key),
                ));
            }
        }
    }
    let size: usize = r
        .annotations
        .iter()
        .map(|kv| kv.key.len() + kv.value.len())
        .sum();
    if size > ANNOTATIONS_SIZE
        && let Some(last) = r.annotations.last()
    {
        errors.push(error_at(
            last.span(),
            format!(
                "the annotations hold {size} bytes; the apiserver allows at most 262144 in all"
            ),
        ));
    }
    name(r, errors);
    approval(r, errors);
}

/// Why `key` is not a qualified name (`IsQualifiedName`), if it is not.
fn qualified_name_problem(key: &str) -> Option<&'static str> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if name.contains('/') {
        return Some("has more than one `/`");
    }
    if let Some(prefix) = prefix {
        let part = |p: &str| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !p.starts_with('-')
                && !p.ends_with('-')
        };
        if prefix.len() > 253 || !prefix.split('.').all(part) {
            return Some("has a prefix that is not a lower-case DNS subdomain");
        }
    }
    if name.is_empty() {
        return Some("has no name");
    }
    if name.len() > 63 {
        return Some("has a name longer than 63 characters");
    }
    (!is_label_value(name)).then_some("has a name with characters other than letters, digits, `-`, `_` and `.`, or that does not start and end with a letter or digit")
}

/// `IsValidLabelValue`: empty, or at most 63 letters, digits, `-`, `_` and `.` that start
/// and end with a letter or digit.
fn is_label_value(value: &str) -> bool {
    let b = value.as_bytes();
    value.is_empty()
        || (b.len() <= 63
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c))
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric())
}

/// The CRD's name `<plural>.<group>` is a DNS subdomain: at most 253 characters.
fn name(r: &ResourceArgs, errors: &mut Accumulator) {
    let plural = match &r.plural {
        Some(p) => p.to_string(),
        None => plural(&r.kind.to_lowercase()),
    };
    let name = format!("{plural}.{}", r.group.as_str());
    if name.len() > 253 && r.group.len() <= 253 {
        errors.push(error_at(
            r.group.span(),
            format!(
                "the CRD's name `{name}` would have {} characters; the apiserver allows at most 253: shorten the group or `plural`",
                name.len()
            ),
        ));
    }
}

/// A group under `k8s.io` or `kubernetes.io` needs the approval annotation: a link to the
/// API review, or a reason starting with `unapproved`.
fn approval(r: &ResourceArgs, errors: &mut Accumulator) {
    let group = r.group.as_str();
    let protected = ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|domain| group == *domain || group.ends_with(&format!(".{domain}")));
    if !protected {
        return;
    }
    match r.annotations.iter().find(|kv| kv.key == APPROVAL) {
        None => errors.push(error_at(
            r.group.span(),
            format!(
                "group `{group}` is under k8s.io or kubernetes.io, which the apiserver reserves for APIs the Kubernetes project reviewed: it refuses the CRD without the annotation `{APPROVAL}`; use a group under a domain you own, or add `annotation(\"{APPROVAL}\", \"<link to the API review>\")` (or a reason starting with `unapproved`)"
            ),
        )),
        Some(kv) if !kv.value.starts_with("unapproved") && !looks_like_a_link(&kv.value) => {
            errors.push(error_at(
                kv.span(),
                format!(
                    "`{APPROVAL}` must be a link to the API review (e.g. `https://github.com/kubernetes/enhancements/pull/1111`) or a reason starting with `unapproved`"
                ),
            ));
        }
        Some(_) => {}
    }
}

/// `scheme://authority...`: what any link the apiserver accepts starts with (it checks the
/// rest of Go's URL syntax; `crd()` does too).
fn looks_like_a_link(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    scheme_ok && !rest.is_empty() && !rest.starts_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_as_apimachinery_checks_them() {
        for ok in [
            "team",
            "app.kubernetes.io/name",
            "a-b_c.d",
            "example.com/X",
            "1",
        ] {
            assert_eq!(qualified_name_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "/name",
            "Example.com/x",
            "a/b/c",
            "team name",
            "-team",
            "team-",
            &"n".repeat(64),
        ] {
            assert!(qualified_name_problem(bad).is_some(), "{bad}");
        }
        assert!(is_label_value("") && is_label_value("v1.2_b") && !is_label_value("a/b"));
        assert!(!is_label_value(&"v".repeat(64)));
    }

    #[test]
    fn links_start_with_a_scheme_and_an_authority() {
        assert!(looks_like_a_link(
            "https://github.com/kubernetes/enhancements/pull/1111"
        ));
        assert!(looks_like_a_link("x+y://h"));
        for bad in [
            "github.com/x",
            "https://",
            "https:///x",
            "1http://x",
            "approved",
        ] {
            assert!(!looks_like_a_link(bad), "{bad}");
        }
    }
}
