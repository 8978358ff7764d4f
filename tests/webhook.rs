//! kubegen::webhook over real HTTPS on loopback, a module per topic: conversion and admission
//! reviews, the server itself (refusals of bad requests, health, certificate reload, graceful
//! shutdown), typed webhooks, and generated conversions. The client is hyper over rustls,
//! trusting only the server's generated CA. The webhooks and helpers they share are here.

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

mod generated;
mod reviews;
mod serving;
mod typed;

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
