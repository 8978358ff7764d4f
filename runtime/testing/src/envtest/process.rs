//! The etcd and kube-apiserver child processes, owned by a supervisor thread.
//!
//! The children are spawned from a dedicated thread that lives exactly as long as the
//! [`Processes`] handle. On Linux each child asks the kernel (`PR_SET_PDEATHSIG`) to be killed
//! when that thread ends, so the children cannot outlive the test process even if the handle is
//! never dropped — a `static`, a `mem::forget`, or a test binary killed by a signal. The
//! supervisor also reaps them and records their exit status, which the start-up loop reads to
//! report a process that died early.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::error::EnvtestError;

/// How often the supervisor looks for exited children.
const POLL: Duration = Duration::from_millis(20);

/// One process to run.
pub(super) struct ProcessSpec {
    /// `etcd` or `kube-apiserver`: the name in errors.
    pub name: &'static str,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Where its stdout and stderr go.
    pub log: PathBuf,
}

/// What the supervisor knows about one child.
struct ChildState {
    name: &'static str,
    pid: u32,
    log: PathBuf,
    exit: Option<ExitStatus>,
}

/// Running children and the supervisor thread that owns them.
pub(super) struct Processes {
    states: Arc<Mutex<Vec<ChildState>>>,
    stop: mpsc::Sender<()>,
    thread: Option<JoinHandle<()>>,
}

/// A child that has exited, with the end of its log.
pub(super) struct Exited {
    pub name: &'static str,
    pub status: ExitStatus,
    pub log_tail: String,
}

impl Processes {
    /// Starts a supervisor thread that spawns `specs` in order. If one cannot be spawned, the
    /// ones already running are killed and the error returned.
    pub(super) async fn spawn(specs: Vec<ProcessSpec>) -> Result<Processes, EnvtestError> {
        let states = Arc::new(Mutex::new(Vec::new()));
        let (stop, stop_rx) = mpsc::channel();
        let (spawned_tx, spawned) = tokio::sync::oneshot::channel();
        let thread_states = Arc::clone(&states);
        let thread = std::thread::Builder::new()
            .name("envtest-supervisor".into())
            .spawn(move || supervise(specs, thread_states, spawned_tx, stop_rx))
            .map_err(EnvtestError::io("starting the envtest supervisor thread"))?;
        let processes = Processes {
            states,
            stop,
            thread: Some(thread),
        };
        match spawned.await {
            Ok(Ok(())) => Ok(processes),
            Ok(Err(e)) => Err(e),
            // The supervisor only drops the sender without sending if it panicked.
            Err(_) => Err(EnvtestError::Panicked(
                "the envtest supervisor thread ended before spawning".into(),
            )),
        }
    }

    /// The process id of the child named `name`.
    pub(super) fn pid(&self, name: &str) -> Option<u32> {
        self.lock().iter().find(|c| c.name == name).map(|c| c.pid)
    }

    /// The first child that has exited, if any.
    pub(super) fn exited(&self) -> Option<Exited> {
        let states = self.lock();
        let child = states.iter().find(|c| c.exit.is_some())?;
        Some(Exited {
            name: child.name,
            status: child.exit?,
            log_tail: log_tail(&child.log),
        })
    }

    /// The last lines of the log of the child named `name`.
    pub(super) fn log_tail(&self, name: &str) -> String {
        let log = self
            .lock()
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.log.clone());
        log.map(|l| log_tail(&l)).unwrap_or_default()
    }

    /// Kills every child, waits for them, and ends the supervisor thread. Idempotent.
    pub(super) fn stop(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        // If the supervisor already ended (it only does after a panic), there is nobody to tell.
        let _ = self.stop.send(());
        let _ = thread.join();
    }

    fn lock(&self) -> MutexGuard<'_, Vec<ChildState>> {
        // The states are plain values written whole; a panic elsewhere cannot tear them.
        self.states.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The supervisor thread: spawns the children, records their exits, and kills them when told
/// to stop (or when the handle is gone).
fn supervise(
    specs: Vec<ProcessSpec>,
    states: Arc<Mutex<Vec<ChildState>>>,
    spawned: tokio::sync::oneshot::Sender<Result<(), EnvtestError>>,
    stop: mpsc::Receiver<()>,
) {
    let lock = || states.lock().unwrap_or_else(|e| e.into_inner());
    let mut children: Vec<Child> = Vec::new();
    for spec in &specs {
        match spawn_child(spec) {
            Ok(child) => {
                lock().push(ChildState {
                    name: spec.name,
                    pid: child.id(),
                    log: spec.log.clone(),
                    exit: None,
                });
                children.push(child);
            }
            Err(e) => {
                kill_all(&mut children);
                let _ = spawned.send(Err(e));
                return;
            }
        }
    }
    // The receiver is gone only if the start-up future was dropped; the handle it would have
    // built is gone too, so stop at once.
    if spawned.send(Ok(())).is_err() {
        kill_all(&mut children);
        return;
    }
    loop {
        match stop.recv_timeout(POLL) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                let mut states = lock();
                for (child, state) in children.iter_mut().zip(states.iter_mut()) {
                    if state.exit.is_none()
                        && let Ok(Some(status)) = child.try_wait()
                    {
                        state.exit = Some(status);
                    }
                }
            }
        }
    }
    kill_all(&mut children);
}

/// SIGKILL and reap every child. The environment's state is thrown away with its directory, so
/// there is nothing a graceful shutdown would save, and each process takes about two seconds to
/// stop on SIGTERM.
fn kill_all(children: &mut [Child]) {
    for child in children.iter_mut() {
        // Fails only if the child was already reaped, which is what we want.
        let _ = child.kill();
    }
    for child in children.iter_mut() {
        let _ = child.wait();
    }
}

fn spawn_child(spec: &ProcessSpec) -> Result<Child, EnvtestError> {
    let log = File::create(&spec.log)
        .map_err(EnvtestError::io(format!("creating {}", spec.log.display())))?;
    let log_err = log
        .try_clone()
        .map_err(EnvtestError::io(format!("opening {}", spec.log.display())))?;
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err);
    die_with_parent(&mut command);
    command.spawn().map_err(EnvtestError::io(format!(
        "starting {} ({})",
        spec.name,
        spec.program.display()
    )))
}

/// Makes the kernel SIGKILL the child when the spawning thread (the supervisor) ends.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the child between fork and exec, and calls only prctl and
    // getppid, which are async-signal-safe; it allocates nothing (the error is a raw OS code).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl; then the signal will never come,
            // and the child has been re-parented. Refuse to run.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Elsewhere the children are killed on drop only.
#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

/// How many log lines errors quote.
const TAIL_LINES: usize = 20;

/// The last [`TAIL_LINES`] lines of a log file (empty if it cannot be read).
pub(super) fn log_tail(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}
