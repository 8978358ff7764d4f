//! The priority queue against a FIFO queue, in the same run: while a controller works through
//! the 10,000 objects of its informer's first list (4 workers, 1 ms per reconcile), new
//! objects are created one every 10 ms; the time from each create's answer to the object's
//! first reconcile, p50 and p99, with `Controller::priority_queue(true)` (the default: the
//! first list queues at low priority) and with `priority_queue(false)` (everything at one
//! priority, client-go's FIFO). The objects are ConfigMaps on the in-memory server.
//!
//! `cargo bench --all-features --bench priority_queue` (`-- --objects N` for another count).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::informer::SharedInformerFactory;
use kubegen::manager::Manager;
use kubegen::testing::ApiServer;
use tokio_util::sync::CancellationToken;

const NAMESPACE: &str = "bench-priority";
const WORKERS: usize = 4;
const RECONCILE: Duration = Duration::from_millis(1);
/// New objects created while the first list is worked through, and the gap between them.
const NEW: usize = 100;
const GAP: Duration = Duration::from_millis(10);

/// When each key was first reconciled.
#[derive(Clone, Default)]
struct FirstSeen(Arc<Mutex<HashMap<ObjectKey, Instant>>>);

impl Reconciler<ConfigMap> for FirstSeen {
    type Error = std::convert::Infallible;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        _: Option<Arc<ConfigMap>>,
    ) -> Result<Action, Self::Error> {
        let now = Instant::now();
        self.0.lock().unwrap().entry(key.clone()).or_insert(now);
        tokio::time::sleep(RECONCILE).await;
        Ok(Action::Done)
    }
}

fn config_map(name: &str) -> ConfigMap {
    let mut config = ConfigMap::default();
    config.metadata.name = Some(name.to_owned());
    config.data = Some([("k".to_owned(), "v".to_owned())].into());
    config
}

/// Runs a controller over the existing objects, creates `NEW` objects meanwhile, and returns
/// each new object's time from its create to its first reconcile, sorted; and how many of
/// the first list's objects had been reconciled when the last new one was.
async fn run(client: &kube::Client, prioritize: bool, tag: &str) -> (Vec<Duration>, usize) {
    let seen = FirstSeen::default();
    let name = format!("first-seen-{tag}");
    let controller = Controller::<ConfigMap>::new(&name)
        .concurrency(WORKERS)
        .priority_queue(prioritize);
    let cache = SharedInformerFactory::new(client.clone()).namespace(NAMESPACE);
    let manager = Manager::with_cache(cache).add(controller, seen.clone());
    let stop = CancellationToken::new();
    let running = tokio::spawn(manager.run(stop.clone()));
    // The first list is being worked through once the first key is reconciled.
    while seen.0.lock().unwrap().is_empty() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let configs = Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE);
    let mut created = Vec::with_capacity(NEW);
    for i in 0..NEW {
        let name = format!("new-{tag}-{i}");
        configs
            .create(&PostParams::default(), &config_map(&name))
            .await
            .expect("a new ConfigMap");
        created.push((ObjectKey::new(Some(NAMESPACE), &name), Instant::now()));
        tokio::time::sleep(GAP).await;
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let latencies = loop {
        let first = seen.0.lock().unwrap().clone();
        let all: Option<Vec<Duration>> = created
            .iter()
            .map(|(key, at)| {
                first
                    .get(key)
                    .map(|seen| seen.saturating_duration_since(*at))
            })
            .collect();
        if let Some(mut all) = all {
            all.sort();
            let last_new = created
                .iter()
                .filter_map(|(key, _)| first.get(key))
                .max()
                .copied();
            let old_done = first
                .iter()
                .filter(|(key, at)| !key.name().starts_with("new-") && Some(**at) <= last_new)
                .count();
            break (all, old_done);
        }
        assert!(
            Instant::now() < deadline,
            "the new objects were never reconciled"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    stop.cancel();
    let _ = running.await;
    latencies
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let objects = args
        .iter()
        .position(|a| a == "--objects")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000usize);
    // criterion's arguments (`--bench`) are accepted and ignored.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    runtime.block_on(async {
        let server = ApiServer::new();
        server
            .create_namespace(NAMESPACE)
            .unwrap_or_else(|e| panic!("creating {NAMESPACE}: {}", e.message));
        let client = server.client();
        let configs = Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE);
        for i in 0..objects {
            configs
                .create(&PostParams::default(), &config_map(&format!("old-{i}")))
                .await
                .expect("a ConfigMap");
        }
        let (priority, priority_old) = run(&client, true, "priority").await;
        let (fifo, fifo_old) = run(&client, false, "fifo").await;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "a new object's time to its first reconcile while {objects} listed objects are \
             reconciled ({WORKERS} workers, {} ms each; {NEW} new objects, one every {} ms):",
            RECONCILE.as_millis(),
            GAP.as_millis()
        );
        for (name, latencies, old) in [
            ("priority queue", &priority, priority_old),
            ("FIFO queue", &fifo, fifo_old),
        ] {
            println!(
                "  {name}: p50 {:.1} ms, p99 {:.1} ms ({old} listed objects reconciled by \
                 the last new one's first reconcile)",
                ms(percentile(latencies, 0.50)),
                ms(percentile(latencies, 0.99))
            );
        }
        println!(
            "  the FIFO queue's p99 is {:.0}x the priority queue's (the target: the priority \
             queue's p99 at most 20 ms)",
            ms(percentile(&fifo, 0.99)) / ms(percentile(&priority, 0.99))
        );
    });
}
