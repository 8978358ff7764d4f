//! [`EnvtestBuilder`]: the options, and the start-up sequence.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::launch::{
    PORT_ATTEMPTS, Ports, load_config, process_specs, remove_etcd_data, write_kubeconfig,
};
use super::process::Processes;
use super::readiness::{Failure, exited_error, new_client, wait_until_ready};
use super::{ASSETS_VARIABLE, Envtest, EnvtestError, Running, certs, controller_manager};

/// The binaries an envtest needs in its assets directory.
const REQUIRED_BINARIES: [&str; 2] = ["etcd", "kube-apiserver"];
/// The field manager that installs CRDs.
const FIELD_MANAGER: &str = "kubegen-envtest";

/// Options for [`Envtest`]; [`Envtest::builder`] makes one.
#[derive(Clone, Debug)]
pub struct EnvtestBuilder {
    assets_dir: Option<PathBuf>,
    crds: Option<Vec<CustomResourceDefinition>>,
    apiserver_flags: Vec<String>,
    controller_manager: bool,
    controller_manager_flags: Vec<String>,
    start_timeout: Duration,
    apiserver_port: Option<u16>,
}

impl Default for EnvtestBuilder {
    fn default() -> Self {
        EnvtestBuilder {
            assets_dir: None,
            crds: None,
            apiserver_flags: Vec::new(),
            controller_manager: false,
            controller_manager_flags: Vec::new(),
            start_timeout: Duration::from_secs(60),
            apiserver_port: None,
        }
    }
}

impl EnvtestBuilder {
    /// The directory holding `etcd` and `kube-apiserver` (and `kube-controller-manager` if
    /// [`controller_manager`](Self::controller_manager) is on), instead of `KUBEBUILDER_ASSETS`.
    pub fn assets_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.assets_dir = Some(dir.into());
        self
    }

    /// The CRDs to install instead of the registered ones
    /// ([`registry::crds`](kubegen_runtime::registry::crds)); an empty list installs none.
    pub fn crds(mut self, crds: impl IntoIterator<Item = CustomResourceDefinition>) -> Self {
        self.crds = Some(crds.into_iter().collect());
        self
    }

    /// An extra kube-apiserver flag, such as `--feature-gates=Foo=true`. Flags are passed after
    /// envtest's own, so a flag envtest also sets takes this value.
    pub fn apiserver_flag(mut self, flag: impl Into<String>) -> Self {
        self.apiserver_flags.push(flag.into());
        self
    }

    /// Runs kube-controller-manager beside the apiserver (off by default, as in
    /// controller-runtime's envtest): garbage collection of owned objects, namespace deletion,
    /// Deployment → ReplicaSet → Pod, StatefulSet, DaemonSet, Job, CronJob, a `default`
    /// ServiceAccount in every namespace, and the other default controllers. There is still no
    /// scheduler or kubelet, so Pods stay Pending unless a test writes their status. Its
    /// controllers act within a few hundred milliseconds, except that the namespace controller
    /// always waits 5 s after a namespace is deleted before emptying it.
    ///
    /// The assets directory must then hold `kube-controller-manager` too, of the apiserver's
    /// version; setup-envtest's directories do not (take it from a Kubernetes release's
    /// `kubernetes-server-linux-*.tar.gz`), and [`EnvtestError::ControllerManagerMissing`] says
    /// so. It starts after the CRDs are Established, so its garbage collector and namespace
    /// controller know the custom kinds from the start; [`start`](Self::start) returns once its
    /// service-account controller has created the `default` ServiceAccount in `default`. Its
    /// log is `kube-controller-manager.log` in [`Envtest::dir`].
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), kubegen_testing::EnvtestError> {
    /// use kubegen_testing::Envtest;
    ///
    /// let env = Envtest::builder().controller_manager(true).start().await?;
    /// assert!(env.controller_manager_pid().is_some());
    /// # Ok(()) }
    /// ```
    pub fn controller_manager(mut self, on: bool) -> Self {
        self.controller_manager = on;
        self
    }

    /// An extra kube-controller-manager flag, such as
    /// `--controllers=*,-garbage-collector-controller` or `--concurrent-gc-syncs=5`; it takes
    /// effect only with [`controller_manager`](Self::controller_manager) on. Flags are passed
    /// after envtest's own, so a flag envtest also sets takes this value.
    pub fn controller_manager_flag(mut self, flag: impl Into<String>) -> Self {
        self.controller_manager_flags.push(flag.into());
        self
    }

    /// How long starting may take, CRDs and controller manager included (default 60 s).
    pub fn start_timeout(mut self, timeout: Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// The port the apiserver tries first. If it is taken, later attempts use free ports.
    pub fn apiserver_port(mut self, port: u16) -> Self {
        self.apiserver_port = Some(port);
        self
    }

    /// Starts etcd and kube-apiserver, waits until the apiserver is ready and the `default`
    /// namespace exists, then installs the CRDs and waits until they are Established; with
    /// [`controller_manager`](Self::controller_manager) on, then starts kube-controller-manager
    /// and waits until it has created the `default` ServiceAccount.
    pub async fn start(self) -> Result<Envtest, EnvtestError> {
        let started = Instant::now();
        let deadline = started + self.start_timeout;
        let assets_dir = self.resolve_assets()?;
        let crds = match self.crds {
            Some(crds) => crds,
            None => kubegen_runtime::registry::crds()?,
        };
        let dir = tempfile::Builder::new()
            .prefix("kubegen-envtest-")
            .tempdir()
            .map_err(EnvtestError::io("creating the envtest directory"))?;
        let pki = certs::generate(dir.path())?;

        let mut attempt = 0;
        let (processes, config, kubeconfig, server_url) = loop {
            attempt += 1;
            let ports = Ports::pick(self.apiserver_port.filter(|_| attempt == 1))?;
            let specs = process_specs(&assets_dir, dir.path(), &pki, &ports, &self.apiserver_flags);
            let processes = Processes::spawn(specs).await?;
            let server_url = format!("https://127.0.0.1:{}", ports.apiserver);
            let kubeconfig = write_kubeconfig(dir.path(), &server_url, &pki)?;
            let config = load_config(&kubeconfig).await?;
            match wait_until_ready(&processes, &config, deadline, self.start_timeout).await {
                Ok(()) => break (processes, config, kubeconfig, server_url),
                Err(Failure::PortInUse(exited)) if attempt < PORT_ATTEMPTS => {
                    tracing::debug!(
                        process = exited.name,
                        attempt,
                        "port in use; retrying on other ports"
                    );
                    drop(processes);
                    remove_etcd_data(dir.path())?;
                }
                Err(failure) => return Err(failure.into_error(attempt)),
            }
        };

        let client = new_client(&config)?;
        let remaining = deadline.saturating_duration_since(Instant::now());
        let crds = kubegen_runtime::crd::install_crds(&client, &crds, FIELD_MANAGER, remaining)
            .await
            // A process that died explains a failed install better than the request error.
            .map_err(|e| match processes.exited() {
                Some(exited) => exited_error(exited),
                None => e.into(),
            })?;

        let controller_manager = if self.controller_manager {
            let spec = |port| {
                controller_manager::spec(
                    &assets_dir,
                    dir.path(),
                    &pki,
                    &kubeconfig,
                    port,
                    &self.controller_manager_flags,
                )
            };
            Some(
                controller_manager::start(spec, &processes, &config, deadline, self.start_timeout)
                    .await?,
            )
        } else {
            None
        };

        Ok(Envtest {
            config,
            kubeconfig,
            server_url,
            assets_dir,
            dir: dir.path().to_path_buf(),
            crds,
            startup_time: started.elapsed(),
            apiserver_pid: processes.pid("kube-apiserver").unwrap_or_default(),
            etcd_pid: processes.pid("etcd").unwrap_or_default(),
            controller_manager_pid: controller_manager
                .as_ref()
                .and_then(|p| p.pid(controller_manager::BINARY)),
            running: Mutex::new(Some(Running {
                controller_manager,
                processes,
                dir,
            })),
        })
    }

    /// The assets directory, checked to hold the required binaries (and the controller
    /// manager's, if it is asked for).
    fn resolve_assets(&self) -> Result<PathBuf, EnvtestError> {
        let (dir, origin) = match &self.assets_dir {
            Some(dir) => (dir.clone(), "EnvtestBuilder::assets_dir"),
            None => match std::env::var_os(ASSETS_VARIABLE) {
                Some(dir) if !dir.is_empty() => (PathBuf::from(dir), ASSETS_VARIABLE),
                _ => return Err(EnvtestError::AssetsNotSet),
            },
        };
        let missing: Vec<&'static str> = REQUIRED_BINARIES
            .into_iter()
            .filter(|name| !is_executable(&dir.join(name)))
            .collect();
        if !missing.is_empty() {
            return Err(EnvtestError::AssetsMissing {
                origin,
                dir_exists: dir.is_dir(),
                dir,
                missing,
            });
        }
        let controller_manager = dir.join(controller_manager::BINARY);
        if self.controller_manager && !is_executable(&controller_manager) {
            return Err(EnvtestError::ControllerManagerMissing {
                origin,
                exists: controller_manager.exists(),
                path: controller_manager,
            });
        }
        // Absolute, so the paths handed out (kubectl's, say) work from any directory.
        Ok(std::path::absolute(&dir).unwrap_or(dir))
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
