//! `kubegen::webhook` under mutated reviews: conversion reviews of a kind with generated
//! conversions (whole and partial objects) and admission reviews for a mutating and a
//! validating handler, with their bodies, headers, methods and paths mutated as the request
//! fuzzer mutates requests. The server must answer every one within ten seconds and never with
//! a 5xx, and still convert and admit afterwards.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::Request as HttpRequest;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use kubegen::webhook::{
    Admission, AdmissionType, SelfSigned, Verdict, WebhookKind, WebhookServer, Webhooks,
    admission_path,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::fuzz::kinds::Widget;
use crate::fuzz::mutations;
use crate::fuzz::request::{Body, Request, Template};

const CASES: usize = 300;

fn webhooks() -> Webhooks {
    Webhooks::new()
        .generated_converters()
        .mutator(
            WebhookKind::of::<Widget>(),
            |_: &Admission<'_>, object: &mut Value| {
                if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
                    metadata.insert("labels".into(), json!({"fuzzed": "yes"}));
                }
                Verdict::allow()
            },
        )
        .validator(WebhookKind::of::<Widget>(), |a: &Admission<'_>| {
            match a.object.and_then(|o| o.pointer("/spec/s")) {
                Some(Value::String(s)) if s.len() > 8 => Verdict::forbidden("s is too long"),
                _ => Verdict::allow(),
            }
        })
}

fn conversion_review(rng: &mut ChaCha8Rng) -> Value {
    let whole = json!({"apiVersion": "convert.example.com/v1alpha1", "kind": "Store",
                       "metadata": {"name": "s", "namespace": "default", "uid": "u"},
                       "spec": {"engine": "mysql", "version": "8", "size": "10Gi"}});
    let partial = json!({"apiVersion": "convert.example.com/v1", "kind": "Store",
                         "spec": {"users": ["a"]}});
    let objects = match rng.random_range(0..3) {
        0 => vec![whole],
        1 => vec![partial],
        _ => vec![whole, partial],
    };
    let desired =
        ["convert.example.com/v1", "convert.example.com/v1alpha1"][rng.random_range(0..2)];
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
           "request": {"uid": "c1", "desiredAPIVersion": desired, "objects": objects}})
}

fn admission_review(rng: &mut ChaCha8Rng) -> Value {
    let operation = ["CREATE", "UPDATE", "DELETE", "CONNECT"][rng.random_range(0..4)];
    let object = json!({"apiVersion": "fuzz.kubegen.dev/v1", "kind": "Widget",
                        "metadata": {"name": "w", "namespace": "default"}, "spec": {"s": "short"}});
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
           "request": {"uid": "a1",
                       "kind": {"group": "fuzz.kubegen.dev", "version": "v1", "kind": "Widget"},
                       "resource": {"group": "fuzz.kubegen.dev", "version": "v1", "resource": "widgets"},
                       "name": "w", "namespace": "default", "operation": operation,
                       "userInfo": {"username": "fuzz"}, "object": object,
                       "oldObject": if operation == "CREATE" { Value::Null } else { object.clone() },
                       "dryRun": false}})
}

/// The `i`th mutated request: method, path, content type and body.
fn case(i: usize) -> (http::Method, String, Option<String>, Vec<u8>) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7765_6268_6f6f_6b00 + i as u64);
    let kind = WebhookKind::of::<Widget>();
    let (path, review) = match rng.random_range(0..3) {
        0 => ("/convert".to_owned(), conversion_review(&mut rng)),
        1 => (
            admission_path(AdmissionType::Mutating, &kind),
            admission_review(&mut rng),
        ),
        _ => (
            admission_path(AdmissionType::Validating, &kind),
            admission_review(&mut rng),
        ),
    };
    let mut request = Request::from_template(Template::CreateWidget, &mut rng);
    request.body = Body::Json(review);
    match i % 8 {
        0 => mutations::body_bytes(&mut request, &mut rng),
        1 => mutations::invalid_utf8(&mut request, &mut rng),
        2 => mutations::shape(&mut request, &mut rng),
        3 => {
            // A review field of another type.
            if let Body::Json(review) = &mut request.body {
                let pointer = [
                    "/request",
                    "/request/uid",
                    "/request/objects",
                    "/request/object",
                    "/request/kind",
                    "/request/operation",
                    "/apiVersion",
                    "/kind",
                    "/request/desiredAPIVersion",
                    "/request/objects/0/metadata",
                ][rng.random_range(0..10)];
                let value = [json!(null), json!(7), json!("x"), json!([]), json!({})]
                    [rng.random_range(0..5)]
                .clone();
                if let Some(slot) = review.pointer_mut(pointer) {
                    *slot = value;
                }
            }
        }
        4 => {
            // Deep or large values inside the object.
            let depth = [100usize, 1000, 10_001, 100_000][rng.random_range(0..4)];
            let text = request.body.text();
            let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            request.body =
                Body::Text(text.replacen("\"spec\":{", &format!("\"spec\":{{\"deep\":{deep},"), 1));
        }
        5 => {
            let text = request.body.text();
            let big = "x".repeat([1 << 16, 1 << 20, 8 << 20][rng.random_range(0..3)]);
            request.body = Body::Text(text.replacen(
                "\"spec\":{",
                &format!("\"spec\":{{\"big\":\"{big}\","),
                1,
            ));
        }
        _ => {}
    }
    let method = match i % 11 {
        10 => [http::Method::GET, http::Method::PUT, http::Method::DELETE][rng.random_range(0..3)]
            .clone(),
        _ => http::Method::POST,
    };
    let path = match i % 13 {
        12 => [
            "/",
            "/convert/x",
            "/validate",
            "/mutate/fuzz.kubegen.dev/v1/gadgets",
            "/%zz",
        ][rng.random_range(0..5)]
        .to_owned(),
        _ => path,
    };
    let content_type = match i % 7 {
        6 => [
            None,
            Some("text/plain"),
            Some("application/yaml"),
            Some("application/json; charset=latin1"),
        ][rng.random_range(0..4)]
        .map(str::to_owned),
        _ => Some("application/json".to_owned()),
    };
    (method, path, content_type, request.body.bytes())
}

/// One request on a fresh connection: the status, or why there was none.
async fn send(
    addr: SocketAddr,
    ca_pem: &str,
    (method, path, content_type, body): (http::Method, String, Option<String>, Vec<u8>),
) -> Result<(u16, Vec<u8>), String> {
    let stream = crate::fixtures::tls::tls_stream(addr, &[ca_pem]).await;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let mut request = HttpRequest::builder()
        .method(method)
        .uri(path)
        .header("host", "127.0.0.1");
    if let Some(content_type) = content_type {
        request = request.header("content-type", content_type);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?;
    Ok((status, bytes.to_bytes().to_vec()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_server_answers_every_mutated_review() {
    let certs = SelfSigned::generate(&["127.0.0.1"]).unwrap();
    let server = WebhookServer::new(webhooks(), certs.tls().unwrap())
        .unwrap()
        .bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = server.local_addr();
    let task = tokio::spawn(server.serve(std::future::pending()));
    let mut failures = Vec::new();
    for i in 0..CASES {
        let request = case(i);
        let summary = format!("#{i} {} {}", request.0, request.1);
        // The server answers (413, 405) without reading a body it will not take; the client
        // then cannot finish writing it.
        let kind = WebhookKind::of::<Widget>();
        let served = [
            "/convert".to_owned(),
            admission_path(AdmissionType::Mutating, &kind),
            admission_path(AdmissionType::Validating, &kind),
        ];
        let refused_unread = request.0 != http::Method::POST
            || !served.contains(&request.1)
            || request.3.len() > kubegen::webhook::DEFAULT_ADMISSION_BODY_LIMIT;
        match tokio::time::timeout(Duration::from_secs(10), send(addr, &certs.ca_pem, request))
            .await
        {
            Err(_) => failures.push(format!("{summary}: no answer within 10 s")),
            Ok(Err(e)) if refused_unread && e.contains("error writing a body") => {}
            Ok(Err(e)) => failures.push(format!("{summary}: {e}")),
            Ok(Ok((status, body))) if status >= 500 => failures.push(format!(
                "{summary}: {status} {}",
                String::from_utf8_lossy(&body[..body.len().min(300)])
            )),
            Ok(Ok(_)) => {}
        }
    }
    // Still serving.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let review = serde_json::to_vec(&conversion_review(&mut rng)).unwrap();
    let (status, body) = send(
        addr,
        &certs.ca_pem,
        (
            http::Method::POST,
            "/convert".into(),
            Some("application/json".into()),
            review,
        ),
    )
    .await
    .unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status, &body["response"]["result"]["status"]),
        (200, &json!("Success"))
    );
    task.abort();
    assert!(
        failures.is_empty(),
        "{} of {CASES} reviews failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
