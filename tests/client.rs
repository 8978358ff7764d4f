//! Typed clients against `kubegen::testing::ApiServer`: every client method and every
//! apiserver semantic operators rely on. With `KUBEGEN_TEST_KUBECONFIG` set, the same tests
//! run against that cluster (after applying this file's CRDs); tests that need fault
//! injection or server knobs skip there.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kubegen::client::{
    ClientError, DeleteParams, Deleted, ListParams, Patch, PatchParams, PostParams, Preconditions,
    WatchEvent, WatchParams,
};
use serde_json::json;

use crate::fixtures::gadgets;

use gadgets::api::*;
use gadgets::{gadget, rv};
use kubegen::testing::TestEnv;

#[kubegen::test]
async fn create_get_list_update_delete(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let created = gadgets.create(&gadget("a", "red")).await.unwrap();
    let meta = &created.metadata;
    assert!(
        meta.uid.as_deref().is_some_and(|u| u.len() == 36),
        "uid is set by the server"
    );
    assert!(
        meta.creation_timestamp.is_some(),
        "creationTimestamp is set by the server"
    );
    assert_eq!(meta.generation, Some(1));
    assert_eq!(meta.namespace.as_deref(), Some(e.namespace.as_str()));

    let got = gadgets.get("a").await.unwrap();
    assert_eq!(got, created);
    assert!(gadgets.get_opt("missing").await.unwrap().is_none());
    assert!(matches!(
        gadgets.get("missing").await,
        Err(ClientError::NotFound(_))
    ));

    let mut changed = got.clone();
    changed.spec.color = "blue".into();
    let updated = gadgets.update(&changed).await.unwrap();
    assert_eq!(updated.spec.color, "blue");
    assert!(rv(&updated) > rv(&created));

    let list = gadgets.list(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 1);
    assert!(list.metadata.resource_version.is_some());

    match gadgets.delete("a", &DeleteParams::default()).await.unwrap() {
        // The in-memory server returns the last state; an apiserver may return a Status.
        Deleted::Gone(last) => assert!(last.is_none_or(|g| g.spec.color == "blue")),
        other => panic!("expected the object gone, got {other:?}"),
    }
    assert!(gadgets.get_opt("a").await.unwrap().is_none());
}

#[kubegen::test]
async fn resource_versions_increase_across_the_server(e: TestEnv) {
    let a = e
        .client
        .gadgets(&e.namespace)
        .create(&gadget("a", "red"))
        .await
        .unwrap();
    let p = e
        .client
        .plains()
        .create(&Plain::new(
            &format!("{}-p", e.namespace),
            PlainSpec { value: "v".into() },
        ))
        .await
        .unwrap();
    let b = e
        .client
        .gadgets(&e.namespace)
        .create(&gadget("b", "red"))
        .await
        .unwrap();
    assert!(
        rv(&a) < rv(&p) && rv(&p) < rv(&b),
        "{} {} {}",
        rv(&a),
        rv(&p),
        rv(&b)
    );
}

#[kubegen::test]
async fn stale_updates_conflict_and_retry_on_conflict_recovers(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let first = gadgets.create(&gadget("a", "red")).await.unwrap();
    let mut newer = first.clone();
    newer.spec.note = Some("newer".into());
    gadgets.update(&newer).await.unwrap();

    let mut stale = first.clone();
    stale.spec.note = Some("stale".into());
    let err = gadgets.update(&stale).await.unwrap_err();
    assert!(err.is_conflict(), "{err}");
    assert_eq!(err.status().unwrap().code, 409);
    assert_eq!(err.status().unwrap().reason, "Conflict");

    let mut calls = 0;
    let done = gadgets
        .retry_on_conflict("a", 3, |g| {
            calls += 1;
            g.spec.note = Some("retried".into());
        })
        .await
        .unwrap();
    assert_eq!(done.spec.note.as_deref(), Some("retried"));
    assert_eq!(calls, 1);

    let mut no_rv = done.clone();
    no_rv.metadata.resource_version = None;
    assert!(
        matches!(
            gadgets.update(&no_rv).await,
            Err(ClientError::Invalid { .. })
        ),
        "PUT needs a resourceVersion"
    );
}

#[kubegen::test]
async fn creating_an_existing_name_is_already_exists(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    let err = gadgets.create(&gadget("a", "blue")).await.unwrap_err();
    assert!(matches!(err, ClientError::AlreadyExists(_)), "{err}");
    assert_eq!(err.status().unwrap().reason, "AlreadyExists");
}

#[kubegen::test]
async fn generation_and_the_status_subresource(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let mut g = gadget("a", "red");
    g.status = Some(GadgetStatus {
        replicas: 9,
        ..Default::default()
    });
    let created = gadgets.create(&g).await.unwrap();
    assert_eq!(
        created.status, None,
        "status is ignored on create when the subresource is on"
    );

    let mut with_status = created.clone();
    with_status.status = Some(GadgetStatus {
        replicas: 2,
        phase: Some("Ready".into()),
        selector: None,
    });
    with_status.spec.color = "ignored".into();
    let after_status = gadgets.update_status(&with_status).await.unwrap();
    assert_eq!(
        after_status.status.as_ref().unwrap().phase.as_deref(),
        Some("Ready")
    );
    assert_eq!(
        after_status.spec.color, "red",
        "the status endpoint ignores spec changes"
    );
    assert_eq!(
        after_status.metadata.generation,
        Some(1),
        "status changes do not bump generation"
    );

    let mut spec_change = after_status.clone();
    spec_change.spec.color = "blue".into();
    spec_change.status = None;
    let after_spec = gadgets.update(&spec_change).await.unwrap();
    assert_eq!(
        after_spec.metadata.generation,
        Some(2),
        "spec changes bump generation"
    );
    assert_eq!(
        after_spec.status, after_status.status,
        "the main endpoint ignores status changes"
    );

    let patched = gadgets
        .patch_status(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Done"}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.status.unwrap().phase.as_deref(), Some("Done"));
    assert_eq!(
        gadgets.get_status("a").await.unwrap().metadata.generation,
        Some(2)
    );
}

#[kubegen::test]
async fn finalizers_hold_deletion(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let mut g = gadget("a", "red");
    g.metadata.finalizers = Some(vec!["kubegen.dev/cleanup".into()]);
    gadgets.create(&g).await.unwrap();
    let held = match gadgets.delete("a", &DeleteParams::default()).await.unwrap() {
        Deleted::Terminating(o) => o,
        other => panic!("expected Terminating, got {other:?}"),
    };
    assert!(held.metadata.deletion_timestamp.is_some());
    assert!(
        gadgets.get_opt("a").await.unwrap().is_some(),
        "still there while the finalizer is set"
    );
    let mut release = gadgets.get("a").await.unwrap();
    release.metadata.finalizers = Some(vec![]);
    gadgets.update(&release).await.unwrap();
    assert!(
        gadgets.get_opt("a").await.unwrap().is_none(),
        "removed with its last finalizer"
    );
}

#[kubegen::test]
async fn scope_is_enforced(e: TestEnv) {
    let paths = [
        format!(
            "/apis/client.kubegen.dev/v1/namespaces/{}/plains",
            e.namespace
        ),
        "/apis/client.kubegen.dev/v1/gadgets/a".to_string(),
    ];
    for path in paths {
        let req = http::Request::get(&path).body(Vec::new()).unwrap();
        let err = e.client.request_text(req).await.unwrap_err();
        let kube::Error::Api(status) = err else {
            panic!("{err}")
        };
        assert_eq!(status.code, 404, "{path}");
    }
    let plain = e
        .client
        .plains()
        .create(&Plain::new(
            &format!("{}-p", e.namespace),
            PlainSpec { value: "x".into() },
        ))
        .await
        .unwrap();
    assert_eq!(
        plain.metadata.namespace, None,
        "cluster-scoped objects have no namespace"
    );
}

#[kubegen::test]
async fn label_selectors(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    for (name, labels) in [
        ("a", vec![("app", "web"), ("tier", "front")]),
        ("b", vec![("app", "api")]),
        ("c", vec![("app", "web")]),
    ] {
        let mut g = gadget(name, "red");
        g.metadata.labels = Some(
            labels
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        gadgets.create(&g).await.unwrap();
    }
    let names = |list: kubegen::List<Gadget>| {
        list.items
            .into_iter()
            .map(|g| g.metadata.name.unwrap())
            .collect::<Vec<_>>()
    };
    for (selector, expected) in [
        ("app=web", vec!["a", "c"]),
        ("app==web", vec!["a", "c"]),
        ("app!=web", vec!["b"]),
        ("app in (api,web)", vec!["a", "b", "c"]),
        ("app notin (web)", vec!["b"]),
        ("tier", vec!["a"]),
        ("!tier", vec!["b", "c"]),
        ("app=web,!tier", vec!["c"]),
    ] {
        let list = gadgets
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(list), expected, "{selector}");
    }
    let err = gadgets
        .list(&ListParams::default().labels("app in web"))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::BadRequest(_)), "{err}");
}

#[kubegen::test]
async fn field_selectors(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    gadgets.create(&gadget("b", "blue")).await.unwrap();
    let one = |fields: &'static str| {
        let gadgets = gadgets.clone();
        async move {
            gadgets
                .list(&ListParams::default().fields(fields))
                .await
                .map(|l| l.items.len())
        }
    };
    assert_eq!(one("metadata.name=a").await.unwrap(), 1);
    assert_eq!(one("metadata.name!=a").await.unwrap(), 1);
    assert_eq!(
        one("spec.color=blue").await.unwrap(),
        1,
        "declared selectable fields work"
    );
    let ns_filter: &'static str =
        Box::leak(format!("metadata.namespace={}", e.namespace).into_boxed_str());
    assert_eq!(one(ns_filter).await.unwrap(), 2);
    assert!(
        matches!(one("spec.note=x").await, Err(ClientError::BadRequest(_))),
        "undeclared fields are refused"
    );
}

#[kubegen::test]
async fn pagination_with_limit_and_continue(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    for i in 0..7 {
        gadgets
            .create(&gadget(&format!("g{i}"), "red"))
            .await
            .unwrap();
    }
    let first = gadgets.list(&ListParams::default().limit(3)).await.unwrap();
    assert_eq!(first.items.len(), 3);
    let token = first.metadata.continue_.clone().expect("a continue token");
    assert_eq!(first.metadata.remaining_item_count, Some(4));
    let mut params = ListParams::default().limit(3);
    params.continue_token = Some(token);
    let second = gadgets.list(&params).await.unwrap();
    assert_eq!(second.items[0].metadata.name.as_deref(), Some("g3"));
    let all = gadgets
        .list_all(&ListParams::default().limit(2))
        .await
        .unwrap();
    let names: Vec<String> = all
        .items
        .into_iter()
        .map(|g| g.metadata.name.unwrap())
        .collect();
    assert_eq!(names, (0..7).map(|i| format!("g{i}")).collect::<Vec<_>>());
}

async fn next_event(
    stream: &mut (impl futures::Stream<Item = kubegen::client::Result<WatchEvent<Gadget>>> + Unpin),
) -> WatchEvent<Gadget> {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an event in time")
            .expect("stream open")
            .unwrap();
        if !matches!(event, WatchEvent::Bookmark(_)) {
            return event;
        }
    }
}

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

#[kubegen::test]
async fn merge_json_and_apply_patches(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    let merged = gadgets
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"note": "merged"}})),
        )
        .await
        .unwrap();
    assert_eq!(merged.spec.note.as_deref(), Some("merged"));
    let ops: json_patch::Patch = serde_json::from_value(json!([
        {"op": "test", "path": "/spec/color", "value": "red"},
        {"op": "replace", "path": "/spec/color", "value": "green"},
    ]))
    .unwrap();
    let jsoned = gadgets
        .patch("a", &PatchParams::default(), &Patch::Json::<()>(ops))
        .await
        .unwrap();
    assert_eq!(jsoned.spec.color, "green");
    let failing: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/spec/color", "value": "red"}]))
            .unwrap();
    assert!(
        gadgets
            .patch("a", &PatchParams::default(), &Patch::Json::<()>(failing))
            .await
            .is_err()
    );

    // Server-side apply: two managers, a conflict, and force.
    let mine = json!({"apiVersion": "client.kubegen.dev/v1", "kind": "Gadget", "metadata": {"name": "s"}, "spec": {"color": "red", "replicas": 3}});
    let created = gadgets
        .patch("s", &PatchParams::apply("alice"), &Patch::Apply(&mine))
        .await
        .unwrap();
    assert_eq!(created.spec.replicas, Some(3));
    let managers: Vec<String> = created
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert!(managers.contains(&"alice".to_string()), "{managers:?}");
    let theirs = json!({"apiVersion": "client.kubegen.dev/v1", "kind": "Gadget", "metadata": {"name": "s"}, "spec": {"color": "blue"}});
    let err = gadgets
        .patch("s", &PatchParams::apply("bob"), &Patch::Apply(&theirs))
        .await
        .unwrap_err();
    assert!(err.is_conflict(), "{err}");
    let causes = &err.status().unwrap().details.as_ref().unwrap().causes;
    assert_eq!(causes[0].field, ".spec.color");
    let forced = gadgets
        .patch(
            "s",
            &PatchParams::apply("bob").force(),
            &Patch::Apply(&theirs),
        )
        .await
        .unwrap();
    assert_eq!(forced.spec.color, "blue");
    // Alice re-applies without replicas: she no longer owns it, so it is removed.
    let alice_again = json!({"apiVersion": "client.kubegen.dev/v1", "kind": "Gadget", "metadata": {"name": "s"}, "spec": {}});
    let after = gadgets
        .patch(
            "s",
            &PatchParams::apply("alice"),
            &Patch::Apply(&alice_again),
        )
        .await
        .unwrap();
    assert_eq!(after.spec.color, "blue", "bob's field stays");
    assert_eq!(
        after.spec.replicas,
        Some(1),
        "alice's dropped field is removed (then defaulted by the schema)"
    );

    let typed = gadgets
        .apply(&gadget("typed", "red"), "carol", false)
        .await
        .unwrap();
    assert_eq!(typed.spec.color, "red");
}

#[kubegen::test]
async fn generate_name_and_dry_run(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    let mut g = gadget("", "red");
    g.metadata.name = None;
    g.metadata.generate_name = Some("gen-".into());
    let a = gadgets.create(&g).await.unwrap();
    let b = gadgets.create(&g).await.unwrap();
    let (na, nb) = (a.metadata.name.unwrap(), b.metadata.name.unwrap());
    assert!(
        na.starts_with("gen-") && na.len() == 9 && na != nb,
        "{na} {nb}"
    );

    let dry = gadgets
        .create_with(
            &PostParams {
                dry_run: true,
                ..Default::default()
            },
            &gadget("dry", "red"),
        )
        .await
        .unwrap();
    assert_eq!(dry.metadata.name.as_deref(), Some("dry"));
    assert!(
        gadgets.get_opt("dry").await.unwrap().is_none(),
        "dry run stores nothing"
    );
}

#[kubegen::test]
async fn server_side_defaults_pruning_and_validation(e: TestEnv) {
    let raw: kube::Api<kube::core::DynamicObject> = kube::Api::namespaced_with(
        e.client.clone(),
        &e.namespace,
        &kube::core::ApiResource::erase::<Gadget>(&()),
    );
    let object = |spec: serde_json::Value| -> kube::core::DynamicObject {
        serde_json::from_value(json!({"apiVersion": "client.kubegen.dev/v1", "kind": "Gadget", "metadata": {"name": "raw"}, "spec": spec})).unwrap()
    };
    let created = raw
        .create(
            &PostParams::default(),
            &object(json!({"color": "red", "unknown": 1, "extra": {"kept": true}})),
        )
        .await
        .unwrap();
    assert_eq!(
        created.data["spec"]["replicas"], 1,
        "schema default applied"
    );
    assert!(
        created.data["spec"].get("unknown").is_none(),
        "unknown field pruned"
    );
    assert_eq!(
        created.data["spec"]["extra"],
        json!({"kept": true}),
        "preserve-unknown-fields keeps it"
    );

    let cases = [
        (json!({"color": 3}), "spec.color", "FieldValueTypeInvalid"),
        (json!({}), "spec.color", "FieldValueRequired"),
        (
            json!({"color": "red", "size": "Huge"}),
            "spec.size",
            "FieldValueNotSupported",
        ),
        (
            json!({"color": "red", "replicas": 11}),
            "spec.replicas",
            "FieldValueInvalid",
        ),
        (json!({"color": "Red"}), "spec.color", "FieldValueInvalid"),
        (
            json!({"color": "red", "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}, {"name": "c", "port": 3}, {"name": "d", "port": 4}]}),
            "spec.ports",
            "FieldValueTooMany",
        ),
        (
            json!({"color": "red", "ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]}),
            "spec.ports[1]",
            "FieldValueDuplicate",
        ),
    ];
    for (i, (spec, field, reason)) in cases.into_iter().enumerate() {
        let mut o = object(spec.clone());
        o.metadata.name = Some(format!("bad{i}"));
        let err = ClientError::from(raw.create(&PostParams::default(), &o).await.unwrap_err());
        let ClientError::Invalid { causes, status } = &err else {
            panic!("{spec}: {err}")
        };
        assert_eq!(status.code, 422);
        assert!(
            causes
                .iter()
                .any(|c| c.field == field && c.reason == reason),
            "{spec}: {causes:?}"
        );
    }
}

#[kubegen::test]
async fn delete_preconditions_and_collections(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    let wrong_uid = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("not-the-uid".into()),
            resource_version: None,
        }),
        ..Default::default()
    };
    assert!(
        gadgets
            .delete("a", &wrong_uid)
            .await
            .unwrap_err()
            .is_conflict()
    );
    assert!(
        gadgets
            .delete("a", &DeleteParams::foreground())
            .await
            .is_ok(),
        "propagation policy is accepted"
    );

    for (name, app) in [("x", "web"), ("y", "web"), ("z", "api")] {
        let mut g = gadget(name, "red");
        g.metadata.labels = Some(BTreeMap::from([("app".to_string(), app.to_string())]));
        gadgets.create(&g).await.unwrap();
    }
    let deleted = gadgets
        .delete_collection(
            &DeleteParams::default(),
            &ListParams::default().labels("app=web"),
        )
        .await
        .unwrap();
    assert_eq!(deleted.items.len(), 2);
    // Only the labelled objects: "a" may linger on a real cluster until its foreground
    // deletion is finished by the garbage collector.
    let left: Vec<String> = gadgets
        .list(&ListParams::default().labels("app"))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|g| g.metadata.name.unwrap())
        .collect();
    assert_eq!(left, ["z"]);
}

#[kubegen::test]
async fn the_scale_subresource(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    let scale = gadgets.get_scale("a").await.unwrap();
    assert_eq!(scale.spec.as_ref().unwrap().replicas, Some(2));
    let mut bigger = scale.clone();
    bigger.spec.as_mut().unwrap().replicas = Some(5);
    let updated = gadgets.update_scale("a", &bigger).await.unwrap();
    assert_eq!(updated.spec.unwrap().replicas, Some(5));
    assert_eq!(gadgets.get("a").await.unwrap().spec.replicas, Some(5));
    let patched = gadgets
        .patch_scale(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 7}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.unwrap().replicas, Some(7));
    assert_eq!(
        gadgets.get("a").await.unwrap().metadata.generation,
        Some(3),
        "scaling changes the spec"
    );
}

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

#[kubegen::test]
async fn defaults_are_applied_client_side_only_when_asked(e: TestEnv) {
    let mut g = gadget("plain", "red");
    g.spec.replicas = None;
    let sent_without = e
        .client
        .gadgets(&e.namespace)
        .create_with(
            &PostParams {
                dry_run: true,
                ..Default::default()
            },
            &g,
        )
        .await
        .unwrap();
    assert_eq!(
        sent_without.spec.replicas,
        Some(1),
        "the server's schema default"
    );
    let mut h = gadget("h", "red");
    h.spec.replicas = None;
    h.metadata.labels = Some(BTreeMap::from([("k".to_string(), "v".to_string())]));
    let with = e.client.gadgets(&e.namespace).with_defaults();
    assert_eq!(with.create(&h).await.unwrap().spec.replicas, Some(1));
}

#[kubegen::test]
async fn wire_format_has_api_version_and_kind(e: TestEnv) {
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("a", "red"))
        .await
        .unwrap();
    let req = http::Request::get(format!(
        "/apis/client.kubegen.dev/v1/namespaces/{}/gadgets/a",
        e.namespace
    ))
    .body(vec![])
    .unwrap();
    let text = e.client.request_text(req).await.unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (v["apiVersion"].as_str(), v["kind"].as_str()),
        (Some("client.kubegen.dev/v1"), Some("Gadget"))
    );
}

#[kubegen::test]
async fn discovery_finds_the_kinds(e: TestEnv) {
    let discovery = kube::Discovery::new(e.client.clone())
        .filter(&["client.kubegen.dev"])
        .run()
        .await
        .unwrap();
    let group = discovery.get("client.kubegen.dev").expect("the group");
    let kinds: Vec<String> = group
        .recommended_resources()
        .into_iter()
        .map(|(r, _)| r.kind)
        .collect();
    assert!(
        kinds.contains(&"Gadget".to_string()) && kinds.contains(&"Plain".to_string()),
        "{kinds:?}"
    );
    let crds: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> = kube::Api::all(e.client.clone());
    let names: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert!(
        names.contains(&"gadgets.client.kubegen.dev".to_string()),
        "{names:?}"
    );
}

/// A CRD none of whose versions is served (`crd::Policy`, registered in this binary and so
/// installed on every backend) is stored, but its group is not discovered: not in `/apis`,
/// and `/apis/<group>` is 404.
#[kubegen::test]
async fn a_group_with_no_served_version_is_not_discovered(e: TestEnv) {
    let raw = |path: &str| http::Request::get(path).body(Vec::new()).unwrap();
    let groups: serde_json::Value = e.client.request(raw("/apis")).await.unwrap();
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert!(names.contains(&"client.kubegen.dev"), "{names:?}");
    assert!(!names.contains(&"keys.example.com"), "{names:?}");
    let missing = e
        .client
        .request::<serde_json::Value>(raw("/apis/keys.example.com"))
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, kube::Error::Api(status) if status.code == 404),
        "{missing:?}"
    );
}

#[kubegen::test]
async fn the_all_namespaces_client_lists_and_watches(e: TestEnv) {
    let ns2 = format!("{}-b", e.namespace);
    e.create_namespace(&ns2).await.unwrap();
    // Other tests share a real apiserver: this test's objects carry a label of their own.
    let label = ("test".to_string(), e.namespace.clone());
    let selector = format!("test={}", e.namespace);
    for (ns, name) in [(&e.namespace, "a"), (&ns2, "b")] {
        let mut g = gadget(name, "red");
        g.metadata.labels = Some(BTreeMap::from([label.clone()]));
        e.client.gadgets(ns).create(&g).await.unwrap();
    }
    let all = e.client.gadgets_all_namespaces();
    assert_eq!(
        all.list(&ListParams::default().labels(&selector))
            .await
            .unwrap()
            .items
            .len(),
        2
    );
    let mut stream = all
        .watch(
            &WatchParams::default().labels(&selector).disable_bookmarks(),
            "0",
        )
        .await
        .unwrap()
        .boxed();
    let mut seen = Vec::new();
    for _ in 0..2 {
        if let WatchEvent::Added(g) = next_event(&mut stream).await {
            seen.push(g.metadata.namespace.unwrap());
        }
    }
    seen.sort();
    assert_eq!(seen, [e.namespace.clone(), ns2]);
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

/// A built-in kind reaches the subresources kube-apiserver serves for it through the typed
/// client: a Deployment's `/scale` and `/status`.
#[kubegen::test]
async fn a_deployments_scale_and_status_through_the_typed_client(e: TestEnv) {
    use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
    use kubegen::builtin::BuiltinClientExt;
    let deployment: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }))
    .unwrap();
    let deployments = e.client.deployments(&e.namespace);
    deployments.create(&deployment).await.unwrap();
    assert_eq!(
        deployments
            .get_scale("web")
            .await
            .unwrap()
            .spec
            .unwrap()
            .replicas,
        Some(1)
    );
    let patch = serde_json::json!({"spec": {"replicas": 3}});
    let scaled = deployments
        .patch_scale("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(scaled.spec.unwrap().replicas, Some(3));
    let status = serde_json::json!({"status": {"observedGeneration": 2, "replicas": 3}});
    let written = deployments
        .patch_status("web", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(
        written
            .status
            .as_ref()
            .and_then(|s: &DeploymentStatus| s.replicas),
        Some(3)
    );
    let read = deployments.get_status("web").await.unwrap();
    assert_eq!(read.spec.replicas, Some(3));
    assert_eq!(read.status.and_then(|s| s.observed_generation), Some(2));
}

/// Built-in kinds have typed clients the kubegen way: the Lease both servers serve, through
/// `client.leases(ns)`, `leases_all_namespaces()`, and a cluster-scoped kind's `namespaces()`.
#[kubegen::test]
async fn builtin_kinds_have_typed_clients(e: TestEnv) {
    use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
    use kubegen::builtin::BuiltinClientExt;
    let mut lease = Lease::default();
    lease.metadata.name = Some("typed".into());
    lease.spec = Some(LeaseSpec {
        holder_identity: Some("a".into()),
        ..LeaseSpec::default()
    });
    let leases = e.client.leases(&e.namespace);
    let created = leases.create(&lease).await.unwrap();
    assert_eq!(
        created.spec.and_then(|s| s.holder_identity).as_deref(),
        Some("a")
    );
    let everywhere = e.client.leases_all_namespaces();
    let listed = everywhere.list(&ListParams::default()).await.unwrap();
    assert!(
        listed
            .items
            .iter()
            .any(|l| l.metadata.name.as_deref() == Some("typed"))
    );
    let patched = leases
        .patch(
            "typed",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"holderIdentity": "b"}})),
        )
        .await
        .unwrap();
    assert_eq!(
        patched.spec.and_then(|s| s.holder_identity).as_deref(),
        Some("b")
    );
    // A cluster-scoped kind takes no namespace (compiles to `/api/v1/namespaces`).
    let _ = e.client.namespaces();
}
