//! A test's kubelet: neither backend runs one (Envtest has no nodes; the in-memory server
//! none either), so Pods stay `Pending` and nothing that waits for them moves — a Deployment
//! is never Available, a Job never completes. A [`Kubelet`] writes what a kubelet would: the
//! Pod scheduled, its containers started, Running and Ready, or finished with an exit code.
//!
//! It writes through the API (`pods/status`, field manager `kubelet`), so it works the same
//! on every backend and the controllers — in memory or kube-controller-manager — react to
//! it as to a real kubelet:
//!
//! - in memory, [`Controllers::kubelet`](crate::Controllers::kubelet) runs it beside
//!   the controllers, so [`ApiServer::settle`](crate::ApiServer::settle) waits for it;
//! - on a real apiserver, [`Kubelet::run`] watches Pods with a client and does the same;
//! - [`Kubelet::set`] writes one Pod's fate at once, on either.
//!
//! What a Pod becomes is the kubelet's [`fate`](Kubelet::fate) function's answer; by default
//! a Pod that restarts always (a Deployment's, a StatefulSet's) becomes Ready and one that
//! does not (a Job's) Succeeds. Pods are not bound to a node (`spec.nodeName` stays empty, as
//! there is no node to bind them to), so deleting one removes it at once, as the apiserver
//! does with unscheduled Pods.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};

/// The field manager of the kubelet's status writes (the real kubelet's user agent).
pub const FIELD_MANAGER: &str = "kubelet";

/// What the kubelet makes of a Pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodFate {
    /// Left alone: Pending, as without a kubelet.
    Pending,
    /// Scheduled and its containers running, but not Ready (a failing readiness probe).
    Running,
    /// Running and Ready.
    Ready,
    /// Every container exited 0.
    Succeeded,
    /// The first container exited with this code (the others with 0).
    Failed {
        /// The container's exit code (not 0).
        exit_code: i32,
    },
}

type Fate = dyn Fn(&Pod) -> PodFate + Send + Sync;

/// A test's kubelet. Cheap to clone.
#[derive(Clone)]
pub struct Kubelet {
    fate: Arc<Fate>,
    /// Pod IPs handed out (10.244.x.y), in order.
    addresses: Arc<AtomicU32>,
}

impl Default for Kubelet {
    fn default() -> Self {
        Kubelet::new()
    }
}

impl std::fmt::Debug for Kubelet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kubelet").finish_non_exhaustive()
    }
}

impl Kubelet {
    /// A kubelet that makes Pods that restart always Ready, and others Succeed.
    pub fn new() -> Self {
        Kubelet::with_fate(default_fate)
    }

    /// A kubelet that asks `fate` what each new Pod becomes.
    pub fn with_fate(fate: impl Fn(&Pod) -> PodFate + Send + Sync + 'static) -> Self {
        Kubelet {
            fate: Arc::new(fate),
            addresses: Arc::new(AtomicU32::new(0)),
        }
    }

    /// What this kubelet makes of `pod`.
    pub fn fate(&self, pod: &Pod) -> PodFate {
        (self.fate)(pod)
    }

    /// The fate of a stored Pod that the kubelet has not handled yet, or `None` when there
    /// is nothing to do: it is not Pending, is being deleted, or does not decode.
    pub(crate) fn pending_fate(&self, pod: &Value) -> Option<PodFate> {
        if pod["metadata"]["deletionTimestamp"].is_string() {
            return None;
        }
        if !matches!(pod["status"]["phase"].as_str(), None | Some("Pending")) {
            return None;
        }
        if pod["status"]["startTime"].is_string() {
            return None;
        }
        let typed: Pod = serde_json::from_value(pod.clone()).ok()?;
        Some(self.fate(&typed)).filter(|f| *f != PodFate::Pending)
    }

    /// The `status` a kubelet reports for `pod` (a Pod's JSON) meeting `fate` at `now`
    /// (RFC 3339), as a merge patch of `pods/status`.
    pub fn status(&self, pod: &Value, fate: PodFate, now: &str) -> Value {
        let n = self.addresses.fetch_add(1, Ordering::Relaxed);
        pod_status(pod, fate, now, n)
    }

    /// Writes `fate` for Pod `name` in `namespace` through `client` (any backend): what a
    /// kubelet reports once the Pod got there.
    /// Times are the wall clock's: with the in-memory server's clock frozen, use
    /// [`TestEnv::set_pod`](crate::TestEnv::set_pod), which stamps the server's.
    pub async fn set(
        &self,
        client: &kube::Client,
        namespace: &str,
        name: &str,
        fate: PodFate,
    ) -> Result<Pod, kube::Error> {
        let now = k8s_openapi::jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        self.set_at(client, namespace, name, fate, &now).await
    }

    /// [`set`](Kubelet::set), stamping `now` (RFC 3339) as the time things happened.
    pub async fn set_at(
        &self,
        client: &kube::Client,
        namespace: &str,
        name: &str,
        fate: PodFate,
        now: &str,
    ) -> Result<Pod, kube::Error> {
        let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
        let pod = serde_json::to_value(pods.get(name).await?).unwrap_or_default();
        let patch = json!({"status": self.status(&pod, fate, now)});
        let params = PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..PatchParams::default()
        };
        pods.patch_status(name, &params, &Patch::Merge(&patch))
            .await
    }

    /// Runs the kubelet against the cluster behind `client` until the returned task is
    /// dropped or aborted: every Pod in `namespace` (all namespaces with `None`) that is
    /// Pending meets its fate. For a real apiserver; in memory, run it with the controllers
    /// ([`Controllers::kubelet`](crate::Controllers::kubelet)) so that
    /// [`ApiServer::settle`](crate::ApiServer::settle) waits for it.
    pub fn run(&self, client: kube::Client, namespace: Option<&str>) -> KubeletTask {
        let pods: Api<Pod> = match namespace {
            Some(ns) => Api::namespaced(client.clone(), ns),
            None => Api::all(client.clone()),
        };
        let kubelet = self.clone();
        let task = tokio::spawn(async move {
            // A failing watch is retried with kube's backoff, not at once.
            let mut events =
                std::pin::pin!(watcher(pods, watcher::Config::default()).default_backoff());
            while let Some(event) = events.next().await {
                let pod = match event {
                    Ok(watcher::Event::Apply(pod) | watcher::Event::InitApply(pod)) => pod,
                    Ok(_) => continue,
                    Err(e) => {
                        tracing::warn!(error = %e, "kubelet: watching pods");
                        continue;
                    }
                };
                let value = serde_json::to_value(&pod).unwrap_or_default();
                if let Some(fate) = kubelet.pending_fate(&value) {
                    let namespace = pod.metadata.namespace.clone().unwrap_or_default();
                    let name = pod.metadata.name.clone().unwrap_or_default();
                    if let Err(e) = kubelet.set(&client, &namespace, &name, fate).await {
                        tracing::debug!(error = %e, %namespace, %name, "kubelet: writing a pod's status");
                    }
                }
            }
        });
        KubeletTask { task }
    }
}

/// A kubelet running against a cluster ([`Kubelet::run`]); dropping it stops the kubelet.
#[derive(Debug)]
pub struct KubeletTask {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for KubeletTask {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Pods that restart always become Ready; others (`OnFailure`, `Never`) Succeed.
fn default_fate(pod: &Pod) -> PodFate {
    let restarts = pod
        .spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Always");
    match restarts {
        "Always" => PodFate::Ready,
        _ => PodFate::Succeeded,
    }
}

/// The status a kubelet reports: conditions, phase, addresses and one status per container.
/// `n` numbers the Pod among those this kubelet started: its address and container ids.
fn pod_status(pod: &Value, fate: PodFate, now: &str, n: u32) -> Value {
    let pod_ip = format!("10.244.{}.{}", n / 254, n % 254 + 2);
    let id = |i: usize| (n as usize) * 1000 + i;
    let condition = |kind: &str, ok: bool, reason: Option<&str>| {
        let mut c = json!({"type": kind, "status": if ok { "True" } else { "False" }, "lastProbeTime": null, "lastTransitionTime": now});
        if let Some(reason) = reason {
            c["reason"] = json!(reason);
        }
        c
    };
    let (phase, ready, running) = match fate {
        PodFate::Pending => ("Pending", false, false),
        PodFate::Running => ("Running", false, true),
        PodFate::Ready => ("Running", true, true),
        PodFate::Succeeded => ("Succeeded", false, false),
        PodFate::Failed { .. } => ("Failed", false, false),
    };
    let not_ready_reason = match fate {
        PodFate::Succeeded => Some("PodCompleted"),
        PodFate::Failed { .. } => Some("PodFailed"),
        _ => Some("ContainersNotReady"),
    };
    let readiness = |kind| match ready {
        true => condition(kind, true, None),
        false => condition(kind, false, not_ready_reason),
    };
    let containers = pod["spec"]["containers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let statuses: Vec<Value> = containers
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let state = match fate {
                PodFate::Running | PodFate::Ready | PodFate::Pending => {
                    json!({"running": {"startedAt": now}})
                }
                PodFate::Succeeded => terminated(0, now, id(i)),
                PodFate::Failed { exit_code } => {
                    terminated(if i == 0 { exit_code } else { 0 }, now, id(i))
                }
            };
            container_status(c, state, ready, running, id(i))
        })
        .collect();
    let init: Vec<Value> = pod["spec"]["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let j = id(100 + i);
            container_status(c, terminated(0, now, j), false, false, j)
        })
        .collect();
    let mut status = json!({
        "phase": phase,
        "conditions": [
            condition("PodReadyToStartContainers", running || ready, None),
            condition("Initialized", true, None),
            readiness("Ready"),
            readiness("ContainersReady"),
            condition("PodScheduled", true, None),
        ],
        "hostIP": "10.0.0.2",
        "hostIPs": [{"ip": "10.0.0.2"}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": now,
        "containerStatuses": statuses,
    });
    if !init.is_empty() {
        status["initContainerStatuses"] = json!(init);
    }
    status
}

fn terminated(exit_code: i32, now: &str, id: usize) -> Value {
    let reason = if exit_code == 0 { "Completed" } else { "Error" };
    json!({"terminated": {"exitCode": exit_code, "reason": reason, "startedAt": now, "finishedAt": now, "containerID": container_id(id)}})
}

fn container_status(
    container: &Value,
    state: Value,
    ready: bool,
    started: bool,
    id: usize,
) -> Value {
    let image = container["image"].as_str().unwrap_or("");
    json!({
        "name": container["name"],
        "state": state,
        "lastState": {},
        "ready": ready,
        "restartCount": 0,
        "image": image,
        "imageID": format!("{image}@sha256:{:064x}", image.len() + 1),
        "containerID": container_id(id),
        "started": started,
    })
}

fn container_id(id: usize) -> String {
    format!("containerd://{:064x}", id + 0xc0de)
}
