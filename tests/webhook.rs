//! kubegen::webhook over real HTTPS on loopback: conversion reviews, mutating and validating
//! admission reviews, refusals of bad requests, health, certificate reload and graceful
//! shutdown. The client is hyper over rustls, trusting only the server's generated CA.

use crate::fixtures::tls;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use kubegen::prelude::*;
use kubegen::validation::{BadValue, FieldError};
use kubegen::webhook::{
    Admission, AdmissionType, ConversionError, Denial, LocalValidation, SelfSigned, Tls,
    TypedValidator, Verdict, WebhookKind, WebhookServer, Webhooks, admission_path,
};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use tls::tls_stream;

const GROUP: &str = "example.com";

/// Set when the slow validator (used by one test only) has received its request.
static SLOW_HANDLER_STARTED: AtomicBool = AtomicBool::new(false);
/// Set by the shutdown test when the slow handler may answer.
static SLOW_HANDLER_RELEASED: AtomicBool = AtomicBool::new(false);

fn widgets() -> WebhookKind {
    WebhookKind::new(GROUP, "v1", "widgets")
}

fn panicky_widgets() -> WebhookKind {
    WebhookKind::new(GROUP, "v1", "panickywidgets")
}

fn slow_widgets() -> WebhookKind {
    WebhookKind::new(GROUP, "v1", "slowwidgets")
}

/// v1alpha1 has `spec.size: "<n>"`, v1 has `spec.replicas: n`.
fn convert_widget(mut object: Value, desired: &str) -> Result<Value, ConversionError> {
    let spec = object
        .get_mut("spec")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| ConversionError::Malformed("no spec".into()))?;
    match desired {
        "example.com/v1" => {
            let size = spec.remove("size").unwrap_or(Value::Null);
            let replicas: i64 = size
                .as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| ConversionError::Failed(format!("size {size} is not a number")))?;
            spec.insert("replicas".into(), json!(replicas));
        }
        "example.com/v1alpha1" => {
            let replicas = spec.remove("replicas").unwrap_or(json!(1));
            spec.insert("size".into(), json!(replicas.to_string()));
        }
        other => {
            return Err(ConversionError::UnknownVersion {
                api_version: other.into(),
            });
        }
    }
    object["apiVersion"] = json!(desired);
    Ok(object)
}

/// Defaults `spec.replicas` to 1 and labels the object.
fn default_widget(_: &Admission<'_>, object: &mut Value) -> Verdict {
    let mut verdict = Verdict::allow();
    if object.pointer("/spec/replicas").is_none() {
        object["spec"]["replicas"] = json!(1);
        verdict = verdict.with_warning("spec.replicas defaulted to 1");
    }
    object["metadata"]["labels"]["defaulted"] = json!("true");
    verdict
}

/// At most 10 replicas, a name that never changes, and protected widgets are not deleted.
fn validate_widget(admission: &Admission<'_>) -> Verdict {
    let Some(object) = admission.object else {
        let protected = admission
            .old_object
            .and_then(|o| o.pointer("/metadata/labels/protected"))
            .is_some();
        return if protected {
            Verdict::forbidden("widget is protected")
        } else {
            Verdict::allow()
        };
    };
    let mut errors = Vec::new();
    let replicas = object.pointer("/spec/replicas").and_then(Value::as_i64);
    if let Some(r) = replicas.filter(|r| *r > 10) {
        errors.push(FieldError::invalid(
            "spec.replicas",
            BadValue::Int(r),
            "must be at most 10",
        ));
    }
    let title = |o: &Value| o.pointer("/spec/title").cloned();
    if let Some(old) = admission.old_object
        && title(old) != title(object)
    {
        errors.push(FieldError::forbidden("spec.title", "field is immutable"));
    }
    let mut verdict = Verdict::from_errors(errors);
    if admission.old_object.is_some() {
        verdict = verdict.with_warning("widgets are best left alone");
    }
    verdict
}

fn webhooks() -> Webhooks {
    Webhooks::new()
        .converter(GROUP, "Widget", convert_widget)
        .mutator(widgets(), default_widget)
        .validator(widgets(), validate_widget)
        .validator(panicky_widgets(), |_: &Admission<'_>| -> Verdict {
            panic!("a bug in the handler")
        })
        .validator(slow_widgets(), |_: &Admission<'_>| {
            SLOW_HANDLER_STARTED.store(true, Ordering::SeqCst);
            // Held until the test releases it (at most 10 s), however slow the machine.
            for _ in 0..2000 {
                if SLOW_HANDLER_RELEASED.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Verdict::allow()
        })
}

struct Running {
    addr: SocketAddr,
    ca_pem: String,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn start(tls: Tls, ca_pem: String) -> Running {
        Running::serving(webhooks(), tls, ca_pem).await
    }

    async fn serving(webhooks: Webhooks, tls: Tls, ca_pem: String) -> Running {
        let server = WebhookServer::new(webhooks, tls)
            .unwrap()
            .admission_body_limit(64 * 1024)
            .bind("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let addr = server.local_addr();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server
                .serve(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        Running {
            addr,
            ca_pem,
            stop: Some(stop),
            task,
        }
    }

    async fn self_signed() -> Running {
        Running::self_signed_serving(webhooks()).await
    }

    async fn self_signed_serving(webhooks: Webhooks) -> Running {
        let cert = SelfSigned::generate(&["127.0.0.1", "localhost"]).unwrap();
        Running::serving(webhooks, cert.tls().unwrap(), cert.ca_pem).await
    }

    async fn connect(&self) -> Connection {
        Connection::open(self.addr, &[&self.ca_pem]).await
    }

    /// One request on a fresh connection: the status and the body as JSON (or a string).
    async fn send(&self, method: &str, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
        self.connect().await.send(method, path, body).await
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.send("POST", path, serde_json::to_vec(body).unwrap())
            .await
    }

    /// An AdmissionReview of a Widget `operation`, posted to the validating webhook.
    async fn validate_widget(
        &self,
        operation: &str,
        object: Option<Value>,
        old: Option<Value>,
    ) -> (StatusCode, Value) {
        let review = admission_review(operation, &widgets(), object, old);
        self.post(&validate_path(), &review).await
    }

    /// An AdmissionReview of a Widget `operation`, posted to the mutating webhook.
    async fn mutate_widget(
        &self,
        operation: &str,
        object: Option<Value>,
        old: Option<Value>,
    ) -> (StatusCode, Value) {
        let review = admission_review(operation, &widgets(), object, old);
        self.post(&mutate_path(), &review).await
    }

    /// A ConversionReview of `objects` to `desired`, posted to the conversion path.
    async fn convert(&self, desired: &str, objects: Vec<Value>) -> (StatusCode, Value) {
        self.post("/convert", &conversion_review(desired, objects))
            .await
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(10), &mut self.task)
            .await
            .expect("the server shut down")
            .unwrap();
    }
}

struct Connection {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    /// The server's certificate, DER.
    peer_cert: Vec<u8>,
}

impl Connection {
    async fn open(addr: SocketAddr, trusted: &[&str]) -> Connection {
        let tls = tls_stream(addr, trusted).await;
        let peer_cert = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .unwrap();
        tokio::spawn(conn);
        Connection { sender, peer_cert }
    }

    async fn send(&mut self, method: &str, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        // The connection takes a moment after a response before it accepts the next request.
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, body)
    }
}

fn widget(api_version: &str, name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": spec,
    })
}

fn conversion_review(desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": "conv-1", "desiredAPIVersion": desired, "objects": objects},
    })
}

fn admission_review(
    operation: &str,
    kind: &WebhookKind,
    object: Option<Value>,
    old: Option<Value>,
) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "adm-1",
            "kind": {"group": kind.group, "version": kind.version, "kind": "Widget"},
            "resource": {"group": kind.group, "version": kind.version, "resource": kind.plural},
            "name": "w1",
            "namespace": "default",
            "operation": operation,
            "userInfo": {"username": "tester"},
            "object": object,
            "oldObject": old,
            "dryRun": false,
        },
    })
}

fn mutate_path() -> String {
    admission_path(AdmissionType::Mutating, &widgets())
}

fn validate_path() -> String {
    admission_path(AdmissionType::Validating, &widgets())
}

#[tokio::test(flavor = "multi_thread")]
async fn converts_every_object_in_order() {
    let server = Running::self_signed().await;
    let objects = vec![
        widget("example.com/v1alpha1", "a", json!({"size": "3"})),
        widget("example.com/v1", "b", json!({"replicas": 7})),
        widget(
            "example.com/v1alpha1",
            "c",
            json!({"size": "5", "color": "red"}),
        ),
    ];
    let (status, body) = server.convert("example.com/v1", objects).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["kind"], "ConversionReview");
    assert_eq!(body["apiVersion"], "apiextensions.k8s.io/v1");
    let response = &body["response"];
    assert_eq!(response["uid"], "conv-1");
    assert_eq!(response["result"]["status"], "Success");
    assert_eq!(
        response["convertedObjects"],
        json!([
            widget("example.com/v1", "a", json!({"replicas": 3})),
            widget("example.com/v1", "b", json!({"replicas": 7})),
            widget(
                "example.com/v1",
                "c",
                json!({"replicas": 5, "color": "red"})
            ),
        ])
    );

    // And back.
    let (_, body) = server
        .convert(
            "example.com/v1alpha1",
            vec![widget("example.com/v1", "a", json!({"replicas": 4}))],
        )
        .await;
    assert_eq!(
        body["response"]["convertedObjects"],
        json!([widget("example.com/v1alpha1", "a", json!({"size": "4"}))])
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_conversion_fails_the_review() {
    let server = Running::self_signed().await;
    let objects = vec![
        widget("example.com/v1alpha1", "a", json!({"size": "3"})),
        widget("example.com/v1alpha1", "b", json!({"size": "big"})),
    ];
    let (status, body) = server.convert("example.com/v1", objects).await;
    assert_eq!(status, StatusCode::OK);
    let response = &body["response"];
    assert_eq!(response["uid"], "conv-1");
    assert_eq!(response["result"]["status"], "Failure");
    let message = response["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("converting object 1 to example.com/v1")
            && message.contains("size \"big\" is not a number"),
        "{message}"
    );
    assert_eq!(response["convertedObjects"], json!([]));

    // A kind without a converter, and a version the converter does not know.
    let gadget = json!({"apiVersion": "example.com/v1alpha1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {}});
    let (_, body) = server.convert("example.com/v1", vec![gadget]).await;
    let message = body["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("no converter is registered for kind Gadget in group \"example.com\""),
        "{message}"
    );
    let (_, body) = server
        .convert(
            "example.com/v2",
            vec![widget("example.com/v1", "a", json!({"replicas": 1}))],
        )
        .await;
    assert_eq!(body["response"]["result"]["status"], "Failure");
    let message = body["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("unknown version example.com/v2"),
        "{message}"
    );
    server.stop().await;
}

fn decoded_patch(response: &Value) -> json_patch::Patch {
    use base64::Engine as _;
    let encoded = response["patch"]
        .as_str()
        .expect("the patch is a base64 string");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mutating_webhook_answers_with_a_json_patch() {
    let server = Running::self_signed().await;
    let original = widget("example.com/v1", "w1", json!({"title": "x"}));
    let (status, body) = server
        .mutate_widget("CREATE", Some(original.clone()), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let response = &body["response"];
    assert_eq!(body["kind"], "AdmissionReview");
    assert_eq!(response["uid"], "adm-1");
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    assert_eq!(
        response["warnings"],
        json!(["spec.replicas defaulted to 1"])
    );
    let mut patched = original.clone();
    json_patch::patch(&mut patched, &decoded_patch(response)).unwrap();
    let mut expected = original;
    expected["spec"]["replicas"] = json!(1);
    expected["metadata"]["labels"] = json!({"defaulted": "true"});
    assert_eq!(patched, expected);

    // Nothing to change: no patch at all.
    let (_, body) = server
        .mutate_widget("UPDATE", Some(expected.clone()), Some(expected.clone()))
        .await;
    assert_eq!(body["response"]["allowed"], true);
    assert_eq!(body["response"].get("patch"), None);
    assert_eq!(body["response"].get("warnings"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_validating_webhook_denies_with_causes() {
    let server = Running::self_signed().await;
    let old = widget("example.com/v1", "w1", json!({"title": "x", "replicas": 1}));
    let new = widget(
        "example.com/v1",
        "w1",
        json!({"title": "y", "replicas": 12}),
    );
    let (status, body) = server
        .validate_widget("UPDATE", Some(new.clone()), Some(old.clone()))
        .await;
    assert_eq!(status, StatusCode::OK);
    let response = &body["response"];
    assert_eq!(response["uid"], "adm-1");
    assert_eq!(response["allowed"], false);
    assert_eq!(response["warnings"], json!(["widgets are best left alone"]));
    assert_eq!(
        response["status"],
        json!({
            "status": "Failure",
            "code": 422,
            "reason": "Invalid",
            "message": "Widget.example.com \"w1\" is invalid: [spec.replicas: Invalid value: 12: must be at most 10, spec.title: Forbidden: field is immutable]",
            "details": {
                "name": "w1",
                "group": "example.com",
                "kind": "Widget",
                "causes": [
                    {"reason": "FieldValueInvalid", "message": "Invalid value: 12: must be at most 10", "field": "spec.replicas"},
                    {"reason": "FieldValueForbidden", "message": "Forbidden: field is immutable", "field": "spec.title"},
                ],
            },
        })
    );

    // A valid create is allowed, without warnings.
    let (_, body) = server
        .validate_widget("CREATE", Some(old.clone()), None)
        .await;
    assert_eq!(body["response"]["allowed"], true);
    assert_eq!(body["response"].get("warnings"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn delete_admission_sees_the_old_object() {
    let server = Running::self_signed().await;
    let mut protected = widget("example.com/v1", "w1", json!({"replicas": 1}));
    protected["metadata"]["labels"] = json!({"protected": "yes"});
    let (_, body) = server
        .validate_widget("DELETE", None, Some(protected))
        .await;
    let response = &body["response"];
    assert_eq!(response["allowed"], false);
    assert_eq!(response["status"]["code"], 403);
    assert_eq!(response["status"]["reason"], "Forbidden");
    assert_eq!(response["status"]["message"], "widget is protected");

    let plain = widget("example.com/v1", "w1", json!({"replicas": 1}));
    let (_, body) = server
        .validate_widget("DELETE", None, Some(plain.clone()))
        .await;
    assert_eq!(body["response"]["allowed"], true);
    // The mutating webhook has nothing to patch on a delete.
    let (_, body) = server.mutate_widget("DELETE", None, Some(plain)).await;
    assert_eq!(body["response"]["allowed"], true);
    assert_eq!(body["response"].get("patch"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_errors_and_the_server_keeps_serving() {
    let server = Running::self_signed().await;
    let mut conn = server.connect().await;

    let (status, body) = conn.send("POST", "/convert", b"{not json".to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["code"], 400);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("malformed review"),
        "{body}"
    );

    // A review of another version or kind, and one without its request.
    let mut old_review = conversion_review("example.com/v1", vec![]);
    old_review["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
    let (status, body) = conn
        .send("POST", "/convert", serde_json::to_vec(&old_review).unwrap())
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("apiextensions.k8s.io/v1beta1"),
        "{body}"
    );
    let review = admission_review("CREATE", &widgets(), None, None);
    let (status, _) = conn
        .send("POST", "/convert", serde_json::to_vec(&review).unwrap())
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = conn
        .send(
            "POST",
            &validate_path(),
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#.to_vec(),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let mut no_uid = admission_review("CREATE", &widgets(), None, None);
    no_uid["request"].as_object_mut().unwrap().remove("uid");
    let (status, _) = conn
        .send(
            "POST",
            &validate_path(),
            serde_json::to_vec(&no_uid).unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Unknown kinds and paths.
    let gadgets = WebhookKind::new(GROUP, "v1", "gadgets");
    let review = admission_review("CREATE", &gadgets, Some(json!({})), None);
    let (status, body) = conn
        .send(
            "POST",
            &admission_path(AdmissionType::Validating, &gadgets),
            serde_json::to_vec(&review).unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["reason"], "NotFound");
    let (status, _) = conn.send("POST", "/elsewhere", vec![]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = conn.send("GET", "/convert", vec![]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);

    // A review for another version than the path's is denied, echoing its uid.
    let v2 = WebhookKind::new(GROUP, "v2", "widgets");
    let review = admission_review(
        "CREATE",
        &v2,
        Some(widget("example.com/v2", "w1", json!({}))),
        None,
    );
    let (status, body) = conn
        .send(
            "POST",
            &validate_path(),
            serde_json::to_vec(&review).unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["response"]["uid"], "adm-1");
    assert_eq!(body["response"]["allowed"], false);
    assert_eq!(body["response"]["status"]["code"], 400);

    // A handler that panics: a 500 for this request only.
    let review = admission_review("CREATE", &panicky_widgets(), Some(json!({})), None);
    let (status, body) = conn
        .send(
            "POST",
            &admission_path(AdmissionType::Validating, &panicky_widgets()),
            serde_json::to_vec(&review).unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body["message"], "the webhook handler panicked");

    // Over the limit (64 KiB in these tests): by Content-Length, before reading it.
    let big = widget(
        "example.com/v1",
        "w1",
        json!({"title": "x".repeat(80 * 1024)}),
    );
    let review = admission_review("CREATE", &widgets(), Some(big), None);
    let (status, body) = server.post(&validate_path(), &review).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(body["reason"], "RequestEntityTooLarge");

    // Still serving, on the same connection and on new ones.
    let (status, body) = conn.send("GET", "/healthz", vec![]).await;
    assert_eq!((status, body), (StatusCode::OK, json!("ok")));
    let ok = admission_review(
        "CREATE",
        &widgets(),
        Some(widget("example.com/v1", "w1", json!({}))),
        None,
    );
    let (status, body) = server.post(&validate_path(), &ok).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["response"]["allowed"], true);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunked_body_over_the_limit_is_refused_while_reading() {
    let server = Running::self_signed().await;
    let tls = tls_stream(server.addr, &[&server.ca_pem]).await;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    // A body of unknown length (sent chunked, without Content-Length): 100 KiB against the
    // 64 KiB limit.
    let chunks = (0..100).map(|_| {
        Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(Bytes::from(vec![b'x'; 1024])))
    });
    let body = http_body_util::StreamBody::new(futures::stream::iter(chunks));
    let request = Request::post(validate_path())
        .header("host", "127.0.0.1")
        .body(body)
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(response.headers().get("content-length").is_some());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let status: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        status["message"],
        "the request body is larger than 65536 bytes"
    );

    let (status, _) = server.send("GET", "/readyz", vec![]).await;
    assert_eq!(status, StatusCode::OK);
    server.stop().await;
}

#[test]
fn the_registry_lists_its_paths() {
    assert_eq!(
        webhooks().paths(),
        [
            "/convert",
            "/mutate/example.com/v1/widgets",
            "/validate/example.com/v1/panickywidgets",
            "/validate/example.com/v1/slowwidgets",
            "/validate/example.com/v1/widgets",
        ]
    );
    assert_eq!(Webhooks::new().paths(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn health_endpoints() {
    let server = Running::self_signed().await;
    for path in ["/healthz", "/readyz"] {
        let (status, body) = server.send("GET", path, vec![]).await;
        assert_eq!((status, body), (StatusCode::OK, json!("ok")), "{path}");
    }
    let (status, _) = server.send("POST", "/readyz", vec![]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotated_certificate_is_served_and_a_broken_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (cert_path, key_path) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    let first = SelfSigned::generate(&["127.0.0.1"]).unwrap();
    first.write(&cert_path, &key_path).unwrap();
    let tls = Tls::from_files_checked_every(&cert_path, &key_path, Duration::ZERO).unwrap();
    let server = Running::start(tls, first.ca_pem.clone()).await;
    let der = |pem: &str| {
        CertificateDer::from_pem_slice(pem.as_bytes())
            .unwrap()
            .to_vec()
    };

    let second = SelfSigned::generate(&["127.0.0.1"]).unwrap();
    let trusted = [first.ca_pem.as_str(), second.ca_pem.as_str()];
    let conn = Connection::open(server.addr, &trusted).await;
    assert_eq!(conn.peer_cert, der(&first.cert_pem));

    second.write(&cert_path, &key_path).unwrap();
    let conn = Connection::open(server.addr, &trusted).await;
    assert_eq!(
        conn.peer_cert,
        der(&second.cert_pem),
        "the new certificate is served"
    );

    // A key that does not match the certificate: the previous pair stays.
    let third = SelfSigned::generate(&["127.0.0.1"]).unwrap();
    std::fs::write(&cert_path, &third.cert_pem).unwrap();
    let mut conn = Connection::open(server.addr, &trusted).await;
    assert_eq!(
        conn.peer_cert,
        der(&second.cert_pem),
        "the broken pair is not served"
    );
    let (status, _) = conn.send("GET", "/healthz", vec![]).await;
    assert_eq!(status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_finishes_requests_in_flight() {
    let server = Running::self_signed().await;
    let addr = server.addr;
    let mut ready = server.connect().await;
    let mut busy = server.connect().await;
    let review = admission_review(
        "CREATE",
        &slow_widgets(),
        Some(widget("example.com/v1", "w1", json!({}))),
        None,
    );
    let path = admission_path(AdmissionType::Validating, &slow_widgets());
    let in_flight = tokio::spawn(async move {
        busy.send("POST", &path, serde_json::to_vec(&review).unwrap())
            .await
    });
    // Once the request is in the handler (which waits to be released), shut down.
    tokio::time::timeout(Duration::from_secs(10), async {
        while !SLOW_HANDLER_STARTED.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the request reaches the handler");
    let Running { stop, task, .. } = server;
    stop.unwrap().send(()).unwrap();

    // New connections are refused while the request finishes.
    tokio::time::timeout(Duration::from_secs(5), async {
        while TcpStream::connect(addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the listener is closed");
    if in_flight.is_finished() {
        panic!(
            "the request is no longer in the handler: {:?}",
            in_flight.await
        );
    }
    SLOW_HANDLER_RELEASED.store(true, Ordering::SeqCst);
    let (status, body) = in_flight.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["response"]["allowed"], true);
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("serve returns once the request is answered")
        .unwrap();
    // The idle keep-alive connection was closed.
    let request = Request::get("/healthz")
        .header("host", "127.0.0.1")
        .body(Full::new(Bytes::new()))
        .unwrap();
    assert!(ready.sender.send_request(request).await.is_err());
}

// Typed admission and generated conversions, on a kubegen kind whose versions differ:
// v1alpha1 `size: "10Gi"`, v1 (the hub) `storage: 10Gi` and a `backup` v1alpha1 lacks.

mod v1 {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use kubegen::prelude::*;

    // `Default` by hand: std's derive would claim the `#[default]` marker.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "typed.example.com",
        version = "v1",
        kind = "Gizmo",
        derive = "PartialEq"
    )]
    #[rule("self.title != 'forbidden'", message = "this title is not allowed")]
    #[serde(rename_all = "camelCase")]
    pub struct GizmoSpec {
        pub title: String,
        #[default(1)]
        #[validate(minimum = 0, maximum = 10)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        pub storage: Quantity,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub backup: Option<String>,
    }

    impl Default for GizmoSpec {
        fn default() -> Self {
            GizmoSpec {
                title: String::new(),
                replicas: None,
                storage: Quantity(String::new()),
                backup: None,
            }
        }
    }
}

mod v1alpha1 {
    use kubegen::convert::{ConvertError, ManualConvert};
    use kubegen::prelude::*;

    #[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "typed.example.com",
        version = "v1alpha1",
        kind = "Gizmo",
        storage = false,
        derive = "PartialEq"
    )]
    #[convert(hub = super::v1::GizmoSpec, filled = ["storage"], restored = ["backup"])]
    #[serde(rename_all = "camelCase")]
    pub struct GizmoSpec {
        pub title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        #[convert(manual)]
        pub size: String,
    }

    impl ManualConvert for GizmoSpec {
        fn fill_hub(&self, hub: &mut super::v1::GizmoSpec) -> Result<(), ConvertError> {
            if !self.size.ends_with("Gi") {
                return Err(ConvertError::field(
                    "spec.size",
                    format!("{:?} is not in Gi", self.size),
                ));
            }
            hub.storage.0.clone_from(&self.size);
            Ok(())
        }
        fn fill_from_hub(&mut self, hub: &super::v1::GizmoSpec) -> Result<(), ConvertError> {
            self.size.clone_from(&hub.storage.0);
            Ok(())
        }
    }
}

/// The title never changes, and a gizmo labelled `protected` is not deleted.
struct GizmoChecks;

impl TypedValidator<v1::Gizmo> for GizmoChecks {
    fn validate_create(&self, admission: &Admission<'_>, gizmo: &v1::Gizmo) -> Verdict {
        assert_eq!(
            admission.request.operation,
            kube::core::admission::Operation::Create
        );
        if gizmo.spec.title.is_empty() {
            return Verdict::from_errors(vec![FieldError::required("spec.title", "")]);
        }
        Verdict::allow()
    }

    fn validate_update(&self, _: &Admission<'_>, old: &v1::Gizmo, new: &v1::Gizmo) -> Verdict {
        let mut verdict = Verdict::allow().with_warning("gizmos are best left alone");
        if old.spec.title != new.spec.title {
            verdict.denial = Some(Denial::Invalid(vec![FieldError::forbidden(
                "spec.title",
                "field is immutable",
            )]));
        }
        verdict
    }

    fn validate_delete(&self, _: &Admission<'_>, old: &v1::Gizmo) -> Verdict {
        let protected = old
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key("protected"));
        if protected {
            Verdict::forbidden("gizmo is protected")
        } else {
            Verdict::allow()
        }
    }
}

fn typed_webhooks() -> Webhooks {
    Webhooks::new()
        .generated_converters()
        .defaulter::<v1::Gizmo>(|_: &Admission<'_>, gizmo: &mut v1::Gizmo| {
            gizmo
                .metadata
                .labels
                .get_or_insert_default()
                .insert("defaulted".into(), "true".into());
            if gizmo.spec.title == "deny me" {
                return Verdict::forbidden("not this title");
            }
            Verdict::allow().with_warning("labelled")
        })
        .typed_validator::<v1::Gizmo>(LocalValidation::then(GizmoChecks))
}

fn gizmo(name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "typed.example.com/v1",
        "kind": "Gizmo",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": spec,
    })
}

fn gizmo_review(operation: &str, object: Option<Value>, old: Option<Value>) -> Value {
    let mut review = admission_review(operation, &WebhookKind::of::<v1::Gizmo>(), object, old);
    review["request"]["kind"]["kind"] = json!("Gizmo");
    review["request"]["name"] = json!("g1");
    review
}

impl Running {
    /// An admission review of a Gizmo, sent to its mutating or validating path.
    async fn gizmo(
        &self,
        admission: AdmissionType,
        operation: &str,
        object: Option<Value>,
        old: Option<Value>,
    ) -> (StatusCode, Value) {
        let path = admission_path(admission, &WebhookKind::of::<v1::Gizmo>());
        self.post(&path, &gizmo_review(operation, object, old))
            .await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_typed_defaulter_patches_only_what_it_changed() {
    let server = Running::self_signed_serving(typed_webhooks()).await;
    // `spec.future` and the top-level `extra` are unknown to the type: they stay as sent,
    // like the annotations, so the patch holds only the default and the label.
    let mut original = gizmo(
        "g1",
        json!({"title": "t", "storage": "1Gi", "future": {"x": [1, 2]}}),
    );
    original["metadata"]["annotations"] = json!({"note": "kept"});
    original["extra"] = json!(true);
    let (status, body) = server
        .gizmo(
            AdmissionType::Mutating,
            "CREATE",
            Some(original.clone()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let response = &body["response"];
    assert_eq!(response["allowed"], true, "{body}");
    assert_eq!(response["warnings"], json!(["labelled"]));
    let patch = decoded_patch(response);
    assert_eq!(
        serde_json::to_value(&patch).unwrap(),
        json!([
            {"op": "add", "path": "/metadata/labels", "value": {"defaulted": "true"}},
            {"op": "add", "path": "/spec/replicas", "value": 1},
        ]),
        "only the default and the label"
    );
    let mut patched = original.clone();
    json_patch::patch(&mut patched, &patch).unwrap();
    let mut expected = original.clone();
    expected["spec"]["replicas"] = json!(1);
    expected["metadata"]["labels"] = json!({"defaulted": "true"});
    assert_eq!(patched, expected);

    // Already defaulted: no patch. Denied by the author: no patch either.
    let (_, body) = server
        .gizmo(
            AdmissionType::Mutating,
            "UPDATE",
            Some(expected.clone()),
            Some(expected.clone()),
        )
        .await;
    assert_eq!(body["response"]["allowed"], true);
    assert_eq!(body["response"].get("patch"), None);
    let denied = gizmo("g1", json!({"title": "deny me", "storage": "1Gi"}));
    let (_, body) = server
        .gizmo(AdmissionType::Mutating, "CREATE", Some(denied), None)
        .await;
    assert_eq!(body["response"]["allowed"], false);
    assert_eq!(body["response"]["status"]["code"], 403);
    assert_eq!(body["response"]["status"]["message"], "not this title");
    assert_eq!(body["response"].get("patch"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_object_that_does_not_decode_is_denied_naming_the_field() {
    let server = Running::self_signed_serving(typed_webhooks()).await;
    let broken = gizmo(
        "g1",
        json!({"title": "t", "storage": "1Gi", "replicas": "three"}),
    );
    for admission in [AdmissionType::Mutating, AdmissionType::Validating] {
        let (status, body) = server
            .gizmo(admission, "CREATE", Some(broken.clone()), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        let response = &body["response"];
        assert_eq!(response["allowed"], false);
        assert_eq!(response.get("patch"), None);
        assert_eq!(
            response["status"],
            json!({
                "status": "Failure",
                "code": 422,
                "reason": "Invalid",
                "message": "Gizmo.typed.example.com \"g1\" is invalid: spec.replicas: Invalid value: \"three\": the object does not decode as Gizmo: invalid type: string \"three\", expected i32",
                "details": {
                    "name": "g1",
                    "group": "typed.example.com",
                    "kind": "Gizmo",
                    "causes": [{
                        "reason": "FieldValueTypeInvalid",
                        "message": "Invalid value: \"three\": the object does not decode as Gizmo: invalid type: string \"three\", expected i32",
                        "field": "spec.replicas",
                    }],
                },
            }),
            "{admission:?}"
        );
    }
    // A missing required field.
    let (_, body) = server
        .gizmo(
            AdmissionType::Validating,
            "CREATE",
            Some(gizmo("g1", json!({"title": "t"}))),
            None,
        )
        .await;
    assert_eq!(
        body["response"]["status"]["details"]["causes"],
        json!([{"reason": "FieldValueRequired", "message": "Required value: the object does not decode as Gizmo", "field": "spec.storage"}])
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_typed_validator_sees_create_update_and_delete() {
    let server = Running::self_signed_serving(typed_webhooks()).await;
    let old = gizmo("g1", json!({"title": "a", "replicas": 2, "storage": "1Gi"}));

    let (_, body) = server
        .gizmo(AdmissionType::Validating, "CREATE", Some(old.clone()), None)
        .await;
    assert_eq!(body["response"]["allowed"], true, "{body}");
    let untitled = gizmo("g1", json!({"title": "", "storage": "1Gi"}));
    let (_, body) = server
        .gizmo(AdmissionType::Validating, "CREATE", Some(untitled), None)
        .await;
    assert_eq!(body["response"]["allowed"], false);
    assert_eq!(
        body["response"]["status"]["message"],
        "Gizmo.typed.example.com \"g1\" is invalid: spec.title: Required value"
    );

    let retitled = gizmo("g1", json!({"title": "b", "replicas": 2, "storage": "1Gi"}));
    let (_, body) = server
        .gizmo(
            AdmissionType::Validating,
            "UPDATE",
            Some(retitled),
            Some(old.clone()),
        )
        .await;
    let response = &body["response"];
    assert_eq!(response["allowed"], false);
    assert_eq!(response["warnings"], json!(["gizmos are best left alone"]));
    assert_eq!(
        response["status"]["details"]["causes"],
        json!([{"reason": "FieldValueForbidden", "message": "Forbidden: field is immutable", "field": "spec.title"}])
    );
    let scaled = gizmo("g1", json!({"title": "a", "replicas": 3, "storage": "1Gi"}));
    let (_, body) = server
        .gizmo(
            AdmissionType::Validating,
            "UPDATE",
            Some(scaled),
            Some(old.clone()),
        )
        .await;
    assert_eq!(body["response"]["allowed"], true);
    assert_eq!(
        body["response"]["warnings"],
        json!(["gizmos are best left alone"])
    );

    let mut protected = old.clone();
    protected["metadata"]["labels"] = json!({"protected": "yes"});
    let (_, body) = server
        .gizmo(AdmissionType::Validating, "DELETE", None, Some(protected))
        .await;
    assert_eq!(body["response"]["allowed"], false);
    assert_eq!(body["response"]["status"]["code"], 403);
    assert_eq!(body["response"]["status"]["message"], "gizmo is protected");
    let (_, body) = server
        .gizmo(AdmissionType::Validating, "DELETE", None, Some(old))
        .await;
    assert_eq!(body["response"]["allowed"], true);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn local_validation_runs_first_with_the_apiservers_verdict() {
    let server = Running::self_signed_serving(typed_webhooks()).await;
    // Over the schema's maximum and against the CEL rule: the kind's own verdict.
    let bad = gizmo(
        "g1",
        json!({"title": "forbidden", "replicas": 11, "storage": "1Gi"}),
    );
    let (_, body) = server
        .gizmo(AdmissionType::Validating, "CREATE", Some(bad.clone()), None)
        .await;
    let response = &body["response"];
    assert_eq!(response["allowed"], false);
    let typed: v1::Gizmo = serde_json::from_value(bad).unwrap();
    let local = typed.validate().unwrap_err().into_invalid().unwrap();
    assert_eq!(local.causes.len(), 2, "{local}");
    // The same verdict the kind gives locally, as the webhook's denial.
    assert_eq!(response["status"]["message"], local.to_string());
    assert_eq!(
        response["status"]["details"]["causes"],
        local.to_status()["details"]["causes"]
    );
    assert!(
        local.to_string().contains("spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
        "{local}"
    );

    // On update the title check would fire too, but local validation answers first.
    let old = gizmo("g1", json!({"title": "a", "replicas": 1, "storage": "1Gi"}));
    let new = gizmo(
        "g1",
        json!({"title": "b", "replicas": -1, "storage": "1Gi"}),
    );
    let (_, body) = server
        .gizmo(AdmissionType::Validating, "UPDATE", Some(new), Some(old))
        .await;
    let causes = &body["response"]["status"]["details"]["causes"];
    assert_eq!(causes.as_array().unwrap().len(), 1, "{causes}");
    assert_eq!(causes[0]["field"], "spec.replicas");
    server.stop().await;
}

fn alpha_gizmo(i: usize) -> Value {
    let mut object = json!({
        "apiVersion": "typed.example.com/v1alpha1",
        "kind": "Gizmo",
        "metadata": {"name": format!("g{i}"), "namespace": "default", "uid": format!("uid-{i}")},
        "spec": {"title": format!("gizmo {i}"), "size": format!("{}Gi", i + 1)},
    });
    if i.is_multiple_of(3) {
        object["spec"]["replicas"] = json!(i % 10);
    }
    if i.is_multiple_of(7) {
        object["metadata"]["labels"] = json!({"tier": format!("t{}", i % 4)});
    }
    object
}

#[tokio::test(flavor = "multi_thread")]
async fn generated_conversions_round_trip_through_the_server() {
    let webhooks = typed_webhooks();
    assert!(webhooks.paths().contains(&"/convert".to_owned()));
    let server = Running::self_signed_serving(webhooks).await;
    let originals: Vec<Value> = (0..100).map(alpha_gizmo).collect();
    let (status, body) = server
        .convert("typed.example.com/v1", originals.clone())
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["response"]["result"]["status"], "Success", "{body}");
    let hubs = body["response"]["convertedObjects"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(hubs.len(), 100);
    for (hub, original) in hubs.iter().zip(&originals) {
        assert_eq!(hub["apiVersion"], "typed.example.com/v1");
        assert_eq!(hub["spec"]["storage"], original["spec"]["size"]);
        assert!(hub["spec"].get("size").is_none());
        // The same as conversion-gen's own conversion.
        assert_eq!(
            *hub,
            kubegen::convert::convert(original.clone(), "typed.example.com/v1").unwrap()
        );
    }
    let (_, body) = server.convert("typed.example.com/v1alpha1", hubs).await;
    assert_eq!(body["response"]["result"]["status"], "Success", "{body}");
    assert_eq!(body["response"]["convertedObjects"], json!(originals));

    // A hub field v1alpha1 lacks survives the way down and back.
    let backed_up = gizmo(
        "b",
        json!({"title": "t", "storage": "2Gi", "backup": "daily"}),
    );
    let (_, body) = server
        .convert("typed.example.com/v1alpha1", vec![backed_up.clone()])
        .await;
    let alpha = body["response"]["convertedObjects"][0].clone();
    assert!(alpha["spec"].get("backup").is_none());
    let (_, body) = server.convert("typed.example.com/v1", vec![alpha]).await;
    assert_eq!(body["response"]["convertedObjects"], json!([backed_up]));

    // A conversion error fails the review with its text.
    let mut bad = alpha_gizmo(1);
    bad["spec"]["size"] = json!("12Mi");
    let (_, body) = server
        .convert("typed.example.com/v1", vec![alpha_gizmo(0), bad])
        .await;
    let result = &body["response"]["result"];
    assert_eq!(result["status"], "Failure");
    assert_eq!(
        result["message"],
        "converting object 1 to typed.example.com/v1: Gizmo typed.example.com/v1alpha1: spec.size: \"12Mi\" is not in Gi"
    );
    assert_eq!(body["response"]["convertedObjects"], json!([]));
    server.stop().await;
}
