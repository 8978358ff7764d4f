//! Selectors: lists with label and field selectors, valid and invalid — every label operator
//! (`=`, `==`, `!=`, `in`, `notin`, exists, `!`, `>`, `<`), field selectors on the name, the
//! namespace and each type of selectable field, escapes, and each way a selector is refused.

use serde_json::json;

use super::{GLOBALS, GROUP};
use crate::conformance::script::{Case, Res};

/// The Selectable kind: selectable `.spec.color`, `.spec.size` and `.spec.enabled`.
const SELECTABLES: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "selectables",
    namespaced: true,
};

/// A case starting from Selectables `a`..`e`:
///
/// | name | labels | spec |
/// | --- | --- | --- |
/// | a | app=web, n=1, tier=front | color red, size 3, enabled |
/// | b | app=api, n=10 | color `a,b=c\d`, size -2 |
/// | c | app=db, n=x | |
/// | d | n=007, example.com/team=a | color "", not enabled |
/// | e | app="", n=5x | color red |
fn five(case: &str) -> Case {
    let objects = [
        (
            "a",
            json!({"app": "web", "n": "1", "tier": "front"}),
            json!({"color": "red", "size": 3, "enabled": true}),
        ),
        (
            "b",
            json!({"app": "api", "n": "10"}),
            json!({"color": "a,b=c\\d", "size": -2}),
        ),
        ("c", json!({"app": "db", "n": "x"}), json!({})),
        (
            "d",
            json!({"n": "007", "example.com/team": "a"}),
            json!({"color": "", "enabled": false}),
        ),
        ("e", json!({"app": "", "n": "5x"}), json!({"color": "red"})),
    ];
    objects
        .into_iter()
        .fold(Case::new(case), |c, (name, labels, spec)| {
            c.create(
                SELECTABLES,
                "Selectable",
                json!({"metadata": {"name": name, "labels": labels}, "spec": spec}),
            )
        })
}

/// Percent-encodes everything but unreserved characters, keeping `{ns}` for the runner.
fn encode(selector: &str) -> String {
    let mut out = String::new();
    for b in selector.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.replace("%7Bns%7D", "{ns}")
}

fn labels(selector: &str) -> String {
    format!("labelSelector={}", encode(selector))
}

fn fields(selector: &str) -> String {
    format!("fieldSelector={}", encode(selector))
}

/// One list of Selectables per selector.
fn lists(case: Case, query: fn(&str) -> String, selectors: &[&str]) -> Case {
    selectors
        .iter()
        .fold(case, |c, s| c.list(SELECTABLES, &query(s)))
}

pub fn cases() -> Vec<Case> {
    vec![
        lists(
            five("selectors: label equality"),
            labels,
            &["app=web", "app==web", "app!=web", "app=", "app!=", "app=,n"],
        ),
        lists(
            five("selectors: label sets"),
            labels,
            &[
                "app in (web,api)",
                "app notin (web,api)",
                "app in (,web)",
                "app in (web,,api)",
                "app notin ()",
                "n in ()",
                "app in (a,b),app notin (a)",
            ],
        ),
        lists(
            five("selectors: label existence and blanks"),
            labels,
            &["app", "!app", "!app,n", "  app  ", "app = web , n", " "],
        ),
        lists(
            five("selectors: label greater and less than"),
            labels,
            &[
                "n>5",
                "n<5",
                "n>007",
                "n<08",
                "n> 5",
                "n>abc",
                "n>-1",
                "n>",
                "n>1.5",
                "n>99999999999999999999",
            ],
        ),
        lists(
            five("selectors: keywords and NUL bytes in label selectors"),
            labels,
            &["in=x", "notin in (in,notin)", "app=in", "a\0b", "a,\0b"],
        ),
        lists(
            Case::new("selectors: invalid label syntax"),
            labels,
            &[
                "app in web",
                "a b=c",
                "app in (web",
                "app in (web api)",
                "app,",
                ",app",
                "=web",
                "!=web",
                "!",
                "!app=web",
                "app=!x",
                "app in (web,!)",
                "app=(web)",
                "app in ((web))",
                "a in (b,c,",
                "a in",
                "n><5",
                "(a)",
            ],
        )
        .watch(SELECTABLES, &labels("app in web")),
        lists(
            Case::new("selectors: invalid label keys and values"),
            labels,
            &[
                "-app=x",
                "Example.com/team=a",
                "/team=a",
                "example.com/=a",
                "a/b/c=x",
                &"k".repeat(64),
                "app=-web",
                "app in (-x,y_)",
                &format!("app={}", "v".repeat(64)),
                "app=\u{e9}",
                "a\u{a0}b=c",
                "app=a\u{1}",
            ],
        ),
        lists(
            five("selectors: field equality"),
            fields,
            &[
                "metadata.name=a",
                "metadata.name==a",
                "metadata.name!=a",
                "metadata.namespace={ns}",
                "metadata.namespace!={ns}",
                "spec.color=red",
                "spec.color!=red",
                "spec.color=",
                "spec.size=3",
                "spec.size=-2",
                "spec.size=",
                "spec.enabled=true",
                "spec.enabled=false",
                "spec.enabled=",
                "metadata.name=a,metadata.name=b",
            ],
        ),
        lists(
            five("selectors: field escapes and empty terms"),
            fields,
            &[
                r"spec.color=a\,b\=c\\d",
                r"metadata.name=a\,b",
                "=",
                "!=",
                ",,",
                "metadata.name=a,",
                "metadata.name= a",
                "spec.color=red,=,spec.size=3",
            ],
        ),
        lists(
            Case::new("selectors: invalid field selectors"),
            fields,
            &[
                "spec.color=a,b",
                r"spec.color=a\x",
                r"spec.color=a\",
                "spec.color=a=b",
                "metadata.name",
                "zzz,aaa=1",
                "metadata.name in (a)",
                "metadata.name=\\\u{e9}",
            ],
        ),
        lists(
            Case::new("selectors: unsupported field labels"),
            fields,
            &[
                "spec.title=x",
                "metadata.labels=x",
                "zzz=1,aaa=2",
                "=x",
                " metadata.name=a",
                ".spec.color=red",
                "spec.Color=red",
                "metadata.uid=x",
                "spec.color=red,spec.title=x,spec.zzz=1",
            ],
        )
        .watch(SELECTABLES, &fields("status.phase=x")),
        Case::new("selectors: a cluster-scoped kind offers no namespace field")
            .list(GLOBALS, &fields("metadata.namespace=x"))
            .list(GLOBALS, &fields("metadata.namespace!="))
            .list(GLOBALS, &fields("spec.value=x")),
        five("selectors: label and field selectors together")
            .list(
                SELECTABLES,
                &format!("{}&{}", labels("app"), fields("spec.color=red")),
            )
            .list(
                SELECTABLES,
                &format!("{}&{}", fields("x"), labels("a in b")),
            )
            .list(
                SELECTABLES,
                &format!("{}&{}", labels("app"), fields("spec.title=x")),
            ),
    ]
}
