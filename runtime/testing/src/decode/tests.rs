//! Each expected message is what kube-apiserver v1.36.2 answered to the same bytes.

use serde_json::json;

use super::*;

const W: &str = "fuzz.example.com/v1";

fn create(data: &[u8]) -> Result<Value, String> {
    object(data, "Widget", W).map_err(|e| e.message)
}

#[test]
fn malformed_objects_get_the_apiservers_messages() {
    assert_eq!(
        object(b"{not json", "Scalar", W).unwrap_err().message,
        "the object provided is unrecognized (must be of type Scalar): couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string ({not json)"
    );
    assert_eq!(
        object(b"[1, 2]", "Scalar", W).unwrap_err().message,
        r#"the object provided is unrecognized (must be of type Scalar): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (5b312c20325d)"#
    );
    assert_eq!(
        object(b"{}", "Scalar", W).unwrap_err().message,
        "the object provided is unrecognized (must be of type Scalar): Object 'Kind' is missing in '{}' ({})"
    );
    assert!(object(br#"{"kind": "Scalar"}"#, "Scalar", W).is_ok());
    assert_eq!(
        create(b"\xef\xbb\xbf{}").unwrap_err(),
        "the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: invalid character '\u{ef}' looking for beginning of value (efbbbf7b7d)"
    );
    assert_eq!(
        create(br#"{"apiVersion":"a/b/c","kind":"Widget"}"#).unwrap_err(),
        r#"the object provided is unrecognized (must be of type Widget): unexpected GroupVersion string: a/b/c ({"apiVersion":"a/b/c","kind":" ...)"#
    );
    assert_eq!(
        create(br#"{"kind":"Widget","spec":{"n":1e309}}"#).unwrap_err(),
        r#"Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number 1e309 into Go value of type float64"#
    );
    assert_eq!(
        create(br#"{"KIND":1,"kind":"Widget"}"#).unwrap_err(),
        r#"the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"KIND":1,"kind":"Widget"})"#
    );
}

#[test]
fn text_that_is_not_utf8_becomes_replacement_characters() {
    let v =
        create(b"{\"kind\":\"Widget\",\"spec\":{\"s\":\"a\xffb\\ud800\",\"k\xffy\":1}}").unwrap();
    assert_eq!(
        v["spec"],
        json!({"s": "a\u{FFFD}b\u{FFFD}", "k\u{FFFD}y": 1})
    );
}

#[test]
fn yaml_bodies_are_read_as_yaml_to_json_reads_them() {
    let schema = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    let body = |data: &str| {
        write_body(
            data.as_bytes(),
            true,
            "Widget",
            W,
            |_| Some(&schema),
            FieldValidation::Warn,
        )
        .map(|(v, _)| v)
        .map_err(|e| e.message)
    };
    let v =
        body("apiVersion: fuzz.example.com/v1\nkind: Widget\nspec: {on: yes}\n---\nx: [").unwrap();
    assert_eq!(v["spec"], json!({"true": true}));
    assert_eq!(
        body("").unwrap_err(),
        "the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '' (<empty>)"
    );
    assert_eq!(
        body("null").unwrap_err(),
        "the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in 'null' (6e756c6c)"
    );
    assert_eq!(
        body("{\"kind\":\"Widget\"} \n\t").unwrap_err(),
        "the object provided is unrecognized (must be of type Widget): yaml: line 2: found character that cannot start any token ({\"kind\":\"Widget\"} \n\t)"
    );
}

#[test]
fn patches_get_the_apiservers_decoding_messages() {
    let merge = |data: &[u8], d| merge_patch(data, d).map(|(v, _)| v).map_err(|e| e.message);
    assert_eq!(
        merge(b"", FieldValidation::Warn).unwrap_err(),
        "error decoding patch: unexpected end of JSON input"
    );
    assert_eq!(
        merge(b"", FieldValidation::Ignore).unwrap_err(),
        "Invalid JSON Patch"
    );
    assert_eq!(
        merge(b"null", FieldValidation::Strict).unwrap_err(),
        "Invalid JSON Patch"
    );
    assert_eq!(
        merge(b"\"x\"", FieldValidation::Warn).unwrap_err(),
        "error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}"
    );
    assert_eq!(
        merge(b"\"x\"", FieldValidation::Ignore).unwrap_err(),
        "Invalid JSON Patch"
    );
    assert_eq!(
        merge(b"{} x", FieldValidation::Ignore).unwrap_err(),
        "Invalid JSON Patch"
    );
    let (_, dups) = merge_patch(br#"{"a":1,"a":2}"#, FieldValidation::Warn).unwrap();
    assert_eq!(dups, [r#"duplicate field "a""#]);

    let json = |data: &[u8], d| {
        json_patch(data, d)
            .map(|(p, w)| (p.0.len(), w))
            .map_err(|e| e.message)
    };
    assert_eq!(json(b"null", FieldValidation::Warn).unwrap(), (0, vec![]));
    assert_eq!(
        json(b"\"x\"", FieldValidation::Warn).unwrap_err(),
        "error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp"
    );
    assert_eq!(
        json(b"\"x\"", FieldValidation::Ignore).unwrap_err(),
        "json: cannot unmarshal string into Go value of type jsonpatch.Patch"
    );
    assert_eq!(
        json(b"[1]", FieldValidation::Strict).unwrap_err(),
        "error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp"
    );
    assert_eq!(
        json(br#"[{"op":1,"path":"/a"}]"#, FieldValidation::Warn).unwrap_err(),
        "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string"
    );
    assert_eq!(
        json(b"{x", FieldValidation::Ignore).unwrap_err(),
        "invalid character 'x' looking for beginning of object key string"
    );
    assert_eq!(
        json(
            br#"[{"op":"add","path":"/a","value":1},{"op":"remove","op":"remove","path":"/b"}]"#,
            FieldValidation::Warn
        )
        .unwrap(),
        (2, vec![r#"json patch duplicate field "[1].op""#.to_owned()])
    );
}

#[test]
fn apply_bodies_are_read_as_go_yaml_reads_them() {
    let read = |data: &str| apply(data.as_bytes()).map_err(|e| e.message);
    let (v, dups) = read(r#"{"kind":"Widget","spec":{"s":"a","s":"b","n":1.0}} x"#).unwrap();
    assert_eq!(v, json!({"kind": "Widget", "spec": {"s": "b", "n": 1}}));
    assert_eq!(dups, [r#"line 1: key "s" already set in map"#]);
    assert_eq!(
        apply_duplicates(&dups, FieldValidation::Strict)
            .unwrap_err()
            .message,
        "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key \"s\" already set in map"
    );
    assert_eq!(
        apply_duplicates(&dups, FieldValidation::Warn).unwrap(),
        dups
    );
    assert!(
        apply_duplicates(&dups, FieldValidation::Ignore)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        read("[]").unwrap_err(),
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
    assert_eq!(
        read("/*c*/{}").unwrap_err(),
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}"
    );
    assert_eq!(
        read("spec: {n: .inf}").unwrap_err(),
        "error decoding YAML: error converting YAML to JSON: json: unsupported value: +Inf"
    );
    assert_eq!(read("").unwrap().0, Value::Null);
    let deep = format!("{}1{}", r#"{"a":"#.repeat(10_001), "}".repeat(10_001));
    assert_eq!(
        read(&deep).unwrap_err(),
        "error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000"
    );
}

#[test]
fn delete_options_get_the_apiservers_messages() {
    // Observed on kube-apiserver v1.36.2.
    let refused = |body: &[u8]| delete_options(body).unwrap_err().message;
    assert_eq!(
        refused(b"{x"),
        "couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of object key string"
    );
    assert_eq!(
        refused(b"[]"),
        r#"couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#
    );
    assert_eq!(
        refused(b"  "),
        "couldn't get version/kind; json parse error: unexpected end of JSON input"
    );
    assert_eq!(
        refused(br#"{"kind":"Pod"}"#),
        r#"no kind "Pod" is registered for version "meta.k8s.io/v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27""#
    );
    assert_eq!(
        refused(br#"{"kind":1}"#),
        "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"
    );
    assert_eq!(
        refused(br#"{"dryRun":"All"}"#),
        "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string"
    );
    assert_eq!(
        refused(br#"{"dryRun":[1]}"#),
        "json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type string"
    );
    assert_eq!(
        refused(br#"{"gracePeriodSeconds":1.5}"#),
        "json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64"
    );
    for accepted in [
        &b"null"[..],
        b"{}",
        br#"{"kind":"DeleteOptions","apiVersion":"x/y"}"#,
        br#"{"apiVersion":"x/y"}"#,
    ] {
        assert!(
            delete_options(accepted).is_ok(),
            "{}",
            String::from_utf8_lossy(accepted)
        );
    }
}

// Observed on kube-apiserver v1.36.2 (tests/fuzz): an operation's unknown key is a warning
// under `Warn`, named by its index.
#[test]
fn json_patch_operations_report_unknown_keys() {
    let body = br#"[{"op":"replace","path":"/spec/s","value":"x"},{"op":"add","path":"/spec/i","vlue":5}]"#;
    let (_, complaints) = json_patch(body, FieldValidation::Warn).unwrap();
    assert_eq!(complaints, [r#"json patch unknown field "[1].vlue""#]);
    let (_, complaints) = json_patch(body, FieldValidation::Ignore).unwrap();
    assert!(complaints.is_empty());
}
