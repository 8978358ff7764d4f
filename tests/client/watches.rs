//! Watches: from a resource version, bookmarks, an expired version, dropped streams, slow watchers.

use super::*;

#[kubegen::test]
async fn watch_from_a_resource_version(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let start = gadgets.create(&gadget("before", "red")).await.unwrap();
    let mut stream = gadgets
        .watch(
            &WatchParams::default().timeout(30),
            &start.metadata.resource_version.clone().unwrap(),
        )
        .await
        .unwrap()
        .boxed();
    gadgets.create(&gadget("a", "red")).await.unwrap();
    let mut a = gadgets.get("a").await.unwrap();
    a.spec.color = "blue".into();
    gadgets.update(&a).await.unwrap();
    gadgets.delete("a", &DeleteParams::default()).await.unwrap();
    match next_event(&mut stream).await {
        WatchEvent::Added(g) => assert_eq!(g.metadata.name.as_deref(), Some("a")),
        other => panic!("{other:?}"),
    }
    match next_event(&mut stream).await {
        WatchEvent::Modified(g) => assert_eq!(g.spec.color, "blue"),
        other => panic!("{other:?}"),
    }
    match next_event(&mut stream).await {
        WatchEvent::Deleted(g) => assert_eq!(g.metadata.name.as_deref(), Some("a")),
        other => panic!("{other:?}"),
    }
}

/// A watch event names its type before its object, in the order of Go's `metav1.WatchEvent`:
/// a client reads the type first and decodes the object straight into its kind (kube's
/// `WatchEvent`, adjacently tagged, buffers an object that comes first).
#[kubegen::test]
async fn watch_events_name_their_type_first(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let start = gadgets.create(&gadget("before", "red")).await.unwrap();
    gadgets.create(&gadget("a", "red")).await.unwrap();
    let path = format!(
        "/apis/client.kubegen.dev/v1/namespaces/{}/gadgets?watch=true&resourceVersion={}&timeoutSeconds=1",
        e.namespace,
        rv(&start)
    );
    let request = http::Request::get(path).body(Vec::new()).unwrap();
    let text = e.client.request_text(request).await.unwrap();
    let line = text.lines().next().expect("an event");
    assert!(line.starts_with(r#"{"type":"ADDED","object":{"#), "{line}");
}

#[kubegen::test]
async fn watch_bookmarks_when_asked(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    if let Some(server) = &e.server {
        server.set_bookmark_interval(Duration::from_millis(100));
    }
    let created = gadgets.create(&gadget("a", "red")).await.unwrap();
    let stream = gadgets
        .watch(
            &WatchParams::default().timeout(60),
            &created.metadata.resource_version.clone().unwrap(),
        )
        .await
        .unwrap();
    let bookmark = tokio::time::timeout(
        Duration::from_secs(if e.server.is_some() { 5 } else { 90 }),
        stream
            .try_filter(|e| futures::future::ready(matches!(e, WatchEvent::Bookmark(_))))
            .boxed()
            .next(),
    )
    .await
    .expect("a bookmark in time");
    let Some(Ok(WatchEvent::Bookmark(b))) = bookmark else {
        panic!("{bookmark:?}")
    };
    assert!(b.metadata.resource_version.parse::<u64>().unwrap() >= rv(&created));
}

#[kubegen::test(in_memory)]
async fn watch_from_an_expired_resource_version_is_gone(e: TestEnv) {
    let server = e.in_memory_server(); // needs the retained window to be small
    let gadgets = e.client.gadgets(&e.namespace);
    server.set_watch_window(2);
    let first = gadgets.create(&gadget("a", "red")).await.unwrap();
    for i in 0..5 {
        gadgets
            .create(&gadget(&format!("b{i}"), "red"))
            .await
            .unwrap();
    }
    let mut stream = gadgets
        .watch(
            &WatchParams::default(),
            &first.metadata.resource_version.clone().unwrap(),
        )
        .await
        .unwrap()
        .boxed();
    match tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .unwrap()
    {
        Some(Ok(WatchEvent::Error(status))) => {
            assert_eq!((status.code, status.reason.as_str()), (410, "Expired"))
        }
        Some(Err(ClientError::Gone(_))) => {}
        other => panic!("expected 410 Gone, got {other:?}"),
    }
}

#[kubegen::test(in_memory)]
async fn dropped_watches_end_the_stream(e: TestEnv) {
    let server = e.in_memory_server();
    let gadgets = e.client.gadgets(&e.namespace);
    let mut stream = gadgets
        .watch(&WatchParams::default().disable_bookmarks(), "0")
        .await
        .unwrap()
        .boxed();
    assert_eq!(server.open_watches(), 1);
    server.faults().drop_watches();
    let end = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("the stream ends");
    assert!(end.is_none(), "{end:?}");
}

#[kubegen::test(in_memory)]
async fn concurrent_clients_and_slow_watchers(e: TestEnv) {
    let server = e.in_memory_server();
    server.set_watch_queue(4);
    let gadgets = e.client.gadgets(&e.namespace);
    // A watcher that never reads: the server drops it instead of buffering forever.
    let _idle = gadgets
        .watch(&WatchParams::default().disable_bookmarks(), "0")
        .await
        .unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|t| {
            let gadgets = gadgets.clone();
            tokio::spawn(async move {
                for i in 0..10 {
                    gadgets
                        .create(&gadget(&format!("t{t}-{i}"), "red"))
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let list = gadgets.list(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 80);
    let mut rvs: Vec<u64> = list.items.iter().map(rv).collect();
    rvs.sort();
    rvs.dedup();
    assert_eq!(rvs.len(), 80, "every write got its own resourceVersion");
    assert_eq!(server.open_watches(), 0, "the idle watcher was dropped");
}
