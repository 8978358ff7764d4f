//! Convergence: 10,000 CronJobs on the in-memory API server, each reconciled until its status
//! says Ready; the time from start until every one is, and the controller process's peak
//! heap. kubegen's Manager with a `Controller` and `Reconciler` against kube-runtime's
//! `Controller`, with the same reconcile function and the same concurrency, in the same run;
//! then both again with 1 ms of latency injected into every response.
//!
//! The server runs in a child process of its own (seeded, then serving on a loopback port),
//! and each controller in another, so the heap and CPU time counted are the controller's
//! alone and one run cannot warm the next; the server's CPU time during each run is counted
//! too. Each figure is the median of five runs. A `floor` run does the same writes with no
//! controller at all (a list in pages, each page's patches at the same concurrency as it
//! arrives): what the server needs for them, below which no controller can converge. Its
//! time bounds how much faster than kube-runtime any controller can be, and the CPU a
//! controller spends above it is its own machinery's: divided by the reconciles the
//! controller ran, it is the controller's own CPU per reconcile, the figure compared. kubegen
//! runs four times: with the Manager's default cache, with managedFields left out of it
//! (`SharedInformerFactory::strip_managed_fields`, which kube-runtime's stable `Controller`
//! cannot do), and with the cache packed (`SharedInformerFactory::pack_objects`: objects kept
//! as JSON, managedFields and all, so `extract_*` works), and keeping only the managedFields
//! entries of the manager it writes as (`SharedInformerFactory::keep_managed_fields_of`:
//! `extract_*` works for that manager).
//!
//! `cargo bench --bench convergence` (`-- --objects N` for another count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::informer::SharedInformerFactory;
use kubegen::manager::Manager;
use kubegen::prelude::*;
use kubegen::testing::ApiServer;
use tokio_util::sync::CancellationToken;

struct Counting;

static HEAP: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// The field manager every variant writes as.
const MANAGER: &str = "cronjob-controller";

/// Reconciles run (the floor's patches count as one each).
static RECONCILES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to the system allocator unchanged; the counters are only
// arithmetic on the sizes the caller passes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now =
            HEAP.fetch_add(layout.size() as isize, Ordering::Relaxed) + layout.size() as isize;
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as this function's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HEAP.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as this function's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let delta = new_size as isize - layout.size() as isize;
        let now = HEAP.fetch_add(delta, Ordering::Relaxed) + delta;
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as this function's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Reconciles at once, on both sides.
const CONCURRENCY: usize = 16;

/// CronJob runs a Job on a schedule (the fields a convergence test needs).
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "bench.kubegen.dev",
    version = "v1",
    kind = "CronJob",
    status = "CronJobStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// The schedule in Cron format.
    pub schedule: String,
    /// The image its jobs run.
    pub image: String,
    /// Whether runs are suspended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
}

/// What the controller observed.
#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct CronJobStatus {
    /// The Ready condition.
    #[schema(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
}

/// Which objects reached Ready, counted once each.
struct Progress {
    ready: Vec<AtomicBool>,
    count: AtomicUsize,
    all: tokio::sync::Notify,
}

impl Progress {
    fn new(objects: usize) -> Self {
        Progress {
            ready: (0..objects).map(|_| AtomicBool::new(false)).collect(),
            count: AtomicUsize::new(0),
            all: tokio::sync::Notify::new(),
        }
    }

    fn mark(&self, name: &str) {
        let index = name
            .rsplit('-')
            .next()
            .and_then(|n| n.parse::<usize>().ok());
        let Some(flag) = index.and_then(|i| self.ready.get(i)) else {
            return;
        };
        if !flag.swap(true, Ordering::Relaxed)
            && self.count.fetch_add(1, Ordering::Relaxed) + 1 == self.ready.len()
        {
            self.all.notify_one();
        }
    }

    async fn wait(&self) {
        while self.count.load(Ordering::Relaxed) < self.ready.len() {
            let _ = tokio::time::timeout(Duration::from_millis(50), self.all.notified()).await;
        }
    }
}

fn is_ready(job: &CronJob) -> bool {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// The reconcile both controllers run: a CronJob not yet Ready gets a Ready condition
/// through the status subresource.
async fn reconcile(
    client: &kube::Client,
    job: &CronJob,
    progress: &Progress,
) -> Result<(), kube::Error> {
    RECONCILES.fetch_add(1, Ordering::Relaxed);
    let name = job.metadata.name.as_deref().unwrap_or_default();
    if !is_ready(job) {
        let namespace = job.metadata.namespace.as_deref().unwrap_or("default");
        let status = serde_json::json!({"status": {"conditions": [{
            "type": "Ready", "status": "True", "reason": "Scheduled", "message": "",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
        }]}});
        Api::<CronJob>::namespaced(client.clone(), namespace)
            .patch_status(
                name,
                &PatchParams {
                    field_manager: Some(MANAGER.into()),
                    ..PatchParams::default()
                },
                &Patch::Merge(&status),
            )
            .await?;
    }
    progress.mark(name);
    Ok(())
}

struct Bench {
    client: kube::Client,
    progress: Arc<Progress>,
}

impl Reconciler<CronJob> for Bench {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        _: &ObjectKey,
        job: Option<Arc<CronJob>>,
    ) -> Result<Action, kube::Error> {
        if let Some(job) = job {
            reconcile(&self.client, &job, &self.progress).await?;
        }
        Ok(Action::Done)
    }
}

/// Seeds `objects` CronJobs, sets the latency, serves, prints the address, and serves until
/// its parent closes stdin.
fn serve(objects: usize, latency_ms: u64) {
    let runtime = tokio::runtime::Runtime::new().expect("a Tokio runtime");
    runtime.block_on(async {
        let server = ApiServer::new();
        let api = Api::<CronJob>::namespaced(server.client(), "default");
        let mut creates = futures::stream::iter(0..objects)
            .map(|i| {
                let api = api.clone();
                async move {
                    let spec = CronJobSpec {
                        schedule: "*/5 * * * *".into(),
                        image: format!("registry.example.com/team/job:{}", i % 100),
                        suspend: Some(false),
                    };
                    api.create(
                        &Default::default(),
                        &CronJob::new(&format!("cron-{i}"), spec),
                    )
                    .await
                    .map(|_| ())
                }
            })
            .buffer_unordered(64);
        while let Some(created) = creates.next().await {
            created.expect("seeded");
        }
        server
            .faults()
            .set_latency(Duration::from_millis(latency_ms));
        let address = server.listen().await.expect("a loopback port");
        println!("{address}");
        // Serve until the parent closes stdin.
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {}
        })
        .await
        .expect("stdin watcher");
    });
}

/// A process's CPU time (user + system) so far, from `/proc/<pid>/stat` (clock ticks of
/// 1/100 s, Linux's `USER_HZ`); 0 where there is no such file.
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (which is in parentheses and may hold spaces):
    // utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: Vec<f64> = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse().ok())
        .collect();
    ticks.iter().sum::<f64>() / 100.0
}

/// Runs one controller against the server at `address` until every object is Ready; prints
/// `seconds peak_heap_bytes cpu_seconds`.
fn converge(variant: &str, address: &str, objects: usize) {
    let runtime = tokio::runtime::Runtime::new().expect("a Tokio runtime");
    runtime.block_on(async {
        let url = format!("http://{address}").parse().expect("a URL");
        let client = kube::Client::try_from(kube::Config::new(url)).expect("a client");
        let progress = Arc::new(Progress::new(objects));
        let base = HEAP.load(Ordering::SeqCst);
        PEAK.store(base, Ordering::SeqCst);
        let stop = CancellationToken::new();
        let cpu = cpu_seconds("self");
        let started = Instant::now();
        let run = match variant {
            "kubegen" | "kubegen-strip" | "kubegen-packed" | "kubegen-own" => {
                let bench = Bench {
                    client: client.clone(),
                    progress: progress.clone(),
                };
                let controller = Controller::<CronJob>::new("cronjob").concurrency(CONCURRENCY);
                let mut cache = SharedInformerFactory::new(client.clone());
                match variant {
                    "kubegen-strip" => cache = cache.strip_managed_fields(),
                    "kubegen-packed" => cache = cache.pack_objects(),
                    "kubegen-own" => cache = cache.keep_managed_fields_of(&[MANAGER]),
                    _ => {}
                }
                let manager = Manager::with_cache(cache).add(controller, bench);
                tokio::spawn(
                    manager
                        .run(stop.clone())
                        .map(|r| r.expect("the manager ran")),
                )
            }
            "kube" => {
                use kube::runtime::controller::{self, Action as KubeAction};
                let ctx = Arc::new((client.clone(), progress.clone()));
                let controller = controller::Controller::new(
                    Api::<CronJob>::all(client.clone()),
                    kube::runtime::watcher::Config::default(),
                )
                .with_config(controller::Config::default().concurrency(CONCURRENCY as u16))
                .graceful_shutdown_on(stop.clone().cancelled_owned())
                .run(
                    |job: Arc<CronJob>, ctx: Arc<(kube::Client, Arc<Progress>)>| async move {
                        reconcile(&ctx.0, &job, &ctx.1).await?;
                        Ok::<_, kube::Error>(KubeAction::await_change())
                    },
                    |_, _: &kube::Error, _| KubeAction::requeue(Duration::from_millis(5)),
                    ctx,
                )
                .for_each(|_| async {});
                tokio::spawn(controller)
            }
            "floor" => {
                // No controller: the objects listed in pages of 500 (as both controllers'
                // watchers list them), each page's patched at the same concurrency as it
                // arrives. What the server needs for the writes alone; no controller can
                // converge faster.
                let client = client.clone();
                let progress = progress.clone();
                let api = Api::<CronJob>::all(client.clone());
                tokio::spawn(async move {
                    futures::stream::unfold(Some(String::new()), move |token| {
                        let api = api.clone();
                        async move {
                            let token = token?;
                            let mut params = ListParams::default().limit(500);
                            if !token.is_empty() {
                                params = params.continue_token(&token);
                            }
                            let page = api.list(&params).await.expect("listed");
                            let next = page.metadata.continue_.filter(|c| !c.is_empty());
                            Some((futures::stream::iter(page.items), next))
                        }
                    })
                    .flatten()
                    .for_each_concurrent(CONCURRENCY, |job| {
                        let (client, progress) = (client.clone(), progress.clone());
                        async move {
                            reconcile(&client, &job, &progress).await.expect("patched");
                        }
                    })
                    .await;
                })
            }
            other => panic!("unknown variant {other}"),
        };
        progress.wait().await;
        let took = started.elapsed();
        let peak = PEAK.load(Ordering::SeqCst) - base;
        let cpu = cpu_seconds("self") - cpu;
        let reconciles = RECONCILES.load(Ordering::SeqCst);
        stop.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(30), run).await;
        println!("{} {} {} {reconciles}", took.as_secs_f64(), peak, cpu);
    });
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let objects = args
        .iter()
        .position(|a| a == "--objects")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(10_000);
    match args.first().map(String::as_str) {
        Some("serve") => return serve(objects, args[1].parse().unwrap_or(0)),
        Some("converge") => return converge(&args[1], &args[2], objects),
        _ => {}
    }
    let exe = std::env::current_exe().expect("own path");
    // seconds, peak heap bytes, the controller's CPU seconds, reconciles, the server's CPU
    // seconds
    let once = |variant: &str, latency_ms: u64| -> [f64; 5] {
        let mut server = Command::new(&exe)
            .args([
                "serve",
                &latency_ms.to_string(),
                "--objects",
                &objects.to_string(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server started");
        let mut address = String::new();
        BufReader::new(server.stdout.take().expect("piped"))
            .read_line(&mut address)
            .expect("the server's address");
        let server_pid = server.id().to_string();
        let server_cpu = cpu_seconds(&server_pid);
        let out = Command::new(&exe)
            .args([
                "converge",
                variant,
                address.trim(),
                "--objects",
                &objects.to_string(),
            ])
            .output()
            .expect("the controller ran");
        let server_cpu = cpu_seconds(&server_pid) - server_cpu;
        drop(server.stdin.take());
        let _ = server.wait();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut it = text
            .split_whitespace()
            .map(|v| v.parse::<f64>().unwrap_or(f64::NAN));
        let mut next = || it.next().unwrap_or(f64::NAN);
        [next(), next(), next(), next(), server_cpu]
    };
    println!(
        "convergence of {objects} CronJobs to Ready, {CONCURRENCY} concurrent reconciles, median of {RUNS}"
    );
    println!(
        "{:<30} {:>8} {:>12} {:>11} {:>13} {:>14}",
        "", "seconds", "CPU seconds", "reconciles", "server CPU s", "peak heap MiB"
    );
    for latency_ms in [0, 1] {
        let mut figures = Vec::new();
        for variant in [
            "floor",
            "kube",
            "kubegen",
            "kubegen-strip",
            "kubegen-packed",
            "kubegen-own",
        ] {
            let runs: Vec<[f64; 5]> = (0..RUNS).map(|_| once(variant, latency_ms)).collect();
            let [seconds, peak, cpu, reconciles, server_cpu] =
                [0, 1, 2, 3, 4].map(|i| median(runs.iter().map(|r| r[i]).collect()));
            let peak = peak / (1024.0 * 1024.0);
            let label = match variant {
                "floor" => "floor: list, then patch all",
                "kube" => "kube-runtime Controller",
                "kubegen" => "kubegen Manager",
                "kubegen-strip" => "kubegen, managedFields off",
                "kubegen-packed" => "kubegen, cache packed",
                _ => "kubegen, own managedFields",
            };
            println!(
                "{label:<30} {seconds:>8.3} {cpu:>12.2} {reconciles:>11.0} {server_cpu:>13.2} \
                 {peak:>14.1}   (latency {latency_ms} ms)"
            );
            figures.push(Figures {
                seconds,
                cpu,
                reconciles,
                peak,
            });
        }
        let (floor, kube) = (&figures[0], &figures[1]);
        // The floor makes the same list and writes with no controller, so no controller
        // converges faster than it; the CPU a controller spends above it is its own
        // machinery's, here per reconcile it ran.
        let own = |c: &Figures| (c.cpu - floor.cpu) / c.reconciles * 1e6;
        println!(
            "latency {latency_ms} ms: kube-runtime takes {:.2}x the floor's time, the most any \
             controller could gain over it on this server; its own CPU per reconcile above the \
             floor {:.1} µs",
            kube.seconds / floor.seconds,
            own(kube),
        );
        for (name, ours) in [
            ("kubegen", &figures[2]),
            ("kubegen, managedFields off,", &figures[3]),
            ("kubegen, cache packed,", &figures[4]),
            ("kubegen, only its own managedFields,", &figures[5]),
        ] {
            println!(
                "latency {latency_ms} ms: {name} converges {:.2}x as fast, with {:.2}x the CPU \
                 time, {:.1} µs own CPU per reconcile ({:.2}x kube-runtime's) and {:.2}x the \
                 peak heap",
                kube.seconds / ours.seconds,
                ours.cpu / kube.cpu,
                own(ours),
                own(ours) / own(kube),
                ours.peak / kube.peak
            );
        }
    }
}

/// The medians of one variant's runs.
struct Figures {
    seconds: f64,
    cpu: f64,
    reconciles: f64,
    peak: f64,
}

/// Runs per figure; the median is reported.
const RUNS: usize = 5;
