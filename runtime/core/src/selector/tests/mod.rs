//! Selector behaviour observed on kube-apiserver v1.36.2.
//!
//! Every selector in the tables was sent, URL-encoded, as the `labelSelector=` or
//! `fieldSelector=` of a list of custom resources holding the objects below; the table holds
//! what the apiserver answered: the names it listed, or the message of its 400 BadRequest.

mod field;
mod label;

/// What the apiserver answered to a list with a selector.
enum Want {
    /// These objects, by name.
    Names(&'static [&'static str]),
    /// A 400 BadRequest with this message.
    Error(&'static str),
}

impl Want {
    /// Asserts that what kubegen made of `selector` (the names it selects, or its error's
    /// text) is what the apiserver answered.
    fn assert(&self, selector: &str, got: Result<Vec<&str>, String>) {
        match (self, got) {
            (Want::Names(names), Ok(listed)) => assert_eq!(&listed, names, "{selector:?}"),
            (Want::Error(message), Err(e)) => assert_eq!(e, *message, "{selector:?}"),
            (_, got) => panic!("{selector:?}: got {got:?}"),
        }
    }
}

/// Quoting as Go's `%q` and `encoding/json` do it; the tables check the characters a
/// selector can carry, this the rest.
#[test]
fn values_are_shown_as_go_shows_them() {
    use super::go_json;
    use crate::go_print::quote as go_quote;
    assert_eq!(go_quote("a\"b\\c"), r#""a\"b\\c""#);
    assert_eq!(go_quote("\u{7}\u{8}\u{7f}\u{85}"), r#""\a\b\x7f\u0085""#);
    assert_eq!(
        go_quote("e\u{301}\u{feff}\u{e000}"),
        "\"e\u{301}\\ufeff\\ue000\""
    );
    assert_eq!(go_quote("\u{f0000}\u{1f600}"), "\"\\U000f0000\u{1f600}\"");
    assert_eq!(
        go_json(&["<a&b>".to_owned(), "\u{2028}".to_owned()]),
        r#"["\u003ca\u0026b\u003e","\u2028"]"#
    );
}
