//! A CronJob operator on kubegen's Manager, in kubebuilder's shape: a [`Controller`] for
//! CronJobs that owns `batch/v1` Jobs, and a [`Reconciler`] that reads the cached CronJob and
//! writes a `Ready` condition with `observedGeneration` in status, a Job for a CronJob's
//! first run, and a finalizer that deletes its Jobs before the CronJob goes. Every write but
//! the finalizer's removal is a server-side apply of an apply configuration, so the operator
//! owns exactly its finalizer, its children and its status fields. It records events for what
//! it does and for failures.
//! `cargo run --example cronjob_operator` runs it ([`demo`]).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::Resource as _;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, OwnerReference, Time};
use kube::api::{Patch, PatchParams};
use kubegen::apply::ObjectConfiguration as _;
use kubegen::client::{ClientError, DeleteParams, ListParams, ResourceClient};
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::events::{EventRecorder, EventType};
use kubegen::informer::SharedInformerFactory;
use kubegen::manager::{LeaderElection, Manager, shutdown_on_signal};
use kubegen::rbac::{Rules, Verb};

use crate::cronjob::{
    CronJob, CronJobApplyConfiguration, CronJobClientExt, CronJobStatusApplyConfiguration,
};

mod demo;

pub use demo::{DemoError, DemoReport, demo, demo_as};

/// The finalizer the operator puts on every CronJob it manages.
pub const FINALIZER: &str = "batch.tutorial.kubebuilder.io/cleanup";

/// The field manager the operator applies as, and the controller its events report.
pub const MANAGER: &str = "cronjob-operator";

/// The label on a CronJob's Jobs naming it.
pub const CRONJOB_LABEL: &str = "batch.tutorial.kubebuilder.io/cronjob";

/// What happened, for the narration and the tests.
pub type Log = Arc<Mutex<Vec<String>>>;

// ANCHOR: controller
/// The CronJob controller: it reconciles CronJobs and the Jobs they control, with two
/// workers. Status writes come back as updates; only spec, deletion and finalizer changes
/// need work. What it writes is declared here too, so [`rules`] is exactly what it needs.
pub fn controller() -> Controller<CronJob> {
    Controller::new("cronjob")
        .owns::<Job>()
        .filter_updates(|old: &CronJob, new: &CronJob| {
            old.spec != new.spec
                || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
                || old.metadata.finalizers != new.metadata.finalizers
        })
        .concurrency(2)
        .backoff(Duration::from_millis(50), Duration::from_secs(30))
        .writes(
            Rules::new()
                // The finalizer, added and removed by server-side apply.
                .grant::<CronJob>(&[Verb::Patch])
                .grant_subresource::<CronJob>("status", &[Verb::Patch])
                // A Job is created by server-side apply (create + patch), deleted on cleanup.
                .grant::<Job>(&[Verb::Create, Verb::Patch, Verb::Delete]),
        )
}

/// The RBAC rules the operator needs: its controller's, the Lease it campaigns for, and
/// the events it records (`cargo run --bin rbacgen` prints them as a ClusterRole).
pub fn rules() -> Rules {
    controller()
        .rules()
        .merge(Rules::leases())
        .merge(Rules::events())
}
// ANCHOR_END: controller

// ANCHOR: manager
/// The operator's Manager: its cache on `namespace`, leader election as `election`,
/// `/metrics` on `metrics`, an event recorder, and the CronJob controller narrating to `log`.
pub fn manager(
    client: &kube::Client,
    namespace: &str,
    election: LeaderElection,
    metrics: SocketAddr,
    log: &Log,
) -> std::io::Result<Manager> {
    let cache = SharedInformerFactory::new(client.clone()).namespace(namespace);
    let mut manager = Manager::with_cache(cache)
        .leader_election(election)
        .metrics_address(metrics)?;
    let recorder = manager.event_recorder(MANAGER);
    let operator = Operator::new(client.clone(), recorder, log.clone());
    Ok(manager.add(controller(), operator))
}

/// Runs the operator as a deployment would: one replica with client-go's leader-election
/// timings and `/metrics` on `metrics`, until SIGTERM or Ctrl-C, then a graceful shutdown
/// that releases the Lease.
pub async fn run(
    client: kube::Client,
    namespace: &str,
    metrics: SocketAddr,
) -> Result<(), Box<dyn std::error::Error>> {
    let election = LeaderElection::new(namespace, demo::LEASE);
    let manager = manager(&client, namespace, election, metrics, &Log::default())?;
    if let Some(address) = manager.metrics_local_address() {
        println!(
            "serving /metrics, /healthz and /readyz on http://{address}; Ctrl-C or SIGTERM stops"
        );
    }
    manager.run(shutdown_on_signal()).await?;
    println!("stopped gracefully; the Lease is released");
    Ok(())
}
// ANCHOR_END: manager

// ANCHOR: reconciler
/// Reconciles one CronJob: reads the cache, writes through the client.
pub struct Operator {
    client: kube::Client,
    recorder: EventRecorder,
    log: Log,
}

impl Reconciler<CronJob> for Operator {
    type Error = ClientError;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        job: Option<Arc<CronJob>>,
    ) -> Result<Action, ClientError> {
        let Some(job) = job else {
            self.note(format!("{key} is gone"));
            return Ok(Action::Done);
        };
        match self.reconcile_job(key, &job).await {
            Ok(()) => Ok(Action::Done),
            Err(e) => {
                self.note(format!(
                    "reconcile {key} failed ({e}); retrying with backoff"
                ));
                self.recorder.publish_for(
                    job.as_ref(),
                    EventType::Warning,
                    "ReconcileFailed",
                    "Reconcile",
                    Some(e.to_string()),
                );
                Err(e)
            }
        }
    }
}
// ANCHOR_END: reconciler

impl Operator {
    /// A reconciler writing with `client` and recording with `recorder`, narrating to `log`.
    pub fn new(client: kube::Client, recorder: EventRecorder, log: Log) -> Self {
        Operator {
            client,
            recorder,
            log,
        }
    }

    /// The `batch/v1` Jobs in `ns`. Not `BuiltinClientExt::jobs`: that trait's `cron_jobs`
    /// would clash with this crate's own CronJob client.
    fn jobs(&self, ns: &str) -> ResourceClient<Job> {
        ResourceClient::namespaced(self.client.clone(), ns)
    }

    fn note(&self, line: String) {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line);
    }

    /// One pass for one key: cleanup on deletion, finalizer on first sight, the first run,
    /// then status. Every write but the finalizer's removal is a server-side apply of an apply configuration as
    /// [`MANAGER`], holding only what the operator decides: its finalizer, its children, the
    /// status it observes.
    async fn reconcile_job(&self, key: &ObjectKey, job: &CronJob) -> Result<(), ClientError> {
        let (ns, name) = (key.namespace().unwrap_or_default(), key.name());
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
                let deleted = self.delete_jobs(job, ns, name).await?;
                self.note(format!("{key}: deleted {deleted} jobs"));
                self.remove_finalizer(job, ns, name).await?;
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
        // The runs still going, as kubebuilder's tutorial keeps them: its Jobs without a
        // finished condition (a Job kube-controller-manager completed leaves the list).
        let mut active: Vec<ObjectReference> = (self.runs(job, ns, name).await?.iter())
            .filter(|run| !finished(run))
            .map(reference)
            .collect();
        let same_runs = |observed: &[ObjectReference]| {
            let key = |r: &ObjectReference| (r.name.clone(), r.uid.clone());
            observed.iter().map(key).eq(active.iter().map(key))
        };
        let unchanged = current.as_ref().is_some_and(|c| {
            c.status == status && c.reason == reason && c.observed_generation == generation
        }) && same_runs(observed.active.as_deref().unwrap_or_default());
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
        if !suspended && last.is_none() {
            // The first run is scheduled at the CronJob's creation, so a retried reconcile
            // applies the same child again rather than a second one.
            let scheduled = job.metadata.creation_timestamp.clone().unwrap_or(now);
            active.push(self.start_run(job, ns, name, &scheduled).await?);
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
        self.recorder.publish_for(
            job,
            EventType::Normal,
            reason,
            "Reconcile",
            Some(format!("Ready={status}: {message}")),
        );
        Ok(())
    }

    /// Takes the operator's finalizer off, and with it the object. A JSON patch that tests
    /// the finalizer is still where the cached object had it, not an apply: a reconcile
    /// running on a cache that has not yet seen the deletion must not recreate the object
    /// (an apply to a missing object creates it), and a finalizer another manager also holds
    /// still goes. The object already gone is success.
    async fn remove_finalizer(
        &self,
        job: &CronJob,
        ns: &str,
        name: &str,
    ) -> Result<(), ClientError> {
        let finalizers = job.metadata.finalizers.iter().flatten();
        let Some(at) = finalizers.clone().position(|f| f == FINALIZER) else {
            return Ok(());
        };
        let path = format!("/metadata/finalizers/{at}");
        let patch = serde_json::json!([
            {"op": "test", "path": path, "value": FINALIZER},
            {"op": "remove", "path": path},
        ]);
        let patch = serde_json::from_value(patch)
            .map_err(|e| ClientError::Transport(kube::Error::SerdeError(e)))?;
        let params = PatchParams {
            field_manager: Some(MANAGER.into()),
            ..PatchParams::default()
        };
        match self
            .client
            .cron_jobs(ns)
            .patch(name, &params, &Patch::<()>::Json(patch))
            .await
        {
            Ok(_) | Err(ClientError::NotFound(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Applies the CronJob's first run: a Job from its template, which it controls,
    /// labelled with its name, named for the minute it was scheduled for (as the CronJob
    /// controller names its Jobs).
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
        let template = &job.spec.job_template;
        let template_meta = template.metadata.clone().unwrap_or_default();
        let mut labels = template_meta.labels.unwrap_or_default();
        labels.insert(CRONJOB_LABEL.into(), name.into());
        let run = Job {
            metadata: ObjectMeta {
                name: Some(run_name.clone()),
                namespace: Some(ns.into()),
                labels: Some(labels),
                annotations: template_meta.annotations,
                owner_references: Some(vec![owner]),
                ..ObjectMeta::default()
            },
            spec: template.spec.clone(),
            status: None,
        };
        let created = self.jobs(ns).apply(&run, MANAGER, true).await?;
        self.note(format!("{ns}/{name}: started job {run_name}"));
        self.recorder.publish_for(
            job,
            EventType::Normal,
            "RunStarted",
            "Schedule",
            Some(format!("started job {run_name}")),
        );
        Ok(reference(&created))
    }

    /// The Jobs `job` controls (labelled with its name, its controller reference on them).
    async fn runs(&self, job: &CronJob, ns: &str, name: &str) -> Result<Vec<Job>, ClientError> {
        let selector = ListParams::default().labels(&format!("{CRONJOB_LABEL}={name}"));
        let mut runs = self.jobs(ns).list(&selector).await?.items;
        let controlled = |o: &OwnerReference| {
            o.controller == Some(true) && Some(&o.uid) == job.metadata.uid.as_ref()
        };
        runs.retain(|run| {
            run.metadata
                .owner_references
                .iter()
                .flatten()
                .any(controlled)
        });
        Ok(runs)
    }

    /// Deletes the Jobs `job` controls; how many went. In the background, as `kubectl
    /// delete` does: a `batch/v1` Job's own default would orphan its pods.
    async fn delete_jobs(&self, job: &CronJob, ns: &str, name: &str) -> Result<usize, ClientError> {
        let jobs = self.jobs(ns);
        let mut deleted = 0;
        for child in self.runs(job, ns, name).await? {
            let Some(child_name) = child.metadata.name.as_deref() else {
                continue;
            };
            match jobs.delete(child_name, &DeleteParams::background()).await {
                Ok(_) => deleted += 1,
                Err(ClientError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(deleted)
    }
}

/// Whether a Job has finished: its `Complete` or `Failed` condition is true.
fn finished(run: &Job) -> bool {
    let mut conditions = run
        .status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten());
    conditions.any(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True")
}

/// A reference to a Job, as a CronJob's `status.active` lists it.
fn reference(run: &Job) -> ObjectReference {
    ObjectReference {
        api_version: Some(Job::API_VERSION.into()),
        kind: Some(Job::KIND.into()),
        name: run.metadata.name.clone(),
        namespace: run.metadata.namespace.clone(),
        uid: run.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}
