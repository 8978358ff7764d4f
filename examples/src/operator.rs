//! A CronJob operator in the client-go pattern the Kubernetes docs teach:
//! informer → event handlers → rate-limited work queue → workers → reconcile (reading the
//! lister, writing through the typed client) → status with conditions, and a finalizer
//! for cleanup. `cargo run --example cronjob_operator` runs it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kubegen::cache::key_of;
use kubegen::client::{ClientError, Patch, PatchParams};
use kubegen::informer::{Handlers, SharedInformerFactory};
use kubegen::workqueue::WorkQueue;

use crate::cronjob::{CronJob, CronJobClientExt, CronJobInformerExt, CronJobLister, CronJobStatus};

/// The finalizer the operator puts on every CronJob it manages.
pub const FINALIZER: &str = "batch.tutorial.kubebuilder.io/cleanup";

/// What happened, for the narration and the tests.
pub type Log = Arc<Mutex<Vec<String>>>;

/// The operator: a queue, a lister and a client.
pub struct Operator {
    client: kube::Client,
    lister: CronJobLister,
    queue: WorkQueue<Arc<str>>,
    log: Log,
}

impl Operator {
    /// Wires the CronJob informer's handlers to a work queue and starts the informer.
    pub async fn start(
        client: kube::Client,
        factory: &SharedInformerFactory,
        log: Log,
    ) -> Arc<Self> {
        let informer = factory.cron_jobs();
        let queue: WorkQueue<Arc<str>> =
            WorkQueue::with_backoff(Duration::from_millis(50), Duration::from_secs(30));
        let (on_add, on_update, on_delete) = (queue.clone(), queue.clone(), queue.clone());
        informer.add_event_handler(
            Handlers::new()
                .on_add(move |job: &Arc<CronJob>, _| on_add.add(key_of(job.as_ref())))
                .on_update(move |old: &Arc<CronJob>, new: &Arc<CronJob>| {
                    // Status writes come back as updates; only spec, deletion and finalizer
                    // changes need work.
                    let relevant = old.spec != new.spec
                        || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
                        || old.metadata.finalizers != new.metadata.finalizers;
                    if relevant {
                        on_update.add(key_of(new.as_ref()))
                    }
                })
                .on_delete(move |job: &Arc<CronJob>| on_delete.add(key_of(job.as_ref()))),
        );
        factory.start();
        factory.wait_for_cache_sync(Duration::from_secs(30)).await;
        Arc::new(Operator {
            client,
            lister: CronJobLister::from(&informer),
            queue,
            log,
        })
    }

    /// Runs `workers` workers until the queue shuts down.
    pub fn run(self: &Arc<Self>, workers: usize) -> Vec<tokio::task::JoinHandle<()>> {
        (0..workers)
            .map(|_| {
                let op = self.clone();
                tokio::spawn(async move {
                    while let Some(key) = op.queue.get().await {
                        match op.reconcile(&key).await {
                            Ok(()) => op.queue.forget(&key),
                            Err(e) => {
                                op.note(format!(
                                    "reconcile {key} failed ({e}); retrying with backoff"
                                ));
                                op.queue.add_rate_limited(key.clone());
                            }
                        }
                        op.queue.done(&key);
                    }
                })
            })
            .collect()
    }

    /// Stops the workers once the queue drains.
    pub fn shut_down(&self) {
        self.queue.shut_down();
    }

    fn note(&self, line: String) {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line);
    }

    /// One pass for one key: cleanup on deletion, finalizer on first sight, then status.
    pub async fn reconcile(&self, key: &str) -> Result<(), ClientError> {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let Some(job) = self.lister.cron_jobs(ns).get(name) else {
            self.note(format!("{key} is gone"));
            return Ok(());
        };
        let jobs = self.client.cron_jobs(ns);
        let finalizers = job.metadata.finalizers.clone().unwrap_or_default();
        if job.metadata.deletion_timestamp.is_some() {
            if finalizers.iter().any(|f| f == FINALIZER) {
                self.note(format!("{key}: cleaning up its jobs before deletion"));
                let rest: Vec<String> = finalizers.into_iter().filter(|f| f != FINALIZER).collect();
                let patch = serde_json::json!({"metadata": {"finalizers": rest, "resourceVersion": job.metadata.resource_version}});
                jobs.patch(name, &PatchParams::default(), &Patch::Merge(patch))
                    .await?;
            }
            return Ok(());
        }
        if !finalizers.iter().any(|f| f == FINALIZER) {
            let mut with = finalizers.clone();
            with.push(FINALIZER.to_owned());
            let patch = serde_json::json!({"metadata": {"finalizers": with, "resourceVersion": job.metadata.resource_version}});
            jobs.patch(name, &PatchParams::default(), &Patch::Merge(patch))
                .await?;
            self.note(format!("{key}: added finalizer"));
            return Ok(());
        }
        let suspended = job.spec.suspend.unwrap_or(false);
        let (status, reason, message) = if suspended {
            ("False", "Suspended", "the schedule is suspended")
        } else {
            ("True", "Scheduled", "jobs run on schedule")
        };
        let mut wanted = job.status.clone().unwrap_or_default();
        let generation = job.metadata.generation;
        let current = wanted
            .conditions
            .as_ref()
            .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
            .cloned();
        let unchanged = current.as_ref().is_some_and(|c| {
            c.status == status && c.reason == reason && c.observed_generation == generation
        });
        if unchanged {
            return Ok(());
        }
        let now = Time(k8s_openapi::jiff::Timestamp::now());
        let transition = match &current {
            Some(c) if c.status == status => c.last_transition_time.clone(),
            _ => now.clone(),
        };
        wanted.conditions = Some(vec![Condition {
            type_: "Ready".into(),
            status: status.into(),
            reason: reason.into(),
            message: message.into(),
            observed_generation: generation,
            last_transition_time: transition,
        }]);
        if !suspended && wanted.last_schedule_time.is_none() {
            wanted.last_schedule_time = Some(now);
        }
        let mut next = (*job).clone();
        next.status = Some(CronJobStatus { ..wanted });
        jobs.update_status(&next).await?;
        self.note(format!("{key}: Ready={status} ({reason})"));
        Ok(())
    }
}

/// The demo `cargo run --example cronjob_operator` narrates: seed three CronJobs (one
/// suspended), let the operator reconcile them, delete one to show the finalizer at work.
pub async fn demo(client: kube::Client, namespace: &str) -> Result<Vec<String>, ClientError> {
    let log: Log = Arc::default();
    let factory = SharedInformerFactory::new(client.clone()).namespace(namespace);
    let operator = Operator::start(client.clone(), &factory, log.clone()).await;
    let workers = operator.run(2);
    let jobs = client.cron_jobs(namespace);
    for (name, schedule, suspend) in [
        ("nightly", "0 2 * * *", false),
        ("hourly", "0 * * * *", false),
        ("paused", "*/5 * * * *", true),
    ] {
        let spec = serde_json::json!({
            "schedule": schedule,
            "suspend": suspend,
            "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure",
                "containers": [{"name": "hello", "image": "busybox", "command": ["date"]}],
            }}}},
        });
        let job = CronJob::new(
            name,
            serde_json::from_value(spec)
                .map_err(|e| ClientError::Transport(kube::Error::SerdeError(e)))?,
        );
        jobs.create(&job).await?;
    }
    let ready = |job: &CronJob| {
        job.status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| !c.is_empty())
    };
    wait_until(|| async {
        Ok(jobs
            .list(&Default::default())
            .await?
            .items
            .iter()
            .all(ready))
    })
    .await?;
    jobs.delete("hourly", &Default::default()).await?;
    wait_until(|| async { Ok(jobs.get_opt("hourly").await?.is_none()) }).await?;
    operator.shut_down();
    factory.shutdown();
    for w in workers {
        let _ = w.await;
    }
    let lines = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(lines)
}

async fn wait_until<F, Fut>(mut check: F) -> Result<(), ClientError>
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
    Ok(())
}
