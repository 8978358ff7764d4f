//! The pure decoders and validators under proptest: whatever the input, they answer — an
//! error or a verdict — and never panic. Label and field selector parsing, local validation
//! of arbitrary JSON (raw and through the schema), and CEL rules built from the library's
//! functions and parsers (quantities, URLs, IPs, CIDRs, semvers, durations, timestamps,
//! regular expressions, formats) evaluated on arbitrary objects.

use kubegen::selector::{FieldSelector, LabelSelector};
use kubegen::validation::{FieldValidation, ResourceValidator, validate_json};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::fuzz::kinds::Widget;

/// Any JSON value, a few levels deep, with the strings and numbers parsers trip on.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Keys that hit the fields the kinds and metadata declare, and others.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "apiVersion",
            "kind",
            "metadata",
            "name",
            "generateName",
            "namespace",
            "labels",
            "annotations",
            "finalizers",
            "ownerReferences",
            "spec",
            "status",
            "s",
            "i32",
            "i64",
            "n",
            "flag",
            "items",
            "v",
            "nested",
            "a",
            "tags",
            "free",
        ])
        .prop_map(str::to_owned),
        text(),
    ]
}

/// Strings made of the pieces parsers look for, and anything else.
fn text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "Z",
        "0",
        "9",
        "-",
        ".",
        "/",
        ":",
        "=",
        "!",
        ",",
        "(",
        ")",
        " ",
        "in",
        "notin",
        "==",
        "!=",
        "<",
        ">",
        "\\",
        "\"",
        "'",
        "e",
        "E",
        "+",
        "Ki",
        "Mi",
        "Gi",
        "m",
        "k",
        "1.5",
        "://",
        "http",
        "[",
        "]",
        "::1",
        "10.0.0.0/8",
        "%",
        "ä",
        "😀",
        "\u{0}",
        "\n",
        "v1.2.3",
        "1h30m",
        "2024-01-01T00:00:00Z",
        "*",
        "?",
        "^",
        "$",
        "{",
        "}",
        "|",
    ]);
    prop_oneof![
        prop::collection::vec(pieces, 0..12).prop_map(|p| p.concat()),
        ".{0,24}",
    ]
}

/// A CEL string literal holding `s`.
fn literal(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "''".into())
}

/// A rule: a library call on an arbitrary string, or a soup of CEL tokens.
fn rule() -> impl Strategy<Value = String> {
    let call = (
        prop::sample::select(vec![
            "quantity(X)",
            "isQuantity(X)",
            "quantity(X).isInteger()",
            "url(X).getHost()",
            "isURL(X)",
            "ip(X).family()",
            "isIP(X)",
            "cidr(X).prefixLength()",
            "isCIDR(X)",
            "semver(X).major()",
            "isSemver(X)",
            "duration(X) > duration('0s')",
            "timestamp(X).getHours()",
            "X.matches(Y)",
            "X.find(Y)",
            "X.findAll(Y)",
            "X.split(Y).size()",
            "X.indexOf(Y)",
            "X.replace(Y, 'z')",
            "X.lowerAscii()",
            "format.named(X).value().validate(Y).hasValue()",
            "X.format([Y])",
            "int(X)",
            "double(X)",
            "bytes(X).size()",
        ]),
        text(),
        text(),
    )
        .prop_map(|(call, x, y)| call.replace('X', &literal(&x)).replace('Y', &literal(&y)));
    let soup = prop::collection::vec(
        prop::sample::select(vec![
            "self",
            "self.s",
            "self.items",
            "oldSelf",
            ".",
            "size",
            "(",
            ")",
            "[",
            "]",
            "1",
            "'a'",
            "+",
            "-",
            "*",
            "/",
            "%",
            "==",
            "<",
            "&&",
            "||",
            "!",
            "?",
            ":",
            "has",
            "all",
            "exists",
            "map",
            "filter",
            "x",
            ",",
            "in",
            "true",
            "null",
            "{",
            "}",
        ]),
        1..14,
    )
    .prop_map(|tokens| tokens.join(" "));
    prop_oneof![call, soup]
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "fuzz.kubegen.dev/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn selectors_parse_or_refuse(text in text()) {
        let _ = LabelSelector::parse(&text);
        let _ = FieldSelector::parse(&text, &["spec.s".to_owned()]);
    }

    #[test]
    fn local_validation_answers_any_json(spec in any_json(), object in any_json()) {
        let _ = validate_json::<Widget>(&widget(spec), FieldValidation::Strict);
        let _ = validate_json::<Widget>(&object, FieldValidation::Warn);
    }

    #[test]
    fn cel_rules_compile_or_refuse_and_evaluate(rule in rule(), spec in any_json()) {
        let schema = json!({
            "type": "object",
            "properties": {
                "metadata": {"type": "object"},
                "spec": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": true,
                    "x-kubernetes-validations": [{"rule": rule}],
                },
            },
        });
        let validator = ResourceValidator::new("fuzz.kubegen.dev", "v1", "Widget", true, &schema, None);
        let object = widget(spec);
        let _ = validator.validate_create(&object);
        let _ = validator.validate_update(&object, &widget(json!({"s": "old"})));
    }
}
