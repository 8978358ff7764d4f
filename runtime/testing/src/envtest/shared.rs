//! The process-wide instances behind [`Envtest::shared`] and
//! [`Envtest::shared_with_controllers`].
//!
//! Each is started once, on a thread with its own Tokio runtime so that no caller's runtime
//! (each test has its own) is involved, and stopped by an `atexit` handler: a `static` is never
//! dropped. Should the process die without running `atexit` handlers, the children still die
//! with it (see `process.rs`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{LazyLock, Once, OnceLock};

use tokio::sync::watch;

use super::{Envtest, EnvtestBuilder, EnvtestError};

/// The instance without a controller manager.
pub(super) static PLAIN: Shared = Shared::new("envtest-shared", EnvtestBuilder::default);
/// The instance with kube-controller-manager running.
pub(super) static WITH_CONTROLLERS: Shared =
    Shared::new("envtest-shared-controllers", with_controllers);

/// Guards registering the exit handler, which stops every shared instance.
static AT_EXIT: Once = Once::new();

/// One process-wide instance: its options, and the outcome of its one start.
pub(super) struct Shared {
    /// The name of the thread that starts it.
    thread: &'static str,
    options: fn() -> EnvtestBuilder,
    /// The outcome of the one start.
    env: OnceLock<Result<Envtest, EnvtestError>>,
    /// Guards spawning the starting thread.
    starting: Once,
    /// Becomes `true` once `env` is set; callers wait on it without blocking their runtime.
    started: LazyLock<watch::Sender<bool>>,
}

fn with_controllers() -> EnvtestBuilder {
    EnvtestBuilder::default().controller_manager(true)
}

fn not_started() -> watch::Sender<bool> {
    watch::Sender::new(false)
}

impl Shared {
    const fn new(thread: &'static str, options: fn() -> EnvtestBuilder) -> Shared {
        Shared {
            thread,
            options,
            env: OnceLock::new(),
            starting: Once::new(),
            started: LazyLock::new(not_started),
        }
    }

    pub(super) async fn get(&'static self) -> Result<&'static Envtest, &'static EnvtestError> {
        if let Some(result) = self.env.get() {
            return result.as_ref();
        }
        let mut started = self.started.subscribe();
        self.starting.call_once(|| self.spawn_starter());
        // The sender lives in a static and is never dropped, so waiting ends only when it says
        // `true`.
        let _ = started.wait_for(|done| *done).await;
        // `finish` sets `env` before `started`, so this returns at once.
        self.env.wait().as_ref()
    }

    fn spawn_starter(&'static self) {
        let spawned = std::thread::Builder::new()
            .name(self.thread.into())
            .spawn(|| {
                let result =
                    catch_unwind(AssertUnwindSafe(|| self.start())).unwrap_or_else(|panic| {
                        let message = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "a non-string panic".into());
                        Err(EnvtestError::Panicked(message))
                    });
                self.finish(result);
            });
        if let Err(source) = spawned {
            self.finish(Err(EnvtestError::Io {
                context: "starting the shared envtest thread".into(),
                source,
            }));
        }
    }

    fn start(&self) -> Result<Envtest, EnvtestError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(EnvtestError::io("building the shared envtest's runtime"))?;
        runtime.block_on((self.options)().start())
    }

    fn finish(&self, result: Result<Envtest, EnvtestError>) {
        let started = result.is_ok();
        // `finish` runs once (`starting` guards its thread), so `env` is still empty.
        let _ = self.env.set(result);
        if started {
            AT_EXIT.call_once(register_exit_handler);
        }
        self.started.send_replace(true);
    }
}

fn register_exit_handler() {
    // SAFETY: `stop_at_exit` is a plain `extern "C" fn()` that does not unwind.
    if unsafe { libc::atexit(stop_at_exit) } != 0 {
        tracing::warn!(
            "could not register the shared envtests' exit handler; their processes end with the \
             test process, their directories stay"
        );
    }
}

/// Stops the shared instances' processes and removes their directories at process exit.
extern "C" fn stop_at_exit() {
    for shared in [&PLAIN, &WITH_CONTROLLERS] {
        if let Some(Ok(env)) = shared.env.get() {
            // A panic must not unwind into C.
            let _ = catch_unwind(AssertUnwindSafe(|| env.stop()));
        }
    }
}
