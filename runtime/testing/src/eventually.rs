//! Waiting in a test until something holds, instead of sleeping (Gomega's `Eventually`).
//!
//! A check is polled until it succeeds or the time is up; it may answer with a `bool`, an
//! `Option` or a `Result`, and the value it settles on is returned. When the time runs out
//! the test fails with what was awaited and the check's last answer (a `Result`'s error).
//!
//! ```no_run
//! # async fn example(client: kube::Client) {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::Api;
//! use kubegen_testing::eventually;
//!
//! let configs = Api::<ConfigMap>::namespaced(client, "default");
//! // The controller under test writes it; wait for it, then look at it.
//! let settings = eventually("the operator writes its settings", || {
//!     let configs = configs.clone();
//!     async move { configs.get_opt("settings").await }
//! })
//! .await;
//! # let _ = settings;
//! # }
//! ```

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

/// An answer of a polled check: settled (with a value), or not yet (with why).
pub trait Outcome {
    /// What a settled check gives.
    type Value;

    /// The value, or why the check does not hold yet.
    fn settled(self) -> Result<Self::Value, String>;
}

impl Outcome for bool {
    type Value = ();

    fn settled(self) -> Result<(), String> {
        self.then_some(())
            .ok_or_else(|| "the check was false".to_owned())
    }
}

impl<T> Outcome for Option<T> {
    type Value = T;

    fn settled(self) -> Result<T, String> {
        self.ok_or_else(|| "the check gave None".to_owned())
    }
}

impl<T, E: Display> Outcome for Result<T, E> {
    type Value = T;

    fn settled(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// How long to poll and how often; [`Eventually::default`] is 10 s every 20 ms (Envtest
/// suites commonly raise Gomega's 1 s to 10 s; the in-memory server answers in well under
/// one interval).
#[derive(Clone, Copy, Debug)]
pub struct Eventually {
    timeout: Duration,
    interval: Duration,
}

impl Default for Eventually {
    fn default() -> Self {
        Eventually {
            timeout: Duration::from_secs(10),
            interval: Duration::from_millis(20),
        }
    }
}

impl Eventually {
    /// Polls for `timeout` at most.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Waits `interval` between polls.
    pub fn interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// Polls `check` until it settles and returns its value, or gives up: `Err` with what
    /// was awaited, how long, and the check's last answer.
    pub async fn try_until<O, F, Fut>(&self, what: &str, mut check: F) -> Result<O::Value, String>
    where
        O: Outcome,
        F: FnMut() -> Fut,
        Fut: Future<Output = O>,
    {
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let last = match check().await.settled() {
                Ok(value) => return Ok(value),
                Err(why) => why,
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(format!(
                    "timed out after {:?} waiting until {what}: {last}",
                    self.timeout
                ));
            }
            tokio::time::sleep(self.interval).await;
        }
    }

    /// [`try_until`](Self::try_until), failing the test when it gives up.
    #[track_caller]
    pub fn until<'a, O, F, Fut>(
        self,
        what: &'a str,
        check: F,
    ) -> impl Future<Output = O::Value> + 'a
    where
        O: Outcome + 'a,
        F: FnMut() -> Fut + 'a,
        Fut: Future<Output = O> + 'a,
    {
        let caller = std::panic::Location::caller();
        async move {
            match self.try_until(what, check).await {
                Ok(value) => value,
                Err(message) => panic!("{message} (at {caller})"),
            }
        }
    }
}

/// Polls `check` for up to 10 s, every 20 ms, until it settles, and returns its value; fails
/// the test otherwise. [`Eventually`] sets other times.
#[track_caller]
pub fn eventually<'a, O, F, Fut>(what: &'a str, check: F) -> impl Future<Output = O::Value> + 'a
where
    O: Outcome + 'a,
    F: FnMut() -> Fut + 'a,
    Fut: Future<Output = O> + 'a,
{
    Eventually::default().until(what, check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn polls_until_settled_and_reports_the_last_answer_when_it_gives_up() {
        let polls = AtomicU32::new(0);
        let third = eventually("the third poll", || async {
            let n = polls.fetch_add(1, Ordering::SeqCst) + 1;
            (n >= 3).then_some(n)
        })
        .await;
        assert_eq!(third, 3);
        let quick = Eventually::default()
            .timeout(Duration::from_millis(50))
            .interval(Duration::from_millis(5));
        let failed = quick
            .try_until("never", || async { Err::<(), _>("still 404") })
            .await;
        assert_eq!(
            failed.unwrap_err(),
            "timed out after 50ms waiting until never: still 404"
        );
        quick.until("true at once", || async { true }).await;
    }
}
