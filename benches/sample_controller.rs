//! Kubernetes' sample-controller (the example in `examples/src/sample_controller/`, compiled
//! in here as it is) on the in-memory API server against a real kube-apiserver (Envtest), in
//! the same run, and what a write of a built-in kind costs the in-memory server.
//!
//! - `scenario`: one Foo's round trip with the controller running on a Manager: create the
//!   Foo, wait until its Deployment is in the cache, write the Deployment's status
//!   (`availableReplicas: 1`, as kube-controller-manager would), wait until the Foo's status
//!   says so. Waits read a cache of the benchmark's own, woken by its watch events.
//! - `lifecycle`: the same Foo with a cluster around it: kube-controller-manager's
//!   controllers and a kubelet (in memory: `ApiServer::start_controllers`; on Envtest its
//!   kube-controller-manager and the test `Kubelet` as a client). Create the Foo, wait until
//!   its Deployment, ReplicaSet and Pod are up and the Foo's status says 1 available; delete
//!   the Foo and wait until the garbage collector has taken the Deployment, its ReplicaSet and
//!   its Pod. In memory it runs twice: on the benchmark's two-worker runtime (what
//!   `#[kubegen::test]` gives) and on a current-thread one (`#[tokio::test]`'s default).
//!   Each backend has the machine to itself: the in-memory runs come first, with every
//!   Envtest stopped, and Envtest's cluster is started after them (and given one untimed
//!   lifecycle, in which kube-controller-manager takes in the Foo kind).
//! - `deployment_write`: a Deployment created (POST) and scaled by a strategic merge patch,
//!   the same request bytes on both servers; the CPU time the server spent on them, per
//!   write: the in-memory server called as a tower service in this process (nothing else
//!   runs in it meanwhile), the kube-apiserver process's own CPU time for Envtest (etcd's not
//!   counted).
//!
//! The Envtest half runs when `KUBEBUILDER_ASSETS` is set and the `envtest` feature is on (its
//! `lifecycle` also needs kube-controller-manager in the assets directory):
//! `KUBEBUILDER_ASSETS=$(../shared/k8s/install) cargo bench --all-features --bench
//! sample_controller`. At the end it prints the mean time per scenario and per write on each
//! server, their ratio, and the CPU per write.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::Criterion;
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Patch, PatchParams};
use kubegen::builtin::{BuiltinClientExt, BuiltinInformersExt};
use kubegen::cache::Lister;
use kubegen::informer::{ResourceEventHandler, SharedInformerFactory};
use kubegen::selector::LabelSelector;
use kubegen::testing::{ApiServer, Controllers, Kubelet, KubeletTask};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

// The example's controller and Foo kind, unchanged (the root crate cannot depend on the
// examples crate, which depends on it); what the example alone uses is unused here.
#[allow(dead_code, unused_imports, unreachable_pub)]
#[path = "../examples/src/sample_controller/mod.rs"]
mod sample_controller;

use sample_controller::{Foo, FooClientExt, FooSpec};

/// The namespace every object of the benchmark lives in.
const NAMESPACE: &str = "bench-sample";

/// How long any one wait may take before the benchmark gives up.
const PATIENCE: Duration = Duration::from_secs(60);

/// Bumps a counter on every event, so a waiter knows to look at the cache again.
struct Wake(watch::Sender<u64>);

impl<K: Send + Sync + 'static> ResourceEventHandler<K> for Wake {
    fn on_add(&self, _: &Arc<K>, _: bool) {
        self.0.send_modify(|n| *n += 1);
    }
    fn on_update(&self, _: &Arc<K>, _: &Arc<K>) {
        self.0.send_modify(|n| *n += 1);
    }
    fn on_delete(&self, _: &Arc<K>) {
        self.0.send_modify(|n| *n += 1);
    }
}

/// One server with the controller running on it, and the benchmark's own cache of Foos and
/// Deployments to wait on.
struct Backend {
    name: &'static str,
    client: kube::Client,
    stop: CancellationToken,
    _factory: SharedInformerFactory,
    foos: Lister<Foo>,
    deployments: Lister<Deployment>,
    replica_sets: Lister<ReplicaSet>,
    pods: Lister<Pod>,
    changed: watch::Receiver<u64>,
    next: usize,
    /// The kubelet of a real cluster, reporting Pods as the in-memory server's does.
    _kubelet: Option<KubeletTask>,
}

impl Backend {
    /// Starts the controller on `client` (whose `NAMESPACE` exists) and the waiting cache.
    async fn start(name: &'static str, client: kube::Client) -> Backend {
        let stop = CancellationToken::new();
        let manager = sample_controller::manager(&client, NAMESPACE);
        tokio::spawn(manager.run(stop.clone()));
        let factory = SharedInformerFactory::new(client.clone()).namespace(NAMESPACE);
        let (wake, changed) = watch::channel(0);
        let foos = factory.informer::<Foo>();
        let deployments = factory.deployments();
        let replica_sets = factory.replica_sets();
        let pods = factory.pods();
        foos.add_event_handler(Wake(wake.clone()));
        deployments.add_event_handler(Wake(wake.clone()));
        replica_sets.add_event_handler(Wake(wake.clone()));
        pods.add_event_handler(Wake(wake));
        factory.start();
        factory
            .wait_for_sync(PATIENCE)
            .await
            .expect("the benchmark's cache syncs");
        Backend {
            name,
            client,
            stop,
            foos: foos.lister(),
            deployments: deployments.lister(),
            replica_sets: replica_sets.lister(),
            pods: pods.lister(),
            _factory: factory,
            changed,
            next: 0,
            _kubelet: None,
        }
    }

    /// [`start`](Backend::start) on a real cluster whose kube-controller-manager runs, with
    /// the test kubelet for `NAMESPACE`.
    #[cfg(feature = "envtest")]
    async fn start_with_kubelet(name: &'static str, client: kube::Client) -> Backend {
        let kubelet = Kubelet::new().run(client.clone(), Some(NAMESPACE));
        let mut backend = Backend::start(name, client).await;
        backend._kubelet = Some(kubelet);
        backend
    }

    /// Waits until `ready` holds of the cache, looking again after every event.
    async fn until(&mut self, what: &str, ready: impl Fn(&Backend) -> bool) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            drop(self.changed.borrow_and_update());
            if ready(self) {
                return;
            }
            match tokio::time::timeout_at(deadline, self.changed.changed()).await {
                Ok(Ok(())) => {}
                _ => panic!("{}: timed out waiting until {what}", self.name),
            }
        }
    }

    /// One Foo's round trip: created, its Deployment made, the Deployment's status written,
    /// the Foo's status following.
    async fn scenario(&mut self) {
        let name = format!("foo-{}", self.next);
        self.next += 1;
        let spec = FooSpec {
            deployment_name: name.clone(),
            replicas: Some(1),
        };
        self.client
            .foos(NAMESPACE)
            .create(&Foo::new(&name, spec))
            .await
            .expect("the Foo is created");
        self.until("the Deployment exists", |b| {
            b.deployments.namespace(NAMESPACE).get(&name).is_some()
        })
        .await;
        let status = serde_json::json!({"status": {
            "observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
            "readyReplicas": 1, "availableReplicas": 1,
        }});
        self.client
            .deployments(NAMESPACE)
            .patch_status(&name, &PatchParams::default(), &Patch::Merge(status))
            .await
            .expect("the Deployment's status is written");
        self.until("the Foo's status follows", |b| {
            let cached = b.foos.namespace(NAMESPACE).get(&name);
            cached
                .and_then(|f| f.status.clone())
                .is_some_and(|s| s.available_replicas == 1)
        })
        .await;
    }
}

impl Backend {
    /// How many of the Foo `name`'s Deployment, ReplicaSets and Pods are cached (the
    /// sample-controller labels them `controller: <Foo>`).
    fn children(&self, name: &str) -> usize {
        let everything = LabelSelector::everything();
        let labelled = |labels: Option<&BTreeMap<String, String>>| {
            labels.and_then(|l| l.get("controller")).map(String::as_str) == Some(name)
        };
        let deployment = self.deployments.namespace(NAMESPACE).get(name).is_some();
        let replica_sets = (self.replica_sets.list(&everything).iter())
            .filter(|r| labelled(r.metadata.labels.as_ref()))
            .count();
        let pods = (self.pods.list(&everything).iter())
            .filter(|p| labelled(p.metadata.labels.as_ref()))
            .count();
        usize::from(deployment) + replica_sets + pods
    }

    /// One Foo's life with the cluster around it: created, its Deployment available through
    /// a ReplicaSet and a Ready Pod, the Foo's status following; then deleted, and its
    /// Deployment, ReplicaSet and Pod garbage-collected.
    async fn lifecycle(&mut self) {
        let name = format!("life-{}", self.next);
        self.next += 1;
        let spec = FooSpec {
            deployment_name: name.clone(),
            replicas: Some(1),
        };
        let foos = self.client.foos(NAMESPACE);
        foos.create(&Foo::new(&name, spec))
            .await
            .expect("the Foo is created");
        // The cache's kinds are watched apart: the Foo's status may arrive before its Pod.
        self.until("the Foo's status says its Deployment is available", |b| {
            let cached = b.foos.namespace(NAMESPACE).get(&name);
            let available =
                (cached.and_then(|f| f.status.clone())).is_some_and(|s| s.available_replicas == 1);
            available && b.children(&name) == 3 // a Deployment, a ReplicaSet, a Pod
        })
        .await;
        foos.delete(&name, &Default::default())
            .await
            .expect("the Foo is deleted");
        self.until("the Deployment, ReplicaSet and Pod are collected", |b| {
            b.children(&name) == 0
        })
        .await;
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A Deployment's create and its scale, as raw requests.
fn deployment_requests(i: usize) -> [http::Request<Full<Bytes>>; 2] {
    let name = format!("write-{i}");
    let create = serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": "write"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "write"}},
            "template": {
                "metadata": {"labels": {"app": "write"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
            },
        },
    });
    let collection = format!("/apis/apps/v1/namespaces/{NAMESPACE}/deployments");
    let request = |method, uri: String, content_type, body: serde_json::Value| {
        http::Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", content_type)
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a valid request")
    };
    [
        request("POST", collection.clone(), "application/json", create),
        request(
            "PATCH",
            format!("{collection}/{name}"),
            "application/strategic-merge-patch+json",
            serde_json::json!({"spec": {"replicas": 2}}),
        ),
    ]
}

/// Sends one raw request somewhere; its status code and body.
trait Sender {
    async fn send(&self, request: http::Request<Full<Bytes>>) -> (u16, Bytes);
}

impl Sender for ApiServer {
    async fn send(&self, request: http::Request<Full<Bytes>>) -> (u16, Bytes) {
        let response = self.service().oneshot(request).await.expect("infallible");
        let code = response.status().as_u16();
        let body = response.into_body().collect().await.expect("a body");
        (code, body.to_bytes())
    }
}

impl Sender for kube::Client {
    async fn send(&self, request: http::Request<Full<Bytes>>) -> (u16, Bytes) {
        let (parts, body) = request.into_parts();
        let body = body.collect().await.expect("a body").to_bytes().to_vec();
        let request = http::Request::from_parts(parts, body);
        // The Status of an error comes back as kube's error; the code is what matters.
        match self.request_text(request).await {
            Ok(text) => (200, Bytes::from(text)),
            Err(kube::Error::Api(status)) => (status.code, Bytes::from(status.message)),
            Err(e) => panic!("the request failed: {e}"),
        }
    }
}

/// Creates and scales Deployments `from..from + n`; panics on any refusal.
async fn write_deployments(to: &impl Sender, from: usize, n: usize) {
    for i in from..from + n {
        for request in deployment_requests(i) {
            let (code, body) = to.send(request).await;
            assert!(code < 300, "{code}: {}", String::from_utf8_lossy(&body));
        }
    }
}

/// A process's CPU time (user + system) so far, from `/proc/<pid>/stat` (clock ticks of
/// 1/100 s, Linux's `USER_HZ`); 0 where there is no such file.
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // utime and stime are the 12th and 13th fields after the command name (in parentheses,
    // which may hold spaces).
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: f64 = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

/// What one measurement accumulated over every criterion iteration.
#[derive(Default)]
struct Totals {
    iterations: u64,
    seconds: f64,
    cpu_seconds: f64,
    /// Objects the server stored (created, updated or removed), where it is known.
    stored: u64,
}

impl Totals {
    fn add(&mut self, iterations: u64, took: Duration, cpu: f64) {
        self.iterations += iterations;
        self.seconds += took.as_secs_f64();
        self.cpu_seconds += cpu;
    }

    fn mean(&self) -> f64 {
        self.seconds / self.iterations.max(1) as f64
    }

    fn cpu_mean(&self) -> f64 {
        self.cpu_seconds / self.iterations.max(1) as f64
    }
}

/// The servers measured: the in-memory one always, Envtest when configured.
struct Servers {
    memory: ApiServer,
    #[cfg(feature = "envtest")]
    envtest: Option<kubegen::testing::Envtest>,
}

impl Servers {
    async fn start() -> Servers {
        let memory = ApiServer::new();
        memory
            .create_namespace(NAMESPACE)
            .unwrap_or_else(|e| panic!("creating {NAMESPACE}: {}", e.message));
        let assets = std::env::var_os("KUBEBUILDER_ASSETS").is_some_and(|v| !v.is_empty());
        #[cfg(feature = "envtest")]
        let envtest = match assets {
            true => {
                let env = kubegen::testing::Envtest::start()
                    .await
                    .expect("Envtest starts");
                create_namespace(&env.client()).await;
                Some(env)
            }
            false => None,
        };
        #[cfg(not(feature = "envtest"))]
        if assets {
            eprintln!(
                "KUBEBUILDER_ASSETS is set but the envtest feature is off: in memory only \
                 (--all-features runs Envtest too)"
            );
        }
        if !assets {
            eprintln!("KUBEBUILDER_ASSETS is not set: in memory only");
        }
        Servers {
            memory,
            #[cfg(feature = "envtest")]
            envtest,
        }
    }
}

/// One of the lifecycle's backends, what keeps its server up, and the runtime it runs on.
type Life<'r> = (Backend, Box<dyn std::any::Any>, &'r tokio::runtime::Runtime);

/// An in-memory server running the controllers and a kubelet, with the sample-controller
/// and the benchmark's cache, all on `runtime`.
fn in_memory_life<'r>(name: &'static str, runtime: &'r tokio::runtime::Runtime) -> Life<'r> {
    runtime.block_on(async {
        let memory = ApiServer::new();
        memory.start_controllers(Controllers::all().kubelet(Kubelet::new()));
        memory
            .create_namespace(NAMESPACE)
            .unwrap_or_else(|e| panic!("creating {NAMESPACE}: {}", e.message));
        let backend = Backend::start(name, memory.client()).await;
        let memory: Box<dyn std::any::Any> = Box::new(memory);
        (backend, memory, runtime)
    })
}

/// The lifecycle's Envtest backend, when configured and its assets have
/// kube-controller-manager: Envtest running kube-controller-manager beside a client-side
/// kubelet, on `runtime`.
#[cfg(feature = "envtest")]
fn envtest_life(runtime: &tokio::runtime::Runtime) -> Option<Life<'_>> {
    if std::env::var_os("KUBEBUILDER_ASSETS").is_none_or(|v| v.is_empty()) {
        return None;
    }
    let started = runtime.block_on(
        kubegen::testing::Envtest::builder()
            .controller_manager(true)
            .start(),
    );
    match started {
        Ok(env) => {
            let client = env.client();
            runtime.block_on(create_namespace(&client));
            let mut backend = runtime.block_on(Backend::start_with_kubelet("envtest", client));
            // One untimed lifecycle first: on a cluster just started, kube-controller-manager
            // takes about 2 s to take in the new Foo kind (its garbage collector's discovery),
            // which a cluster up for longer has done. The in-memory servers need no such wait.
            runtime.block_on(backend.lifecycle());
            Some((backend, Box::new(env), runtime))
        }
        Err(e) => {
            eprintln!("lifecycle in memory only: Envtest with kube-controller-manager: {e}");
            None
        }
    }
}

/// Measures one lifecycle backend in `group`, adding to its totals; the backend and its
/// server are stopped when it is done.
fn measure_lifecycle(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    totals: &BTreeMap<&str, RefCell<Totals>>,
    life: Life<'_>,
) {
    let (mut backend, server, runtime) = life;
    let totals = &totals[backend.name];
    // The in-memory server counts its writes: every one moves its resourceVersion.
    let memory = server.downcast_ref::<ApiServer>();
    group.bench_function(backend.name, |b| {
        b.iter_custom(|iterations| {
            let cpu = cpu_seconds("self");
            let stored = memory.map(ApiServer::resource_version);
            let started = Instant::now();
            runtime.block_on(async {
                for _ in 0..iterations {
                    backend.lifecycle().await;
                }
            });
            let took = started.elapsed();
            let mut totals = totals.borrow_mut();
            totals.add(iterations, took, cpu_seconds("self") - cpu);
            let now = memory.map(ApiServer::resource_version);
            totals.stored += now.zip(stored).map_or(0, |(now, before)| now - before);
            took
        })
    });
}

/// Creates `NAMESPACE` on a real apiserver.
#[cfg(feature = "envtest")]
async fn create_namespace(client: &kube::Client) {
    let namespace: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": NAMESPACE}}))
            .expect("a namespace");
    client
        .namespaces()
        .create(&namespace)
        .await
        .expect("the namespace is created");
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    // kube clients spawn their request buffers, so they are built inside the runtime.
    let _entered = runtime.enter();
    let servers = runtime.block_on(Servers::start());
    let mut backends = vec![runtime.block_on(Backend::start("in_memory", servers.memory.client()))];
    #[cfg(feature = "envtest")]
    if let Some(env) = &servers.envtest {
        backends.push(runtime.block_on(Backend::start("envtest", env.client())));
    }

    let scenario: BTreeMap<&str, RefCell<Totals>> = backends
        .iter()
        .map(|b| (b.name, RefCell::default()))
        .collect();
    let mut group = criterion.benchmark_group("scenario");
    for backend in &mut backends {
        let totals = &scenario[backend.name];
        group.bench_function(backend.name, |b| {
            b.iter_custom(|iterations| {
                let started = Instant::now();
                runtime.block_on(async {
                    for _ in 0..iterations {
                        backend.scenario().await;
                    }
                });
                let took = started.elapsed();
                totals.borrow_mut().add(iterations, took, 0.0);
                took
            })
        });
    }
    group.finish();
    drop(backends);

    // Writes: the in-memory server as a service in this process (its CPU is this process's
    // while nothing else runs), Envtest's kube-apiserver as its own process.
    let writes: BTreeMap<&str, RefCell<Totals>> = ["in_memory", "envtest"]
        .into_iter()
        .map(|name| (name, RefCell::default()))
        .collect();
    let mut group = criterion.benchmark_group("deployment_write");
    let mut next = 0;
    {
        let totals = &writes["in_memory"];
        group.bench_function("in_memory", |b| {
            b.iter_custom(|iterations| {
                let cpu = cpu_seconds("self");
                let started = Instant::now();
                runtime.block_on(write_deployments(
                    &servers.memory,
                    next,
                    iterations as usize,
                ));
                let took = started.elapsed();
                next += iterations as usize;
                // Two writes per iteration.
                totals
                    .borrow_mut()
                    .add(2 * iterations, took, cpu_seconds("self") - cpu);
                took
            })
        });
    }
    #[cfg(feature = "envtest")]
    if let Some(env) = &servers.envtest {
        let client = env.client();
        let pid = env.apiserver_pid().to_string();
        let totals = &writes["envtest"];
        group.bench_function("envtest", |b| {
            b.iter_custom(|iterations| {
                let cpu = cpu_seconds(&pid);
                let started = Instant::now();
                runtime.block_on(write_deployments(&client, next, iterations as usize));
                let took = started.elapsed();
                next += iterations as usize;
                totals
                    .borrow_mut()
                    .add(2 * iterations, took, cpu_seconds(&pid) - cpu);
                took
            })
        });
    }
    group.finish();

    // The lifecycle, on servers of its own with the cluster's controllers, each measured
    // with the machine to itself: the servers above are stopped, and Envtest starts after the
    // in-memory runs (its etcd, kube-apiserver and kube-controller-manager take CPU even when
    // idle, which the two-worker runtime would otherwise share its two cores with).
    drop(servers);
    let current_thread = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let lifecycle: BTreeMap<&str, RefCell<Totals>> =
        ["in_memory", "in_memory_current_thread", "envtest"]
            .into_iter()
            .map(|name| (name, RefCell::default()))
            .collect();
    let mut group = criterion.benchmark_group("lifecycle");
    // Seconds per iteration on Envtest: ten samples of one iteration each.
    group.sampling_mode(criterion::SamplingMode::Flat);
    // In memory on the benchmark's runtime (two workers, as `#[kubegen::test]` has) and on
    // a current-thread one (`#[tokio::test]`'s default).
    measure_lifecycle(
        &mut group,
        &lifecycle,
        in_memory_life("in_memory", &runtime),
    );
    let life = in_memory_life("in_memory_current_thread", &current_thread);
    measure_lifecycle(&mut group, &lifecycle, life);
    #[cfg(feature = "envtest")]
    if let Some(life) = envtest_life(&runtime) {
        measure_lifecycle(&mut group, &lifecycle, life);
    }
    group.finish();
    criterion.final_summary();

    let memory = scenario["in_memory"].borrow();
    // A filtered run (`cargo bench ... -- lifecycle`) measured only some groups.
    if memory.iterations > 0 {
        println!(
            "sample-controller round trip (create Foo, Deployment appears, its status written, \
         Foo status follows), mean of {} in memory: {:.3} ms",
            memory.iterations,
            memory.mean() * 1e3
        );
        if let Some(envtest) = scenario.get("envtest").map(RefCell::borrow)
            && envtest.iterations > 0
        {
            println!(
                "  on Envtest, mean of {}: {:.3} ms: in memory is {:.1}x as fast",
                envtest.iterations,
                envtest.mean() * 1e3,
                envtest.mean() / memory.mean()
            );
        }
    }
    let memory = lifecycle["in_memory"].borrow();
    // A filtered run (`cargo bench ... -- lifecycle`) measured only some groups.
    if memory.iterations > 0 {
        println!(
            "sample-controller lifecycle with the cluster's controllers (create Foo, Deployment \
         available through a ReplicaSet and a Ready Pod, Foo status follows; delete Foo, \
         Deployment, ReplicaSet and Pod collected), mean of {} in memory: {:.3} ms",
            memory.iterations,
            memory.mean() * 1e3
        );
        println!(
            "  in memory, each: {:.1} objects stored, {:.3} ms of this process's CPU (the \
             server, its controllers and kubelet, the operator and the benchmark's caches)",
            memory.stored as f64 / memory.iterations.max(1) as f64,
            memory.cpu_mean() * 1e3
        );
        let current = lifecycle["in_memory_current_thread"].borrow();
        if current.iterations > 0 {
            println!(
                "  in memory on a current-thread runtime, mean of {}: {:.3} ms; each: {:.1} \
                 objects stored, {:.3} ms of CPU",
                current.iterations,
                current.mean() * 1e3,
                current.stored as f64 / current.iterations.max(1) as f64,
                current.cpu_mean() * 1e3
            );
        }
        if let Some(envtest) = lifecycle.get("envtest").map(RefCell::borrow)
            && envtest.iterations > 0
        {
            println!(
                "  on Envtest with kube-controller-manager, mean of {}: {:.3} ms: in memory is \
             {:.1}x as fast ({:.1}x on a current-thread runtime)",
                envtest.iterations,
                envtest.mean() * 1e3,
                envtest.mean() / memory.mean(),
                envtest.mean() / current.mean()
            );
        }
    }
    let memory = writes["in_memory"].borrow();
    println!(
        "Deployment writes (create, strategic merge patch), {} in memory: {:.1} µs each, \
         {:.1} µs of server CPU each",
        memory.iterations,
        memory.mean() * 1e6,
        memory.cpu_mean() * 1e6
    );
    let envtest = writes["envtest"].borrow();
    if envtest.iterations > 0 {
        println!(
            "  {} on Envtest: {:.1} µs each, {:.1} µs of kube-apiserver CPU each (etcd not \
             counted): in memory is {:.1}x as fast, with {:.2}x the server CPU",
            envtest.iterations,
            envtest.mean() * 1e6,
            envtest.cpu_mean() * 1e6,
            envtest.mean() / memory.mean(),
            memory.cpu_mean() / envtest.cpu_mean()
        );
    }
}
