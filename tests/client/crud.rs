//! Writes through the typed client: create, update, status, finalizers, scope, patches, dry run, server-side defaulting and validation, deletes, scale, and the wire format.

use super::*;

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
