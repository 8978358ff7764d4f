//! The process-wide [`Envtest`] behind [`Envtest::shared`].
//!
//! It is started once, on a thread with its own Tokio runtime so that no caller's runtime (each
//! test has its own) is involved, and stopped by an `atexit` handler: a `static` is never
//! dropped. Should the process die without running `atexit` handlers, the children still die
//! with it (see `process.rs`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{LazyLock, Once, OnceLock};

use tokio::sync::watch;

use super::{Envtest, EnvtestError};

/// The outcome of the one start.
static SHARED: OnceLock<Result<Envtest, EnvtestError>> = OnceLock::new();
/// Guards spawning the starting thread.
static STARTING: Once = Once::new();
/// Becomes `true` once `SHARED` is set; callers wait on it without blocking their runtime.
static STARTED: LazyLock<watch::Sender<bool>> = LazyLock::new(|| watch::Sender::new(false));

pub(super) async fn get() -> Result<&'static Envtest, &'static EnvtestError> {
    if let Some(result) = SHARED.get() {
        return result.as_ref();
    }
    let mut started = STARTED.subscribe();
    STARTING.call_once(spawn_starter);
    // The sender is a static and never dropped, so waiting ends only when it says `true`.
    let _ = started.wait_for(|done| *done).await;
    // `finish` sets SHARED before STARTED, so this returns at once.
    SHARED.wait().as_ref()
}

fn spawn_starter() {
    let spawned = std::thread::Builder::new()
        .name("envtest-shared".into())
        .spawn(|| {
            let result = catch_unwind(AssertUnwindSafe(start)).unwrap_or_else(|panic| {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic".into());
                Err(EnvtestError::Panicked(message))
            });
            finish(result);
        });
    if let Err(source) = spawned {
        finish(Err(EnvtestError::Io {
            context: "starting the shared envtest thread".into(),
            source,
        }));
    }
}

fn start() -> Result<Envtest, EnvtestError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(EnvtestError::io("building the shared envtest's runtime"))?;
    runtime.block_on(Envtest::start())
}

fn finish(result: Result<Envtest, EnvtestError>) {
    let started = result.is_ok();
    // `finish` runs once (STARTING guards its thread), so SHARED is still empty.
    let _ = SHARED.set(result);
    if started {
        // SAFETY: `stop_at_exit` is a plain `extern "C" fn()` that does not unwind.
        if unsafe { libc::atexit(stop_at_exit) } != 0 {
            tracing::warn!(
                "could not register the shared envtest's exit handler; its processes end with the \
                 test process, its directory stays"
            );
        }
    }
    STARTED.send_replace(true);
}

/// Stops the shared instance's processes and removes its directory at process exit.
extern "C" fn stop_at_exit() {
    if let Some(Ok(env)) = SHARED.get() {
        // A panic must not unwind into C.
        let _ = catch_unwind(AssertUnwindSafe(|| env.stop()));
    }
}
