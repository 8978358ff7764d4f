//! The server itself: injected faults as typed errors, malformed requests, serving on loopback, installing CRDs.

use super::*;

#[kubegen::test(in_memory)]
async fn typed_errors_for_injected_faults(e: TestEnv) {
    let server = e.in_memory_server();
    let gadgets = e.client.gadgets(&e.namespace);
    server.faults().fail_next(1, 500);
    assert!(matches!(gadgets.get("x").await, Err(ClientError::Server(s)) if s.code == 500));
    server.faults().throttle_next(1, 3);
    match gadgets.get("x").await {
        Err(ClientError::TooManyRequests {
            retry_after_seconds,
            ..
        }) => assert_eq!(retry_after_seconds, Some(3)),
        other => panic!("{other:?}"),
    }
    server.faults().fail_next(1, 410);
    assert!(matches!(
        gadgets.list(&ListParams::default()).await,
        Err(ClientError::Gone(_))
    ));
    server.faults().fail_next(1, 504);
    assert!(matches!(
        gadgets.get("x").await,
        Err(ClientError::Timeout(_))
    ));
    assert!(
        matches!(gadgets.get("x").await, Err(ClientError::NotFound(_))),
        "faults are used up"
    );

    server.faults().set_latency(Duration::from_millis(50));
    let started = std::time::Instant::now();
    gadgets.get_opt("x").await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(50));
    server.faults().set_latency(Duration::ZERO);
}

#[kubegen::test]
async fn malformed_requests_get_a_status_not_a_panic(e: TestEnv) {
    let base = format!(
        "/apis/client.kubegen.dev/v1/namespaces/{}/gadgets",
        e.namespace
    );
    let cases = [
        (
            http::Request::post(&base)
                .header("content-type", "application/json")
                .body(b"{not json".to_vec())
                .unwrap(),
            400,
        ),
        (
            http::Request::post(&base).body(b"[1,2]".to_vec()).unwrap(),
            400,
        ),
        (
            http::Request::get(format!("{base}?labelSelector=a%20in%20b"))
                .body(vec![])
                .unwrap(),
            400,
        ),
        (
            http::Request::get(format!("{base}?limit=lots"))
                .body(vec![])
                .unwrap(),
            400,
        ),
        (
            http::Request::patch(format!("{base}/x"))
                .header("content-type", "text/plain")
                .body(b"x".to_vec())
                .unwrap(),
            415,
        ),
        (
            http::Request::get("/apis/nope/v1/things")
                .body(vec![])
                .unwrap(),
            404,
        ),
        (http::Request::put(&base).body(b"{}".to_vec()).unwrap(), 400),
    ];
    for (req, code) in cases {
        let what = format!("{} {}", req.method(), req.uri());
        let err = e.client.request_text(req).await.unwrap_err();
        let kube::Error::Api(status) = err else {
            panic!("{what}: {err}")
        };
        assert_eq!(status.code, code, "{what}: {status:?}");
        assert!(!status.reason.is_empty());
    }
}

// The test runtime is multi-threaded: the server keeps serving while the test waits for kubectl.
#[kubegen::test(in_memory)]
async fn the_server_listens_on_loopback(e: TestEnv) {
    let server = e.in_memory_server();
    let addr = server.listen().await.unwrap();
    let config = kube::Config::new(format!("http://{addr}").parse().unwrap());
    let client = kube::Client::try_from(config).unwrap();
    client
        .gadgets(&e.namespace)
        .create(&gadget("over-tcp", "red"))
        .await
        .unwrap();
    assert_eq!(
        e.client
            .gadgets(&e.namespace)
            .get("over-tcp")
            .await
            .unwrap()
            .spec
            .color,
        "red"
    );

    // kubectl (part of the machine image; skipped where absent) talks to the same server.
    let server_arg = format!("http://{addr}");
    let kubectl = |args: Vec<String>, stdin: Option<String>| {
        let server_arg = server_arg.clone();
        tokio::task::spawn_blocking(move || {
            use std::io::Write;
            let mut cmd = std::process::Command::new("kubectl");
            cmd.arg("--server")
                .arg(&server_arg)
                .args(&args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().ok()?;
            if let Some(text) = stdin {
                child.stdin.take()?.write_all(text.as_bytes()).ok()?;
            }
            child.wait_with_output().ok()
        })
    };
    let run = |args: &[&str], stdin: Option<&str>| {
        kubectl(
            args.iter().map(|a| a.to_string()).collect(),
            stdin.map(str::to_owned),
        )
    };
    let Some(out) = run(
        &[
            "get",
            "gadgets.client.kubegen.dev",
            "-n",
            &e.namespace,
            "-o",
            "json",
            "--request-timeout=20s",
        ],
        None,
    )
    .await
    .unwrap() else {
        return;
    };
    assert!(
        out.status.success(),
        "kubectl get: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["items"][0]["metadata"]["name"], "over-tcp");

    let manifest = format!(
        "apiVersion: client.kubegen.dev/v1\nkind: Gadget\nmetadata:\n  name: from-kubectl\n  namespace: {}\nspec:\n  color: red\n",
        e.namespace
    );
    let ok = |out: Option<std::process::Output>, what: &str| {
        let out = out.expect("kubectl ran");
        assert!(
            out.status.success(),
            "kubectl {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    ok(
        run(&["create", "--validate=false", "-f", "-"], Some(&manifest))
            .await
            .unwrap(),
        "create",
    );
    ok(
        run(
            &[
                "patch",
                "gadget.client.kubegen.dev",
                "from-kubectl",
                "-n",
                &e.namespace,
                "--type=merge",
                "-p",
                r#"{"spec":{"note":"patched"}}"#,
            ],
            None,
        )
        .await
        .unwrap(),
        "patch",
    );
    let applied = manifest.replace("color: red", "color: blue");
    ok(
        run(
            &[
                "apply",
                "--server-side",
                "--force-conflicts",
                "--field-manager=kubectl-test",
                "--validate=false",
                "-f",
                "-",
            ],
            Some(&applied),
        )
        .await
        .unwrap(),
        "apply --server-side",
    );
    let got = e
        .client
        .gadgets(&e.namespace)
        .get("from-kubectl")
        .await
        .unwrap();
    assert_eq!(
        (got.spec.color.as_str(), got.spec.note.as_deref()),
        ("blue", Some("patched"))
    );
    let client_side = manifest.replace("name: from-kubectl", "name: client-side");
    ok(
        run(
            &["apply", "--validate=false", "-f", "-"],
            Some(&client_side),
        )
        .await
        .unwrap(),
        "apply",
    );
    assert!(
        e.client
            .gadgets(&e.namespace)
            .get_opt("client-side")
            .await
            .unwrap()
            .is_some()
    );

    // A watch that the server ends after its timeout.
    let watched = ok(
        run(
            &[
                "get",
                "gadgets.client.kubegen.dev",
                "-n",
                &e.namespace,
                "--watch",
                "--output-watch-events",
                "-o",
                "json",
                "--request-timeout=2s",
            ],
            None,
        )
        .await
        .unwrap(),
        "get --watch",
    );
    assert!(
        watched.contains(r#""type":"ADDED""#) && watched.contains("from-kubectl"),
        "{watched}"
    );
}

#[kubegen::test]
async fn installing_crds_waits_until_they_are_established(e: TestEnv) {
    let names = kubegen::crd::install(&e.client, "kubegen-test", Duration::from_secs(30))
        .await
        .unwrap();
    assert!(
        names.contains(&"gadgets.client.kubegen.dev".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"plains.client.kubegen.dev".to_string()),
        "{names:?}"
    );
}
