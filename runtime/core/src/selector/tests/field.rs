//! Field selectors: parsing, escaping, errors and matching.

use serde_json::{Value, json};

use super::Want::{self, Error, Names};
use crate::selector::{FieldOperator, FieldRequirement, FieldSelector};

/// The objects the selectors were run against, in namespace `default` of a namespaced kind
/// whose selectable fields are `.spec.color` (string), `.spec.size` (integer) and
/// `.spec.enabled` (boolean).
fn objects() -> Vec<Value> {
    let specs = [
        json!({"color": "red", "size": 3, "enabled": true}),
        json!({"color": "a,b=c\\d", "size": -2}),
        json!({}),
        json!({"color": "", "enabled": false}),
        json!({"color": "red"}),
    ];
    specs
        .into_iter()
        .zip(["a", "b", "c", "d", "e"])
        .map(|(spec, name)| json!({"metadata": {"name": name, "namespace": "default"}, "spec": spec}))
        .collect()
}

/// What such a kind offers for selection.
fn allowed() -> Vec<String> {
    [
        "metadata.name",
        "metadata.namespace",
        "spec.color",
        "spec.size",
        "spec.enabled",
    ]
    .map(String::from)
    .to_vec()
}

/// The same selectors on a cluster-scoped kind without selectable fields: only
/// `metadata.name` is offered there.
fn cluster_allowed() -> Vec<String> {
    vec!["metadata.name".to_owned()]
}

const FIELD_SELECTORS: &[(&str, Want)] = &[
    ("", Names(&["a", "b", "c", "d", "e"])),
    ("metadata.name=a", Names(&["a"])),
    ("metadata.name==a", Names(&["a"])),
    ("metadata.name!=a", Names(&["b", "c", "d", "e"])),
    (
        "metadata.namespace=default",
        Names(&["a", "b", "c", "d", "e"]),
    ),
    ("metadata.namespace!=default", Names(&[])),
    ("metadata.name=a,metadata.namespace=default", Names(&["a"])),
    ("spec.color=red", Names(&["a", "e"])),
    ("spec.color!=red", Names(&["b", "c", "d"])),
    ("spec.color=", Names(&["c", "d"])),
    ("spec.color!=", Names(&["a", "b", "e"])),
    ("spec.size=3", Names(&["a"])),
    ("spec.size=-2", Names(&["b"])),
    ("spec.size=", Names(&["c", "d", "e"])),
    ("spec.enabled=true", Names(&["a"])),
    ("spec.enabled=false", Names(&["d"])),
    ("spec.enabled=", Names(&["b", "c", "e"])),
    ("spec.color=a\\,b\\=c\\\\d", Names(&["b"])),
    (
        "spec.color=a,b",
        Error("invalid selector: 'spec.color=a,b'; can't understand 'b'"),
    ),
    (
        "spec.color=a\\x",
        Error("invalid field selector: invalid escape sequence: \\x"),
    ),
    (
        "spec.color=a\\",
        Error("invalid field selector: invalid escape sequence: \\"),
    ),
    (
        "spec.color=a=b",
        Error("invalid field selector: unescaped character in value: 61"),
    ),
    (
        "spec.title=x",
        Error("field label not supported: spec.title"),
    ),
    (
        "metadata.labels=x",
        Error("field label not supported: metadata.labels"),
    ),
    (
        "metadata.name",
        Error("invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
    ),
    (
        "metadata.name=a,bogus",
        Error("invalid selector: 'metadata.name=a,bogus'; can't understand 'bogus'"),
    ),
    (
        "bogus,metadata.name=a",
        Error("invalid selector: 'bogus,metadata.name=a'; can't understand 'bogus'"),
    ),
    ("zzz=1,aaa=2", Error("field label not supported: aaa")),
    (
        "aaa,zzz=1",
        Error("invalid selector: 'aaa,zzz=1'; can't understand 'aaa'"),
    ),
    ("=x", Error("field label not supported: ")),
    ("=", Names(&["a", "b", "c", "d", "e"])),
    ("metadata.name=a,", Names(&["a"])),
    (",metadata.name=a", Names(&["a"])),
    (",,", Names(&["a", "b", "c", "d", "e"])),
    (
        " metadata.name=a",
        Error("field label not supported:  metadata.name"),
    ),
    (
        "metadata.name =a",
        Error("field label not supported: metadata.name "),
    ),
    ("metadata.name= a", Names(&[])),
    (
        "metadata.name=a=b",
        Error("invalid field selector: unescaped character in value: 61"),
    ),
    (
        "metadata.name!=a=b",
        Error("invalid field selector: unescaped character in value: 61"),
    ),
    ("metadata.name=!a", Names(&[])),
    (
        "metadata.name==a=b",
        Error("invalid field selector: unescaped character in value: 61"),
    ),
    (
        "spec.color=a\\,b=c",
        Error("invalid field selector: unescaped character in value: 61"),
    ),
    (
        "x=a\\y,y=1",
        Error("invalid field selector: invalid escape sequence: \\y"),
    ),
    (
        ".spec.color=red",
        Error("field label not supported: .spec.color"),
    ),
    (
        "spec.color=red,spec.title=x,spec.zzz=1",
        Error("field label not supported: spec.title"),
    ),
    (
        "metadata.name in (a)",
        Error("invalid selector: 'metadata.name in (a)'; can't understand 'metadata.name in (a)'"),
    ),
    ("metadata.name=a,metadata.name=b", Names(&[])),
    (
        "metadata.uid=x",
        Error("field label not supported: metadata.uid"),
    ),
    (
        "status.phase=x",
        Error("field label not supported: status.phase"),
    ),
    (
        "spec.Color=red",
        Error("field label not supported: spec.Color"),
    ),
    (
        "zzz,aaa=1",
        Error("invalid selector: 'zzz,aaa=1'; can't understand 'zzz'"),
    ),
    ("!=", Names(&["a", "b", "c", "d", "e"])),
    ("==", Names(&["a", "b", "c", "d", "e"])),
    ("\\==", Error("field label not supported: \\")),
    ("a\\,b=c", Error("field label not supported: a\\,b")),
    ("metadata.name=a\\,b", Names(&[])),
    (
        "metadata.name\\=a",
        Error("field label not supported: metadata.name\\"),
    ),
    ("metadata.name=é", Names(&[])),
    (
        "metadata.name=é\\x",
        Error("invalid field selector: invalid escape sequence: \\x"),
    ),
    (
        "metadata.name=\\é",
        Error("invalid field selector: invalid escape sequence: \\é"),
    ),
    ("spec.color=red,=,spec.size=3", Names(&["a"])),
    ("spec.color=red,=x", Error("field label not supported: ")),
];

const CLUSTER_FIELD_SELECTORS: &[(&str, Want)] = &[
    (
        "metadata.namespace=x",
        Error("field label not supported: metadata.namespace"),
    ),
    ("metadata.name=a", Names(&[])),
    (
        "metadata.namespace!=",
        Error("field label not supported: metadata.namespace"),
    ),
    (
        "spec.value=x",
        Error("field label not supported: spec.value"),
    ),
];

fn check(table: &[(&str, Want)], allowed: &[String], objects: &[Value]) {
    for (selector, want) in table {
        let listed = FieldSelector::parse(selector, allowed).map(|s| {
            objects
                .iter()
                .filter(|o| s.matches(o))
                .filter_map(|o| o["metadata"]["name"].as_str())
                .collect()
        });
        want.assert(selector, listed.map_err(|e| e.to_string()));
    }
}

#[test]
fn field_selectors_parse_match_and_fail_like_the_apiserver() {
    check(FIELD_SELECTORS, &allowed(), &objects());
}

#[test]
fn a_cluster_scoped_kind_offers_only_the_name() {
    check(CLUSTER_FIELD_SELECTORS, &cluster_allowed(), &[]);
}

#[test]
fn values_are_escaped_when_written_out() {
    let s = FieldSelector(vec![FieldRequirement {
        field: "spec.color".to_owned(),
        operator: FieldOperator::NotEquals,
        value: "a,b=c\\d".to_owned(),
    }]);
    assert_eq!(s.to_string(), r"spec.color!=a\,b\=c\\d");
    assert_eq!(FieldSelector::parse(&s.to_string(), &allowed()), Ok(s));
}
