//! Accepted means decodable: objects generated from each test kind's CRD schema decode into
//! its Rust type, and the API server accepts both them and what the type writes back.
//! On the in-memory server, and on a real apiserver when one is configured (`#[kubegen::test]`).

use crate::fixtures::gadgets;
mod kinds;

use gadgets::api::{Gadget, Plain};
use kinds::{Collections, Reads, Scalars, Unions};
use kubegen::testing::TestEnv;
use kubegen::testing::generate::{Check, check_accepted};

/// Objects per kind, and the seed they come from (change it to explore further).
const COUNT: u64 = 1000;
const SEED: u64 = 0x006b_7562_6567_656e;

/// Runs the property for every test kind against `client`, reporting every failure.
async fn every_kind(client: &kube::Client, ns: &str, concurrency: usize) {
    let check = Check::new(COUNT, SEED).concurrency(concurrency);
    let results = [
        check_accepted::<Gadget>(client, ns, &check).await,
        check_accepted::<Plain>(client, ns, &check).await,
        check_accepted::<Unions>(client, ns, &check).await,
        check_accepted::<Scalars>(client, ns, &check).await,
        check_accepted::<Collections>(client, ns, &check).await,
        check_accepted::<Reads>(client, ns, &check).await,
    ];
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.err().map(|f| f.to_string()))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// In memory the checks run one at a time; a real apiserver is asked 16 at a time.
#[kubegen::test]
async fn generated_objects_decode_and_round_trip(e: TestEnv) {
    let concurrency = if e.is_real() { 16 } else { 1 };
    every_kind(&e.client, &e.namespace, concurrency).await;
}

/// A Gadget whose `spec.extra` nests objects so the whole body is `depth` deep.
fn nested_gadget(name: &str, depth: usize) -> Vec<u8> {
    // The root, `spec` and `extra` are three levels; the innermost object is one more.
    let levels = depth - 3;
    format!(
        r#"{{"apiVersion":"client.kubegen.dev/v1","kind":"Gadget","metadata":{{"name":"{name}"}},"spec":{{"color":"red","extra":{}{{}}{}}}}}"#,
        r#"{"a":"#.repeat(levels),
        "}".repeat(levels)
    )
    .into_bytes()
}

async fn raw(
    e: &TestEnv,
    method: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (u16, String) {
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("Content-Type", content_type)
        .body(body)
        .expect("a request");
    let response = e
        .client
        .send(request.map(Into::into))
        .await
        .expect("an answer");
    let code = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    (code, String::from_utf8_lossy(&body).into_owned())
}

/// Bodies nested nearly as deep as the apiserver admits are created, read, listed, patched,
/// applied and deleted without exhausting a thread's stack (the in-memory server runs on this
/// test's); one level past its limit is refused with its messages. (Depths from 9,996 to
/// 10,000 are left out: there the apiserver stores an object it cannot read back.)
#[kubegen::test]
async fn deeply_nested_bodies(e: TestEnv) {
    let collection = format!(
        "/apis/client.kubegen.dev/v1/namespaces/{}/gadgets",
        e.namespace
    );
    let object = format!("{collection}/deep");
    let (json, merge) = ("application/json", "application/merge-patch+json");
    let apply = "application/apply-patch+yaml";
    let (code, body) = raw(&e, "POST", &collection, json, nested_gadget("deep", 9_990)).await;
    assert_eq!(code, 201, "{}", &body[..body.len().min(300)]);
    assert_eq!(raw(&e, "GET", &object, json, Vec::new()).await.0, 200);
    assert_eq!(raw(&e, "GET", &collection, json, Vec::new()).await.0, 200);
    let (code, _) = raw(&e, "PATCH", &object, merge, nested_gadget("deep", 9_990)).await;
    assert_eq!(code, 200);
    let path = format!("{object}?fieldManager=deep");
    let (code, body) = raw(&e, "PATCH", &path, apply, nested_gadget("deep", 9_000)).await;
    assert_eq!(code, 200, "{}", &body[..body.len().min(300)]);

    let too_deep = nested_gadget("deeper", 10_001);
    let (code, body) = raw(&e, "PATCH", &object, merge, too_deep.clone()).await;
    assert_eq!(code, 400);
    assert!(
        body.contains("error decoding patch: invalid character '{' exceeded max depth"),
        "{body}"
    );
    assert_eq!(raw(&e, "DELETE", &object, json, Vec::new()).await.0, 200);
    let (code, body) = raw(&e, "POST", &collection, json, too_deep.clone()).await;
    assert_eq!(code, 400);
    assert!(
        body.contains(r#"the object provided is unrecognized (must be of type Gadget): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth ({\"apiVersion\":\"client.kubegen. ...)"#),
        "{body}"
    );
    let path = format!("{collection}/deeper?fieldManager=deep");
    let (code, body) = raw(&e, "PATCH", &path, apply, too_deep).await;
    assert_eq!(code, 400);
    assert!(
        body.contains(
            "error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000"
        ),
        "{body}"
    );
}
