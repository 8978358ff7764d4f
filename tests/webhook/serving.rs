//! The HTTPS server itself: bad requests, body limits, the registry's paths, health endpoints, certificate rotation and graceful shutdown.

use super::*;

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
