//! The Manager on every backend: shutdown lets in-flight reconciles finish (within a
//! deadline), takes no more keys and releases the Lease, on SIGTERM too; a replica without the
//! Lease serves its endpoints and runnables and reconciles nothing.

mod common;
mod reconcilers;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::api::{Gadget, GadgetClientExt};
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
