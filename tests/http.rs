//! The HTTP front, where the conformance suite cannot reach it: the in-memory server over
//! TCP (hyper's limits, set to Go's), and kube-rs' metadata-only reads (`Accept` asking for
//! `PartialObjectMetadata`) through a real client. Each test runs on both servers.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kubegen::testing::TestEnv;

use crate::fixtures::gadgets;

use gadgets::api::Gadget;
use gadgets::gadget;

/// A client that reaches the server over TCP: the in-memory server's listener (so hyper
/// parses the request as Go's server would), or the real apiserver's own.
async fn over_tcp(e: &TestEnv) -> kube::Client {
    let Some(server) = &e.server else {
        return e.client.clone();
    };
    let addr = server.listen().await.unwrap();
    let config = kube::Config::new(format!("http://{addr}").parse().unwrap());
    kube::Client::try_from(config).unwrap()
}

/// The status of a GET of the test's Gadgets with `headers`; a transport error (the
/// server closing the connection while the client still writes) is `None`.
async fn status_with(
    client: &kube::Client,
    e: &TestEnv,
    headers: Vec<(String, String)>,
) -> Option<u16> {
    let uri = format!(
        "/apis/client.kubegen.dev/v1/namespaces/{}/gadgets",
        e.namespace
    );
    let mut request = http::Request::get(uri);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let request = request.body(Vec::new()).unwrap();
    client
        .send(request.map(Into::into))
        .await
        .ok()
        .map(|r| r.status().as_u16())
}

#[kubegen::test]
async fn headers_are_limited_by_size_alone_as_go_limits_them(e: TestEnv) {
    let client = over_tcp(&e).await;
    // Go counts no headers: 150 are fine (hyper's default refused more than 100).
    let many = (0..150)
        .map(|i| (format!("x-h{i}"), "v".to_owned()))
        .collect();
    assert_eq!(status_with(&client, &e, many).await, Some(200));
    // One header of 1 MiB fits the apiserver's MaxHeaderBytes.
    let large = vec![("x-large".to_owned(), "a".repeat(1 << 20))];
    assert_eq!(status_with(&client, &e, large).await, Some(200));
    // Past it, Go's server answers 431 and closes the connection.
    let too_large = vec![("x-large".to_owned(), "a".repeat(1_100_000))];
    let status = status_with(&client, &e, too_large).await;
    assert!(
        matches!(status, Some(431) | None),
        "a header block past 1 MiB is refused, got {status:?}"
    );
    // The connection is gone, not the server.
    let client = over_tcp(&e).await;
    assert_eq!(status_with(&client, &e, Vec::new()).await, Some(200));
}

#[kubegen::test]
async fn metadata_only_reads_answer_partial_object_metadata(e: TestEnv) {
    let api: Api<Gadget> = Api::namespaced(e.client.clone(), &e.namespace);
    let mut labelled = gadget("a", "red");
    labelled.metadata.labels = Some([("team".to_owned(), "x".to_owned())].into());
    api.create(&PostParams::default(), &labelled).await.unwrap();

    let meta = api.get_metadata("a").await.unwrap();
    assert_eq!(meta.metadata.name.as_deref(), Some("a"));
    assert_eq!(
        meta.metadata
            .labels
            .unwrap_or_default()
            .get("team")
            .map(String::as_str),
        Some("x")
    );
    let types = meta.types.unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );

    let list = api.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 1);
    assert_eq!(list.items[0].metadata.name.as_deref(), Some("a"));

    let params = WatchParams::default().disable_bookmarks().timeout(5);
    let mut events = api.watch_metadata(&params, "0").await.unwrap().boxed();
    let first = tokio::time::timeout(Duration::from_secs(10), events.try_next())
        .await
        .expect("an event within 10s")
        .unwrap();
    match first {
        Some(WatchEvent::Added(meta)) => {
            assert_eq!(meta.metadata.name.as_deref(), Some("a"));
            let types = meta.types.unwrap();
            assert_eq!(types.kind, "PartialObjectMetadata");
        }
        other => panic!("expected the object added, got {other:?}"),
    }
}
