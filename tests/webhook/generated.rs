//! conversion-gen's conversions served by the webhook server, round trip.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn generated_conversions_round_trip_through_the_server() {
    let webhooks = typed_webhooks();
    assert!(webhooks.paths().contains(&"/convert".to_owned()));
    let server = Running::self_signed_serving(webhooks).await;
    let originals: Vec<Value> = (0..100).map(alpha_gizmo).collect();
    let (status, body) = server
        .convert("typed.example.com/v1", originals.clone())
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["response"]["result"]["status"], "Success", "{body}");
    let hubs = body["response"]["convertedObjects"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(hubs.len(), 100);
    for (hub, original) in hubs.iter().zip(&originals) {
        assert_eq!(hub["apiVersion"], "typed.example.com/v1");
        assert_eq!(hub["spec"]["storage"], original["spec"]["size"]);
        assert!(hub["spec"].get("size").is_none());
        // The same as conversion-gen's own conversion.
        assert_eq!(
            *hub,
            kubegen::convert::convert(original.clone(), "typed.example.com/v1").unwrap()
        );
    }
    let (_, body) = server.convert("typed.example.com/v1alpha1", hubs).await;
    assert_eq!(body["response"]["result"]["status"], "Success", "{body}");
    assert_eq!(body["response"]["convertedObjects"], json!(originals));

    // A hub field v1alpha1 lacks survives the way down and back.
    let backed_up = gizmo(
        "b",
        json!({"title": "t", "storage": "2Gi", "backup": "daily"}),
    );
    let (_, body) = server
        .convert("typed.example.com/v1alpha1", vec![backed_up.clone()])
        .await;
    let alpha = body["response"]["convertedObjects"][0].clone();
    assert!(alpha["spec"].get("backup").is_none());
    let (_, body) = server.convert("typed.example.com/v1", vec![alpha]).await;
    assert_eq!(body["response"]["convertedObjects"], json!([backed_up]));

    // A conversion error fails the review with its text.
    let mut bad = alpha_gizmo(1);
    bad["spec"]["size"] = json!("12Mi");
    let (_, body) = server
        .convert("typed.example.com/v1", vec![alpha_gizmo(0), bad])
        .await;
    let result = &body["response"]["result"];
    assert_eq!(result["status"], "Failure");
    assert_eq!(
        result["message"],
        "converting object 1 to typed.example.com/v1: Gizmo typed.example.com/v1alpha1: spec.size: \"12Mi\" is not in Gi"
    );
    assert_eq!(body["response"]["convertedObjects"], json!([]));
    server.stop().await;
}
