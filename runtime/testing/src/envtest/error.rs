//! Why an [`Envtest`](super::Envtest) could not start, or could not set up a test identity.

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use kubegen_runtime::crd::{CrdError, InstallError};

pub use crate::backend::ASSETS_VARIABLE;

/// How to get the envtest binaries, for error messages.
const HOW_TO_GET_ASSETS: &str = "run setup-envtest (`KUBEBUILDER_ASSETS=$(setup-envtest use -p path)`), \
     or in a kubegen checkout `KUBEBUILDER_ASSETS=$(../shared/k8s/install)`";
/// How to get a kube-controller-manager, which setup-envtest's assets lack.
const HOW_TO_GET_CONTROLLER_MANAGER: &str = "setup-envtest's assets do not include it; copy the \
     kube-controller-manager of the apiserver's version there (from a Kubernetes release's \
     kubernetes-server-linux-*.tar.gz), or in a kubegen checkout use \
     `KUBEBUILDER_ASSETS=$(../shared/k8s/install)`";

/// Why starting an [`Envtest`](super::Envtest), or setting up a test identity in it, failed.
#[derive(Debug, thiserror::Error)]
pub enum EnvtestError {
    /// No assets directory was given and `KUBEBUILDER_ASSETS` is not set.
    #[error(
        "{ASSETS_VARIABLE} is not set: envtest needs a directory holding kube-apiserver and etcd; \
         {HOW_TO_GET_ASSETS}, or pass the directory to EnvtestBuilder::assets_dir"
    )]
    AssetsNotSet,
    /// The assets directory lacks binaries envtest runs.
    #[error(
        "{} missing from {} (named by {origin}){}: put etcd and kube-apiserver there; {HOW_TO_GET_ASSETS}",
        missing.join(" and "),
        dir.display(),
        if *dir_exists { "" } else { ", which does not exist" }
    )]
    AssetsMissing {
        /// Where the directory came from: `KUBEBUILDER_ASSETS` or `EnvtestBuilder::assets_dir`.
        origin: &'static str,
        /// The directory.
        dir: PathBuf,
        /// Whether the directory exists at all.
        dir_exists: bool,
        /// The binaries that are missing or not executable.
        missing: Vec<&'static str>,
    },
    /// The controller manager was asked for
    /// ([`EnvtestBuilder::controller_manager`](super::EnvtestBuilder::controller_manager) or
    /// [`Envtest::shared_with_controllers`](super::Envtest::shared_with_controllers)), but the
    /// assets directory has no executable `kube-controller-manager`.
    #[error(
        "the controller manager was asked for (EnvtestBuilder::controller_manager or \
         Envtest::shared_with_controllers), but {} {} (the assets directory named by {origin}): \
         {HOW_TO_GET_CONTROLLER_MANAGER}",
        path.display(),
        if *exists { "is not executable" } else { "does not exist" }
    )]
    ControllerManagerMissing {
        /// Where the directory came from: `KUBEBUILDER_ASSETS` or `EnvtestBuilder::assets_dir`.
        origin: &'static str,
        /// The file looked for: `<assets>/kube-controller-manager`.
        path: PathBuf,
        /// Whether the file exists (and is not executable).
        exists: bool,
    },
    /// A process exited before it was ready.
    #[error("{process} exited early ({status}); the last lines of its log:\n{log_tail}")]
    ProcessExited {
        /// `etcd`, `kube-apiserver` or `kube-controller-manager`.
        process: &'static str,
        /// Its exit status.
        status: ExitStatus,
        /// The last lines of its output.
        log_tail: String,
    },
    /// Every attempt found one of its ports taken ("address already in use").
    #[error(
        "{process} could not bind its port in {attempts} attempts (address already in use); \
         the last lines of its log:\n{log_tail}"
    )]
    PortsInUse {
        /// The process that reported the port in use on the last attempt.
        process: &'static str,
        /// How many sets of ports were tried.
        attempts: u32,
        /// The last lines of its output.
        log_tail: String,
    },
    /// The apiserver, or the controller manager, did not become usable within the start timeout.
    #[error(
        "the envtest {process} was not ready within {timeout:?} ({waiting_for}); \
         the last lines of its log:\n{log_tail}"
    )]
    Timeout {
        /// `kube-apiserver` or `kube-controller-manager`.
        process: &'static str,
        /// The start timeout.
        timeout: Duration,
        /// What was still missing, with the last answer or error seen.
        waiting_for: String,
        /// The last lines of its output.
        log_tail: String,
    },
    /// A file system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Generating a certificate or key failed.
    #[error("generating the {what}: {source}")]
    Certificate {
        /// Which certificate or key.
        what: &'static str,
        /// rcgen's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The generated kubeconfig could not be loaded (a bug in envtest if it happens).
    #[error("loading the envtest kubeconfig: {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),
    /// A client could not be built from the generated configuration.
    #[error("building a client for the envtest apiserver: {0}")]
    Client(#[source] Box<kube::Error>),
    /// A registered kind's CRD could not be built.
    #[error("building the CRDs to install: {0}")]
    Crd(#[from] CrdError),
    /// Installing the CRDs failed.
    #[error("installing CRDs into the envtest apiserver: {0}")]
    Install(#[from] InstallError),
    /// A request made for a test (setting up a ServiceAccount, reviewing access) failed.
    #[error("{context}: {source}")]
    Request {
        /// What was being done.
        context: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// A TokenRequest was answered without a token.
    #[error("the TokenRequest for ServiceAccount {service_account} came back without a token")]
    NoToken {
        /// `namespace/name`.
        service_account: String,
    },
    /// An access review did not reach the expected answer in time
    /// ([`wait_for_access`](super::wait_for_access)).
    #[error(
        "{access} was not {wanted} within {timeout:?}{}",
        if reason.is_empty() { String::new() } else { format!(" (the authorizer said: {reason})") }
    )]
    AccessNotSettled {
        /// The verb and resource reviewed.
        access: String,
        /// `allowed` or `denied`.
        wanted: &'static str,
        /// The authorizer's reason in its last answer.
        reason: String,
        /// How long the reviews went on.
        timeout: Duration,
    },
    /// The thread starting the shared instance panicked.
    #[error("starting the shared Envtest panicked: {0}")]
    Panicked(String),
}

impl EnvtestError {
    /// An [`EnvtestError::Io`] with what was being done.
    pub(super) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let context = context.into();
        move |source| EnvtestError::Io { context, source }
    }

    /// An [`EnvtestError::Request`] with what was being done.
    pub(super) fn request(context: impl Into<String>) -> impl FnOnce(kube::Error) -> Self {
        let context = context.into();
        move |source| EnvtestError::Request {
            context,
            source: Box::new(source),
        }
    }
}
