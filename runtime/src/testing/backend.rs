//! One test body, every backend: the in-memory [`ApiServer`] always, and a real apiserver
//! when the environment names one.
//!
//! `#[kubegen::test]` turns an `async fn name(env: TestEnv)` into two tests, `name::in_memory`
//! and `name::on_apiserver`, which call [`run_in_memory`] and [`run_on_apiserver`]. The second
//! runs against
//! - the cluster `KUBEGEN_TEST_KUBECONFIG` points at (the registered CRDs are applied first), or
//! - an [`Envtest`](crate::testing::Envtest) started from `KUBEBUILDER_ASSETS` (feature `envtest`),
//!   one per test process, shared by its tests,
//!
//! and passes without doing anything (saying so on stderr) when neither is set, so the same
//! test suite runs on a machine without a cluster. Every test gets a fresh namespace.
//!
//! ```ignore
//! #[kubegen::test]
//! async fn create_and_get(env: TestEnv) {
//!     let widgets = env.client.widgets(&env.namespace);
//!     widgets.create(&Widget::new("a", spec())).await.unwrap();
//!     assert!(widgets.get_opt("a").await.unwrap().is_some());
//! }
//! ```

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, PostParams};

use super::ApiServer;

/// The variable naming a kubeconfig of an existing cluster to test against.
pub const KUBECONFIG_VARIABLE: &str = "KUBEGEN_TEST_KUBECONFIG";
/// The variable naming an envtest assets directory (kube-apiserver, etcd, kubectl).
pub const ASSETS_VARIABLE: &str = "KUBEBUILDER_ASSETS";

/// Which server a test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// kubegen's in-memory [`ApiServer`].
    InMemory,
    /// A kube-apiserver started by [`Envtest`](crate::testing::Envtest) from `KUBEBUILDER_ASSETS`.
    Envtest,
    /// The existing cluster `KUBEGEN_TEST_KUBECONFIG` names.
    Cluster,
}

impl Backend {
    /// The real apiserver the environment configures, if any: an existing cluster
    /// (`KUBEGEN_TEST_KUBECONFIG`) wins over envtest assets (`KUBEBUILDER_ASSETS`).
    pub fn real_from_env() -> Option<Backend> {
        let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
        if set(KUBECONFIG_VARIABLE) {
            Some(Backend::Cluster)
        } else if set(ASSETS_VARIABLE) {
            Some(Backend::Envtest)
        } else {
            None
        }
    }

    /// Whether this is a real apiserver.
    pub fn is_real(self) -> bool {
        self != Backend::InMemory
    }
}

/// Why a test environment could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TestEnvError {
    /// `KUBEGEN_TEST_KUBECONFIG` could not be read or used.
    #[error("{KUBECONFIG_VARIABLE}={path}: {message}")]
    Kubeconfig {
        /// The path the variable holds.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The registered CRDs could not be installed.
    #[error("installing the registered CRDs: {0}")]
    Install(String),
    /// The test namespace could not be created.
    #[error("creating namespace {namespace}: {source}")]
    Namespace {
        /// The namespace.
        namespace: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// Envtest could not start (or the `envtest` feature is off).
    #[error("{0}")]
    Envtest(String),
}

/// What a test body gets: a client, the in-memory server behind it (`None` on a real
/// apiserver), and a namespace of its own.
pub struct TestEnv {
    /// A client for this test's backend, created in the test's runtime.
    pub client: kube::Client,
    /// The in-memory server, for fault injection and server knobs; `None` on a real apiserver.
    pub server: Option<ApiServer>,
    /// A fresh namespace for this test, created on either backend.
    pub namespace: String,
    /// Which backend this is.
    pub backend: Backend,
}

static NAMESPACES: AtomicUsize = AtomicUsize::new(0);

/// A namespace name for `test`: a DNS label, unique in this process and across processes.
fn namespace_for(test: &str) -> String {
    let n = NAMESPACES.fetch_add(1, Ordering::Relaxed);
    let mut stem: String = test
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9') => c,
            _ => '-',
        })
        .collect();
    stem.truncate(40);
    let stem = stem.trim_matches('-');
    format!("{stem}-{}-{n}", std::process::id())
}

impl TestEnv {
    /// A fresh in-memory server serving every registered kind.
    pub fn in_memory(test: &str) -> TestEnv {
        let server = ApiServer::new();
        let namespace = namespace_for(test);
        // A namespace nothing deletes cannot already exist, nor be terminating.
        if let Err(e) = server.create_namespace(&namespace) {
            panic!("creating the test's namespace {namespace}: {}", e.message);
        }
        TestEnv {
            client: server.client(),
            server: Some(server),
            namespace,
            backend: Backend::InMemory,
        }
    }

    /// The real apiserver the environment configures, with a new namespace for `test`;
    /// `Ok(None)` when neither `KUBEGEN_TEST_KUBECONFIG` nor `KUBEBUILDER_ASSETS` is set.
    pub async fn real(test: &str) -> Result<Option<TestEnv>, TestEnvError> {
        let Some(backend) = Backend::real_from_env() else {
            return Ok(None);
        };
        let client = match backend {
            Backend::Cluster => cluster_client().await?,
            _ => envtest_client().await?,
        };
        let env = TestEnv {
            client,
            server: None,
            namespace: namespace_for(test),
            backend,
        };
        env.create_namespace(&env.namespace).await?;
        Ok(Some(env))
    }

    /// The in-memory server behind this environment, for fault injection and server knobs.
    ///
    /// # Panics
    /// On a real apiserver: a test that needs the in-memory server is marked
    /// `#[kubegen::test(in_memory)]` and never runs there.
    pub fn in_memory_server(&self) -> &ApiServer {
        self.server
            .as_ref()
            .expect("this test needs the in-memory server: mark it #[kubegen::test(in_memory)]")
    }

    /// Whether this test runs on a real apiserver.
    pub fn is_real(&self) -> bool {
        self.backend.is_real()
    }

    /// Makes sure `namespace` exists, on either backend.
    pub async fn create_namespace(&self, namespace: &str) -> Result<(), TestEnvError> {
        if let Some(server) = &self.server {
            return server
                .create_namespace(namespace)
                .map_err(|e| TestEnvError::Namespace {
                    namespace: namespace.to_owned(),
                    source: Box::new(kube::Error::Api(Box::new(
                        serde_json::from_value(e.to_status()).unwrap_or_default(),
                    ))),
                });
        }
        let api: Api<Namespace> = Api::all(self.client.clone());
        let mut body = Namespace::default();
        body.metadata.name = Some(namespace.to_owned());
        match api.create(&PostParams::default(), &body).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 409 => Ok(()),
            Err(e) => Err(TestEnvError::Namespace {
                namespace: namespace.to_owned(),
                source: Box::new(e),
            }),
        }
    }
}

/// A client for `KUBEGEN_TEST_KUBECONFIG`'s cluster; the registered CRDs are applied once per
/// process, before the first test uses it.
async fn cluster_client() -> Result<kube::Client, TestEnvError> {
    static INSTALLED: tokio::sync::OnceCell<Result<(), String>> =
        tokio::sync::OnceCell::const_new();
    let path = std::env::var(KUBECONFIG_VARIABLE).unwrap_or_default();
    let failed = |message: String| TestEnvError::Kubeconfig {
        path: path.clone(),
        message,
    };
    let kubeconfig =
        kube::config::Kubeconfig::read_from(&path).map_err(|e| failed(e.to_string()))?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .map_err(|e| failed(e.to_string()))?;
    let client = kube::Client::try_from(config).map_err(|e| failed(e.to_string()))?;
    INSTALLED
        .get_or_init(|| async {
            crate::crd::install(&client, "kubegen-test", Duration::from_secs(60))
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .await
        .clone()
        .map_err(TestEnvError::Install)?;
    Ok(client)
}

#[cfg(feature = "envtest")]
async fn envtest_client() -> Result<kube::Client, TestEnvError> {
    let envtest = crate::testing::Envtest::shared()
        .await
        .map_err(|e| TestEnvError::Envtest(e.to_string()))?;
    Ok(envtest.client())
}

#[cfg(not(feature = "envtest"))]
async fn envtest_client() -> Result<kube::Client, TestEnvError> {
    Err(TestEnvError::Envtest(format!(
        "{ASSETS_VARIABLE} is set, but kubegen was built without its `envtest` feature: \
         enable it (kubegen = {{ features = [\"envtest\"] }}) or point {KUBECONFIG_VARIABLE} \
         at a cluster instead"
    )))
}

/// Runs one test body on the in-memory server, in a runtime of its own. Used by
/// `#[kubegen::test]`.
pub fn run_in_memory<F, Fut>(test: &str, body: F)
where
    F: FnOnce(TestEnv) -> Fut,
    Fut: Future<Output = ()>,
{
    // The client must be made inside the runtime it will run on.
    test_runtime().block_on(async { body(TestEnv::in_memory(test)).await });
}

/// Runs one test body on the real apiserver the environment configures, in a runtime of its
/// own; when none is configured the test passes without running and says so on stderr. Used
/// by `#[kubegen::test]`.
pub fn run_on_apiserver<F, Fut>(test: &str, body: F)
where
    F: FnOnce(TestEnv) -> Fut,
    Fut: Future<Output = ()>,
{
    test_runtime().block_on(async {
        match TestEnv::real(test).await {
            Ok(Some(env)) => body(env).await,
            Ok(None) => eprintln!(
                "{test}: no real apiserver ({KUBECONFIG_VARIABLE} and {ASSETS_VARIABLE} unset): not run"
            ),
            Err(e) => panic!("{test}: {e}"),
        }
    });
}

/// A multi-threaded runtime, so a test's server-side tasks keep running while it blocks.
fn test_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        // Building a runtime fails only when the OS refuses threads; a test cannot go on.
        .expect("a Tokio runtime for the test")
}
