//! Waiting until the apiserver (or the controller manager) is usable.

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;

use super::error::EnvtestError;
use super::process::{Exited, Processes};

/// How long one readiness probe may take.
pub(super) const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// The pause between readiness probes.
const PROBE_INTERVAL: Duration = Duration::from_millis(100);

pub(super) fn new_client(config: &kube::Config) -> Result<kube::Client, EnvtestError> {
    kube::Client::try_from(config.clone()).map_err(|e| EnvtestError::Client(Box::new(e)))
}

/// Why waiting for the apiserver ended without success.
pub(super) enum Failure {
    /// A process could not bind its port: worth another attempt on other ports.
    PortInUse(Exited),
    Fatal(EnvtestError),
}

impl Failure {
    /// The error to report once no attempt is left; `attempts` is how many were made.
    pub(super) fn into_error(self, attempts: u32) -> EnvtestError {
        match self {
            Failure::PortInUse(exited) => EnvtestError::PortsInUse {
                process: exited.name,
                attempts,
                log_tail: exited.log_tail,
            },
            Failure::Fatal(e) => e,
        }
    }
}

/// Waits until `/readyz` answers `ok` and the `default` namespace exists, watching for
/// processes that exit.
pub(super) async fn wait_until_ready(
    processes: &Processes,
    config: &kube::Config,
    deadline: Instant,
    timeout: Duration,
) -> Result<(), Failure> {
    let client = new_client(config).map_err(Failure::Fatal)?;
    let watched = Watched {
        processes: &[processes],
        quoted: "kube-apiserver",
    };
    wait_for(&watched, deadline, timeout, || probe(&client)).await
}

/// The processes a wait watches for an early exit, and the one whose log a timeout quotes.
pub(super) struct Watched<'a> {
    pub processes: &'a [&'a Processes],
    pub quoted: &'static str,
}

/// Probes until `probe` succeeds, the deadline passes, or a watched process exits. The probe's
/// error says what is still missing.
pub(super) async fn wait_for<F, Fut>(
    watched: &Watched<'_>,
    deadline: Instant,
    timeout: Duration,
    mut probe: F,
) -> Result<(), Failure>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    loop {
        let waiting_for = match probe().await {
            Ok(()) => return Ok(()),
            Err(why) => why,
        };
        if let Some(exited) = watched.processes.iter().find_map(|p| p.exited()) {
            return Err(if exited.log_tail.contains("address already in use") {
                Failure::PortInUse(exited)
            } else {
                Failure::Fatal(exited_error(exited))
            });
        }
        if Instant::now() >= deadline {
            let log_tail = watched
                .processes
                .iter()
                .map(|p| p.log_tail(watched.quoted))
                .find(|tail| !tail.is_empty())
                .unwrap_or_default();
            return Err(Failure::Fatal(EnvtestError::Timeout {
                process: watched.quoted,
                timeout,
                waiting_for,
                log_tail,
            }));
        }
        tokio::time::sleep(PROBE_INTERVAL).await;
    }
}

/// One readiness check; the error says what is still missing.
pub(super) async fn probe(client: &kube::Client) -> Result<(), String> {
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

pub(super) fn exited_error(exited: Exited) -> EnvtestError {
    EnvtestError::ProcessExited {
        process: exited.name,
        status: exited.status,
        log_tail: exited.log_tail,
    }
}
