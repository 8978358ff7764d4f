//! The conversion webhook's cost, against its peer in the same run: a `ConversionReview` of
//! 100 objects (v1alpha1 → v1, generated conversions) through `kubegen::webhook` over HTTPS
//! on loopback (one kept-alive connection, as the apiserver keeps them), and the same
//! conversion in process (`kubegen::convert::convert`, per object and for 100 objects). After
//! the criterion groups, the latency of 1000 reviews one after another, sorted, as p50/p99
//! (criterion reports means, not percentiles), and the same with a new TLS connection per
//! review.
//!
//! `cargo bench --features webhook --bench webhook`

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{Criterion, Throughput};
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use kubegen::webhook::{SelfSigned, WebhookServer, Webhooks};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

mod v1 {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use kubegen::prelude::*;

    /// The hub: the storage version.
    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(group = "bench.kubegen.dev", version = "v1", kind = "Volume")]
    #[serde(rename_all = "camelCase")]
    pub struct VolumeSpec {
        pub class: String,
        pub storage: Quantity,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub zones: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub snapshot_schedule: Option<String>,
    }
}

mod v1alpha1 {
    use kubegen::convert::{ConvertError, ManualConvert};
    use kubegen::prelude::*;

    /// A spoke: `size` instead of `storage`, no snapshots.
    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(
        group = "bench.kubegen.dev",
        version = "v1alpha1",
        kind = "Volume",
        storage = false
    )]
    #[convert(hub = super::v1::VolumeSpec, filled = ["storage"], restored = ["snapshotSchedule"])]
    #[serde(rename_all = "camelCase")]
    pub struct VolumeSpec {
        pub class: String,
        #[convert(manual)]
        pub size: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub zones: Vec<String>,
    }

    impl ManualConvert for VolumeSpec {
        fn fill_hub(&self, hub: &mut super::v1::VolumeSpec) -> Result<(), ConvertError> {
            hub.storage.0.clone_from(&self.size);
            Ok(())
        }
        fn fill_from_hub(&mut self, hub: &super::v1::VolumeSpec) -> Result<(), ConvertError> {
            self.size.clone_from(&hub.storage.0);
            Ok(())
        }
    }
}

const OBJECTS_PER_REVIEW: usize = 100;
const DESIRED: &str = "bench.kubegen.dev/v1";

/// A v1alpha1 object as the apiserver stores it: labels, an annotation, a few spec fields.
fn object(i: usize) -> Value {
    json!({
        "apiVersion": "bench.kubegen.dev/v1alpha1",
        "kind": "Volume",
        "metadata": {
            "name": format!("volume-{i}"),
            "namespace": "bench",
            "uid": format!("5f0c8a52-3a1e-4c1b-9d47-{i:012}"),
            "resourceVersion": format!("{}", 1000 + i),
            "generation": 1,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app": "shop", "tier": format!("t{}", i % 3)},
            "annotations": {"owner": "team-a"},
        },
        "spec": {
            "class": "fast",
            "size": format!("{}Gi", i + 1),
            "replicas": 3,
            "zones": ["eu-1a", "eu-1b"],
        },
    })
}

fn review_body() -> Bytes {
    let objects: Vec<Value> = (0..OBJECTS_PER_REVIEW).map(object).collect();
    let review = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": "bench", "desiredAPIVersion": DESIRED, "objects": objects},
    });
    Bytes::from(serde_json::to_vec(&review).expect("the review serializes"))
}

/// A TLS connection trusting only `ca_pem`, as HTTP/1.1 (the apiserver's webhook client
/// keeps connections alive).
async fn connect(addr: SocketAddr, ca_pem: &str) -> SendRequest<Full<Bytes>> {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca_pem.as_bytes()).expect("the CA parses"))
        .expect("the CA is usable");
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("TLS versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = TcpStream::connect(addr).await.expect("the server listens");
    let name = ServerName::try_from("127.0.0.1").expect("a server name");
    let tls = TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .expect("the TLS handshake succeeds");
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(conn);
    sender
}

/// POSTs the review and reads the whole response.
async fn post(sender: &mut SendRequest<Full<Bytes>>, body: &Bytes) -> Bytes {
    let request = Request::post("/convert")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .body(Full::new(body.clone()))
        .expect("a request");
    sender.ready().await.expect("the connection is ready");
    let response = sender.send_request(request).await.expect("a response");
    assert_eq!(response.status(), StatusCode::OK);
    response
        .into_body()
        .collect()
        .await
        .expect("the body")
        .to_bytes()
}

struct Server {
    addr: SocketAddr,
    ca_pem: String,
}

fn start(rt: &tokio::runtime::Runtime) -> Server {
    let cert = SelfSigned::generate(&["127.0.0.1"]).expect("a certificate");
    let tls = cert.tls().expect("TLS from the certificate");
    let webhooks = Webhooks::new().generated_converters();
    let server = rt.block_on(async {
        WebhookServer::new(webhooks, tls)
            .expect("a server")
            .bind("127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("bound")
    });
    let addr = server.local_addr();
    rt.spawn(server.serve(std::future::pending()));
    Server {
        addr,
        ca_pem: cert.ca_pem,
    }
}

fn conversion(c: &mut Criterion, rt: &tokio::runtime::Runtime, server: &Server) {
    let body = review_body();
    let objects: Vec<Value> = (0..OBJECTS_PER_REVIEW).map(object).collect();

    // The server's answer is the in-process conversion of every object.
    let mut sender = rt.block_on(connect(server.addr, &server.ca_pem));
    let answer: Value =
        serde_json::from_slice(&rt.block_on(post(&mut sender, &body))).expect("JSON");
    let expected: Vec<Value> = objects
        .iter()
        .map(|o| kubegen::convert::convert(o.clone(), DESIRED).expect("converts"))
        .collect();
    assert_eq!(answer["response"]["result"]["status"], "Success");
    assert_eq!(answer["response"]["convertedObjects"], json!(expected));

    let mut group = c.benchmark_group("conversion_review");
    group.throughput(Throughput::Elements(OBJECTS_PER_REVIEW as u64));
    group.bench_function("https_100_objects", |b| {
        b.iter(|| rt.block_on(post(&mut sender, &body)))
    });
    group.bench_function("in_process_100_objects", |b| {
        b.iter(|| {
            objects
                .iter()
                .map(|o| kubegen::convert::convert(o.clone(), DESIRED).expect("converts"))
                .collect::<Vec<_>>()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("conversion_per_object");
    group.throughput(Throughput::Elements(1));
    group.bench_function("in_process", |b| {
        b.iter(|| kubegen::convert::convert(objects[0].clone(), DESIRED).expect("converts"))
    });
    group.finish();
}

/// Sorted request times of `n` reviews, each on `sender` or (when `None`) on a new
/// connection whose TLS handshake is timed with it.
fn latencies(
    rt: &tokio::runtime::Runtime,
    server: &Server,
    n: usize,
    mut sender: Option<SendRequest<Full<Bytes>>>,
) -> Vec<Duration> {
    let body = review_body();
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            rt.block_on(async {
                match &mut sender {
                    Some(sender) => post(sender, &body).await,
                    None => post(&mut connect(server.addr, &server.ca_pem).await, &body).await,
                }
            });
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn report(what: &str, times: &[Duration]) {
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    eprintln!(
        "{what}: n={} p50={:.3?} p90={:.3?} p99={:.3?} max={:.3?}",
        times.len(),
        at(0.50),
        at(0.90),
        at(0.99),
        at(1.0)
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = start(&rt);
    conversion(&mut c, &rt, &server);

    // Latency percentiles, under `cargo bench` only (`cargo test --benches` runs each
    // criterion bench once and skips these).
    if std::env::args().any(|a| a == "--bench") {
        let kept = rt.block_on(connect(server.addr, &server.ca_pem));
        latencies(&rt, &server, 100, Some(kept));
        let kept = rt.block_on(connect(server.addr, &server.ca_pem));
        report(
            "ConversionReview of 100 objects over HTTPS, kept-alive connection",
            &latencies(&rt, &server, 1000, Some(kept)),
        );
        report(
            "ConversionReview of 100 objects over HTTPS, new TLS connection each",
            &latencies(&rt, &server, 1000, None),
        );
    }
    c.final_summary();
}
