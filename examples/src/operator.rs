//! A CronJob operator in the client-go pattern the Kubernetes docs teach:
//! informer → event handlers → rate-limited work queue → workers → reconcile (reading the
//! lister, writing through the typed client) → status with conditions, a child per run, and
//! a finalizer for cleanup. Every write is a server-side apply of an apply configuration, so
//! the operator owns exactly its finalizer, its children and its status fields.
//! `cargo run --example cronjob_operator` runs it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::Resource as _;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference, Time};
use kubegen::apply::ObjectConfiguration as _;
use kubegen::cache::key_of;
use kubegen::client::{ClientError, ListParams};
use kubegen::informer::{Handlers, SharedInformerFactory};
use kubegen::workqueue::WorkQueue;

use crate::cronjob::{
    CronJob, CronJobApplyConfiguration, CronJobClientExt, CronJobInformerExt, CronJobLister,
    CronJobStatusApplyConfiguration, JobRun, JobRunApplyConfiguration, JobRunClientExt,
    JobRunSpecApplyConfiguration,
};

/// The finalizer the operator puts on every CronJob it manages.
pub const FINALIZER: &str = "batch.tutorial.kubebuilder.io/cleanup";

/// The field manager the operator applies as.
pub const MANAGER: &str = "cronjob-operator";

/// The label on a CronJob's runs naming it.
pub const CRONJOB_LABEL: &str = "batch.tutorial.kubebuilder.io/cronjob";

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

    /// One pass for one key: cleanup on deletion, finalizer on first sight, the first run,
    /// then status. Every write is a server-side apply of an apply configuration as
    /// [`MANAGER`], holding only what the operator decides: its finalizer, its children, the
    /// status it observes.
    pub async fn reconcile(&self, key: &str) -> Result<(), ClientError> {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let Some(job) = self.lister.cron_jobs(ns).get(name) else {
            self.note(format!("{key} is gone"));
            return Ok(());
        };
        let jobs = self.client.cron_jobs(ns);
        let finalized = job
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == FINALIZER);
        if job.metadata.deletion_timestamp.is_some() {
            if finalized {
                self.note(format!("{key}: cleaning up its jobs before deletion"));
                let deleted = self.delete_runs(&job, ns, name).await?;
                self.note(format!("{key}: deleted {deleted} runs"));
                // The operator's apply now leaves the finalizer out: it was the only owner,
                // so the finalizer goes, and with it the object.
                jobs.apply_config(&CronJobApplyConfiguration::new(name, ns), MANAGER, true)
                    .await?;
            }
            return Ok(());
        }
        if !finalized {
            let mine = CronJobApplyConfiguration::new(name, ns).with_finalizers([FINALIZER]);
            jobs.apply_config(&mine, MANAGER, true).await?;
            self.note(format!("{key}: added finalizer"));
            return Ok(());
        }
        let suspended = job.spec.suspend.unwrap_or(false);
        let (status, reason, message) = if suspended {
            ("False", "Suspended", "the schedule is suspended")
        } else {
            ("True", "Scheduled", "jobs run on schedule")
        };
        let observed = job.status.clone().unwrap_or_default();
        let generation = job.metadata.generation;
        let current = observed
            .conditions
            .iter()
            .flatten()
            .find(|c| c.type_ == "Ready")
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
        let mut applied = CronJobStatusApplyConfiguration::new().with_conditions([Condition {
            type_: "Ready".into(),
            status: status.into(),
            reason: reason.into(),
            message: message.into(),
            observed_generation: generation,
            last_transition_time: transition,
        }]);
        let mut last = observed.last_schedule_time.clone();
        let mut active = observed.active.clone().unwrap_or_default();
        if !suspended && last.is_none() {
            // The first run is scheduled at the CronJob's creation, so a retried reconcile
            // applies the same child again rather than a second one.
            let scheduled = job.metadata.creation_timestamp.clone().unwrap_or(now);
            active.push(self.start_run(&job, ns, name, &scheduled).await?);
            last = Some(scheduled);
        }
        if let Some(last) = last {
            applied = applied.with_last_schedule_time(last);
        }
        if !active.is_empty() {
            applied = applied.with_active(active);
        }
        let mine = CronJobApplyConfiguration::new(name, ns).with_status(applied);
        jobs.apply_config_status(&mine, MANAGER, true).await?;
        self.note(format!("{key}: Ready={status} ({reason})"));
        Ok(())
    }

    /// Applies the CronJob's first run: a JobRun it controls, labelled with its name.
    async fn start_run(
        &self,
        job: &CronJob,
        ns: &str,
        name: &str,
        scheduled: &Time,
    ) -> Result<ObjectReference, ClientError> {
        let run_name = format!("{name}-{}", scheduled.0.as_second() / 60);
        let owner = OwnerReference {
            api_version: CronJob::API_VERSION.into(),
            kind: CronJob::KIND.into(),
            name: name.into(),
            uid: job.metadata.uid.clone().unwrap_or_default(),
            controller: Some(true),
            block_owner_deletion: None,
        };
        let mut spec = JobRunSpecApplyConfiguration::new().with_scheduled_time(scheduled.clone());
        if let Some(template) = &job.spec.job_template.spec {
            spec = spec.with_job(template.clone());
        }
        let run = JobRunApplyConfiguration::new(run_name.as_str(), ns)
            .with_labels([(CRONJOB_LABEL, name)])
            .with_owner_references([owner])
            .with_spec(spec);
        let created = self
            .client
            .job_runs(ns)
            .apply_config(&run, MANAGER, true)
            .await?;
        self.note(format!("{ns}/{name}: started run {run_name}"));
        Ok(ObjectReference {
            api_version: Some(JobRun::API_VERSION.into()),
            kind: Some(JobRun::KIND.into()),
            name: Some(run_name),
            namespace: Some(ns.into()),
            uid: created.metadata.uid,
            ..ObjectReference::default()
        })
    }

    /// Deletes the runs `job` controls; how many went.
    async fn delete_runs(&self, job: &CronJob, ns: &str, name: &str) -> Result<usize, ClientError> {
        let runs = self.client.job_runs(ns);
        let selector = ListParams::default().labels(&format!("{CRONJOB_LABEL}={name}"));
        let mut deleted = 0;
        for run in runs.list(&selector).await?.items {
            let controlled =
                run.metadata.owner_references.iter().flatten().any(|o| {
                    o.controller == Some(true) && Some(&o.uid) == job.metadata.uid.as_ref()
                });
            let Some(run_name) = run.metadata.name.as_deref().filter(|_| controlled) else {
                continue;
            };
            match runs.delete(run_name, &Default::default()).await {
                Ok(_) => deleted += 1,
                Err(ClientError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(deleted)
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
