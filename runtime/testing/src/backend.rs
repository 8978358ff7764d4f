//! One test body, every backend: the in-memory [`ApiServer`] always, and a real apiserver
//! when the environment names one.
//!
//! `#[kubegen::test]` turns an `async fn name(env: TestEnv)` into two tests, `name::in_memory`
//! and `name::on_apiserver`, which call [`run_in_memory_with`] and [`run_on_apiserver_with`]
//! (or, without the attribute, [`run_in_memory`] and [`run_on_apiserver`]). The second
//! runs against
//! - the cluster `KUBEGEN_TEST_KUBECONFIG` points at (the registered CRDs are applied first), or
//! - an [`Envtest`](crate::Envtest) started from `KUBEBUILDER_ASSETS` (feature `envtest`),
//!   one per test process, shared by its tests,
//!
//! and passes without doing anything (saying so on stderr) when neither is set, so the same
//! test suite runs on a machine without a cluster. `#[kubegen::test(in_memory)]` makes only the
//! first, for tests that need the in-memory server's knobs.
//!
//! ```ignore
//! #[kubegen::test]
//! async fn create_and_get(env: TestEnv) {
//!     let widgets = env.client.widgets(&env.namespace);
//!     widgets.create(&Widget::new("a", spec())).await.unwrap();
//!     assert!(widgets.get_opt("a").await.unwrap().is_some());
//! }
//! ```
//!
//! # The namespace
//!
//! Every test gets a fresh namespace (`env.namespace`), with a `default` ServiceAccount in it on
//! either backend. In a cluster kube-controller-manager's ServiceAccount controller makes that
//! account in every namespace; Envtest runs no controller-manager, and its apiserver's
//! ServiceAccount admission refuses a Pod (403 Forbidden, `error looking up service account
//! <namespace>/default`) in a namespace without one. The harness makes it always rather than on
//! request, because every namespace of a real cluster has it and code under test may rely on
//! that. The in-memory server makes it too and runs the same admission: without the account a
//! Pod is refused there as well.
//!
//! # Setting up the server
//!
//! `#[kubegen::test(setup = path::to::function)]` (combinable with `in_memory`) names a
//! `fn(&mut TestSetup)` that describes the server the test needs; both tests call it (before
//! their runtime exists, so it is a plain `fn`) and apply what it describes before the body
//! runs, in this order:
//!
//! 1. [`TestSetup::kinds`]: serve only these kinds. In memory [`ApiServer::with_kinds`]. On
//!    Envtest the shared instance when they are exactly the registered kinds, otherwise an
//!    Envtest of the test's own started with exactly their CRDs (a few seconds; stopped when
//!    the test ends). On an existing cluster their CRDs are applied, but what else the cluster
//!    serves stays; a CRD differing from the registered one of the same name is not applied
//!    (it would change the kind under the cluster's other tests): the test is not run there,
//!    as when no apiserver is configured, and says why ([`TestEnvError::SharedCluster`]).
//! 2. The test's namespace, then each [`TestSetup::namespace`], each with its `default`
//!    ServiceAccount.
//! 3. [`TestSetup::object`] / [`TestSetup::objects`]: seed objects, created in order through the
//!    API (their resource found by discovery), a namespaced one without a namespace in the
//!    test's; a `status` is then written through the status subresource where there is one.
//! 4. [`TestSetup::in_memory`]: hooks on the in-memory server (knobs, faults, and in-process
//!    admission with `server.admission(webhooks)`), skipped on a real apiserver. They run last,
//!    so faults meet the body's requests and webhooks do not see the seeds. A real apiserver
//!    calls admission webhooks only at an endpoint it can reach, so a test whose assertions
//!    depend on in-process webhooks is `#[kubegen::test(in_memory, setup = f)]` unless it
//!    deploys them.
//!
//! A setup that cannot be applied (an object that does not serialize or names no kind, a seed
//! the server refuses) fails the test with a [`TestEnvError`] naming the step.
//!
//! Conversions need no setup: the in-memory server runs a kind's registered conversions, while
//! the CRDs the harness installs on a real apiserver use the `None` strategy (no conversion
//! webhook is served there), so a test of conversions themselves is `in_memory`.
//!
//! ```ignore
//! fn seeded(setup: &mut TestSetup) {
//!     let other = format!("{}-other", setup.test_namespace());
//!     setup
//!         .kinds(&[&[Widget::INFO]])
//!         .namespace(&other)
//!         .object(Widget::new("a", spec()))
//!         .object(json!({"apiVersion": "v1", "kind": "ConfigMap",
//!                        "metadata": {"name": "settings", "namespace": other}}))
//!         .in_memory(|server| server.set_watch_window(10));
//! }
//!
//! #[kubegen::test(setup = seeded)]
//! async fn reads_the_seeds(env: TestEnv) { ... }
//! ```

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};

use super::ApiServer;

mod setup;
pub(crate) mod token;

pub use self::setup::TestSetup;

/// The variable naming a kubeconfig of an existing cluster to test against.
pub const KUBECONFIG_VARIABLE: &str = "KUBEGEN_TEST_KUBECONFIG";
/// The variable naming an envtest assets directory (kube-apiserver, etcd, kubectl).
pub const ASSETS_VARIABLE: &str = "KUBEBUILDER_ASSETS";
/// The field manager that applies CRDs to an existing cluster.
const FIELD_MANAGER: &str = "kubegen-test";
/// How long a real cluster's objects must stay unchanged for [`TestEnv::settle`].
const SETTLE_QUIET: Duration = Duration::from_secs(2);
/// The longest [`TestEnv::settle`] waits on a real cluster.
const SETTLE_PATIENCE: Duration = Duration::from_secs(60);
/// What [`TestEnv::settle`] watches on a real cluster: group, version, resource.
const SETTLE_WATCHED: [(&str, &str, &str); 12] = [
    ("", "v1", "pods"),
    ("", "v1", "configmaps"),
    ("", "v1", "secrets"),
    ("", "v1", "serviceaccounts"),
    ("", "v1", "persistentvolumeclaims"),
    ("", "v1", "events"),
    ("apps", "v1", "deployments"),
    ("apps", "v1", "replicasets"),
    ("apps", "v1", "statefulsets"),
    ("apps", "v1", "daemonsets"),
    ("batch", "v1", "jobs"),
    ("batch", "v1", "cronjobs"),
];
/// How long CRDs applied to an existing cluster may take to be Established.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Which server a test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// kubegen's in-memory [`ApiServer`].
    InMemory,
    /// A kube-apiserver started by [`Envtest`](crate::Envtest) from `KUBEBUILDER_ASSETS`.
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
    /// The test's setup function described something that cannot be made: an object that does
    /// not serialize or has no `apiVersion` and `kind`, kinds whose CRD cannot be built.
    #[error("the test's setup: {0}")]
    Setup(String),
    /// A seed object was refused.
    #[error("creating {object}: {source}")]
    Seed {
        /// Which object: its place among the seeds, kind and name.
        object: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// A namespace's `default` ServiceAccount could not be created.
    #[error("creating the default ServiceAccount of namespace {namespace}: {source}")]
    ServiceAccount {
        /// The namespace.
        namespace: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// A ServiceAccount or its token could not be created.
    #[error("creating a token for ServiceAccount {service_account}: {reason}")]
    Token {
        /// `namespace/name`.
        service_account: String,
        /// kube's error, or that the answer held no token.
        reason: String,
    },
    /// The setup's kinds would change a CRD of a cluster other tests share.
    /// `#[kubegen::test]` does not run such a test there, and says so on stderr.
    #[error(
        "the setup's kinds need CRD {crd} other than the registered one, and \
         {KUBECONFIG_VARIABLE} names a cluster other tests share: run this test on an envtest \
         ({ASSETS_VARIABLE}, where it gets an apiserver of its own)"
    )]
    SharedCluster {
        /// The CRD's name.
        crd: String,
    },
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
    /// The test's kubelets on a real cluster, stopped with the environment.
    kubelets: Vec<crate::kubelet::KubeletTask>,
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
    /// A fresh in-memory server serving every registered kind, with a new namespace for
    /// `test` (the namespace alone: `#[kubegen::test]` adds its ServiceAccount and the setup).
    pub fn in_memory(test: &str) -> TestEnv {
        TestEnv::in_memory_with(ApiServer::new(), namespace_for(test))
    }

    /// `server`, with `namespace` created in it.
    fn in_memory_with(server: ApiServer, namespace: String) -> TestEnv {
        // A namespace nothing deletes cannot already exist, nor be terminating.
        if let Err(e) = server.create_namespace(&namespace) {
            panic!("creating the test's namespace {namespace}: {}", e.message);
        }
        TestEnv {
            client: server.client(),
            server: Some(server),
            namespace,
            backend: Backend::InMemory,
            kubelets: Vec::new(),
        }
    }

    /// The real apiserver the environment configures, with a new namespace for `test` (the
    /// namespace alone, as [`TestEnv::in_memory`]); `Ok(None)` when neither
    /// `KUBEGEN_TEST_KUBECONFIG` nor `KUBEBUILDER_ASSETS` is set.
    pub async fn real(test: &str) -> Result<Option<TestEnv>, TestEnvError> {
        let Some(backend) = Backend::real_from_env() else {
            return Ok(None);
        };
        let client = match backend {
            Backend::Cluster => cluster_client().await?,
            _ => envtest_client().await?,
        };
        TestEnv::real_with(client, backend, namespace_for(test))
            .await
            .map(Some)
    }

    /// The real cluster with kube-controller-manager the environment configures, with a new
    /// namespace for `test`: the cluster `KUBEGEN_TEST_KUBECONFIG` names (which must run
    /// one), or an Envtest started from `KUBEBUILDER_ASSETS` with its controller-manager
    /// (shared by the process's tests that ask for one). `Ok(None)` when neither is set.
    pub async fn real_with_controllers(test: &str) -> Result<Option<TestEnv>, TestEnvError> {
        let Some(backend) = Backend::real_from_env() else {
            return Ok(None);
        };
        let client = match backend {
            Backend::Cluster => cluster_client().await?,
            _ => match envtest_with_controllers_client().await? {
                Some(client) => client,
                None => return Ok(None),
            },
        };
        TestEnv::real_with(client, backend, namespace_for(test))
            .await
            .map(Some)
    }

    /// The real apiserver `setup` describes, with its namespace; `Ok(None)` when the
    /// environment names none. What keeps a private envtest running comes with it.
    async fn real_for(setup: &TestSetup) -> Result<Option<(TestEnv, KeepAlive)>, TestEnvError> {
        let Some(backend) = Backend::real_from_env() else {
            return Ok(None);
        };
        let crds = setup.crds()?;
        let controllers = setup.wanted_controllers().is_some();
        let (client, keep) = match (backend, crds) {
            (Backend::Cluster, crds) => {
                let client = cluster_client().await?;
                if let Some(crds) = crds {
                    setup::install_on_cluster(&client, &crds).await?;
                }
                (client, None)
            }
            (_, None) if controllers => match envtest_with_controllers_client().await? {
                Some(client) => (client, None),
                None => return Ok(None),
            },
            (_, None) => (envtest_client().await?, None),
            (_, Some(crds)) => private_envtest(crds, controllers).await?,
        };
        let namespace = setup.test_namespace().to_owned();
        let env = TestEnv::real_with(client, backend, namespace).await?;
        Ok(Some((env, keep)))
    }

    async fn real_with(
        client: kube::Client,
        backend: Backend,
        namespace: String,
    ) -> Result<TestEnv, TestEnvError> {
        let env = TestEnv {
            client,
            server: None,
            namespace,
            backend,
            kubelets: Vec::new(),
        };
        env.create_namespace(&env.namespace).await?;
        Ok(env)
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

    /// Waits until the cluster has done what the test's requests call for: in memory until
    /// the controllers settle ([`ApiServer::settle`]); on a real cluster until the objects
    /// of the test's namespace (the workload kinds, Pods, ConfigMaps, Secrets, service
    /// accounts, claims and Events) have not changed for two seconds, at most a minute —
    /// kube-controller-manager cannot say when it is done.
    pub async fn settle(&self) {
        if let Some(server) = &self.server {
            return server.settle().await;
        }
        let started = std::time::Instant::now();
        let mut last = self.resource_versions().await;
        let mut since = std::time::Instant::now();
        while since.elapsed() < SETTLE_QUIET && started.elapsed() < SETTLE_PATIENCE {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let now = self.resource_versions().await;
            if now != last {
                since = std::time::Instant::now();
                last = now;
            }
        }
    }

    /// The resourceVersions of what [`settle`](TestEnv::settle) watches on a real cluster.
    async fn resource_versions(&self) -> Vec<String> {
        let mut versions = Vec::new();
        for (group, version, plural) in SETTLE_WATCHED {
            let root = match group {
                "" => format!("/api/{version}"),
                g => format!("/apis/{g}/{version}"),
            };
            let path = format!("{root}/namespaces/{}/{plural}", self.namespace);
            let request = http::Request::get(path)
                .body(Vec::new())
                .unwrap_or_default();
            if let Ok(list) = self.client.request::<serde_json::Value>(request).await {
                for item in list["items"].as_array().into_iter().flatten() {
                    let meta = &item["metadata"];
                    versions.push(format!(
                        "{plural}/{}@{}",
                        meta["name"], meta["resourceVersion"]
                    ));
                }
            }
        }
        versions
    }

    /// Makes Pod `name` in the test's namespace meet `fate`, as a kubelet would report it
    /// (see [`Kubelet`](crate::Kubelet)), stamped with the in-memory server's clock
    /// or the wall clock.
    pub async fn set_pod(
        &self,
        name: &str,
        fate: crate::PodFate,
    ) -> Result<k8s_openapi::api::core::v1::Pod, kube::Error> {
        let now = match &self.server {
            Some(server) => server.clock().rfc3339(),
            None => k8s_openapi::jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
        };
        crate::Kubelet::new()
            .set_at(&self.client, &self.namespace, name, fate, &now)
            .await
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
        create_if_missing(&api, &body)
            .await
            .map_err(|e| TestEnvError::Namespace {
                namespace: namespace.to_owned(),
                source: Box::new(e),
            })
    }
}

/// Creates `object`; one that exists already (409) is fine.
pub(crate) async fn create_if_missing<K>(api: &Api<K>, object: &K) -> Result<(), kube::Error>
where
    K: kube::Resource + Clone + serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match api.create(&PostParams::default(), object).await {
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        other => other.map(|_| ()),
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
            kubegen_runtime::crd::install(&client, FIELD_MANAGER, INSTALL_TIMEOUT)
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
    let envtest = crate::Envtest::shared()
        .await
        .map_err(|e| TestEnvError::Envtest(e.to_string()))?;
    Ok(envtest.client())
}

#[cfg(not(feature = "envtest"))]
async fn envtest_client() -> Result<kube::Client, TestEnvError> {
    Err(no_envtest())
}

#[cfg(feature = "envtest")]
async fn envtest_with_controllers_client() -> Result<Option<kube::Client>, TestEnvError> {
    let envtest = crate::Envtest::shared_with_controllers()
        .await
        .map_err(|e| TestEnvError::Envtest(e.to_string()))?;
    Ok(Some(envtest.client()))
}

#[cfg(not(feature = "envtest"))]
async fn envtest_with_controllers_client() -> Result<Option<kube::Client>, TestEnvError> {
    Err(no_envtest())
}

/// What keeps a test's private envtest running until the test ends.
type KeepAlive = Option<Box<dyn std::any::Any>>;

/// An envtest of the test's own, serving exactly `crds`.
#[cfg(feature = "envtest")]
async fn private_envtest(
    crds: Vec<CustomResourceDefinition>,
    controllers: bool,
) -> Result<(kube::Client, KeepAlive), TestEnvError> {
    let envtest = crate::Envtest::builder()
        .crds(crds)
        .controller_manager(controllers)
        .start()
        .await
        .map_err(|e| TestEnvError::Envtest(e.to_string()))?;
    Ok((envtest.client(), Some(Box::new(envtest))))
}

#[cfg(not(feature = "envtest"))]
async fn private_envtest(
    _: Vec<CustomResourceDefinition>,
    _: bool,
) -> Result<(kube::Client, KeepAlive), TestEnvError> {
    Err(no_envtest())
}

#[cfg(not(feature = "envtest"))]
fn no_envtest() -> TestEnvError {
    TestEnvError::Envtest(format!(
        "{ASSETS_VARIABLE} is set, but kubegen was built without its `envtest` feature: \
         enable it (kubegen = {{ features = [\"envtest\"] }}) or point {KUBECONFIG_VARIABLE} \
         at a cluster instead"
    ))
}

/// Runs the test's setup function on a new setup for `test`; the namespace is chosen first,
/// so the function can name things after it.
fn describe(test: &str, setup: fn(&mut TestSetup)) -> TestSetup {
    let mut described = TestSetup::new(namespace_for(test));
    setup(&mut described);
    described
}

/// Runs one test body on a fresh in-memory server serving every registered kind, in a
/// runtime of its own: [`run_in_memory_with`] without a setup.
pub fn run_in_memory<F, Fut>(test: &str, body: F)
where
    F: FnOnce(TestEnv) -> Fut,
    Fut: Future<Output = ()>,
{
    run_in_memory_with(test, |_| {}, body);
}

/// Runs one test body on the in-memory server `setup` describes, in a runtime of its own.
/// Used by `#[kubegen::test]`.
pub fn run_in_memory_with<F, Fut>(test: &str, setup: fn(&mut TestSetup), body: F)
where
    F: FnOnce(TestEnv) -> Fut,
    Fut: Future<Output = ()>,
{
    let setup = describe(test, setup);
    // The client must be made inside the runtime it will run on.
    test_runtime().block_on(async {
        let prepared = async {
            setup.check()?;
            let mut env =
                TestEnv::in_memory_with(setup.server(), setup.test_namespace().to_owned());
            setup.prepare(&mut env).await?;
            Ok::<_, TestEnvError>(env)
        };
        match prepared.await {
            Ok(env) => body(env).await,
            Err(e) => panic!("{test}: {e}"),
        }
    });
}

/// Runs one test body on the real apiserver the environment configures, in a runtime of its
/// own: [`run_on_apiserver_with`] without a setup.
pub fn run_on_apiserver<F, Fut>(test: &str, body: F)
where
    F: FnOnce(TestEnv) -> Fut,
    Fut: Future<Output = ()>,
{
    run_on_apiserver_with(test, |_| {}, body);
}

/// Runs one test body on the real apiserver the environment configures, set up as `setup`
/// describes, in a runtime of its own; when none is configured the test passes without
/// running and says so on stderr. Used by `#[kubegen::test]`.
pub fn run_on_apiserver_with<F, Fut>(test: &str, setup: fn(&mut TestSetup), body: F)
where
    F: FnOnce(TestEnv) -> Fut,
    Fut: Future<Output = ()>,
{
    let setup = describe(test, setup);
    test_runtime().block_on(async {
        let prepared = async {
            setup.check()?;
            let Some((mut env, keep)) = TestEnv::real_for(&setup).await? else {
                return Ok(None);
            };
            setup.prepare(&mut env).await?;
            Ok::<_, TestEnvError>(Some((env, keep)))
        };
        match prepared.await {
            // A private envtest lives until the body is done with it.
            Ok(Some((env, _keep))) => body(env).await,
            Ok(None) => eprintln!(
                "{test}: no real apiserver ({KUBECONFIG_VARIABLE} and {ASSETS_VARIABLE} unset): not run"
            ),
            // Like a missing apiserver: the environment cannot give this test its server.
            Err(e @ TestEnvError::SharedCluster { .. }) => eprintln!("{test}: not run: {e}"),
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
