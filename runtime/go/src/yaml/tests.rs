use serde_json::json;

use super::*;

fn error(data: &str) -> String {
    unmarshal(data.as_bytes()).unwrap_err().to_string()
}

fn value(data: &str) -> Value {
    unmarshal(data.as_bytes()).unwrap().value
}

const OBJECT: &str = r#"{"apiVersion":"v","kind":"K","spec":{"s":"a"}}"#;

#[test]
fn only_the_first_document_is_read() {
    let want = json!({"apiVersion": "v", "kind": "K", "spec": {"s": "a"}});
    for tail in [" x", "{}", ",", "\n---\nb: [", "\n...\ngarbage: ["] {
        assert_eq!(value(&format!("{OBJECT}{tail}")), want, "{tail:?}");
    }
    assert_eq!(value("a: 1\n---\nb: 2\n"), json!({"a": 1}));
    assert_eq!(value(""), Value::Null);
    assert_eq!(value("  \n"), Value::Null);
    assert_eq!(value("null"), Value::Null);
    assert_eq!(value("\u{feff}a: 1"), json!({"a": 1}));
}

#[test]
fn errors_are_worded_as_go_yaml_words_them() {
    // Observed on kube-apiserver v1.36.2 (after its `error decoding YAML: error converting
    // YAML to JSON: ` prefix).
    let cases = [
        (
            format!("{OBJECT} \n\t"),
            "yaml: line 2: found character that cannot start any token",
        ),
        (
            format!("{OBJECT}\0"),
            "yaml: control characters are not allowed",
        ),
        (
            "{\"a\": 1\n".to_owned(),
            "yaml: line 1: did not find expected ',' or '}'",
        ),
        (
            "{\"a\": \"x".to_owned(),
            "yaml: found unexpected end of stream",
        ),
        (
            "a:\n  b: 1\n  c: 2\nd:\n  e: \"1\"\n\tf: 2\n".to_owned(),
            "yaml: line 6: found character that cannot start any token",
        ),
        (
            "%YAML 1.2\n---\na: 1\n".to_owned(),
            "yaml: found incompatible YAML document",
        ),
        (
            r#"{"s": "\ud83d\ude00"}"#.to_owned(),
            "yaml: found invalid Unicode character escape code",
        ),
        (
            "a: 1\nb:\n  c: \"a\\ud800b\"\n".to_owned(),
            "yaml: line 3: found invalid Unicode character escape code",
        ),
        (
            "~: x".to_owned(),
            r#"unsupported map key of type: %!s(<nil>), key: <nil>, value: "x""#,
        ),
        (
            "[a]: 1".to_owned(),
            r#"yaml: invalid map key: []interface {}{"a"}"#,
        ),
        (
            "{a: 1}: 1".to_owned(),
            r#"yaml: invalid map key: map[interface {}]interface {}{"a":1}"#,
        ),
        ("a: .inf".to_owned(), "json: unsupported value: +Inf"),
        ("a: -.Inf".to_owned(), "json: unsupported value: -Inf"),
        ("a: .nan".to_owned(), "json: unsupported value: NaN"),
        ("a: *b".to_owned(), "yaml: unknown anchor 'b' referenced"),
        (
            "a: &a [*a]".to_owned(),
            "yaml: anchor 'a' value contains itself",
        ),
        (
            "a: !!int x".to_owned(),
            "yaml: cannot decode !!str `x` as a !!int",
        ),
        (
            "a: 1\n<<: 2\n".to_owned(),
            "yaml: map merge requires map or sequence of maps as the value",
        ),
    ];
    for (data, want) in cases {
        assert_eq!(error(&data), want, "{data:?}");
    }
    assert_eq!(
        unmarshal(b"a: \"\xff\"").unwrap_err().to_string(),
        "yaml: invalid leading UTF-8 octet"
    );
}

#[test]
fn limits_are_go_yaml_s() {
    let deep = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    let ok = unmarshal(deep(10_000).as_bytes()).unwrap();
    assert_eq!(ok.depth, 10_000);
    crate::json::dismantle(ok.value);
    assert_eq!(error(&deep(10_001)), "yaml: exceeded max depth of 10000");
    assert_eq!(
        error(&format!("a:\n  {}", "[".repeat(10_001))),
        "yaml: line 2: exceeded max depth of 10000"
    );
    let mut laughs = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (i, c) in "bcdefghi".chars().enumerate() {
        let prev = char::from(b'a' + i as u8);
        laughs.push_str(&format!(
            "{c}: &{c} [{}]\n",
            vec![format!("*{prev}"); 9].join(",")
        ));
    }
    assert_eq!(error(&laughs), "yaml: document contains excessive aliasing");
    assert_eq!(
        value("a: &a {x: 1}\nb: [*a, *a]"),
        json!({"a": {"x": 1}, "b": [{"x": 1}, {"x": 1}]})
    );
}

#[test]
fn scalars_and_keys_are_yaml_1_1() {
    assert_eq!(
        value("1: a\n1.5: b\nyes: c\nn: d\n1e3: e\n1000000.0: f\nnull_key: ~\nt: 2001-12-14"),
        json!({"1": "a", "1.5": "b", "true": "c", "false": "d", "1000": "e", "1e+06": "f", "null_key": null, "t": "2001-12-14"})
    );
    assert_eq!(
        value(
            "[1.0, 1e3, -0.0, 1e-400, +1, 0x10, 0o17, 012, 0b101, 1_000, .5, yes, on, 'yes', 1e309, 9223372036854775808, 18446744073709551616, ~, !foo bar, !!binary aGk=]"
        ),
        json!([
            1,
            1000,
            0,
            0,
            1,
            16,
            15,
            10,
            5,
            1000,
            0.5,
            true,
            true,
            "yes",
            "1e309",
            9223372036854775808.0,
            18446744073709551616.0,
            null,
            "bar",
            "hi"
        ])
    );
    assert_eq!(
        value("base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\nz:\n  <<: [{a: 9}, *b]\n"),
        json!({"base": {"a": 1, "b": 2}, "x": {"a": 1, "b": 3}, "z": {"a": 9, "b": 2}})
    );
    assert_eq!(value("\"<<\": 1"), json!({"<<": 1}));
}

#[test]
fn duplicate_keys_are_reported_as_strict_decoding_reports_them() {
    let doc = unmarshal(br#"{"spec":{"s":"a","s":"b"}}"#).unwrap();
    assert_eq!(doc.value, json!({"spec": {"s": "b"}}));
    assert_eq!(doc.duplicates, [r#"line 1: key "s" already set in map"#]);
    let doc =
        unmarshal(b"a: 1\nspec:\n  s: x\n  t: y\n  s: z\n  l:\n  - name: a\n    name: b\n  t: w\n")
            .unwrap();
    assert_eq!(
        doc.duplicates,
        [
            r#"line 5: key "s" already set in map"#,
            r#"line 8: key "name" already set in map"#,
            r#"line 9: key "t" already set in map"#,
        ]
    );
    assert_eq!(
        strict_error(&doc.duplicates).unwrap(),
        "yaml: unmarshal errors:\n  line 5: key \"s\" already set in map\n  line 8: key \"name\" already set in map\n  line 9: key \"t\" already set in map"
    );
    assert_eq!(
        unmarshal(b"b: &b {a: 1}\nx:\n  a: 2\n  <<: *b\n1: x\n1.0: y\n")
            .unwrap()
            .duplicates,
        [r#"line 1: key "a" already set in map"#]
    );
}
