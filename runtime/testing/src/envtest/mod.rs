//! `Envtest`: a real etcd and kube-apiserver for tests (feature `envtest`), kubegen's answer to
//! controller-runtime's envtest.
//!
//! It runs the binaries from `KUBEBUILDER_ASSETS` (the directory `setup-envtest` prepares:
//! `kube-apiserver`, `etcd`, usually `kubectl`) on free loopback ports, with certificates made
//! in-process and every file in a fresh temporary directory. [`Envtest::start`] returns once
//! the apiserver is ready, the `default` namespace exists, and the registered CRDs are
//! Established; dropping the `Envtest` kills its processes and removes the directory.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use kubegen_testing::Envtest;
//!
//! let env = Envtest::start().await?;            // or Envtest::shared().await? for one per binary
//! let client = env.client();                    // a kube::Client with cluster-admin rights
//! println!("kubectl --kubeconfig {} get crds", env.kubeconfig().display());
//! # Ok(()) }
//! ```
//!
//! # The controller manager
//!
//! Like controller-runtime's envtest, an `Envtest` runs no controllers by default: nothing
//! garbage-collects objects whose owner is deleted, a deleted namespace stays `Terminating`, a
//! Deployment gets no ReplicaSet, and no namespace gets a `default` ServiceAccount. Unlike it,
//! kubegen can also start `kube-controller-manager` from the assets directory
//! ([`EnvtestBuilder::controller_manager`]), with every default controller, after the CRDs are
//! Established; [`Envtest::start`] then also waits until the controller manager has created
//! the `default` ServiceAccount in `default`. Still no scheduler or kubelet runs: Pods stay
//! Pending. setup-envtest's assets lack the binary; a Kubernetes release's server tarball has
//! it, and so does `../shared/k8s/install` in a kubegen checkout.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use kubegen_testing::Envtest;
//!
//! let env = Envtest::builder().controller_manager(true).start().await?;
//! // Or one per test binary, beside the plain Envtest::shared():
//! let shared = Envtest::shared_with_controllers().await?;
//! # Ok(()) }
//! ```

mod builder;
mod certs;
mod controller_manager;
mod error;
mod launch;
mod process;
mod readiness;
mod service_account;
mod shared;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tempfile::TempDir;

pub use self::builder::EnvtestBuilder;
pub use self::error::{ASSETS_VARIABLE, EnvtestError};
use self::process::Processes;
pub use self::service_account::wait_for_access;

/// A running etcd + kube-apiserver (and kube-controller-manager, if asked for), stopped (and
/// its directory removed) on drop.
///
/// It holds no state bound to a Tokio runtime: [`client`](Envtest::client) builds a new
/// `kube::Client` for the runtime it is called in, so one `Envtest` can serve tests that each
/// run their own runtime.
pub struct Envtest {
    config: kube::Config,
    kubeconfig: PathBuf,
    server_url: String,
    assets_dir: PathBuf,
    dir: PathBuf,
    crds: Vec<String>,
    startup_time: Duration,
    apiserver_pid: u32,
    etcd_pid: u32,
    controller_manager_pid: Option<u32>,
    running: Mutex<Option<Running>>,
}

/// What stopping releases: the controller manager, the other processes, then the directory.
struct Running {
    /// Stopped first: with the apiserver gone it would only log errors.
    controller_manager: Option<Processes>,
    processes: Processes,
    dir: TempDir,
}

impl Envtest {
    /// Options: assets directory, CRDs, extra apiserver flags, the controller manager, start
    /// timeout.
    pub fn builder() -> EnvtestBuilder {
        EnvtestBuilder::default()
    }

    /// Starts an environment with the default options: assets from `KUBEBUILDER_ASSETS`, the
    /// registered CRDs installed.
    pub async fn start() -> Result<Envtest, EnvtestError> {
        EnvtestBuilder::default().start().await
    }

    /// The process-wide environment, started with the default options on first use and stopped
    /// at process exit, so a test binary runs one apiserver for all its tests.
    ///
    /// It is started on a thread of its own, independent of the caller's runtime; concurrent
    /// callers wait for that one start. If it fails, every caller gets the same error.
    ///
    /// It runs no controller manager: tests on it can rely on nothing being garbage-collected
    /// or reconciled behind their back.
    /// [`shared_with_controllers`](Envtest::shared_with_controllers) is the one with
    /// controllers.
    pub async fn shared() -> Result<&'static Envtest, &'static EnvtestError> {
        shared::PLAIN.get().await
    }

    /// A second process-wide environment, with kube-controller-manager running
    /// ([`EnvtestBuilder::controller_manager`]), for the tests that need garbage collection,
    /// namespace deletion or the workload controllers; otherwise as [`shared`](Envtest::shared)
    /// (started on first use, on a thread of its own, stopped at process exit). It is a
    /// separate apiserver: objects created in one are not seen in the other.
    pub async fn shared_with_controllers() -> Result<&'static Envtest, &'static EnvtestError> {
        shared::WITH_CONTROLLERS.get().await
    }

    /// A new client for the apiserver, as cluster-admin (group `system:masters`), bound to the
    /// Tokio runtime it is called in (call it inside one).
    pub fn client(&self) -> kube::Client {
        // `start` built a client from this same configuration, and building one depends only
        // on the configuration (TLS material, proxy), so this cannot fail.
        kube::Client::try_from(self.config.clone())
            .expect("a client was already built from this configuration")
    }

    /// The client configuration [`client`](Envtest::client) uses; default namespace `default`.
    pub fn config(&self) -> kube::Config {
        self.config.clone()
    }

    /// A kubeconfig file for the admin identity: `kubectl --kubeconfig PATH get crds`. It
    /// lives in [`dir`](Envtest::dir) and is removed with it.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The apiserver's URL, `https://127.0.0.1:PORT`.
    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    /// The assets directory in use; `kubectl` is usually there too.
    pub fn assets_dir(&self) -> &Path {
        &self.assets_dir
    }

    /// The temporary directory holding certificates, the kubeconfig, etcd's data and the
    /// process logs (`etcd.log`, `kube-apiserver.log`, `kube-controller-manager.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The names of the CRDs installed at start.
    pub fn crds(&self) -> &[String] {
        &self.crds
    }

    /// How long [`start`](Envtest::start) took, from the call until a client could be used and
    /// the CRDs were Established (and the controller manager was ready, if asked for).
    pub fn startup_time(&self) -> Duration {
        self.startup_time
    }

    /// The kube-apiserver's process id.
    pub fn apiserver_pid(&self) -> u32 {
        self.apiserver_pid
    }

    /// The etcd process id.
    pub fn etcd_pid(&self) -> u32 {
        self.etcd_pid
    }

    /// The kube-controller-manager's process id, if it was asked for
    /// ([`EnvtestBuilder::controller_manager`]).
    pub fn controller_manager_pid(&self) -> Option<u32> {
        self.controller_manager_pid
    }

    /// Kills the processes and removes the directory. Idempotent; called on drop, and at exit
    /// for the shared instances.
    fn stop(&self) {
        let running = self.lock().take();
        if let Some(Running {
            controller_manager,
            mut processes,
            dir,
        }) = running
        {
            if let Some(mut controller_manager) = controller_manager {
                controller_manager.stop();
            }
            processes.stop();
            if let Err(e) = dir.close() {
                tracing::warn!(error = %e, dir = %self.dir.display(), "removing the envtest directory");
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Running>> {
        // Taking the value out is the only write; a panic elsewhere cannot tear it.
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Envtest {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for Envtest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Envtest")
            .field("server_url", &self.server_url)
            .field("dir", &self.dir)
            .field("assets_dir", &self.assets_dir)
            .field("crds", &self.crds)
            .field("controller_manager_pid", &self.controller_manager_pid)
            .field("startup_time", &self.startup_time)
            .finish_non_exhaustive()
    }
}
