use serde_json::json;

use super::*;

fn syntax(input: &[u8]) -> Option<String> {
    decode(input, &[]).err().map(|e| e.to_string())
}

#[test]
fn syntax_errors_are_worded_as_go_words_them() {
    // Each expectation is what Go's encoding/json (and so the apiserver) reports.
    let cases: &[(&str, Option<&str>)] = &[
        (r#"{"a": [1, 2.5e-3, "x\u00e9", true, null]}"#, None),
        ("  {}  ", None),
        (
            "{not json",
            Some("invalid character 'n' looking for beginning of object key string"),
        ),
        ("", Some("unexpected end of JSON input")),
        ("   ", Some("unexpected end of JSON input")),
        ("{\"a\": 1", Some("unexpected end of JSON input")),
        ("{\"a\" 1}", Some("invalid character '1' after object key")),
        (
            "{\"a\": 1 \"b\"}",
            Some("invalid character '\"' after object key:value pair"),
        ),
        (
            "{\"a\": 1,}",
            Some("invalid character '}' looking for beginning of object key string"),
        ),
        ("[1 2]", Some("invalid character '2' after array element")),
        (
            "[1,]",
            Some("invalid character ']' looking for beginning of value"),
        ),
        ("{} x", Some("invalid character 'x' after top-level value")),
        (
            "{}\0",
            Some(r"invalid character '\x00' after top-level value"),
        ),
        ("01", Some("invalid character '1' after top-level value")),
        ("[01]", Some("invalid character '1' after array element")),
        ("-x", Some("invalid character 'x' in numeric literal")),
        (
            "1.x",
            Some("invalid character 'x' after decimal point in numeric literal"),
        ),
        (
            "1ex",
            Some("invalid character 'x' in exponent of numeric literal"),
        ),
        (
            "tru",
            Some("invalid character ' ' in literal true (expecting 'e')"),
        ),
        ("-", Some("invalid character ' ' in numeric literal")),
        ("\"abc", Some("unexpected end of JSON input")),
        (
            "trux",
            Some("invalid character 'x' in literal true (expecting 'e')"),
        ),
        (
            "\"a\nb\"",
            Some(r"invalid character '\n' in string literal"),
        ),
        (
            r#""\q""#,
            Some("invalid character 'q' in string escape code"),
        ),
        (
            r#""\u12g4""#,
            Some(r"invalid character 'g' in \u hexadecimal character escape"),
        ),
        (
            "'a'",
            Some(r"invalid character '\'' looking for beginning of value"),
        ),
        (
            "NaN",
            Some("invalid character 'N' looking for beginning of value"),
        ),
        (
            "\u{feff}{}",
            Some("invalid character 'ï' looking for beginning of value"),
        ),
    ];
    for (input, want) in cases {
        assert_eq!(syntax(input.as_bytes()).as_deref(), *want, "{input:?}");
    }
    assert_eq!(
        syntax(&[0x9e]).as_deref(),
        Some(r"invalid character '\u009e' looking for beginning of value")
    );
}

#[test]
fn depth_is_limited_as_go_limits_it() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let ok = decode(nested(MAX_DEPTH).as_bytes(), &[]).unwrap();
    assert_eq!(ok.depth, MAX_DEPTH);
    dismantle(ok.value.unwrap());
    assert_eq!(
        syntax(nested(MAX_DEPTH + 1).as_bytes()).as_deref(),
        Some("invalid character '[' exceeded max depth")
    );
    // The limit is found before the end of the input is.
    let objects = format!("{}1", r#"{"a":"#.repeat(MAX_DEPTH + 1));
    assert_eq!(
        syntax(objects.as_bytes()).as_deref(),
        Some("invalid character '{' exceeded max depth")
    );
    // Far deeper input is refused without exhausting the stack.
    assert!(syntax("[".repeat(1_000_000).as_bytes()).is_some());
}

#[test]
fn values_decode_as_go_decodes_them() {
    let d = decode(
        b"{\"i\": 9223372036854775807, \"big\": 9223372036854775808, \"f\": 1.0, \"s\": \"a\xffb\\ud800\", \"k\xff\": null, \"l\": [true, false, {}]}",
        &[],
    )
    .unwrap();
    let v = d.value.unwrap();
    assert_eq!(
        v,
        json!({"i": i64::MAX, "big": 9223372036854775808.0, "f": 1.0, "s": "a\u{FFFD}b\u{FFFD}", "k\u{FFFD}": null, "l": [true, false, {}]})
    );
    assert!(v["big"].is_f64() && v["f"].is_f64());
    assert_eq!(
        decode(b"[1e309, -1e400]", &[])
            .unwrap()
            .value
            .unwrap_err()
            .to_string(),
        "json: cannot unmarshal number 1e309 into Go value of type float64"
    );
}

#[test]
fn duplicate_keys_are_reported_with_their_paths() {
    let d = decode(
        br#"{"spec": {"replicas": 1, "replicas": 2, "ports": [{"n": 1, "n": 2, "n": 3}]}, "spec": {"a": {"b": 1, "b": 2}}}"#,
        &[],
    )
    .unwrap();
    assert_eq!(
        d.duplicates,
        ["spec.replicas", "spec.ports[0].n", "spec", "spec.a.b"]
    );
    assert_eq!(d.value.unwrap(), json!({"spec": {"a": {"b": 2}}}));
    let d = decode(br#"[{"op": 1}, {"op": 1, "op": 2}]"#, &[]).unwrap();
    assert_eq!(d.duplicates, ["[1].op"]);
    let many: String = (0..150)
        .map(|_| r#"{"a":1,"a":2}"#)
        .collect::<Vec<_>>()
        .join(",");
    let d = decode(format!(r#"{{"x":[{many}]}}"#).as_bytes(), &[]).unwrap();
    assert_eq!(d.duplicates.len(), 100);
}

#[test]
fn struct_fields_match_keys_as_go_matches_them() {
    let fields = |input: &str| {
        decode(input.as_bytes(), &["apiVersion", "kind"])
            .unwrap()
            .fields
            .map_err(|e| e.to_string())
    };
    assert_eq!(fields(r#"{"kind": "A", "KIND": "B"}"#).unwrap(), ["", "B"]);
    assert_eq!(
        fields(r#"{"\u212aind": "K", "APIVERSION": "v"}"#).unwrap(),
        ["v", "K"]
    );
    assert_eq!(fields(r#"{"kind": "A", "kind": null}"#).unwrap(), ["", "A"]);
    assert_eq!(fields("null").unwrap(), ["", ""]);
    assert_eq!(
        fields(r#"{"kind": 1, "kind": "A", "apiVersion": {}}"#).unwrap_err(),
        "json: cannot unmarshal number into Go struct field .kind of type string"
    );
    assert_eq!(
        fields("[]").unwrap_err(),
        r#"json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#
    );
    assert_eq!(fields(r#"{"spec": {"kind": 1}}"#).unwrap(), ["", ""]);
}
