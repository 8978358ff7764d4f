//! The HTTP front: which check a request with several faults fails first, body limits,
//! `Content-Type` and `Accept`, query parameters as Go decodes them, option validation,
//! `timeout`, the URL's scope and subresources, percent-decoded paths, and `Warning`
//! headers (escaping, control characters, truncation).

use http::Method;
use serde_json::json;

use super::{GLOBALS, SCALARS, object};
use crate::conformance::script::{APPLY, Case, JSON, MERGE};

const COLLECTION: &str = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars";
const OBJECT: &str = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s";
const CLUSTER: &str = "/apis/conformance.kubegen.dev/v1/scalars";

/// A Scalar named `name` as JSON bytes.
fn scalar(name: &str) -> Vec<u8> {
    scalar_with(name, json!({}))
}

fn scalar_with(name: &str, spec: serde_json::Value) -> Vec<u8> {
    let body = json!({"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": name}, "spec": spec});
    serde_json::to_vec(&body).unwrap_or_default()
}

/// A Global named `g` as JSON bytes.
fn global() -> Vec<u8> {
    let body = json!({"apiVersion": "conformance.kubegen.dev/v1", "kind": "Global", "metadata": {"name": "g"}, "spec": {"value": "v"}});
    serde_json::to_vec(&body).unwrap_or_default()
}

/// The case's namespace's URL in the conformance group.
fn namespaced() -> &'static str {
    "/apis/conformance.kubegen.dev/v1/namespaces/{ns}"
}

/// A case that starts from a stored Scalar `s`.
fn with_scalar(name: &str) -> Case {
    Case::new(name).create(SCALARS, "Scalar", object("s", json!({})))
}

/// A case that starts from Scalar `s` applied by manager `one` with two replicas.
fn applied(name: &str) -> Case {
    let body = json!({"metadata": {"name": "s"}, "spec": {"replicas": 2}});
    Case::new(name).apply(SCALARS, "Scalar", "s", "one", false, body)
}

/// POST of Scalar `s` to the collection with `query`, then a GET of it (was it written?).
fn post(case: Case, query: &str, content_type: Option<&'static str>) -> Case {
    case.raw(
        Method::POST,
        &format!("{COLLECTION}?{query}"),
        content_type,
        &scalar("s"),
    )
    .raw(Method::GET, OBJECT, None, b"")
}

/// `case`, then a GET of `path`.
fn get(case: Case, path: &str) -> Case {
    case.raw(Method::GET, path, None, b"")
}

/// A body past the apiserver's limit of 3 MiB.
fn oversized() -> Vec<u8> {
    let mut body = scalar("s");
    body.resize(3 * 1024 * 1024 + 1, b' ');
    body
}

pub fn cases() -> Vec<Case> {
    [
        delete_bodies(),
        order(),
        content_types(),
        accept(),
        queries(),
        options(),
        urls(),
        warnings(),
    ]
    .concat()
}

/// Which check wins when a request has several faults; bodies read only where the
/// apiserver reads them.
fn order() -> Vec<Case> {
    vec![
        with_scalar("http order: PUT checks its options before its Content-Type").raw(
            Method::PUT,
            &format!("{OBJECT}?dryRun=x"),
            Some("text/plain"),
            &scalar("s"),
        ),
        post(
            Case::new("http order: POST checks its Content-Type before its options"),
            "dryRun=x",
            Some("text/plain"),
        ),
        with_scalar("http order: PATCH checks its Content-Type before its options").raw(
            Method::PATCH,
            &format!("{OBJECT}?dryRun=x"),
            Some("text/plain"),
            b"{}",
        ),
        with_scalar("http order: PUT reads its body before its Content-Type").raw(
            Method::PUT,
            OBJECT,
            Some("text/plain"),
            &oversized(),
        ),
        Case::new("http order: POST checks its Content-Type before reading the body").raw(
            Method::POST,
            COLLECTION,
            Some("text/plain"),
            &oversized(),
        ),
        Case::new("http order: POST checks Accept before Content-Type")
            .raw(Method::POST, COLLECTION, Some("text/plain"), &scalar("s"))
            .header("Accept", "text/plain"),
        with_scalar("http order: PATCH checks Content-Type before Accept")
            .raw(Method::PATCH, OBJECT, Some("text/plain"), b"{}")
            .header("Accept", "text/plain"),
        with_scalar("http order: a GET does not read its body").raw(
            Method::GET,
            OBJECT,
            Some(JSON),
            &oversized(),
        ),
        Case::new("http order: a body past 3 MiB")
            .raw(Method::POST, COLLECTION, Some(JSON), &oversized())
            .raw(Method::GET, OBJECT, None, b""),
        Case::new("http order: a body of exactly 3 MiB").raw(
            Method::POST,
            COLLECTION,
            Some(JSON),
            &{
                let mut body = scalar("s");
                body.resize(3 * 1024 * 1024, b' ');
                body
            },
        ),
        with_scalar("http order: a PATCH at a collection URL").raw(
            Method::PATCH,
            COLLECTION,
            Some(MERGE),
            b"{}",
        ),
        with_scalar("http order: a PATCH at a collection URL with a bad Content-Type").raw(
            Method::PATCH,
            COLLECTION,
            Some("text/plain"),
            b"{}",
        ),
        with_scalar("http order: an apply at a collection URL").raw(
            Method::PATCH,
            &format!("{COLLECTION}?fieldManager=m"),
            Some(APPLY),
            b"{}",
        ),
    ]
}

/// `Content-Type` of creates, updates and patches.
fn content_types() -> Vec<Case> {
    let mut cases: Vec<Case> = [
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/json ; foo=bar",
        "application/json;",
        "application/json;;",
        "application/json; charset",
        "application/json; a=1; a=2",
        "application/x-yaml",
        "text/plain",
        "*/*",
        "application/merge-patch+json",
        "application/json, text/plain",
    ]
    .into_iter()
    .map(|ct| {
        post(
            Case::new(format!("http content type: POST as {ct}")),
            "",
            Some(ct),
        )
    })
    .collect();
    cases.extend([
        Case::new("http content type: POST without one")
            .raw(Method::POST, COLLECTION, None, &scalar("s")),
        Case::new("http content type: POST a YAML body")
            .raw(
                Method::POST,
                COLLECTION,
                Some("application/yaml"),
                b"apiVersion: conformance.kubegen.dev/v1\nkind: Scalar\nmetadata:\n  name: s\nspec:\n  replicas: 3\n",
            )
            .raw(Method::GET, OBJECT, None, b""),
        with_scalar("http content type: PUT a YAML body")
            .raw(Method::GET, OBJECT, None, b"")
            .raw(
                Method::PUT,
                OBJECT,
                Some("application/yaml; charset=utf-8"),
                b"apiVersion: conformance.kubegen.dev/v1\nkind: Scalar\nmetadata:\n  name: s\nspec:\n  replicas: 4\n",
            ),
        with_scalar("http content type: PUT as text/plain").raw(
            Method::PUT,
            OBJECT,
            Some("text/plain"),
            &scalar("s"),
        ),
        with_scalar("http content type: a merge patch with a charset").raw(
            Method::PATCH,
            OBJECT,
            Some("application/merge-patch+json; charset=utf-8"),
            br#"{"spec": {"replicas": 2}}"#,
        ),
        with_scalar("http content type: a space before the patch type's parameters").raw(
            Method::PATCH,
            OBJECT,
            Some("application/merge-patch+json ;x=y"),
            br#"{"spec": {"replicas": 2}}"#,
        ),
        with_scalar("http content type: a patch type in capitals").raw(
            Method::PATCH,
            OBJECT,
            Some("Application/Merge-Patch+Json"),
            br#"{"spec": {"replicas": 2}}"#,
        ),
        with_scalar("http content type: a CBOR apply").raw(
            Method::PATCH,
            &format!("{OBJECT}?fieldManager=m"),
            Some("application/apply-patch+cbor"),
            b"{}",
        ),
        with_scalar("http content type: DELETE options typed text/plain").raw(
            Method::DELETE,
            OBJECT,
            Some("text/plain"),
            b"{}",
        ),
    ]);
    cases
}

/// `Accept`: what is served, what is refused, and errors.
fn accept() -> Vec<Case> {
    let get_as = |accept: &str| {
        with_scalar(&format!("http accept: GET as {accept}"))
            .raw(Method::GET, OBJECT, None, b"")
            .header("Accept", accept)
    };
    let list = |accept: &str| {
        with_scalar(&format!("http accept: a list as {accept}"))
            .raw(Method::GET, COLLECTION, None, b"")
            .header("Accept", accept)
    };
    vec![
        get_as("application/json"),
        get_as("*/*"),
        get_as("application/*"),
        get_as("text/plain, */*;q=0.1"),
        get_as("application/json;stream=watch"),
        get_as("application/json;pretty=1"),
        get_as("application/yaml"),
        get_as("text/plain"),
        get_as("application/cbor"),
        get_as("garbage"),
        get_as("application/json;as=Bogus;g=meta.k8s.io;v=v1"),
        get_as("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"),
        get_as("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1"),
        get_as("application/json;as=PartialObjectMetadata"),
        get_as("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
        list("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
        list("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"),
        list("application/yaml"),
        get(
            Case::new("http accept: discovery as text/plain"),
            "/apis/conformance.kubegen.dev",
        )
        .header("Accept", "text/plain"),
        get(
            Case::new("http accept: discovery as YAML"),
            "/apis/conformance.kubegen.dev",
        )
        .header("Accept", "application/yaml"),
        get(
            Case::new("http accept: discovery as PartialObjectMetadata"),
            "/apis/conformance.kubegen.dev/v1",
        )
        .header(
            "Accept",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        ),
        Case::new("http accept: a missing object as YAML")
            .raw(Method::GET, OBJECT, None, b"")
            .header("Accept", "application/yaml"),
        Case::new("http accept: a missing object as PartialObjectMetadata")
            .raw(Method::GET, OBJECT, None, b"")
            .header(
                "Accept",
                "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
            ),
        Case::new("http accept: a create refused by Accept writes nothing")
            .create(SCALARS, "Scalar", object("s", json!({})))
            .header("Accept", "text/plain"),
        Case::new("http accept: a create answered as PartialObjectMetadata")
            .create(SCALARS, "Scalar", object("s", json!({})))
            .header(
                "Accept",
                "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
            ),
        get(
            with_scalar("http accept: a watch as YAML"),
            &format!("{COLLECTION}?watch=true&timeoutSeconds=2"),
        )
        .header("Accept", "application/yaml"),
    ]
}

/// Query strings as Go's `url.ParseQuery` reads them.
fn queries() -> Vec<Case> {
    let posts = [
        (
            "http query: a bad escape drops its segment",
            "dryRun=%zz".to_owned(),
            JSON,
        ),
        (
            "http query: a semicolon drops its segment",
            "dryRun=x;y".to_owned(),
            JSON,
        ),
        (
            "http query: a semicolon with a second key",
            "dryRun=All;x=1".to_owned(),
            JSON,
        ),
        (
            "http query: unknown parameters are ignored",
            "bogus=1&pretty=x".to_owned(),
            JSON,
        ),
        (
            "http query: a plus is a space",
            "fieldManager=a+b".to_owned(),
            JSON,
        ),
        (
            "http query: an escaped byte that is not UTF-8",
            "fieldManager=%ff".to_owned(),
            JSON,
        ),
        (
            "http query: the first fieldValidation counts",
            "fieldValidation=Strict&fieldValidation=x".to_owned(),
            JSON,
        ),
        (
            "http query: timeout without a unit",
            "timeout=1".to_owned(),
            "text/plain",
        ),
        (
            "http query: timeout with an unknown unit",
            "timeout=1e9s".to_owned(),
            JSON,
        ),
        (
            "http query: timeout past the largest duration",
            "timeout=99999999999h".to_owned(),
            JSON,
        ),
        (
            "http query: a negative timeout",
            "timeout=-1s".to_owned(),
            JSON,
        ),
        ("http query: an empty timeout", "timeout=".to_owned(), JSON),
    ]
    .map(|(name, query, content_type)| post(Case::new(name), &query, Some(content_type)));
    let mut cases = Vec::from(posts);
    cases.extend([
        get(
            Case::new("http query: timeout is read first, even for an unknown path"),
            "/apis/nothing.example.com/v1/things?timeout=x",
        ),
        get(
            Case::new("http query: a watch ignores timeout"),
            &format!("{COLLECTION}?watch=1&timeout=x&timeoutSeconds=1&resourceVersion=0"),
        ),
        get(
            with_scalar("http query: watch=false lists"),
            &format!("{COLLECTION}?watch=False"),
        ),
        get(
            with_scalar("http query: watch=0 lists"),
            &format!("{COLLECTION}?watch=0"),
        ),
        get(
            with_scalar("http query: timeoutSeconds that is no integer"),
            &format!("{COLLECTION}?timeoutSeconds=x"),
        ),
        get(
            with_scalar("http query: export on a GET"),
            &format!("{OBJECT}?export=1"),
        ),
        get(
            with_scalar("http query: export=false on a GET"),
            &format!("{OBJECT}?export=false"),
        ),
    ]);
    cases
}

/// Create, update, patch and delete options, every error in one 422.
fn options() -> Vec<Case> {
    let long = "m".repeat(129);
    let apply = |case: Case, query: &str| {
        case.raw(
            Method::PATCH,
            &format!("{OBJECT}?{query}"),
            Some(APPLY),
            &scalar_with("s", json!({"replicas": 5})),
        )
    };
    let posts = [
        ("http options: an empty dryRun", "dryRun=".to_owned(), JSON),
        (
            "http options: dryRun without a value",
            "dryRun".to_owned(),
            JSON,
        ),
        (
            "http options: dryRun=All twice",
            "dryRun=All&dryRun=All".to_owned(),
            JSON,
        ),
        (
            "http options: dryRun=All and x",
            "dryRun=All&dryRun=x".to_owned(),
            JSON,
        ),
        (
            "http options: a fieldManager of 129 bytes",
            format!("fieldManager={long}"),
            JSON,
        ),
        (
            "http options: a fieldManager of 65 two-byte runes",
            format!("fieldManager={}", "%C3%A9".repeat(65)),
            JSON,
        ),
        (
            "http options: a fieldManager with a tab",
            "fieldManager=a%09b".to_owned(),
            JSON,
        ),
        (
            "http options: a fieldManager with invisible runes",
            "fieldManager=%C3%A9%E2%80%8Bx%C2%A0".to_owned(),
            JSON,
        ),
        (
            "http options: a long fieldManager with a newline",
            format!("fieldManager={long}%0A"),
            JSON,
        ),
        (
            "http options: fieldValidation=x",
            "fieldValidation=x".to_owned(),
            JSON,
        ),
        (
            "http options: fieldValidation with a NUL",
            "fieldValidation=Strict%00".to_owned(),
            JSON,
        ),
        (
            "http options: three option errors",
            format!("fieldManager={long}&dryRun=x&fieldValidation=y"),
            JSON,
        ),
    ]
    .map(|(name, query, content_type)| post(Case::new(name), &query, Some(content_type)));
    let mut cases = Vec::from(posts);
    cases.extend([
        post(Case::new("http options: dryRun=x"), "dryRun=x", Some(JSON)),
        with_scalar("http options: PUT with dryRun=x").raw(
            Method::PUT,
            &format!("{OBJECT}?dryRun=x"),
            Some(JSON),
            &scalar("s"),
        ),
        with_scalar("http options: force on a merge patch").raw(
            Method::PATCH,
            &format!("{OBJECT}?force=false"),
            Some(MERGE),
            b"{}",
        ),
        with_scalar("http options: an apply without a fieldManager").raw(
            Method::PATCH,
            &format!("{OBJECT}?fieldManager=&dryRun=x"),
            Some(APPLY),
            b"{}",
        ),
        apply(
            applied("http options: force=x forces an apply"),
            "fieldManager=two&force=x",
        )
        .raw(Method::GET, OBJECT, None, b""),
        apply(
            applied("http options: force=FALSE does not force an apply"),
            "fieldManager=two&force=FALSE",
        ),
        with_scalar("http options: DELETE with dryRun=x in the query")
            .raw(Method::DELETE, &format!("{OBJECT}?dryRun=x"), None, b"")
            .raw(Method::GET, OBJECT, None, b""),
        with_scalar("http options: DELETE with propagationPolicy=x").raw(
            Method::DELETE,
            &format!("{OBJECT}?propagationPolicy=x"),
            None,
            b"",
        ),
        with_scalar("http options: DELETE with gracePeriodSeconds=x").raw(
            Method::DELETE,
            &format!("{OBJECT}?gracePeriodSeconds=x"),
            None,
            b"",
        ),
        with_scalar("http options: DELETE with both orphanDependents and a policy").raw(
            Method::DELETE,
            &format!("{OBJECT}?orphanDependents=false&propagationPolicy=Orphan"),
            None,
            b"",
        ),
        with_scalar("http options: DELETE with dryRun=All in the query")
            .raw(Method::DELETE, &format!("{OBJECT}?dryRun=All"), None, b"")
            .raw(Method::GET, OBJECT, None, b""),
        with_scalar("http options: DELETE options in the body win over the query")
            .raw(
                Method::DELETE,
                &format!("{OBJECT}?dryRun=x"),
                Some(JSON),
                br#"{"dryRun": ["All"]}"#,
            )
            .raw(Method::GET, OBJECT, None, b""),
        with_scalar("http options: DELETE with dryRun=x in the body").raw(
            Method::DELETE,
            OBJECT,
            Some(JSON),
            br#"{"dryRun": ["x"]}"#,
        ),
        with_scalar("http options: a DELETE collection with dryRun=x")
            .raw(Method::DELETE, &format!("{COLLECTION}?dryRun=x"), None, b"")
            .raw(Method::GET, OBJECT, None, b""),
    ]);
    cases
}

/// DELETE options bodies, decoded as `DeleteOptions`.
fn delete_bodies() -> Vec<Case> {
    [
        &b"{x"[..],
        b"[]",
        b"\"x\"",
        b"null",
        b"  ",
        b"{} x",
        br#"{"kind":"Pod","apiVersion":"v1"}"#,
        br#"{"kind":"Pod"}"#,
        br#"{"kind":"DeleteOptions","apiVersion":"x/y"}"#,
        br#"{"kind":1}"#,
        br#"{"dryRun":"All"}"#,
        br#"{"dryRun":[1]}"#,
        br#"{"gracePeriodSeconds":1.5}"#,
        br#"{"preconditions":{"uid":1}}"#,
    ]
    .into_iter()
    .map(|body| {
        let name = format!("http delete body: {}", String::from_utf8_lossy(body));
        with_scalar(&name)
            .raw(Method::DELETE, OBJECT, Some(JSON), body)
            .raw(Method::GET, OBJECT, None, b"")
    })
    .collect()
}

/// The URL: scope, subresources, percent-decoded names.
fn urls() -> Vec<Case> {
    let gets = [
        (
            "http url: an empty namespace segment is the cluster",
            "/apis/conformance.kubegen.dev/v1/namespaces//scalars?labelSelector=nothing%3Dhere"
                .to_owned(),
        ),
        (
            "http url: an escaped slash splits the name",
            format!("{COLLECTION}/a%2Fb"),
        ),
        ("http url: an escaped space", format!("{COLLECTION}/a%20b")),
        (
            "http url: an escaped name of another encoding",
            format!("{COLLECTION}/%C3%A9"),
        ),
        (
            "http url: a bad escape in the path",
            format!("{COLLECTION}/a%zzb"),
        ),
        (
            "http url: an empty name before a subresource",
            format!("{COLLECTION}//status"),
        ),
        ("http url: a trailing slash", format!("{COLLECTION}/x/")),
        (
            "http url: segments past the subresource",
            format!("{COLLECTION}/x/a/b"),
        ),
        (
            "http url: a GET of a cluster-scoped kind",
            format!("{}?labelSelector=nothing%3Dhere", GLOBALS.collection()),
        ),
    ]
    .map(|(name, path)| get(Case::new(name), &path));
    let mut cases = Vec::from(gets);
    cases.extend([
        Case::new("http url: POST of a namespaced kind at the cluster URL").raw(
            Method::POST,
            CLUSTER,
            Some(JSON),
            &scalar("s"),
        ),
        with_scalar("http url: DELETE collection of a namespaced kind at the cluster URL")
            .raw(Method::DELETE, CLUSTER, None, b"")
            .raw(Method::GET, OBJECT, None, b""),
        with_scalar("http url: PUT, PATCH and DELETE of a namespaced object at the cluster URL")
            .raw(
                Method::PUT,
                &format!("{CLUSTER}/s"),
                Some(JSON),
                &scalar("s"),
            )
            .raw(Method::PATCH, &format!("{CLUSTER}/s"), Some(MERGE), b"{}")
            .raw(Method::DELETE, &format!("{CLUSTER}/s"), None, b""),
        get(
            Case::new("http url: a cluster-scoped kind at a namespaced URL"),
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/globals",
        )
        .raw(
            Method::POST,
            &format!("{}/globals", namespaced()),
            Some(JSON),
            &global(),
        ),
        get(
            with_scalar("http url: segments past the status subresource"),
            &format!("{OBJECT}/status/x"),
        ),
        with_scalar("http url: POST to a status subresource").raw(
            Method::POST,
            &format!("{OBJECT}/status"),
            Some(JSON),
            &scalar("s"),
        ),
        with_scalar("http url: DELETE of a status subresource").raw(
            Method::DELETE,
            &format!("{OBJECT}/status"),
            None,
            b"",
        ),
        with_scalar("http url: OPTIONS of an object").raw(Method::OPTIONS, OBJECT, None, b""),
        with_scalar("http url: HEAD of an object").raw(Method::HEAD, OBJECT, None, b""),
        Case::new("http url: a cluster-scoped kind's collection PATCH").raw(
            Method::PATCH,
            "/apis/conformance.kubegen.dev/v1/globals",
            Some(MERGE),
            b"{}",
        ),
    ]);
    cases
}

/// `Warning` headers: only `"` and `\` escaped, texts with control characters dropped, the
/// 4096/256-rune truncation, and how unknown and duplicate fields are quoted.
fn warnings() -> Vec<Case> {
    let unknown = |name: &str, keys: &[String]| {
        let spec: serde_json::Map<String, serde_json::Value> =
            keys.iter().map(|k| (k.clone(), json!(1))).collect();
        Case::new(name).raw(
            Method::POST,
            COLLECTION,
            Some(JSON),
            &scalar_with("s", spec.into()),
        )
    };
    vec![
        unknown("http warnings: quotes and backslashes", &["a\"b\\c".into(), "é\u{200b}x".into()]),
        unknown("http warnings: control characters drop a warning", &["a\u{1}b".into(), "a\u{85}b".into(), "ok".into()]),
        unknown("http warnings: a warning of 4021 runes", &["k".repeat(4000)]),
        unknown("http warnings: a warning past 4096 runes", &["k".repeat(5000)]),
        unknown("http warnings: two long warnings", &["a".repeat(3000), "b".repeat(3000)]),
        unknown(
            "http warnings: twenty warnings of 321 runes",
            &(0..20).map(|i| format!("{i:02}{}", "k".repeat(298))).collect::<Vec<_>>(),
        ),
        unknown("http warnings: runes, not bytes", &["é".repeat(4100)]),
        Case::new("http warnings: duplicate and unknown fields are quoted differently").raw(
            Method::POST,
            COLLECTION,
            Some(JSON),
            br#"{"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s"}, "spec": {"a\"b": 1, "a\"b": 2, "replicas": 1, "replicas": 2}}"#,
        ),
    ]
}
