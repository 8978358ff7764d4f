//! Leader election (`kubegen::leaderelection`) with three candidates and short timings, on
//! the in-memory server and on a real apiserver when one is configured (`#[kubegen::test]`):
//! never two leaders at once (an in-process slot and a server-side fence both check it),
//! through a partitioned leader, a killed one and a released one; the failover times the
//! lease allows; `leaseTransitions`; and the Lease and Event kinds elections and event
//! recorders write. Run with `--nocapture` to see the measured failover times.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::Api;
use kube::api::{PostParams, Resource};
use kubegen::leaderelection::{
    LeaderElectionConfig, LeaderElectionError, LeaderElector, Stopped, default_identity,
};
use kubegen::testing::TestEnv;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const LD: Duration = Duration::from_secs(2);
const RD: Duration = Duration::from_secs(1);
const RP: Duration = Duration::from_millis(400);
/// Time for the requests of an attempt, on a loaded machine.
const MARGIN: Duration = Duration::from_millis(500);

fn config() -> LeaderElectionConfig {
    LeaderElectionConfig {
        lease_duration: LD,
        renew_deadline: RD,
        retry_period: RP,
        release_on_cancel: true,
    }
}

/// A client whose requests fail while `cut` is set: a candidate cut off from the apiserver.
#[derive(Clone)]
struct Partitionable {
    inner: kube::Client,
    cut: Arc<AtomicBool>,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower::Service<http::Request<kube::client::Body>> for Partitionable {
    type Response = http::Response<kube::client::Body>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<kube::client::Body>) -> Self::Future {
        let (client, cut) = (self.inner.clone(), self.cut.clone());
        Box::pin(async move {
            if cut.load(Ordering::SeqCst) {
                return Err("partitioned".into());
            }
            client.send(req).await.map_err(Into::into)
        })
    }
}

/// One candidate process.
struct Candidate {
    id: String,
    elector: LeaderElector,
    shutdown: CancellationToken,
    cut: Arc<AtomicBool>,
    task: JoinHandle<Result<Stopped, LeaderElectionError>>,
}

/// Three-way election bookkeeping: who leads now (0 = nobody), every lead's start and end,
/// and what went wrong.
struct Election {
    client: kube::Client,
    namespace: String,
    lease: String,
    slot: Arc<AtomicUsize>,
    starts: Arc<Mutex<Vec<(String, Instant)>>>,
    ends: Arc<Mutex<Vec<(String, Instant)>>>,
    violations: Arc<Mutex<Vec<String>>>,
    spawned: usize,
}

/// Clears the slot when a lead ends, however it ends (a killed candidate drops it).
struct Tenure {
    n: usize,
    id: String,
    slot: Arc<AtomicUsize>,
    ends: Arc<Mutex<Vec<(String, Instant)>>>,
}

impl Drop for Tenure {
    fn drop(&mut self) {
        let _ = self
            .slot
            .compare_exchange(self.n, 0, Ordering::SeqCst, Ordering::SeqCst);
        self.ends
            .lock()
            .unwrap()
            .push((self.id.clone(), Instant::now()));
    }
}

impl Election {
    fn new(env: &TestEnv, lease: &str) -> Self {
        Election {
            client: env.client.clone(),
            namespace: env.namespace.clone(),
            lease: lease.to_owned(),
            slot: Arc::default(),
            starts: Arc::default(),
            ends: Arc::default(),
            violations: Arc::default(),
            spawned: 0,
        }
    }

    fn leases(&self) -> Api<Lease> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// Starts a candidate. Its lead takes the slot (which must be empty), then writes the
    /// fence Lease every 50 ms with the resourceVersion of its own previous write, through
    /// a client no partition cuts: a write by another leader in between makes it conflict.
    fn spawn(&mut self) -> Candidate {
        self.spawned += 1;
        let n = self.spawned;
        let id = format!("candidate-{n}");
        let cut = Arc::new(AtomicBool::new(false));
        let client = kube::Client::new(
            Partitionable {
                inner: self.client.clone(),
                cut: cut.clone(),
            },
            self.namespace.clone(),
        );
        let elector = LeaderElector::new(client, &self.namespace, &self.lease, &id, config())
            .expect("a valid config");
        let shutdown = CancellationToken::new();
        let (slot, starts, ends, violations) = (
            self.slot.clone(),
            self.starts.clone(),
            self.ends.clone(),
            self.violations.clone(),
        );
        let fences = self.leases();
        let fence = format!("{}-fence", self.lease);
        let lead_id = id.clone();
        let run = {
            let elector = elector.clone();
            let shutdown = shutdown.clone();
            async move {
                elector
                    .run(shutdown, move |token| async move {
                        if let Err(other) =
                            slot.compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst)
                        {
                            violations
                                .lock()
                                .unwrap()
                                .push(format!("{lead_id} started while candidate-{other} led"));
                        }
                        starts
                            .lock()
                            .unwrap()
                            .push((lead_id.clone(), Instant::now()));
                        let _tenure = Tenure {
                            n,
                            id: lead_id.clone(),
                            slot,
                            ends,
                        };
                        hold_fence(&fences, &fence, &lead_id, &token, &violations).await;
                    })
                    .await
            }
        };
        Candidate {
            id,
            elector,
            shutdown,
            cut,
            task: tokio::spawn(run),
        }
    }

    /// Waits for the `n`th lead to start (counting from 1) and returns who and when.
    async fn nth_start(&self, n: usize) -> (String, Instant) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(start) = self.starts.lock().unwrap().get(n - 1) {
                return start.clone();
            }
            assert!(Instant::now() < deadline, "no leader #{n} within 20 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn end_of(&self, id: &str) -> Option<Instant> {
        self.ends
            .lock()
            .unwrap()
            .iter()
            .find(|(who, _)| who == id)
            .map(|(_, t)| *t)
    }

    fn assert_no_violations(&self) {
        let violations = self.violations.lock().unwrap();
        assert!(violations.is_empty(), "{violations:#?}");
    }
}

/// The lead's server-side fence: conditional writes of the fence Lease until `token` is
/// cancelled.
async fn hold_fence(
    fences: &Api<Lease>,
    name: &str,
    id: &str,
    token: &CancellationToken,
    violations: &Mutex<Vec<String>>,
) {
    let mut fence = match fences.get_opt(name).await {
        Ok(Some(fence)) => fence,
        Ok(None) => Lease {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                ..ObjectMeta::default()
            },
            spec: Some(LeaseSpec::default()),
        },
        Err(e) => {
            violations
                .lock()
                .unwrap()
                .push(format!("{id}: reading the fence: {e}"));
            return;
        }
    };
    loop {
        let spec = fence.spec.get_or_insert_with(LeaseSpec::default);
        spec.holder_identity = Some(id.to_owned());
        let written = match fence.metadata.resource_version {
            Some(_) => fences.replace(name, &PostParams::default(), &fence).await,
            None => fences.create(&PostParams::default(), &fence).await,
        };
        match written {
            Ok(w) => fence = w,
            Err(kube::Error::Api(s)) if s.is_conflict() || s.is_already_exists() => {
                violations.lock().unwrap().push(format!(
                    "{id}: the fence was written by another leader during its lead"
                ));
                return;
            }
            // A slow or failing request is not a second leader.
            Err(_) => {}
        }
        tokio::select! {
            () = token.cancelled() => return,
            () = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
    }
}

async fn finish(candidate: Candidate) -> Stopped {
    tokio::time::timeout(Duration::from_secs(20), candidate.task)
        .await
        .unwrap_or_else(|_| panic!("{} did not stop", candidate.id))
        .expect("the candidate's task")
        .expect("run's result")
}

fn take_leader(candidates: &mut Vec<Candidate>, id: &str) -> Candidate {
    let i = candidates.iter().position(|c| c.id == id).unwrap();
    candidates.remove(i)
}

/// (a) and (d): a partitioned leader stops before another starts, a killed leader's lead
/// is gone before another starts, a released one likewise; replacements keep three
/// candidates campaigning; every takeover counts in `leaseTransitions`.
#[kubegen::test]
async fn one_leader_at_a_time(env: TestEnv) {
    let mut election = Election::new(&env, "one-at-a-time");
    let mut candidates: Vec<Candidate> = (0..3).map(|_| election.spawn()).collect();

    let (first, _) = election.nth_start(1).await;
    tokio::time::sleep(RP * 3).await;

    // Partition the leader: it must stop leading (renew deadline) before anyone else
    // starts (lease duration after they last saw it renew).
    let partitioned = take_leader(&mut candidates, &first);
    partitioned.cut.store(true, Ordering::SeqCst);
    let (second, second_start) = election.nth_start(2).await;
    let stopped = election
        .end_of(&first)
        .expect("the partitioned leader stopped");
    assert!(stopped < second_start);
    eprintln!(
        "partitioned leader stopped {:?} before {second} started",
        second_start - stopped
    );
    partitioned.cut.store(false, Ordering::SeqCst);
    assert_eq!(finish(partitioned).await, Stopped::Lost);
    candidates.push(election.spawn());
    tokio::time::sleep(RP * 3).await;

    // Kill the leader: no release, and its lead is gone at once.
    let killed = take_leader(&mut candidates, &second);
    killed.task.abort();
    let (third, _) = election.nth_start(3).await;
    candidates.push(election.spawn());
    tokio::time::sleep(RP * 3).await;

    // Shut the leader down: it releases after its lead ended.
    let released = take_leader(&mut candidates, &third);
    released.shutdown.cancel();
    assert_eq!(finish(released).await, Stopped::Shutdown);
    let (fourth, _) = election.nth_start(4).await;
    let leader = candidates.iter().find(|c| c.id == fourth).unwrap();
    assert!(leader.elector.is_leader());
    assert!(leader.elector.check(Duration::ZERO).is_ok());
    assert!(candidates.iter().filter(|c| c.elector.is_leader()).count() == 1);

    // Four leads, three takeovers: the first candidate created the Lease.
    let lease = election.leases().get("one-at-a-time").await.unwrap();
    let spec = lease.spec.unwrap();
    assert_eq!(spec.lease_transitions, Some(3));
    assert_eq!(spec.holder_identity.as_deref(), Some(fourth.as_str()));
    assert_eq!(spec.lease_duration_seconds, Some(2));

    stop_all(candidates).await;
    election.assert_no_violations();
    assert_eq!(election.starts.lock().unwrap().len(), 4);
    let lease = election.leases().get("one-at-a-time").await.unwrap();
    let spec = lease.spec.unwrap();
    assert_eq!(spec.holder_identity.as_deref(), Some(""), "released");
    assert_eq!(spec.lease_duration_seconds, Some(1));
    assert_eq!(spec.lease_transitions, Some(3));
}

/// How a leader is stopped in [`failovers`].
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    /// Its task is aborted: a killed process, nothing released.
    Kill,
    /// Its shutdown token is cancelled: it finishes its lead and releases.
    Release,
}

/// Three candidates; twice, the leader is stopped and the time until the next lead starts
/// is measured (from the abort, or from the end of the released leader's run).
async fn failovers(env: &TestEnv, lease: &str, stop: Stop) -> Vec<Duration> {
    let mut election = Election::new(env, lease);
    let mut candidates: Vec<Candidate> = (0..3).map(|_| election.spawn()).collect();
    let mut figures = Vec::new();
    for round in 1..=2 {
        let (leader, _) = election.nth_start(round).await;
        tokio::time::sleep(RP * 3).await;
        let leader = take_leader(&mut candidates, &leader);
        match stop {
            Stop::Kill => leader.task.abort(),
            Stop::Release => {
                leader.shutdown.cancel();
                assert_eq!(finish(leader).await, Stopped::Shutdown);
            }
        }
        let stopped_at = Instant::now();
        let (_, start) = election.nth_start(round + 1).await;
        figures.push(start.saturating_duration_since(stopped_at));
        candidates.push(election.spawn());
    }
    stop_all(candidates).await;
    election.assert_no_violations();
    figures
}

/// Shuts every candidate down; each releases or never led.
async fn stop_all(candidates: Vec<Candidate>) {
    for c in &candidates {
        c.shutdown.cancel();
    }
    for c in candidates {
        assert_eq!(finish(c).await, Stopped::Shutdown);
    }
}

/// (b): after the leader is killed the next one starts once the lease has expired on the
/// others' clocks: no sooner than LD − RP after the kill, no later than LD + 2·2.2·RP.
#[kubegen::test]
async fn failover_after_a_killed_leader(env: TestEnv) {
    let figures = failovers(&env, "killed", Stop::Kill).await;
    let (low, high) = (LD - RP, LD + RP.mul_f64(2.0 * 2.2) + MARGIN);
    eprintln!(
        "failover after a kill ({}): {figures:?} (bounds {low:?}..{high:?})",
        server(&env)
    );
    for f in &figures {
        assert!(*f >= low, "took over before the lease expired: {f:?}");
        assert!(*f <= high, "{f:?}");
    }
}

/// (c): after a graceful release the next leader starts within one jittered retry.
#[kubegen::test]
async fn failover_after_a_release(env: TestEnv) {
    let figures = failovers(&env, "released", Stop::Release).await;
    let high = RP.mul_f64(2.2) + MARGIN;
    eprintln!(
        "failover after a release ({}): {figures:?} (bound {high:?})",
        server(&env)
    );
    assert!(figures.iter().all(|f| *f <= high), "{figures:?}");
}

/// Asserts `err` is the apiserver's 422 Invalid with `message`.
fn assert_invalid(err: kube::Error, message: &str) {
    let kube::Error::Api(status) = err else {
        panic!("not an API error: {err}")
    };
    assert_eq!((status.code, status.message.as_str()), (422, message));
}

fn server(env: &TestEnv) -> &'static str {
    match env.is_real() {
        true => "real apiserver",
        false => "in memory",
    }
}

/// A lead that returns on its own ends the run with a release; observers hear of each
/// new holder; shutdown before leading returns at once.
#[kubegen::test]
async fn a_lead_that_returns_releases_and_observers_hear_of_it(env: TestEnv) {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let observer = {
        let seen = seen.clone();
        LeaderElector::new(
            env.client.clone(),
            &env.namespace,
            "returns",
            "observer",
            config(),
        )
        .unwrap()
        .on_new_leader(move |holder| seen.lock().unwrap().push(holder.to_owned()))
    };
    let leader = LeaderElector::new(
        env.client.clone(),
        &env.namespace,
        "returns",
        "leader",
        config(),
    )
    .unwrap();
    let stopped = leader
        .run(CancellationToken::new(), |_| tokio::time::sleep(RP * 2))
        .await
        .unwrap();
    assert_eq!(stopped, Stopped::Shutdown);
    assert!(!leader.is_leader());
    let lease: Api<Lease> = Api::namespaced(env.client.clone(), &env.namespace);
    let spec = lease.get("returns").await.unwrap().spec.unwrap();
    assert_eq!(spec.holder_identity.as_deref(), Some(""));

    // The observer takes the released lease at once, and reports itself.
    let shutdown = CancellationToken::new();
    let stopped = observer
        .run(shutdown.clone(), |token| async move {
            token.cancel();
        })
        .await
        .unwrap();
    assert_eq!(stopped, Stopped::Shutdown);
    // It saw the released record only inside the attempt that took it over.
    assert_eq!(seen.lock().unwrap().as_slice(), ["observer"]);
    let spec = lease.get("returns").await.unwrap().spec.unwrap();
    assert_eq!(spec.lease_transitions, Some(1));

    // Shutdown before ever leading: returns without leading.
    let holder = LeaderElector::new(
        env.client.clone(),
        &env.namespace,
        "held",
        "holder",
        config(),
    )
    .unwrap();
    let hold = CancellationToken::new();
    let held = {
        let hold = hold.clone();
        let holder = holder.clone();
        tokio::spawn(async move {
            holder
                .run(hold, |t| async move { t.cancelled().await })
                .await
        })
    };
    while !holder.is_leader() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let waiting = LeaderElector::new(
        env.client.clone(),
        &env.namespace,
        "held",
        "waiting",
        config(),
    )
    .unwrap();
    let give_up = CancellationToken::new();
    let cancel = give_up.clone();
    tokio::spawn(async move {
        tokio::time::sleep(RP * 2).await;
        cancel.cancel();
    });
    let stopped = waiting
        .run(give_up, |_| async { panic!("must not lead") })
        .await
        .unwrap();
    assert_eq!(stopped, Stopped::Shutdown);
    hold.cancel();
    held.await.unwrap().unwrap();
}

/// (e): client-go's config checks, and the ones the Lease adds.
#[kubegen::test]
async fn config_mistakes_are_refused(env: TestEnv) {
    let elector = |config: LeaderElectionConfig| {
        LeaderElector::new(env.client.clone(), &env.namespace, "l", "me", config).err()
    };
    let secs = Duration::from_secs_f64;
    let with = |ld: f64, rd: f64, rp: f64| LeaderElectionConfig {
        lease_duration: secs(ld),
        renew_deadline: secs(rd),
        retry_period: secs(rp),
        release_on_cancel: false,
    };
    assert!(elector(LeaderElectionConfig::default()).is_none());
    assert!(matches!(
        elector(with(10.0, 10.0, 2.0)),
        Some(LeaderElectionError::LeaseDurationNotAboveRenewDeadline { .. })
    ));
    let err = elector(with(15.0, 2.0, 2.0)).unwrap();
    assert!(matches!(
        err,
        LeaderElectionError::RenewDeadlineTooShort { .. }
    ));
    assert_eq!(
        err.to_string(),
        "renewDeadline (2s) must be greater than retryPeriod*JitterFactor (2s * 1.2)"
    );
    assert!(matches!(
        elector(with(2.5, 1.0, 0.4)),
        Some(LeaderElectionError::LeaseDurationNotWholeSeconds(_))
    ));
    assert!(matches!(
        elector(with(0.5, 0.2, 0.1)),
        Some(LeaderElectionError::LeaseDurationNotWholeSeconds(_))
    ));
    assert!(matches!(
        elector(with(15.0, 10.0, 0.0)),
        Some(LeaderElectionError::ZeroRetryPeriod)
    ));
    assert!(matches!(
        LeaderElector::new(env.client.clone(), &env.namespace, "l", "", config()).err(),
        Some(LeaderElectionError::EmptyIdentity)
    ));
    assert!(matches!(
        LeaderElector::new(env.client.clone(), "", "l", "me", config()).err(),
        Some(LeaderElectionError::EmptyLeaseName { .. })
    ));
    assert!(default_identity().contains('_'));
}

/// The Lease as elections write it: MicroTimes round-trip, no generation, a PUT needs a
/// resourceVersion, and the registry's validation messages.
#[kubegen::test]
async fn leases_are_served_as_the_apiserver_serves_them(env: TestEnv) {
    let leases: Api<Lease> = Api::namespaced(env.client.clone(), &env.namespace);
    let time = MicroTime("2026-01-01T00:00:00.123456Z".parse().unwrap());
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some("l".into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some("a".into()),
            lease_duration_seconds: Some(15),
            renew_time: Some(time.clone()),
            ..LeaseSpec::default()
        }),
    };
    let created = leases.create(&PostParams::default(), &lease).await.unwrap();
    assert_eq!(
        created.spec.as_ref().unwrap().renew_time,
        Some(time.clone())
    );
    assert_eq!(created.metadata.generation, None);
    let raw: serde_json::Value = env
        .client
        .request(
            http::Request::get(format!("{}/l", Lease::url_path(&(), Some(&env.namespace))))
                .body(Vec::new())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(raw["spec"]["renewTime"], "2026-01-01T00:00:00.123456Z");

    let mut unconditional = created.clone();
    unconditional.metadata.resource_version = None;
    let err = leases
        .replace("l", &PostParams::default(), &unconditional)
        .await
        .unwrap_err();
    assert_invalid(
        err,
        "leases.coordination.k8s.io \"l\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update",
    );

    let mut stale = created.clone();
    stale.spec.as_mut().unwrap().holder_identity = Some("b".into());
    leases
        .replace("l", &PostParams::default(), &stale)
        .await
        .unwrap();
    let err = leases
        .replace("l", &PostParams::default(), &stale)
        .await
        .unwrap_err();
    assert!(matches!(err, kube::Error::Api(s) if s.is_conflict()));

    let mut invalid = lease.clone();
    invalid.metadata.name = Some("invalid".into());
    let spec = invalid.spec.as_mut().unwrap();
    spec.lease_duration_seconds = Some(0);
    spec.lease_transitions = Some(-1);
    let err = leases
        .create(&PostParams::default(), &invalid)
        .await
        .unwrap_err();
    assert_invalid(
        err,
        "Lease.coordination.k8s.io \"invalid\" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]",
    );
}

/// kube-runtime's event recorder: a create, then a merge patch of the whole event when it
/// repeats.
#[kubegen::test]
async fn events_from_kubes_recorder_are_recorded(env: TestEnv) {
    use k8s_openapi::api::events::v1::Event;
    use kube::runtime::events::{Event as NewEvent, EventType, Recorder, Reporter};

    let lease = Lease {
        metadata: ObjectMeta {
            name: Some("regarded".into()),
            namespace: Some(env.namespace.clone()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec::default()),
    };
    let leases: Api<Lease> = Api::namespaced(env.client.clone(), &env.namespace);
    let lease = leases.create(&PostParams::default(), &lease).await.unwrap();
    let recorder = Recorder::new(
        env.client.clone(),
        Reporter {
            controller: "kubegen-test".into(),
            instance: Some("test-0".into()),
        },
    );
    let event = NewEvent {
        type_: EventType::Normal,
        reason: "Elected".into(),
        note: Some("became leader".into()),
        action: "Elect".into(),
        secondary: None,
    };
    let reference = lease.object_ref(&());
    recorder.publish(&event, &reference).await.unwrap();
    recorder.publish(&event, &reference).await.unwrap();
    let events: Api<Event> = Api::namespaced(env.client.clone(), &env.namespace);
    let list = events.list(&Default::default()).await.unwrap();
    assert_eq!(list.items.len(), 1);
    let recorded = &list.items[0];
    assert_eq!(recorded.reason.as_deref(), Some("Elected"));
    assert_eq!(
        recorded.reporting_controller.as_deref(),
        Some("kubegen-test")
    );
    assert_eq!(recorded.series.as_ref().map(|s| s.count), Some(2));
    assert_eq!(
        recorded.regarding.as_ref().and_then(|r| r.name.as_deref()),
        Some("regarded")
    );

    // The apiserver's create checks, reported for the internal (core) Event.
    let mut bad = recorded.clone();
    bad.metadata = ObjectMeta {
        name: Some("bad".into()),
        ..ObjectMeta::default()
    };
    bad.series = None;
    bad.type_ = Some("Info".into());
    bad.action = None;
    let err = events
        .create(&PostParams::default(), &bad)
        .await
        .unwrap_err();
    assert_invalid(
        err,
        "Event \"bad\" is invalid: [action: Required value, type: Invalid value: \"\": has invalid value: Info]",
    );
}

/// In memory, the built-in kinds are served but are not custom resources.
#[kubegen::test(in_memory)]
async fn built_in_kinds_are_not_listed_as_crds(env: TestEnv) {
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(env.client.clone());
    let groups: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|c| c.spec.group)
        .collect();
    assert!(
        !groups
            .iter()
            .any(|g| g == "coordination.k8s.io" || g == "events.k8s.io"),
        "{groups:?}"
    );
    assert!(
        crds.get_opt("leases.coordination.k8s.io")
            .await
            .unwrap()
            .is_none()
    );
    let discovery = kube::Discovery::new(env.client.clone())
        .run()
        .await
        .unwrap();
    assert!(discovery.has_group("coordination.k8s.io"));
    assert!(discovery.has_group("events.k8s.io"));
}
