//! What the direct tests share: moving a frozen clock, and raw requests to the in-memory
//! server for the tests that read answers as the apiserver writes them (codes, Status
//! bodies, warnings) rather than through a typed client.

use std::time::Duration;

use http::{Method, Request};
use kubegen::testing::ApiServer;
use serde_json::Value;

/// Moves the server's frozen clock on by `by` and waits until its controllers have done what
/// fell due.
pub async fn advance(server: &ApiServer, by: Duration) {
    server.clock().advance(by);
    server.settle().await;
}

/// Sends `body` (JSON) to `path` with `method`; the answer's code and body (null when it
/// is not JSON).
pub async fn send(
    server: &ApiServer,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    send_as(server, method, path, body.map(|b| ("application/json", b))).await
}

/// A JSON merge patch of `path`; the answer's code and body.
pub async fn merge_patch(server: &ApiServer, path: &str, patch: Value) -> (u16, Value) {
    let body = Some(("application/merge-patch+json", patch));
    send_as(server, Method::PATCH, path, body).await
}

/// Sends `body` with its content type (none without a body).
async fn send_as(
    server: &ApiServer,
    method: Method,
    path: &str,
    body: Option<(&str, Value)>,
) -> (u16, Value) {
    let mut request = Request::builder().method(method).uri(path);
    let mut bytes = Vec::new();
    if let Some((content_type, body)) = body {
        request = request.header(http::header::CONTENT_TYPE, content_type);
        bytes = serde_json::to_vec(&body).unwrap();
    }
    let response = server
        .client()
        .send(request.body(bytes).unwrap().map(Into::into))
        .await
        .unwrap();
    let code = response.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}
