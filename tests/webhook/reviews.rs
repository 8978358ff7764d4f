//! Conversion and admission reviews over HTTPS: objects converted in order, a failed conversion, a mutating webhook's JSON patch, a validating webhook's causes, a DELETE's old object.

use super::*;

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
