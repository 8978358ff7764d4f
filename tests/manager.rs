//! The Manager and its controllers, on every backend: owned children and mapped watches
//! queue their owner's key, errors back off per key, `RequeueAfter` comes back, shutdown
//! lets in-flight reconciles finish (within a deadline) and releases the Lease, on SIGTERM
//! too.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::api::{Gadget, GadgetClientExt, GadgetSpec};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::Api;
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::informer::SharedInformerFactory;
use kubegen::leaderelection::LeaderElectionConfig;
use kubegen::manager::{LeaderElection, Manager, ManagerError, shutdown_on_signal};
use kubegen::prelude::*;
use kubegen::testing::TestEnv;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A Part belongs to a Gadget (through a controller owner reference).
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(group = "manager.kubegen.dev", version = "v1", kind = "Part")]
pub struct PartSpec {
    /// Which gadget it is for, as a plain field (the mapped watch reads it).
    pub gadget: String,
}

fn gadget(name: &str) -> Gadget {
    Gadget::new(
        name,
        GadgetSpec {
            replicas: Some(1),
            color: "red".into(),
            size: None,
            ports: vec![],
            extra: None,
            note: None,
        },
    )
}

/// Every reconcile, in order: the key and when.
type Calls = Arc<Mutex<Vec<(ObjectKey, Instant)>>>;

fn calls_for(calls: &Calls, key: &ObjectKey) -> Vec<Instant> {
    let calls = calls.lock().unwrap();
    calls
        .iter()
        .filter(|(k, _)| k == key)
        .map(|(_, t)| *t)
        .collect()
}

async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn manager(e: &TestEnv) -> Manager {
    Manager::with_cache(SharedInformerFactory::new(e.client.clone()).namespace(&e.namespace))
        .cache_sync_timeout(Duration::from_secs(60))
}

fn start(manager: Manager) -> (CancellationToken, JoinHandle<Result<(), ManagerError>>) {
    let stop = CancellationToken::new();
    (stop.clone(), tokio::spawn(manager.run(stop)))
}

/// Records calls; makes sure every Gadget has a Part it controls.
struct Parts {
    client: kube::Client,
    calls: Calls,
}

impl Reconciler<Gadget> for Parts {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        gadget: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        self.calls
            .lock()
            .unwrap()
            .push((key.clone(), Instant::now()));
        let Some(gadget) = gadget else {
            return Ok(Action::Done);
        };
        let namespace = key.namespace().unwrap_or_default();
        let parts = Api::<Part>::namespaced(self.client.clone(), namespace);
        let name = format!("{}-part", key.name());
        if parts.get_opt(&name).await?.is_none() {
            let mut part = Part::new(
                &name,
                PartSpec {
                    gadget: key.name().into(),
                },
            );
            part.metadata.owner_references = Some(vec![OwnerReference {
                api_version: "client.kubegen.dev/v1".into(),
                kind: "Gadget".into(),
                name: key.name().into(),
                uid: gadget.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: None,
            }]);
            parts.create(&Default::default(), &part).await?;
        }
        Ok(Action::Done)
    }
}

#[kubegen::test]
async fn an_owned_childs_events_reconcile_its_owner(e: TestEnv) {
    let calls = Calls::default();
    let reconciler = Parts {
        client: e.client.clone(),
        calls: calls.clone(),
    };
    let (stop, run) = start(manager(&e).add(
        Controller::<Gadget>::new("gadget").owns::<Part>(),
        reconciler,
    ));
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("g")).await.unwrap();
    let parts = Api::<Part>::namespaced(e.client.clone(), &e.namespace);
    let key = ObjectKey::new(Some(&e.namespace), "g");
    eventually("the Part exists", || calls_for(&calls, &key).len() >= 2).await;
    assert!(parts.get_opt("g-part").await.unwrap().is_some());
    // Deleting the child wakes its owner, which puts it back.
    let before = calls_for(&calls, &key).len();
    parts.delete("g-part", &Default::default()).await.unwrap();
    eventually("the owner is reconciled again", || {
        calls_for(&calls, &key).len() > before
    })
    .await;
    let mut back = None;
    for _ in 0..100 {
        back = parts.get_opt("g-part").await.unwrap();
        if back.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(back.is_some(), "the owner recreated its Part");
    // The recreated Part's own event reconciles the owner once more; after that, quiet.
    eventually("the recreated Part's event is handled", || {
        calls_for(&calls, &key).len() >= before + 2
    })
    .await;
    // A Part nobody controls wakes no one.
    let settled = calls.lock().unwrap().len();
    parts
        .create(
            &Default::default(),
            &Part::new("stray", PartSpec { gadget: "g".into() }),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(calls.lock().unwrap().len(), settled);
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Records calls and does nothing else.
struct Record(Calls);

impl Reconciler<Gadget> for Record {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        _: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        self.0.lock().unwrap().push((key.clone(), Instant::now()));
        Ok(Action::Done)
    }
}

#[kubegen::test]
async fn a_mapped_watch_reconciles_the_keys_its_function_names(e: TestEnv) {
    let calls = Calls::default();
    let controller = Controller::<Gadget>::new("gadget").watches(|part: &Part| {
        vec![ObjectKey::new(
            part.metadata.namespace.as_deref(),
            &part.spec.gadget,
        )]
    });
    let (stop, run) = start(manager(&e).add(controller, Record(calls.clone())));
    let parts = Api::<Part>::namespaced(e.client.clone(), &e.namespace);
    parts
        .create(
            &Default::default(),
            &Part::new(
                "p",
                PartSpec {
                    gadget: "named".into(),
                },
            ),
        )
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "named");
    eventually("the named key is reconciled", || {
        !calls_for(&calls, &key).is_empty()
    })
    .await;
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Fails a key's first `failures` reconciles, then succeeds; the last success asks to come
/// back after `again`.
struct Flaky {
    calls: Calls,
    failures: usize,
    again: Duration,
}

#[derive(Debug, thiserror::Error)]
#[error("flaky failure {0}")]
struct Failure(usize);

impl Reconciler<Gadget> for Flaky {
    type Error = Failure;

    async fn reconcile(&self, key: &ObjectKey, _: Option<Arc<Gadget>>) -> Result<Action, Failure> {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            calls.push((key.clone(), Instant::now()));
            calls.iter().filter(|(k, _)| k == key).count()
        };
        match n {
            n if n <= self.failures => Err(Failure(n)),
            n if n == self.failures + 1 => Ok(Action::RequeueAfter(self.again)),
            _ => Ok(Action::Done),
        }
    }
}

#[kubegen::test]
async fn errors_back_off_per_key_and_requeue_after_comes_back(e: TestEnv) {
    let calls = Calls::default();
    let reconciler = Flaky {
        calls: calls.clone(),
        failures: 4,
        again: Duration::from_millis(300),
    };
    let controller = Controller::<Gadget>::new("flaky")
        .backoff(Duration::from_millis(40), Duration::from_secs(10))
        .concurrency(2);
    let manager = manager(&e).add(controller, reconciler);
    let metrics = manager.metrics().clone();
    let (stop, run) = start(manager);
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("f"))
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "f");
    eventually("four failures, a success and the requeue", || {
        calls_for(&calls, &key).len() >= 6
    })
    .await;
    let at = calls_for(&calls, &key);
    // The gaps after failures 1..4 are at least the doubling backoff: 40, 80, 160, 320 ms.
    for (i, min) in [40u64, 80, 160, 320].into_iter().enumerate() {
        let gap = at[i + 1] - at[i];
        assert!(
            gap >= Duration::from_millis(min),
            "gap {i} was {gap:?}, below {min} ms"
        );
    }
    // The success forgot the backoff; RequeueAfter brought the key back after its delay.
    assert!(at[5] - at[4] >= Duration::from_millis(300));
    let text = metrics.encode();
    let value = |series: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {series} in {text}"))
    };
    assert_eq!(
        value(r#"controller_runtime_reconcile_total{controller="flaky",result="error"}"#),
        4.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_total{controller="flaky",result="requeue_after"}"#),
        1.0
    );
    assert!(
        value(r#"controller_runtime_reconcile_total{controller="flaky",result="success"}"#) >= 1.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_errors_total{controller="flaky"}"#),
        4.0
    );
    assert!(value(r#"workqueue_retries_total{name="flaky",controller="flaky"}"#) >= 5.0);
    assert_eq!(
        value(r#"controller_runtime_max_concurrent_reconciles{controller="flaky"}"#),
        2.0
    );
    stop.cancel();
    run.await.unwrap().unwrap();
}

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

fn fast_election(e: &TestEnv, identity: &str) -> LeaderElection {
    LeaderElection::new(&e.namespace, "manager-test")
        .identity(identity)
        .config(LeaderElectionConfig {
            lease_duration: Duration::from_secs(2),
            renew_deadline: Duration::from_secs(1),
            retry_period: Duration::from_millis(200),
            ..LeaderElectionConfig::default()
        })
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

#[kubegen::test]
async fn manager_rules_cover_every_declared_read_and_write(e: TestEnv) {
    let mut manager = manager(&e).leader_election(fast_election(&e, "rules"));
    let _recorder = manager.event_recorder("gadget-controller");
    let manager = manager.add(
        Controller::<Gadget>::new("gadget").owns::<Part>().writes(
            kubegen::rbac::Rules::new()
                .grant_subresource::<Gadget>("status", &[kubegen::rbac::Verb::Patch]),
        ),
        Record(Calls::default()),
    );
    let rules: BTreeMap<String, Vec<String>> = manager
        .rules()
        .policy_rules()
        .into_iter()
        .flat_map(|r| {
            let groups = r.api_groups.unwrap_or_default();
            let verbs = r.verbs;
            r.resources
                .unwrap_or_default()
                .into_iter()
                .flat_map(move |res| {
                    let verbs = verbs.clone();
                    groups
                        .clone()
                        .into_iter()
                        .map(move |g| (format!("{g}/{res}"), verbs.clone()))
                })
        })
        .collect();
    let expect = |key: &str, verbs: &[&str]| {
        assert_eq!(
            rules.get(key).map(|v| v.as_slice()),
            Some(&verbs.iter().map(|v| v.to_string()).collect::<Vec<_>>()[..]),
            "{key} in {rules:#?}"
        );
    };
    expect("client.kubegen.dev/gadgets", &["list", "watch"]);
    expect("client.kubegen.dev/gadgets/status", &["patch"]);
    expect("manager.kubegen.dev/parts", &["list", "watch"]);
    expect("coordination.k8s.io/leases", &["create", "get", "update"]);
    expect("events.k8s.io/events", &["create", "patch"]);
    assert_eq!(rules.len(), 5, "{rules:#?}");
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
