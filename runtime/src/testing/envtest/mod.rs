//! `Envtest`: a real etcd and kube-apiserver for tests (feature `envtest`), kubegen's answer to
//! controller-runtime's envtest.
//!
//! It runs the binaries from `KUBEBUILDER_ASSETS` (the directory `setup-envtest` prepares:
//! `kube-apiserver`, `etcd`, usually `kubectl`) on free loopback ports, with certificates made
//! in-process and every file in a fresh temporary directory. [`Envtest::start`] returns once
//! the apiserver is ready, the `default` namespace exists, and the registered CRDs are
//! Established; dropping the `Envtest` kills both processes and removes the directory.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use kubegen_runtime::testing::Envtest;
//!
//! let env = Envtest::start().await?;            // or Envtest::shared().await? for one per binary
//! let client = env.client();                    // a kube::Client with cluster-admin rights
//! println!("kubectl --kubeconfig {} get crds", env.kubeconfig().display());
//! # Ok(()) }
//! ```

mod certs;
mod error;
mod process;
mod shared;

use std::ffi::OsString;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use tempfile::TempDir;

pub use self::error::{ASSETS_VARIABLE, EnvtestError};
use self::process::{Exited, ProcessSpec, Processes};

/// The binaries an envtest needs in its assets directory.
const REQUIRED_BINARIES: [&str; 2] = ["etcd", "kube-apiserver"];
/// How many sets of ports are tried when one is taken.
const PORT_ATTEMPTS: u32 = 3;
/// How long one readiness probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// The pause between readiness probes.
const PROBE_INTERVAL: Duration = Duration::from_millis(100);
/// The field manager that installs CRDs.
const FIELD_MANAGER: &str = "kubegen-envtest";

/// A running etcd + kube-apiserver, stopped (and its directory removed) on drop.
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
    running: Mutex<Option<Running>>,
}

/// What stopping releases: the processes, then the directory.
struct Running {
    processes: Processes,
    dir: TempDir,
}

/// Options for [`Envtest`]; [`Envtest::builder`] makes one.
#[derive(Clone, Debug)]
pub struct EnvtestBuilder {
    assets_dir: Option<PathBuf>,
    crds: Option<Vec<CustomResourceDefinition>>,
    apiserver_flags: Vec<String>,
    start_timeout: Duration,
    apiserver_port: Option<u16>,
}

impl Default for EnvtestBuilder {
    fn default() -> Self {
        EnvtestBuilder {
            assets_dir: None,
            crds: None,
            apiserver_flags: Vec::new(),
            start_timeout: Duration::from_secs(60),
            apiserver_port: None,
        }
    }
}

impl EnvtestBuilder {
    /// The directory holding `etcd` and `kube-apiserver`, instead of `KUBEBUILDER_ASSETS`.
    pub fn assets_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.assets_dir = Some(dir.into());
        self
    }

    /// The CRDs to install instead of the registered ones
    /// ([`registry::crds`](crate::registry::crds)); an empty list installs none.
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

    /// How long starting may take, CRDs included (default 60 s).
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
    /// namespace exists, then installs the CRDs and waits until they are Established.
    pub async fn start(self) -> Result<Envtest, EnvtestError> {
        let started = Instant::now();
        let deadline = started + self.start_timeout;
        let assets_dir = self.resolve_assets()?;
        let crds = match self.crds {
            Some(crds) => crds,
            None => crate::registry::crds()?,
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
            let specs =
                process_specs(&assets_dir, dir.path(), &pki, &ports, &self.apiserver_flags)?;
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
                Err(Failure::PortInUse(exited)) => {
                    return Err(EnvtestError::PortsInUse {
                        process: exited.name,
                        attempts: attempt,
                        log_tail: exited.log_tail,
                    });
                }
                Err(Failure::Fatal(e)) => return Err(e),
            }
        };

        let client = new_client(&config)?;
        let remaining = deadline.saturating_duration_since(Instant::now());
        let crds = crate::crd::install_crds(&client, &crds, FIELD_MANAGER, remaining)
            .await
            // A process that died explains a failed install better than the request error.
            .map_err(|e| match processes.exited() {
                Some(exited) => exited_error(exited),
                None => e.into(),
            })?;

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
            running: Mutex::new(Some(Running { processes, dir })),
        })
    }

    /// The assets directory, checked to hold the required binaries.
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
        if missing.is_empty() {
            Ok(dir)
        } else {
            Err(EnvtestError::AssetsMissing {
                origin,
                dir_exists: dir.is_dir(),
                dir,
                missing,
            })
        }
    }
}

impl Envtest {
    /// Options: assets directory, CRDs, extra apiserver flags, start timeout.
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
    pub async fn shared() -> Result<&'static Envtest, &'static EnvtestError> {
        shared::get().await
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
    /// process logs (`etcd.log`, `kube-apiserver.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The names of the CRDs installed at start.
    pub fn crds(&self) -> &[String] {
        &self.crds
    }

    /// How long [`start`](Envtest::start) took, from the call until a client could be used and
    /// the CRDs were Established.
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

    /// Kills both processes and removes the directory. Idempotent; called on drop, and at exit
    /// for the shared instance.
    fn stop(&self) {
        let running = self.lock().take();
        if let Some(Running { mut processes, dir }) = running {
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
            .field("startup_time", &self.startup_time)
            .finish_non_exhaustive()
    }
}

/// The loopback ports of one start attempt.
struct Ports {
    apiserver: u16,
    etcd_client: u16,
    etcd_peer: u16,
}

impl Ports {
    /// Free ports, chosen by the kernel; the apiserver's is `apiserver` if given. The listeners
    /// are held until all are chosen so the three differ; another process may still take one
    /// before etcd or the apiserver binds it, which the start-up loop detects and retries.
    fn pick(apiserver: Option<u16>) -> Result<Ports, EnvtestError> {
        let bind = || {
            TcpListener::bind(("127.0.0.1", 0))
                .map_err(EnvtestError::io("finding a free loopback port"))
        };
        let listeners = [bind()?, bind()?, bind()?];
        let mut ports = [0u16; 3];
        for (port, listener) in ports.iter_mut().zip(&listeners) {
            *port = listener
                .local_addr()
                .map_err(EnvtestError::io("finding a free loopback port"))?
                .port();
        }
        Ok(Ports {
            apiserver: apiserver.unwrap_or(ports[0]),
            etcd_client: ports[1],
            etcd_peer: ports[2],
        })
    }
}

/// The command lines of etcd and kube-apiserver.
fn process_specs(
    assets: &Path,
    dir: &Path,
    pki: &certs::Pki,
    ports: &Ports,
    extra_flags: &[String],
) -> Result<Vec<ProcessSpec>, EnvtestError> {
    let etcd_url = format!("http://127.0.0.1:{}", ports.etcd_client);
    let peer_url = format!("http://127.0.0.1:{}", ports.etcd_peer);
    let flag = |name: &str, value: &Path| {
        let mut flag = OsString::from(format!("--{name}="));
        flag.push(value);
        flag
    };
    let etcd_args: Vec<OsString> = vec![
        "--name=envtest".into(),
        flag("data-dir", &dir.join("etcd")),
        format!("--listen-client-urls={etcd_url}").into(),
        format!("--advertise-client-urls={etcd_url}").into(),
        format!("--listen-peer-urls={peer_url}").into(),
        format!("--initial-advertise-peer-urls={peer_url}").into(),
        format!("--initial-cluster=envtest={peer_url}").into(),
        // The data is thrown away after the test: no need to wait for the disk.
        "--unsafe-no-fsync".into(),
    ];
    let mut apiserver_args: Vec<OsString> = vec![
        format!("--etcd-servers={etcd_url}").into(),
        format!("--secure-port={}", ports.apiserver).into(),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        // No Endpoints for the kubernetes service: nothing in a test routes to it.
        "--endpoint-reconciler-type=none".into(),
        "--authorization-mode=RBAC".into(),
        flag("cert-dir", dir),
        flag("client-ca-file", &pki.client_ca),
        flag("tls-cert-file", &pki.serving_cert),
        flag("tls-private-key-file", &pki.serving_key),
        flag("service-account-key-file", &pki.service_account_pub),
        flag("service-account-signing-key-file", &pki.service_account_key),
        "--service-account-issuer=https://kubernetes.default.svc".into(),
        "--service-cluster-ip-range=10.0.0.0/24".into(),
        "--allow-privileged=true".into(),
    ];
    apiserver_args.extend(extra_flags.iter().map(OsString::from));
    Ok(vec![
        ProcessSpec {
            name: "etcd",
            program: assets.join("etcd"),
            args: etcd_args,
            log: dir.join("etcd.log"),
        },
        ProcessSpec {
            name: "kube-apiserver",
            program: assets.join("kube-apiserver"),
            args: apiserver_args,
            log: dir.join("kube-apiserver.log"),
        },
    ])
}

/// Writes `dir/kubeconfig` for the admin identity; the certificates are referenced by path.
fn write_kubeconfig(
    dir: &Path,
    server_url: &str,
    pki: &certs::Pki,
) -> Result<PathBuf, EnvtestError> {
    // JSON strings are YAML strings: this quotes any character a path may hold.
    let quote = |path: &Path| -> Result<String, EnvtestError> {
        let text = path.to_str().ok_or_else(|| EnvtestError::Io {
            context: format!("the envtest directory {} is not valid UTF-8", dir.display()),
            source: std::io::ErrorKind::InvalidFilename.into(),
        })?;
        Ok(serde_json::Value::from(text).to_string())
    };
    let text = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: {user}
  user:
    client-certificate: {cert}
    client-key: {key}
contexts:
- name: envtest
  context: {{cluster: envtest, user: {user}, namespace: default}}
current-context: envtest
",
        server = serde_json::Value::from(server_url),
        ca = quote(&pki.serving_ca)?,
        user = certs::ADMIN_USER,
        cert = quote(&pki.admin_cert)?,
        key = quote(&pki.admin_key)?,
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).map_err(EnvtestError::io(format!("writing {}", path.display())))?;
    Ok(path)
}

/// The client configuration, read back from the kubeconfig so both always agree.
async fn load_config(kubeconfig: &Path) -> Result<kube::Config, EnvtestError> {
    let file = kube::config::Kubeconfig::read_from(kubeconfig)?;
    Ok(
        kube::Config::from_custom_kubeconfig(file, &kube::config::KubeConfigOptions::default())
            .await?,
    )
}

fn new_client(config: &kube::Config) -> Result<kube::Client, EnvtestError> {
    kube::Client::try_from(config.clone()).map_err(|e| EnvtestError::Client(Box::new(e)))
}

/// Why waiting for the apiserver ended without success.
enum Failure {
    /// A process could not bind its port: worth another attempt on other ports.
    PortInUse(Exited),
    Fatal(EnvtestError),
}

/// Waits until `/readyz` answers `ok` and the `default` namespace exists, watching for
/// processes that exit.
async fn wait_until_ready(
    processes: &Processes,
    config: &kube::Config,
    deadline: Instant,
    timeout: Duration,
) -> Result<(), Failure> {
    let client = new_client(config).map_err(Failure::Fatal)?;
    loop {
        let waiting_for = match probe(&client).await {
            Ok(()) => return Ok(()),
            Err(why) => why,
        };
        if let Some(exited) = processes.exited() {
            return Err(if exited.log_tail.contains("address already in use") {
                Failure::PortInUse(exited)
            } else {
                Failure::Fatal(exited_error(exited))
            });
        }
        if Instant::now() >= deadline {
            return Err(Failure::Fatal(EnvtestError::Timeout {
                timeout,
                waiting_for,
                log_tail: processes.log_tail("kube-apiserver"),
            }));
        }
        tokio::time::sleep(PROBE_INTERVAL).await;
    }
}

/// One readiness check; the error says what is still missing.
async fn probe(client: &kube::Client) -> Result<(), String> {
    let readyz = http::Request::get("/readyz")
        .body(Vec::new())
        .map_err(|e| format!("building the /readyz request: {e}"))?;
    match tokio::time::timeout(PROBE_TIMEOUT, client.request_text(readyz)).await {
        Err(_) => return Err(format!("/readyz did not answer within {PROBE_TIMEOUT:?}")),
        Ok(Err(e)) => return Err(format!("/readyz: {e}")),
        Ok(Ok(body)) if body.trim() != "ok" => return Err(format!("/readyz answered {body:?}")),
        Ok(Ok(_)) => {}
    }
    let namespaces: kube::Api<Namespace> = kube::Api::all(client.clone());
    match tokio::time::timeout(PROBE_TIMEOUT, namespaces.get_opt("default")).await {
        Err(_) => Err(format!(
            "getting namespace default took over {PROBE_TIMEOUT:?}"
        )),
        Ok(Err(e)) => Err(format!("getting namespace default: {e}")),
        Ok(Ok(None)) => Err("namespace default does not exist yet".into()),
        Ok(Ok(Some(_))) => Ok(()),
    }
}

fn exited_error(exited: Exited) -> EnvtestError {
    EnvtestError::ProcessExited {
        process: exited.name,
        status: exited.status,
        log_tail: exited.log_tail,
    }
}

/// Removes etcd's data after a failed attempt: it records the peer URL, which the next attempt
/// changes.
fn remove_etcd_data(dir: &Path) -> Result<(), EnvtestError> {
    let data = dir.join("etcd");
    match std::fs::remove_dir_all(&data) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(EnvtestError::Io {
            context: format!("removing {}", data.display()),
            source: e,
        }),
        _ => Ok(()),
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
