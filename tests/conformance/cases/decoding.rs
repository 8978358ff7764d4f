//! Request bodies as the apiserver reads them: bytes that are not UTF-8 and lone surrogate
//! escapes, duplicate and case-folded keys, numbers at the edges of int64 and float64,
//! trailing data, empty, null and array bodies for every write, YAML bodies and apply
//! bodies read as YAML 1.1, depth, and the odd bodies a fuzzer sends (BOM, NaN, NUL in keys,
//! long strings, large arrays).

use http::Method;

use super::{COLLECTIONS, SCALARS};
use crate::conformance::script::{APPLY, Case, JSON, JSON_PATCH, MERGE};

const SCALAR_PATH: &str = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars";
const COLLECTION_PATH: &str = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/collections";
const YAML: &str = "application/yaml";

/// A Scalar create body with `spec` written as JSON text (bytes: not necessarily UTF-8).
fn scalar_body(spec: &[u8]) -> Vec<u8> {
    let head = br#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Scalar","metadata":{"name":"s"},"spec":"#;
    [&head[..], spec, b"}"].concat()
}

/// A Collection create body whose `spec.extra` (preserve-unknown) is `extra` as JSON text.
fn extra_body(extra: &str) -> Vec<u8> {
    format!(
        r#"{{"apiVersion":"conformance.kubegen.dev/v1","kind":"Collection","metadata":{{"name":"c"}},"spec":{{"owner":"o","extra":{extra}}}}}"#
    )
    .into_bytes()
}

/// A case posting `body` (JSON) to the Scalars, then reading back what was stored.
fn post_scalar(name: &str, body: Vec<u8>) -> Case {
    Case::new(name)
        .raw(Method::POST, SCALAR_PATH, Some(JSON), &body)
        .get(SCALARS, "s", None)
}

/// A case posting a Collection whose `spec.extra` is `extra`, then reading it back.
fn post_extra(name: &str, extra: &str) -> Case {
    Case::new(name)
        .raw(
            Method::POST,
            COLLECTION_PATH,
            Some(JSON),
            &extra_body(extra),
        )
        .get(COLLECTIONS, "c", None)
}

/// A case that creates the Scalar `s` and sends `body` as a patch of `content_type`.
fn patch_scalar(name: &str, query: &str, content_type: &'static str, body: &[u8]) -> Case {
    Case::new(name)
        .raw(Method::POST, SCALAR_PATH, Some(JSON), &scalar_body(b"{}"))
        .raw(
            Method::PATCH,
            &format!("{SCALAR_PATH}/s{query}"),
            Some(content_type),
            body,
        )
}

/// A case applying `body` (sent as it is) to a new Scalar `s`, then reading it back.
fn apply_scalar(name: &str, query: &str, body: &str) -> Case {
    Case::new(name)
        .raw(
            Method::PATCH,
            &format!("{SCALAR_PATH}/s?fieldManager=m{query}"),
            Some(APPLY),
            body.as_bytes(),
        )
        .get(SCALARS, "s", None)
}

/// A case applying `body` to a new Collection `c`, then reading it back.
fn apply_collection(name: &str, body: &str) -> Case {
    Case::new(name)
        .raw(
            Method::PATCH,
            &format!("{COLLECTION_PATH}/c?fieldManager=m"),
            Some(APPLY),
            body.as_bytes(),
        )
        .get(COLLECTIONS, "c", None)
}

const APPLY_HEAD: &str = "apiVersion: conformance.kubegen.dev/v1\nkind: Collection\nmetadata:\n  name: c\nspec:\n  owner: o\n  extra:\n";

fn text_cases() -> Vec<Case> {
    vec![
        post_scalar(
            "decoding: bytes that are not UTF-8 become U+FFFD, in values and keys",
            scalar_body(b"{\"title\":\"a\xffb\xc0\xafc\xed\xa0\x80\",\"k\xffy\":1}"),
        ),
        post_scalar(
            "decoding: lone and reversed surrogate escapes become U+FFFD",
            scalar_body(br#"{"title":"a\ud800b\udc00","slug":"\ude00\ud83d","\ud800":1,"note":"\ud83d\ude00"}"#),
        ),
        post_scalar(
            "decoding: escaped NUL, raw DEL and a line separator are kept",
            scalar_body("{\"title\":\"a\\u0000b\",\"note\":\"x\x7fy\u{2028}<&>\"}".as_bytes()),
        ),
        post_scalar(
            "decoding: a raw NUL in a string",
            scalar_body(b"{\"title\":\"a\0b\"}"),
        ),
        post_extra(
            "decoding: a NUL in a key is kept but its warning is not sent",
            r#"{"a\u0000b":1,"":2}"#,
        ),
        post_scalar(
            "decoding: a long string",
            scalar_body(format!(r#"{{"note":"{}"}}"#, "x".repeat(200_000)).as_bytes()),
        ),
        post_extra(
            "decoding: a large array",
            &format!("[{}]", vec!["1"; 50_000].join(",")),
        ),
    ]
}

fn key_cases() -> Vec<Case> {
    vec![
        post_scalar(
            "decoding: duplicate keys, the last one wins",
            scalar_body(br#"{"replicas":1,"replicas":2,"title":"ab","title":"cd"}"#),
        ),
        Case::new("decoding: duplicate kind, the first one wrong").raw(
            Method::POST,
            SCALAR_PATH,
            Some(JSON),
            br#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Other","kind":"Scalar","metadata":{"name":"s"},"spec":{}}"#,
        ),
        Case::new("decoding: a KIND key of the wrong type").raw(
            Method::POST,
            SCALAR_PATH,
            Some(JSON),
            br#"{"apiVersion":"conformance.kubegen.dev/v1","KIND":1,"kind":"Scalar","metadata":{"name":"s"},"spec":{}}"#,
        ),
        Case::new("decoding: an apiVersion with two slashes").raw(
            Method::POST,
            SCALAR_PATH,
            Some(JSON),
            br#"{"apiVersion":"a/b/c","kind":"Scalar","metadata":{"name":"s"},"spec":{}}"#,
        ),
        Case::new("decoding: a null apiVersion").raw(
            Method::POST,
            SCALAR_PATH,
            Some(JSON),
            br#"{"apiVersion":null,"kind":"Scalar","metadata":{"name":"s"},"spec":{}}"#,
        ),
        Case::new("decoding: a Kind key beside kind is unknown").raw(
            Method::POST,
            SCALAR_PATH,
            Some(JSON),
            br#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Scalar","Kind":"X","\u212aind":"Y","metadata":{"name":"s","Name":"t"},"spec":{}}"#,
        ),
    ]
}

fn number_cases() -> Vec<Case> {
    vec![
        post_extra(
            "numbers: integral floats are stored as integers",
            r#"[1.0, 1e3, 1E3, -0, -0.0, 1e-400, 0.5, 10.000000000000001, 1e20, 1e21]"#,
        ),
        post_extra(
            "numbers: past int64 they are floats",
            r#"[9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809, 18446744073709551615, 18446744073709551616, 123456789012345678901234567890, 1.5e300, 4.9e-324, 9007199254740993]"#,
        ),
        post_extra("numbers: 1e309 is refused", "[1e309]"),
        post_scalar(
            "numbers: a float in an int64 field",
            scalar_body(br#"{"step":10.000000000000001}"#),
        ),
        post_scalar(
            "numbers: integral floats in integer fields",
            scalar_body(br#"{"step":1e1,"replicas":2.0,"small":-0.0}"#),
        ),
        post_scalar(
            "numbers: past int32 in an int32 field",
            scalar_body(br#"{"replicas":2147483648}"#),
        ),
        post_scalar(
            "numbers: past int64 in an int64 field",
            scalar_body(br#"{"step":9223372036854775808}"#),
        ),
        post_scalar(
            "numbers: a fraction in an int32 field",
            scalar_body(br#"{"replicas":0.5}"#),
        ),
        Case::new("numbers: a dry run answers integers too").raw(
            Method::POST,
            &format!("{COLLECTION_PATH}?dryRun=All"),
            Some(JSON),
            &extra_body("[1.0, 2.5]"),
        ),
    ]
}

fn body_shape_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (what, body) in [
        ("empty", &b""[..]),
        ("whitespace", b" \n"),
        ("null", b"null"),
        ("an array", b"[]"),
        ("a string", b"\"x\""),
        ("a BOM", b"\xef\xbb\xbf{}"),
        ("NaN", b"{\"spec\":{\"ratio\":NaN}}"),
        ("a comment", b"/*c*/{}"),
        ("single quotes", b"{'a':1}"),
        ("a truncated literal", b"{\"kind\":tru"),
    ] {
        cases.push(Case::new(format!("bodies: POST {what}")).raw(
            Method::POST,
            SCALAR_PATH,
            Some(JSON),
            body,
        ));
    }
    let valid = scalar_body(b"{}");
    for (what, tail) in [
        ("x", &b" x"[..]),
        ("a second object", b"{}"),
        ("a comma", b","),
        ("NUL", b"\0"),
    ] {
        let body = [valid.as_slice(), tail].concat();
        cases.push(
            Case::new(format!("bodies: POST an object then {what}")).raw(
                Method::POST,
                SCALAR_PATH,
                Some(JSON),
                &body,
            ),
        );
    }
    for (what, body) in [
        ("empty", &b""[..]),
        ("null", b"null"),
        ("an array", b"[]"),
        ("a number", b"1"),
        ("trailing data", b"{} x"),
        ("a BOM", b"\xef\xbb\xbf{}"),
        (
            "duplicate keys",
            b"{\"spec\":{\"title\":\"ab\",\"title\":\"cd\"}}",
        ),
        ("1e309", b"{\"spec\":{\"ratio\":1e309}}"),
    ] {
        for query in ["", "?fieldValidation=Ignore"] {
            cases.push(patch_scalar(
                &format!("bodies: merge patch, {what}{query}"),
                query,
                MERGE,
                body,
            ));
        }
    }
    for (what, body) in [
        ("empty", &b""[..]),
        ("null", b"null"),
        ("a string", b"\"x\""),
        ("an object", b"{}"),
        ("a number in the list", b"[1]"),
        (
            "an op of the wrong type",
            b"[{\"op\":1,\"path\":\"/spec/title\"}]",
        ),
        ("trailing data", b"[] x"),
        (
            "a duplicate key in an op",
            b"[{\"op\":\"add\",\"op\":\"add\",\"path\":\"/spec/title\",\"value\":\"ab\"}]",
        ),
    ] {
        for query in ["", "?fieldValidation=Ignore"] {
            cases.push(patch_scalar(
                &format!("bodies: JSON patch, {what}{query}"),
                query,
                JSON_PATCH,
                body,
            ));
        }
    }
    cases
}

fn yaml_cases() -> Vec<Case> {
    let yaml_post = |name: &str, body: &str| {
        Case::new(name).raw(Method::POST, SCALAR_PATH, Some(YAML), body.as_bytes())
    };
    let object = "apiVersion: conformance.kubegen.dev/v1\nkind: Scalar\nmetadata:\n  name: s\nspec:\n  title: yes\n  replicas: 012\n";
    vec![
        yaml_post("yaml: a create body", object).get(SCALARS, "s", None),
        yaml_post(
            "yaml: a create body with a second document",
            &format!("{object}---\nkind: [\n"),
        ),
        yaml_post(
            "yaml: JSON with trailing data",
            r#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Scalar","metadata":{"name":"s"},"spec":{}} x"#,
        ),
        yaml_post("yaml: empty", ""),
        yaml_post("yaml: null", "null"),
        yaml_post("yaml: a tab after the object", "{\"kind\":\"Scalar\"} \n\t"),
        yaml_post("yaml: a truncated flow mapping", "{\"kind\": \"Scalar\"\n"),
        yaml_post("yaml: a comment is a string", "/*c*/{}"),
    ]
}

fn apply_cases() -> Vec<Case> {
    let collection = |extra: &str| format!("{APPLY_HEAD}{extra}");
    vec![
        apply_collection(
            "apply: YAML 1.1 scalars",
            &collection(
                "    octal: 012\n    hex: 0x10\n    under: 1_000\n    yes: on\n    n: off\n    float: 1.0\n    exp: 1e3\n    big: 9223372036854775808\n    huge: 1e309\n    tilde: ~\n    quoted: 'yes'\n    1.5: a\n    2: b\n    date: 2001-12-14\n    bin: !!binary aGk=\n    tag: !foo bar\n",
            ),
        ),
        apply_collection(
            "apply: merge keys and aliases",
            &collection(
                "    base: &b {a: 1, b: 2}\n    merged:\n      <<: *b\n      b: 3\n    list: [*b, *b]\n",
            ),
        ),
        apply_collection(
            "apply: only the first document is read",
            &format!("{}---\nkind: [\n", collection("    a: 1\n")),
        ),
        apply_collection(
            "apply: JSON with trailing data",
            r#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Collection","metadata":{"name":"c"},"spec":{"owner":"o"}} x"#,
        ),
        apply_collection("apply: infinity", &collection("    x: .inf\n")),
        apply_collection("apply: a null key", &collection("    ~: x\n")),
        apply_collection("apply: a sequence as a key", &collection("    [a]: x\n")),
        apply_collection(
            "apply: a tab for indentation",
            &collection("    a: \"1\"\n\tb: 2\n"),
        ),
        apply_collection("apply: a YAML 1.2 directive", "%YAML 1.2\n---\na: 1\n"),
        apply_collection("apply: an unterminated string", "{\"a\": \"x"),
        apply_collection("apply: a raw NUL in quotes", "kind: \"\u{0}\""),
        apply_collection(
            "apply: a surrogate pair escape",
            r#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Collection","metadata":{"name":"c"},"spec":{"owner":"\ud83d\ude00"}}"#,
        ),
        apply_collection("apply: an array", "[]"),
        apply_collection("apply: a string", "/*c*/{}"),
        apply_scalar(
            "apply: duplicate keys warn",
            "",
            "{\"apiVersion\":\"conformance.kubegen.dev/v1\",\"kind\":\"Scalar\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"title\":\"ab\",\"title\":\"cd\"}}",
        ),
        apply_scalar(
            "apply: duplicate keys with fieldValidation=Strict",
            "&fieldValidation=Strict",
            "apiVersion: conformance.kubegen.dev/v1\nkind: Scalar\nmetadata:\n  name: s\nspec:\n  title: ab\n  slug: a\n  title: cd\n  slug: b\n",
        ),
        apply_scalar(
            "apply: duplicate keys with fieldValidation=Ignore",
            "&fieldValidation=Ignore",
            "apiVersion: conformance.kubegen.dev/v1\nkind: Scalar\nmetadata:\n  name: s\nspec:\n  title: ab\n  title: cd\n",
        ),
        apply_scalar(
            "apply: Strict duplicates win over an invalid result",
            "&fieldValidation=Strict",
            "apiVersion: conformance.kubegen.dev/v1\nkind: Scalar\nmetadata:\n  name: s\n  name: s\nspec:\n  replicas: 99\n",
        ),
    ]
}

fn depth_cases() -> Vec<Case> {
    let nested = |depth: usize| {
        // The root, `spec` and `extra` are three levels.
        let levels = depth - 3;
        format!("{}{{}}{}", r#"{"a":"#.repeat(levels), "}".repeat(levels))
    };
    vec![
        post_extra("depth: 200 levels", &nested(200)),
        Case::new("depth: 10,001 levels").raw(
            Method::POST,
            COLLECTION_PATH,
            Some(JSON),
            &extra_body(&nested(10_001)),
        ),
        Case::new("depth: 10,001 levels in an apply").raw(
            Method::PATCH,
            &format!("{COLLECTION_PATH}/c?fieldManager=m"),
            Some(APPLY),
            &extra_body(&nested(10_001)),
        ),
        Case::new("depth: 10,001 levels in a merge patch")
            .raw(Method::POST, COLLECTION_PATH, Some(JSON), &extra_body("{}"))
            .raw(
                Method::PATCH,
                &format!("{COLLECTION_PATH}/c"),
                Some(MERGE),
                &extra_body(&nested(10_001)),
            ),
    ]
}

pub fn cases() -> Vec<Case> {
    [
        text_cases(),
        key_cases(),
        number_cases(),
        body_shape_cases(),
        yaml_cases(),
        apply_cases(),
        depth_cases(),
    ]
    .concat()
}
