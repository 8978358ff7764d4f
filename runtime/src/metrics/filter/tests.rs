use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use http_body_util::{BodyExt, Full};
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::{AuthenticationAndAuthorization, Rejection, bearer_token};

fn headers(authorization: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::AUTHORIZATION,
        HeaderValue::from_str(authorization).unwrap(),
    );
    headers
}

#[test]
fn the_bearer_token_is_read_as_client_go_reads_it() {
    assert_eq!(bearer_token(&HeaderMap::new()), None);
    assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
    assert_eq!(bearer_token(&headers("  bEaReR abc  ")), Some("abc"));
    // A third word is ignored; an empty token (two spaces) is none.
    assert_eq!(bearer_token(&headers("Bearer abc def")), Some("abc"));
    assert_eq!(bearer_token(&headers("Bearer  abc")), None);
    assert_eq!(bearer_token(&headers("Bearer")), None);
    assert_eq!(bearer_token(&headers("Basic dXNlcjpwYXNz")), None);
    assert_eq!(bearer_token(&headers("")), None);
}

/// What the fake apiserver answers a review with: the status code and the status object.
type Answer = (u16, Value);

/// The requests the fake apiserver received: path and JSON body.
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// A kube client over a fake apiserver answering TokenReviews with `token_review` and
/// SubjectAccessReviews with `access_review`, recording each request's path and body.
fn apiserver(
    token_review: Answer,
    access_review: Answer,
) -> (AuthenticationAndAuthorization, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let service = tower::service_fn({
        let seen = seen.clone();
        move |request: http::Request<kube::client::Body>| {
            let seen = seen.clone();
            let (token_review, access_review) = (token_review.clone(), access_review.clone());
            async move {
                let path = request.uri().path().to_owned();
                let body = request.into_body().collect().await?.to_bytes();
                let mut object: Value = serde_json::from_slice(&body)?;
                seen.lock().push((path.clone(), object.clone()));
                let (code, status) = match path.ends_with("/tokenreviews") {
                    true => token_review,
                    false => access_review,
                };
                let body = if code == 201 {
                    object["status"] = status;
                    object
                } else {
                    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                           "message": "etcd is down", "reason": "InternalError", "code": code})
                };
                let response = http::Response::builder()
                    .status(code)
                    .header("content-type", "application/json")
                    .body(Full::new(Bytes::from(serde_json::to_vec(&body)?)))?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(response)
            }
        }
    });
    let client = kube::Client::new(service, "default");
    (AuthenticationAndAuthorization::new(client), seen)
}

fn authenticated() -> Answer {
    let user = json!({
        "username": "system:serviceaccount:monitoring:prometheus",
        "uid": "u-1",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:monitoring"],
        "extra": {"authentication.kubernetes.io/credential-id": ["JTI=1"]},
    });
    (201, json!({"authenticated": true, "user": user}))
}

/// `GET /metrics` with `authorization` through `filter`.
async fn get_metrics(
    filter: &AuthenticationAndAuthorization,
    authorization: &str,
) -> Result<String, Rejection> {
    filter
        .check(&Method::GET, "/metrics", &headers(authorization))
        .await
}

fn rejection(status: StatusCode, message: &str) -> Rejection {
    Rejection {
        status,
        message: message.to_owned(),
    }
}

#[tokio::test]
async fn an_allowed_user_passes_and_the_reviews_carry_what_controller_runtime_sends() {
    let (filter, seen) = apiserver(authenticated(), (201, json!({"allowed": true})));
    let user = filter
        .check(&Method::HEAD, "/metrics", &headers("Bearer t0ken"))
        .await;
    assert_eq!(
        user,
        Ok("system:serviceaccount:monitoring:prometheus".to_owned())
    );
    let seen = seen.lock();
    assert_eq!(seen[0].0, "/apis/authentication.k8s.io/v1/tokenreviews");
    assert_eq!(seen[0].1["spec"], json!({"token": "t0ken"}));
    assert_eq!(
        seen[1].0,
        "/apis/authorization.k8s.io/v1/subjectaccessreviews"
    );
    assert_eq!(
        seen[1].1["spec"],
        json!({
            "user": "system:serviceaccount:monitoring:prometheus",
            "uid": "u-1",
            // The authenticated group is added when the review leaves it out.
            "groups": ["system:serviceaccounts", "system:serviceaccounts:monitoring", "system:authenticated"],
            "extra": {"authentication.kubernetes.io/credential-id": ["JTI=1"]},
            "nonResourceAttributes": {"path": "/metrics", "verb": "head"},
        })
    );
}

#[tokio::test]
async fn a_request_without_a_usable_bearer_token_is_unauthorized_without_asking() {
    let (filter, seen) = apiserver(authenticated(), (201, json!({"allowed": true})));
    for h in [
        HeaderMap::new(),
        headers("Basic dXNlcjpwYXNz"),
        headers("Bearer "),
    ] {
        let answer = filter.check(&Method::GET, "/metrics", &h).await;
        assert_eq!(
            answer,
            Err(rejection(StatusCode::UNAUTHORIZED, "Unauthorized"))
        );
    }
    assert!(seen.lock().is_empty());
}

#[tokio::test]
async fn a_token_the_review_rejects_or_a_failed_review_is_an_authentication_failure() {
    let refused = (201, json!({"user": {}, "error": "invalid bearer token"}));
    let failed = (500, Value::Null);
    for token_review in [refused, failed, (201, json!({}))] {
        let (filter, seen) = apiserver(token_review, (201, json!({"allowed": true})));
        let answer = get_metrics(&filter, "Bearer nope").await;
        assert_eq!(
            answer,
            Err(rejection(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Authentication failed"
            ))
        );
        // No access review for a user nobody vouched for.
        assert_eq!(seen.lock().len(), 1);
    }
}

#[tokio::test]
async fn a_user_not_allowed_is_forbidden_and_a_failed_access_review_is_a_500_naming_the_user() {
    let (filter, _) = apiserver(authenticated(), (201, json!({"allowed": false})));
    let answer = get_metrics(&filter, "Bearer t").await;
    assert_eq!(
        answer,
        Err(rejection(
            StatusCode::FORBIDDEN,
            "Authorization denied for user system:serviceaccount:monitoring:prometheus"
        ))
    );
    let (filter, _) = apiserver(authenticated(), (503, Value::Null));
    let answer = get_metrics(&filter, "Bearer t").await;
    assert_eq!(
        answer,
        Err(rejection(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Authorization for user system:serviceaccount:monitoring:prometheus failed"
        ))
    );
}
