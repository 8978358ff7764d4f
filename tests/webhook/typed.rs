//! Typed defaulting and validating webhooks for a kind: patches of what changed, undecodable objects, every operation, local validation first.

use super::*;

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
