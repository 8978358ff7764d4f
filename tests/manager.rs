//! The Manager on every backend: shutdown lets in-flight reconciles finish (within a
//! deadline), takes no more keys and releases the Lease, on SIGTERM too; a replica without the
//! Lease serves its endpoints and runnables and reconciles nothing; with `secure-metrics`,
//! `/metrics` over HTTPS answers only ServiceAccounts RBAC lets read it, with
//! controller-runtime's statuses and texts.

use crate::fixtures::gadgets;
use crate::fixtures::reconcilers;
#[cfg(feature = "secure-metrics")]
use crate::fixtures::tls;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gadgets::api::{Gadget, GadgetClientExt};
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::manager::shutdown_on_signal;
use kubegen::testing::TestEnv;
use reconcilers::{Calls, Record, calls_for, eventually, fast_election, gadget, manager, start};

/// Takes `hold` per reconcile, counting the ones that started and finished.
struct Slow {
    hold: Duration,
    started: Arc<AtomicUsize>,
    finished: Arc<AtomicUsize>,
}

impl Reconciler<Gadget> for Slow {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        _: &ObjectKey,
        _: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        self.started.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(self.hold).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        Ok(Action::Done)
    }
}

fn slow(hold: Duration) -> (Slow, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let (started, finished) = (Arc::default(), Arc::default());
    let slow = Slow {
        hold,
        started: Arc::clone(&started),
        finished: Arc::clone(&finished),
    };
    (slow, started, finished)
}

async fn lease_holder(e: &TestEnv) -> Option<String> {
    Api::<Lease>::namespaced(e.client.clone(), &e.namespace)
        .get_opt("manager-test")
        .await
        .unwrap()
        .and_then(|l| l.spec?.holder_identity)
}

#[kubegen::test]
async fn shutdown_lets_in_flight_reconciles_finish_takes_no_more_and_releases_the_lease(
    e: TestEnv,
) {
    let (reconciler, started, finished) = slow(Duration::from_millis(500));
    let manager = manager(&e)
        .leader_election(fast_election(&e, "only"))
        .add(Controller::<Gadget>::new("slow"), reconciler);
    let (stop, run) = start(manager);
    let gadgets = e.client.gadgets(&e.namespace);
    for name in ["a", "b", "c"] {
        gadgets.create(&gadget(name)).await.unwrap();
    }
    eventually("a reconcile is in flight", || {
        started.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(lease_holder(&e).await.as_deref(), Some("only"));
    stop.cancel();
    run.await.unwrap().unwrap();
    // The one in flight finished; one worker took no other key after shutdown began.
    assert_eq!(
        (
            started.load(Ordering::SeqCst),
            finished.load(Ordering::SeqCst)
        ),
        (1, 1)
    );
    assert_eq!(lease_holder(&e).await.as_deref(), Some(""), "released");
}

#[kubegen::test]
async fn a_reconcile_past_the_graceful_deadline_is_abandoned(e: TestEnv) {
    let (reconciler, started, finished) = slow(Duration::from_secs(3600));
    let manager = manager(&e)
        .graceful_shutdown_timeout(Duration::from_millis(300))
        .add(Controller::<Gadget>::new("stuck"), reconciler);
    let (stop, run) = start(manager);
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("s"))
        .await
        .unwrap();
    eventually("the reconcile is in flight", || {
        started.load(Ordering::SeqCst) == 1
    })
    .await;
    let stopping = Instant::now();
    stop.cancel();
    run.await.unwrap().unwrap();
    let took = stopping.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert_eq!(finished.load(Ordering::SeqCst), 0);
}

/// Signals go to the whole process: one signal test at a time.
static SIGNALS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[kubegen::test]
async fn sigterm_stops_the_manager_gracefully(e: TestEnv) {
    let _one_at_a_time = SIGNALS.lock().await;
    let (reconciler, started, finished) = slow(Duration::from_millis(300));
    let manager = manager(&e)
        .leader_election(fast_election(&e, "signalled"))
        .add(Controller::<Gadget>::new("signalled"), reconciler);
    let run = tokio::spawn(manager.run(shutdown_on_signal()));
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("t"))
        .await
        .unwrap();
    eventually("the reconcile is in flight", || {
        started.load(Ordering::SeqCst) == 1
    })
    .await;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the manager stopped")
        .unwrap()
        .unwrap();
    assert_eq!(finished.load(Ordering::SeqCst), 1);
    assert_eq!(lease_holder(&e).await.as_deref(), Some(""), "released");
}

/// `GET path` over plain HTTP/1.1: the status code and the body.
async fn http_get(address: std::net::SocketAddr, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (code, body.to_owned())
}

#[kubegen::test]
async fn endpoints_and_runnables_serve_on_every_replica_and_controllers_only_on_the_leader(
    e: TestEnv,
) {
    use k8s_openapi::api::coordination::v1::LeaseSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
    // Someone else holds the Lease, for an hour.
    let leases = Api::<Lease>::namespaced(e.client.clone(), &e.namespace);
    let now = MicroTime(k8s_openapi::jiff::Timestamp::now());
    let mut held = Lease::default();
    held.metadata.name = Some("manager-test".into());
    held.spec = Some(LeaseSpec {
        holder_identity: Some("someone-else".into()),
        lease_duration_seconds: Some(3600),
        acquire_time: Some(now.clone()),
        renew_time: Some(now),
        lease_transitions: Some(0),
        ..LeaseSpec::default()
    });
    let held = leases.create(&Default::default(), &held).await.unwrap();

    let calls = Calls::default();
    let (started, stopped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (on_start, on_stop) = (started.clone(), stopped.clone());
    let manager = manager(&e)
        .leader_election(fast_election(&e, "waiting"))
        .metrics_address("127.0.0.1:0".parse().unwrap())
        .unwrap()
        .add_runnable(move |stop| async move {
            on_start.fetch_add(1, Ordering::SeqCst);
            stop.cancelled().await;
            on_stop.fetch_add(1, Ordering::SeqCst);
        })
        .add(Controller::<Gadget>::new("gadget"), Record(calls.clone()));
    let address = manager.metrics_local_address().unwrap();
    let (stop, run) = start(manager);
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("w"))
        .await
        .unwrap();
    eventually("the runnable runs", || started.load(Ordering::SeqCst) == 1).await;
    let mut ready = (0, String::new());
    for _ in 0..100 {
        ready = http_get(address, "/readyz").await;
        if ready.0 == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(ready, (200, "ok".to_owned()), "the caches synced");
    let (code, health) = http_get(address, "/healthz?verbose").await;
    assert_eq!(code, 200, "{health}");
    assert!(health.contains("[+]leaderElection ok"), "{health}");
    let (_, metrics) = http_get(address, "/metrics").await;
    assert!(
        metrics.contains("leader_election_master_status{name=\"manager-test\"} 0"),
        "{metrics}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        calls.lock().unwrap().is_empty(),
        "no reconcile while not leading"
    );

    // The holder lets go; this replica takes over and reconciles.
    let mut released = held;
    if let Some(spec) = released.spec.as_mut() {
        spec.holder_identity = Some(String::new());
        spec.lease_duration_seconds = Some(1);
    }
    leases
        .replace("manager-test", &Default::default(), &released)
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "w");
    eventually("the new leader reconciles", || {
        !calls_for(&calls, &key).is_empty()
    })
    .await;
    let (_, metrics) = http_get(address, "/metrics").await;
    assert!(
        metrics.contains("leader_election_master_status{name=\"manager-test\"} 1"),
        "{metrics}"
    );
    stop.cancel();
    run.await.unwrap().unwrap();
    assert_eq!(
        stopped.load(Ordering::SeqCst),
        1,
        "the runnable was told to stop"
    );
}

/// A controller watching a kind the server does not serve (LeaseCandidate is alpha, off by
/// default in kube-apiserver v1.36.2, and not served in memory) fails the Manager at once,
/// naming the kind and the 404, instead of waiting out the cache-sync timeout.
#[kubegen::test]
async fn a_kind_the_server_does_not_serve_fails_the_manager_at_once(e: TestEnv) {
    use k8s_openapi::api::coordination::v1alpha2::LeaseCandidate;
    use kubegen::manager::ManagerError;
    let manager = manager(&e).add(
        Controller::<Gadget>::new("gadget").watches::<LeaseCandidate>(|_| Vec::new()),
        Record(Calls::default()),
    );
    let began = Instant::now();
    let (_stop, run) = start(manager);
    let ended = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the Manager ends well before its 60 s cache-sync timeout")
        .unwrap();
    let Err(ManagerError::NotServed(unserved)) = ended else {
        panic!("expected NotServed, got {ended:?}");
    };
    assert_eq!(
        (unserved.kind.as_str(), unserved.api_version.as_str()),
        ("LeaseCandidate", "coordination.k8s.io/v1alpha2")
    );
    assert_eq!(unserved.plural, "leasecandidates");
    assert!(unserved.answer.starts_with("404"), "{unserved}");
    assert!(
        unserved.to_string().starts_with(
            "LeaseCandidate (coordination.k8s.io/v1alpha2, resource leasecandidates) is not served"
        ),
        "{unserved}"
    );
    assert!(began.elapsed() < Duration::from_secs(20));
}

/// `GET path` over HTTPS (trusting only `ca`), with `token` as a bearer token: the status
/// code, the `Content-Type` and the body.
#[cfg(feature = "secure-metrics")]
async fn https_get(
    address: std::net::SocketAddr,
    ca: &str,
    path: &str,
    token: Option<&str>,
) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tls::tls_stream(address, &[ca]).await;
    let authorization = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: localhost\r\n{authorization}Connection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    // The server closes after answering; a close without TLS close_notify still leaves
    // the whole answer read.
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or_default()
        .to_owned();
    (code, content_type, body.to_owned())
}

/// kubebuilder's secure metrics: a ServiceAccount bound to a ClusterRole with `get` on
/// `/metrics` reads it; one without is forbidden, a request without a token unauthorized and
/// one with a token the apiserver rejects an authentication failure, each with
/// controller-runtime's text; the health endpoints answer anyone.
#[cfg(feature = "secure-metrics")]
#[kubegen::test]
async fn secure_metrics_answer_only_service_accounts_rbac_lets_read_them(e: TestEnv) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    use kube::api::{DeleteParams, PostParams};
    use kubegen::metrics::SecureServing;
    use kubegen::rbac::Verb;
    use kubegen::webhook::SelfSigned;

    let cert = SelfSigned::generate(&["127.0.0.1"]).unwrap();
    let serving = SecureServing::with_tls(cert.tls().unwrap()).unwrap();
    let manager = manager(&e)
        .metrics_address("127.0.0.1:0".parse().unwrap())
        .unwrap()
        .secure_metrics(serving)
        .unwrap();
    let rules = manager.rules();
    assert!(rules.allows("authentication.k8s.io", "tokenreviews", Verb::Create));
    assert!(rules.allows("authorization.k8s.io", "subjectaccessreviews", Verb::Create));
    let address = manager.metrics_local_address().unwrap();
    let (stop, run) = start(manager);

    // Cluster-scoped, so named for the test's namespace.
    let reader = format!("{}-metrics-reader", e.namespace);
    let role: ClusterRole = serde_json::from_value(serde_json::json!({
        "metadata": {"name": reader},
        "rules": [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}],
    }))
    .unwrap();
    let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
        "metadata": {"name": reader},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": reader},
        "subjects": [{"kind": "ServiceAccount", "name": "scraper", "namespace": e.namespace}],
    }))
    .unwrap();
    let roles: Api<ClusterRole> = Api::all(e.client.clone());
    let bindings: Api<ClusterRoleBinding> = Api::all(e.client.clone());
    roles.create(&PostParams::default(), &role).await.unwrap();
    bindings
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let scraper = e.service_account_token("scraper").await.unwrap();
    let stranger = e.service_account_token("stranger").await.unwrap();

    // The apiserver's RBAC authorizer reads the new binding through an informer.
    let ca = cert.ca_pem.as_str();
    let mut answer = (0, String::new(), String::new());
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        answer = https_get(address, ca, "/metrics", Some(&scraper)).await;
        if answer.0 == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (code, content_type, body) = answer;
    assert_eq!(code, 200, "{body}");
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    assert!(body.ends_with("# EOF\n"), "{body}");

    let user = format!("system:serviceaccount:{}:stranger", e.namespace);
    let (code, _, body) = https_get(address, ca, "/metrics", Some(&stranger)).await;
    assert_eq!(
        (code, body),
        (403, format!("Authorization denied for user {user}\n"))
    );
    let (code, _, body) = https_get(address, ca, "/metrics", None).await;
    assert_eq!((code, body.as_str()), (401, "Unauthorized\n"));
    // client-go's bearer-token authenticator makes a rejected token an error, which
    // controller-runtime answers with a 500.
    let (code, _, body) = https_get(address, ca, "/metrics", Some("not-a-token")).await;
    assert_eq!((code, body.as_str()), (500, "Authentication failed\n"));
    let (code, _, body) = https_get(address, ca, "/healthz", None).await;
    assert_eq!((code, body.as_str()), (200, "ok"));

    stop.cancel();
    run.await.unwrap().unwrap();
    bindings
        .delete(&reader, &DeleteParams::default())
        .await
        .unwrap();
    roles
        .delete(&reader, &DeleteParams::default())
        .await
        .unwrap();
}

/// What secure metrics ask the apiserver, answered alike by both backends: a TokenRequest's
/// defaults, a TokenReview of its token (and of tokens it rejects), and SubjectAccessReviews
/// that RBAC allows, that nothing allows, and that are invalid.
#[cfg(feature = "secure-metrics")]
#[kubegen::test]
async fn token_and_access_reviews_answer_as_the_apiserver_does(e: TestEnv) {
    use kube::api::{DeleteParams, PostParams};
    use serde_json::{Value, json};

    let post = |path: String, body: Value| {
        let client = e.client.clone();
        async move {
            let request = http::Request::post(path)
                .header("content-type", "application/json")
                .body(serde_json::to_vec(&body).unwrap())
                .unwrap();
            client.request::<Value>(request).await
        }
    };
    let ns = e.namespace.clone();
    e.service_account_token("reviewed").await.unwrap();
    let accounts = format!("/api/v1/namespaces/{ns}/serviceaccounts");
    let token_request =
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}});
    let issued = post(format!("{accounts}/reviewed/token"), token_request.clone())
        .await
        .unwrap();
    assert_eq!(
        issued["spec"],
        json!({"audiences": ["https://kubernetes.default.svc"], "expirationSeconds": 3600, "boundObjectRef": null})
    );
    assert_eq!(issued["metadata"]["name"], "reviewed");
    let token = issued["status"]["token"].as_str().unwrap().to_owned();
    let mut short = token_request.clone();
    short["spec"]["expirationSeconds"] = json!(60);
    let Err(kube::Error::Api(refused)) = post(format!("{accounts}/reviewed/token"), short).await
    else {
        panic!("a 60 s token is refused")
    };
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (
            422,
            "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"
        )
    );
    let Err(kube::Error::Api(missing)) =
        post(format!("{accounts}/nobody/token"), token_request).await
    else {
        panic!("no token for a missing ServiceAccount")
    };
    assert_eq!(missing.code, 404);

    let reviews = "/apis/authentication.k8s.io/v1/tokenreviews".to_owned();
    let review = |token: &str, audiences: Value| {
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
               "spec": {"token": token, "audiences": audiences}})
    };
    let answer = post(reviews.clone(), review(&token, json!(null)))
        .await
        .unwrap();
    let status = &answer["status"];
    let user = format!("system:serviceaccount:{ns}:reviewed");
    assert_eq!(status["authenticated"], true);
    assert_eq!(status["user"]["username"], user.as_str());
    assert_eq!(
        status["user"]["groups"],
        json!([
            "system:serviceaccounts",
            format!("system:serviceaccounts:{ns}"),
            "system:authenticated"
        ])
    );
    assert_eq!(status["user"]["uid"], issued["metadata"]["uid"]);
    let credential = &status["user"]["extra"]["authentication.kubernetes.io/credential-id"][0];
    assert!(credential.as_str().unwrap().starts_with("JTI="), "{answer}");
    assert_eq!(
        status["audiences"],
        json!(["https://kubernetes.default.svc"])
    );
    let answer = post(reviews.clone(), review("garbage", json!(null)))
        .await
        .unwrap();
    assert_eq!(
        answer["status"],
        json!({"user": {}, "error": "invalid bearer token"})
    );
    let answer = post(reviews.clone(), review(&token, json!(["other"])))
        .await
        .unwrap();
    assert_eq!(
        answer["status"],
        json!({"user": {}, "error": "[invalid bearer token, token audiences [\"https://kubernetes.default.svc\"] is invalid for the target audiences [\"other\"]]"})
    );
    let Err(kube::Error::Api(empty)) = post(reviews, review("", json!(null))).await else {
        panic!("a review needs a token")
    };
    assert_eq!(
        (empty.code, empty.message.as_str()),
        (400, "token is required for TokenReview in authentication")
    );

    // A ClusterRole granting `get` on /debug/* to the ServiceAccount.
    let name = format!("{ns}-debug-reader");
    let roles: Api<k8s_openapi::api::rbac::v1::ClusterRole> = Api::all(e.client.clone());
    let bindings: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> = Api::all(e.client.clone());
    let role = serde_json::from_value(json!({
        "metadata": {"name": name},
        "rules": [{"verbs": ["get"], "nonResourceURLs": ["/debug/*"]}],
    }))
    .unwrap();
    roles.create(&PostParams::default(), &role).await.unwrap();
    let binding = serde_json::from_value(json!({
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": "reviewed", "namespace": ns}],
    }))
    .unwrap();
    bindings
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let access = "/apis/authorization.k8s.io/v1/subjectaccessreviews".to_owned();
    let sar = |spec: Value| json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec});
    let debug = sar(
        json!({"user": user, "nonResourceAttributes": {"path": "/debug/pprof", "verb": "get"}}),
    );
    let mut status = Value::Null;
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        status = post(access.clone(), debug.clone()).await.unwrap()["status"].clone();
        if status["allowed"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let reason = format!(
        "RBAC: allowed by ClusterRoleBinding \"{name}\" of ClusterRole \"{name}\" to ServiceAccount \"reviewed/{ns}\""
    );
    assert_eq!(status, json!({"allowed": true, "reason": reason}));
    let other =
        sar(json!({"user": user, "nonResourceAttributes": {"path": "/debugz", "verb": "get"}}));
    let answer = post(access.clone(), other).await.unwrap();
    assert_eq!(answer["status"], json!({"allowed": false}));
    let masters = sar(
        json!({"user": "x", "groups": ["system:masters"], "nonResourceAttributes": {"path": "/x", "verb": "put"}}),
    );
    let answer = post(access.clone(), masters).await.unwrap();
    assert_eq!(answer["status"], json!({"allowed": true}));
    let Err(kube::Error::Api(invalid)) = post(access, sar(json!({}))).await else {
        panic!("an empty review is invalid")
    };
    assert_eq!(
        (invalid.code, invalid.message.as_str()),
        (
            422,
            ".authorization.k8s.io \"\" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: \"\": at least one of user or group must be specified]"
        )
    );

    bindings
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();
    roles.delete(&name, &DeleteParams::default()).await.unwrap();
}
