//! What `cargo run --example cronjob_operator` narrates: the operator on a Manager (or
//! several, campaigning for one Lease), three seeded CronJobs, a failover when the leader is
//! killed, a finalizer at work, the metrics endpoint, and a graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use kubegen::client::ClientError;
use kubegen::leaderelection::LeaderElectionConfig;
use kubegen::manager::{LeaderElection, ManagerError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Log;
use crate::cronjob::{CronJob, CronJobClientExt};

/// The Lease the replicas campaign for.
pub const LEASE: &str = "cronjob-operator";

/// What the demo did.
#[derive(Debug)]
pub struct DemoReport {
    /// The narration, in order.
    pub log: Vec<String>,
    /// What the last leader's `/metrics` served before shutdown (Prometheus text).
    pub metrics: String,
}

/// Why the demo stopped early.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// A request failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// A Manager failed.
    #[error(transparent)]
    Manager(#[from] ManagerError),
    /// The metrics endpoint could not be bound or read.
    #[error("the metrics endpoint: {0}")]
    Metrics(#[from] std::io::Error),
    /// Something the demo waits for did not happen in time.
    #[error("timed out waiting until {0}")]
    Timeout(String),
}

/// Timings short enough to watch a failover (client-go's defaults are 15 s, 10 s, 2 s).
fn timings() -> LeaderElectionConfig {
    LeaderElectionConfig {
        lease_duration: Duration::from_secs(4),
        renew_deadline: Duration::from_secs(2),
        retry_period: Duration::from_millis(500),
        ..LeaderElectionConfig::default()
    }
}

struct Replica {
    identity: String,
    metrics: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<Result<(), ManagerError>>,
}

/// Starts one replica: a Manager with the operator's controller, leader election as
/// `identity`, an event recorder, and `/metrics` on a free loopback port.
fn start_replica(
    client: &kube::Client,
    namespace: &str,
    identity: String,
    log: &Log,
) -> Result<Replica, DemoError> {
    let election = LeaderElection::new(namespace, LEASE)
        .identity(&identity)
        .config(timings());
    let metrics = SocketAddr::from(([127, 0, 0, 1], 0));
    let manager = super::manager(client, namespace, election, metrics, log)?
        .graceful_shutdown_timeout(Duration::from_secs(10));
    let metrics = manager
        .metrics_local_address()
        .ok_or_else(|| std::io::Error::other("no metrics listener"))?;
    let stop = CancellationToken::new();
    let task = tokio::spawn(manager.run(stop.clone()));
    Ok(Replica {
        identity,
        metrics,
        stop,
        task,
    })
}

/// Runs `replicas` operator replicas (one or more) against `client` in `namespace`: seeds
/// three CronJobs (one suspended) and waits until all are reconciled; with more than one
/// replica kills the leader without letting it release the Lease and shows another take
/// over; deletes a CronJob to show the finalizer at work; reads `/metrics`; and stops the
/// rest gracefully, which releases the Lease.
pub async fn demo(
    client: kube::Client,
    namespace: &str,
    replicas: usize,
) -> Result<DemoReport, DemoError> {
    demo_as(client.clone(), client, namespace, replicas).await
}

/// The same demo with two identities: the user creating and deleting CronJobs (and reading
/// the Lease) with `user`, the operator's replicas with `operator`, which needs only the
/// operator's own rules ([`rules`](super::rules)).
pub async fn demo_as(
    user: kube::Client,
    operator: kube::Client,
    namespace: &str,
    replicas: usize,
) -> Result<DemoReport, DemoError> {
    let log: Log = Arc::default();
    let note = |line: String| log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
    let mut running = Vec::new();
    for i in 0..replicas.max(1) {
        running.push(start_replica(
            &operator,
            namespace,
            format!("replica-{i}"),
            &log,
        )?);
    }
    let jobs = user.cron_jobs(namespace);
    for (name, schedule, suspend) in [
        ("nightly", "0 2 * * *", false),
        ("hourly", "0 * * * *", false),
        ("paused", "*/5 * * * *", true),
    ] {
        jobs.create(&cron_job(name, schedule, suspend)?).await?;
    }
    wait_until("the seeded CronJobs are reconciled", || async {
        Ok(jobs
            .list(&Default::default())
            .await?
            .items
            .iter()
            .all(ready))
    })
    .await?;
    let leases = kube::Api::<Lease>::namespaced(user, namespace);
    let holder = || async {
        let lease = leases.get_opt(LEASE).await.map_err(ClientError::from)?;
        Ok::<_, ClientError>(
            lease
                .and_then(|l| l.spec)
                .and_then(|s| s.holder_identity)
                .unwrap_or_default(),
        )
    };
    let leader = holder().await?;
    note(format!("{leader} leads"));

    if running.len() > 1 {
        let at = running
            .iter()
            .position(|r| r.identity == leader)
            .ok_or_else(|| DemoError::Timeout(format!("{leader} is one of the replicas")))?;
        let killed = running.remove(at);
        killed.task.abort();
        // Aborting only asks: until the task is dropped, its controller may still take up
        // what comes next. Waiting for it keeps the killed replica from reconciling weekly.
        let _ = killed.task.await;
        let killed_at = Instant::now();
        note(format!("killed {leader} without releasing its Lease"));
        jobs.create(&cron_job("weekly", "0 3 * * 0", false)?)
            .await?;
        wait_until("another replica reconciles weekly", || async {
            Ok(jobs.get_opt("weekly").await?.as_ref().is_some_and(ready))
        })
        .await?;
        let successor = holder().await?;
        note(format!(
            "{successor} took over; weekly reconciled {:.1} s after the kill",
            killed_at.elapsed().as_secs_f64()
        ));
    }

    jobs.delete("hourly", &Default::default()).await?;
    wait_until("hourly is gone", || async {
        Ok(jobs.get_opt("hourly").await?.is_none())
    })
    .await?;

    let leader = holder().await?;
    let metrics = match running.iter().find(|r| r.identity == leader) {
        Some(r) => scrape(r.metrics).await?,
        None => String::new(),
    };
    for replica in running {
        replica.stop.cancel();
        match replica.task.await {
            Ok(result) => result?,
            Err(e) => {
                return Err(DemoError::Timeout(format!(
                    "{} stops ({e})",
                    replica.identity
                )));
            }
        }
        note(format!("{} stopped", replica.identity));
    }
    let after = holder().await?;
    note(match after.as_str() {
        "" => "the Lease was released".to_owned(),
        holder => format!("the Lease is still held by {holder}"),
    });
    let log = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(DemoReport { log, metrics })
}

fn cron_job(name: &str, schedule: &str, suspend: bool) -> Result<CronJob, ClientError> {
    let spec = serde_json::json!({
        "schedule": schedule,
        "suspend": suspend,
        "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure",
            "containers": [{"name": "hello", "image": "busybox", "command": ["date"]}],
        }}}},
    });
    let spec = serde_json::from_value(spec)
        .map_err(|e| ClientError::Transport(kube::Error::SerdeError(e)))?;
    Ok(CronJob::new(name, spec))
}

fn ready(job: &CronJob) -> bool {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| !c.is_empty())
}

/// `GET /metrics` over plain HTTP/1.1; the body.
async fn scrape(address: SocketAddr) -> std::io::Result<String> {
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await?;
    match response.split_once("\r\n\r\n") {
        Some((head, body)) if head.starts_with("HTTP/1.1 200") => Ok(body.to_owned()),
        _ => Err(std::io::Error::other(format!(
            "unexpected response: {}",
            response.lines().next().unwrap_or_default()
        ))),
    }
}

async fn wait_until<F, Fut>(what: &str, mut check: F) -> Result<(), DemoError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<bool, ClientError>>,
{
    for _ in 0..600 {
        if check().await? {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(DemoError::Timeout(what.to_owned()))
}
