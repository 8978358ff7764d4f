//! kube-controller-manager beside the envtest apiserver
//! ([`EnvtestBuilder::controller_manager`](super::EnvtestBuilder::controller_manager)), which
//! controller-runtime's envtest does not offer: garbage collection, namespace deletion, the
//! workload controllers (Deployment → ReplicaSet → Pod, StatefulSet, DaemonSet, Job, CronJob),
//! ServiceAccounts in every namespace.
//!
//! It runs with the flags `../shared/k8s/start` uses: every default controller
//! (`--controllers=*`), no leader election, one identity for all controllers (the envtest
//! kubeconfig's admin, so no controller is refused for lack of a role), the certificates
//! `certs.rs` made, and serving on a free loopback port. It is ready once its service-account
//! controller has created the `default` ServiceAccount in the `default` namespace: that
//! controller starts only after every controller has been started and the shared informers
//! have synced.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ServiceAccount;

use super::certs::Pki;
use super::error::EnvtestError;
use super::launch::{PORT_ATTEMPTS, free_port, path_flag};
use super::process::{ProcessSpec, Processes};
use super::readiness::{Failure, PROBE_TIMEOUT, Watched, new_client, wait_for};

/// The binary's name in the assets directory, and the process's name in errors.
pub(super) const BINARY: &str = "kube-controller-manager";

/// The command line of kube-controller-manager serving on `port`, as the admin of the
/// kubeconfig at `kubeconfig`; `extra_flags` come last so they win.
pub(super) fn spec(
    assets: &Path,
    dir: &Path,
    pki: &Pki,
    kubeconfig: &Path,
    port: u16,
    extra_flags: &[String],
) -> ProcessSpec {
    let mut args: Vec<OsString> = vec![
        path_flag("kubeconfig", kubeconfig),
        // Delegated authentication and authorization of its own endpoints (/metrics, ...)
        // against the apiserver; skipping the lookup spares reading the
        // extension-apiserver-authentication ConfigMap, which holds nothing it needs.
        path_flag("authentication-kubeconfig", kubeconfig),
        path_flag("authorization-kubeconfig", kubeconfig),
        "--authentication-skip-lookup=true".into(),
        "--leader-elect=false".into(),
        "--controllers=*".into(),
        // Every controller acts as the admin: with per-controller ServiceAccounts each would
        // wait for its token and role first.
        "--use-service-account-credentials=false".into(),
        // Signs legacy token Secrets; the apiserver verifies them with the public half.
        path_flag("service-account-private-key-file", &pki.service_account_key),
        // The CA Pods get (`kube-root-ca.crt`) to verify the apiserver's serving certificate.
        path_flag("root-ca-file", &pki.serving_ca),
        // Signs approved CertificateSigningRequests as the CA the apiserver trusts for clients.
        path_flag("cluster-signing-cert-file", &pki.client_ca),
        path_flag("cluster-signing-key-file", &pki.client_ca_key),
        "--bind-address=127.0.0.1".into(),
        format!("--secure-port={port}").into(),
    ];
    args.extend(extra_flags.iter().map(OsString::from));
    ProcessSpec {
        name: BINARY,
        program: assets.join(BINARY),
        args,
        log: dir.join(format!("{BINARY}.log")),
    }
}

/// Starts the controller manager from `spec` (given a free port; another is tried if the port
/// is taken meanwhile) and waits until it has created the `default` ServiceAccount. The
/// apiserver's processes are watched too: if they exit, the wait ends with their error.
pub(super) async fn start(
    spec: impl Fn(u16) -> ProcessSpec,
    apiserver: &Processes,
    config: &kube::Config,
    deadline: Instant,
    timeout: Duration,
) -> Result<Processes, EnvtestError> {
    let client = new_client(config)?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let processes = Processes::spawn(vec![spec(free_port()?)]).await?;
        let watched = Watched {
            processes: &[&processes, apiserver],
            quoted: BINARY,
        };
        let probe = || default_service_account(&client);
        match wait_for(&watched, deadline, timeout, probe).await {
            Ok(()) => return Ok(processes),
            Err(Failure::PortInUse(exited)) if attempt < PORT_ATTEMPTS => {
                tracing::debug!(
                    process = exited.name,
                    attempt,
                    "port in use; retrying the controller manager on another port"
                );
            }
            Err(failure) => return Err(failure.into_error(attempt)),
        }
    }
}

/// Whether the service-account controller has created `default/default`.
async fn default_service_account(client: &kube::Client) -> Result<(), String> {
    let accounts: kube::Api<ServiceAccount> = kube::Api::namespaced(client.clone(), "default");
    match tokio::time::timeout(PROBE_TIMEOUT, accounts.get_opt("default")).await {
        Err(_) => Err(format!(
            "getting ServiceAccount default/default took over {PROBE_TIMEOUT:?}"
        )),
        Ok(Err(e)) => Err(format!("getting ServiceAccount default/default: {e}")),
        Ok(Ok(None)) => Err(
            "ServiceAccount default/default does not exist yet: the service-account controller \
             has not run"
                .into(),
        ),
        Ok(Ok(Some(_))) => Ok(()),
    }
}
