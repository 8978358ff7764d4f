//! [`TestSetup`]: the server a `#[kubegen::test(setup = path)]` test needs, described once and
//! applied on every backend.
//!
//! The setup function runs before the test's runtime exists (it is a plain `fn`), so it only
//! records: which kinds, which namespaces, which objects, which in-memory hooks. The harness
//! then builds the server from it ([`TestSetup::server`], [`TestSetup::crds`]) and, once the
//! test's namespace exists, fills it in ([`TestSetup::prepare`]).

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use kube::discovery::Scope;
use serde::Serialize;
use serde_json::{Value, json};

use super::{FIELD_MANAGER, INSTALL_TIMEOUT, TestEnv, TestEnvError, create_if_missing};
use crate::ApiServer;
use kubegen_runtime::resource::ResourceInfo;

/// The name of the ServiceAccount the harness creates in each namespace it makes.
const DEFAULT_SERVICE_ACCOUNT: &str = "default";

/// A hook on the in-memory server.
type Hook = Box<dyn FnOnce(&ApiServer)>;

/// What a test needs of its server, applied on every backend: the kinds served, namespaces
/// beside the test's own, objects that exist before the body runs, and hooks for the in-memory
/// server. A `#[kubegen::test(setup = f)]` test's `fn f(setup: &mut TestSetup)` fills it in.
///
/// ```ignore
/// fn two_widgets(setup: &mut TestSetup) {
///     let other = format!("{}-other", setup.test_namespace());
///     setup
///         .kinds(&[&[Widget::INFO]])
///         .namespace(&other)
///         .object(Widget::new("a", spec()))                  // into the test's namespace
///         .object(json!({"apiVersion": "v1", "kind": "ConfigMap",
///                        "metadata": {"name": "c", "namespace": other}}))
///         .in_memory(|server| server.faults().fail_next(1, 503));
/// }
///
/// #[kubegen::test(setup = two_widgets)]
/// async fn lists_the_seeded_widgets(env: TestEnv) { ... }
/// ```
pub struct TestSetup {
    /// The test's own namespace, chosen before the setup function runs.
    namespace: String,
    kinds: Option<Vec<Vec<&'static ResourceInfo>>>,
    namespaces: Vec<String>,
    objects: Vec<Value>,
    hooks: Vec<Hook>,
    /// The controllers (and kubelet) the test asks for.
    controllers: Option<crate::Controllers>,
    /// Objects that could not be serialized, reported before the server is touched.
    errors: Vec<String>,
}

impl TestSetup {
    /// An empty setup for a test whose namespace is `namespace`.
    pub(super) fn new(namespace: String) -> TestSetup {
        TestSetup {
            namespace,
            controllers: None,
            kinds: None,
            namespaces: Vec::new(),
            objects: Vec::new(),
            hooks: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The name of the test's own namespace (`env.namespace` in the body), for naming further
    /// namespaces after it or placing objects there explicitly. On a shared apiserver, names
    /// derived from it keep tests apart.
    pub fn test_namespace(&self) -> &str {
        &self.namespace
    }

    /// Serves only these kinds (each slice: the versions of one kind, e.g.
    /// `&[&[Widget::INFO]]`) instead of every registered one; calls add up. Built-in kinds are
    /// always served.
    ///
    /// - In memory: [`ApiServer::with_kinds`].
    /// - On an envtest (`KUBEBUILDER_ASSETS`): when these kinds' CRDs are exactly the registered
    ///   ones the shared envtest serves the test; otherwise the test gets an envtest of its own
    ///   with exactly these CRDs (a few seconds to start, stopped when the test ends).
    /// - On an existing cluster (`KUBEGEN_TEST_KUBECONFIG`): these CRDs are installed, but the
    ///   cluster keeps serving what else it has. A CRD that differs from the registered one of
    ///   the same name (fewer versions, say) is not applied, since it would change the kind
    ///   under every other test using that cluster: the test is not run there and says why
    ///   on stderr.
    pub fn kinds(&mut self, kinds: &[&[&'static ResourceInfo]]) -> &mut Self {
        self.kinds
            .get_or_insert_with(Vec::new)
            .extend(kinds.iter().map(|versions| versions.to_vec()));
        self
    }

    /// Creates namespace `name` too (with a `default` ServiceAccount, as the test's own), on
    /// either backend; one that already exists is used as it is.
    pub fn namespace(&mut self, name: impl Into<String>) -> &mut Self {
        self.namespaces.push(name.into());
        self
    }

    /// Creates `object` before the body runs: a manifest (`serde_json::json!`) or any typed
    /// object that serializes with its `apiVersion` and `kind`. A namespaced object without
    /// `metadata.namespace` goes into the test's namespace. Objects are created in the order
    /// given, after the namespaces, through the API as a client would create them; a `status`
    /// is then written through the status subresource where the kind has one.
    pub fn object(&mut self, object: impl Serialize) -> &mut Self {
        match serde_json::to_value(object) {
            Ok(value) => self.objects.push(value),
            Err(e) => self.errors.push(format!(
                "seed object {} does not serialize: {e}",
                self.objects.len() + self.errors.len()
            )),
        }
        self
    }

    /// [`object`](TestSetup::object) for each of `objects`, in order.
    pub fn objects<T: Serialize>(&mut self, objects: impl IntoIterator<Item = T>) -> &mut Self {
        for object in objects {
            self.object(object);
        }
        self
    }

    /// Asks for a cluster with kube-controller-manager's controllers (and, with
    /// [`Controllers::kubelet`](crate::Controllers::kubelet), a kubelet for the
    /// test's Pods), on every backend: in memory [`ApiServer::start_controllers`] before the
    /// namespaces are made; on Envtest the process's instance that runs
    /// kube-controller-manager ([`Envtest::shared_with_controllers`](crate::Envtest),
    /// or a private one with it when the setup names kinds); an existing cluster is taken to
    /// run its own. The kubelet runs on a real cluster as a client of it, for the test's
    /// namespaces only, until the test ends. `#[kubegen::test(controllers)]` asks for all of
    /// them and a default [`Kubelet`](crate::Kubelet).
    pub fn controllers(&mut self, controllers: crate::Controllers) -> &mut Self {
        self.controllers = Some(controllers);
        self
    }

    /// The controllers the setup asks for.
    pub(super) fn wanted_controllers(&self) -> Option<&crate::Controllers> {
        self.controllers.as_ref()
    }

    /// Runs `hook` on the in-memory server after the seed objects are created, just before the
    /// body: server knobs, faults for the body's first requests, and in-process admission
    /// webhooks (`server.admission(webhooks)`, feature `webhook`). It does not run on a real
    /// apiserver, which calls webhooks only at an endpoint it can reach: a test whose
    /// assertions depend on its webhooks is `#[kubegen::test(in_memory, setup = f)]` unless it
    /// deploys them. Hooks run in the order given.
    pub fn in_memory(&mut self, hook: impl FnOnce(&ApiServer) + 'static) -> &mut Self {
        self.hooks.push(Box::new(hook));
        self
    }

    /// Fails on what the setup function got wrong before anything is created.
    pub(super) fn check(&self) -> Result<(), TestEnvError> {
        match self.errors.first() {
            Some(e) => Err(TestEnvError::Setup(e.clone())),
            None => Ok(()),
        }
    }

    /// The in-memory server: the setup's kinds, or every registered kind.
    pub(super) fn server(&self) -> ApiServer {
        match &self.kinds {
            Some(kinds) => {
                let kinds: Vec<&[&'static ResourceInfo]> =
                    kinds.iter().map(Vec::as_slice).collect();
                ApiServer::with_kinds(&kinds)
            }
            None => ApiServer::new(),
        }
    }

    /// The CRDs a real apiserver must serve for this test, ordered by name, when they are not
    /// the registered ones (`None`: the shared server as it is).
    pub(super) fn crds(&self) -> Result<Option<Vec<CustomResourceDefinition>>, TestEnvError> {
        let Some(kinds) = &self.kinds else {
            return Ok(None);
        };
        let mut crds = kinds
            .iter()
            .map(|versions| kubegen_runtime::crd::build(versions))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| TestEnvError::Setup(format!("the setup's kinds: {e}")))?;
        crds.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        let registered =
            kubegen_runtime::registry::crds().map_err(|e| TestEnvError::Install(e.to_string()))?;
        if same(&crds, &registered) {
            return Ok(None);
        }
        Ok(Some(crds))
    }

    /// Fills in `env`: the further namespaces, a `default` ServiceAccount in each namespace
    /// the harness made, the seed objects in order, then (in memory) the hooks.
    pub(super) async fn prepare(self, env: &mut TestEnv) -> Result<(), TestEnvError> {
        if let (Some(server), Some(controllers)) = (&env.server, &self.controllers) {
            server.start_controllers(controllers.clone());
        }
        for namespace in &self.namespaces {
            env.create_namespace(namespace).await?;
        }
        for namespace in std::iter::once(&env.namespace).chain(&self.namespaces) {
            create_default_service_account(env, namespace).await?;
        }
        // A kubelet on a real cluster, for the test's namespaces.
        if env.server.is_none()
            && let Some(kubelet) = self.controllers.as_ref().and_then(|c| c.kubelet_of())
        {
            for namespace in std::iter::once(&env.namespace).chain(&self.namespaces) {
                let task = kubelet.run(env.client.clone(), Some(namespace));
                env.kubelets.push(task);
            }
        }
        for (index, object) in self.objects.into_iter().enumerate() {
            create_seed(env, index, object).await?;
        }
        if let Some(server) = &env.server {
            for hook in self.hooks {
                hook(server);
            }
        }
        Ok(())
    }
}

/// Whether two CRD lists say the same.
fn same(a: &[CustomResourceDefinition], b: &[CustomResourceDefinition]) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

/// On an existing cluster: installs `crds`, refusing any that would change a registered CRD
/// other tests there rely on.
pub(super) async fn install_on_cluster(
    client: &kube::Client,
    crds: &[CustomResourceDefinition],
) -> Result<(), TestEnvError> {
    let registered =
        kubegen_runtime::registry::crds().map_err(|e| TestEnvError::Install(e.to_string()))?;
    for crd in crds {
        let name = crd.metadata.name.as_deref().unwrap_or_default();
        let differs = registered
            .iter()
            .find(|r| r.metadata.name == crd.metadata.name)
            .is_some_and(|r| !same(std::slice::from_ref(r), std::slice::from_ref(crd)));
        if differs {
            return Err(TestEnvError::SharedCluster {
                crd: name.to_owned(),
            });
        }
    }
    kubegen_runtime::crd::install_crds(client, crds, FIELD_MANAGER, INSTALL_TIMEOUT)
        .await
        .map(drop)
        .map_err(|e| TestEnvError::Install(e.to_string()))
}

/// Creates the `default` ServiceAccount of `namespace`, as kube-controller-manager's
/// ServiceAccount controller does in a cluster; one already there (a cluster running that
/// controller) is kept.
async fn create_default_service_account(
    env: &TestEnv,
    namespace: &str,
) -> Result<(), TestEnvError> {
    let api: Api<ServiceAccount> = Api::namespaced(env.client.clone(), namespace);
    let mut account = ServiceAccount::default();
    account.metadata.name = Some(DEFAULT_SERVICE_ACCOUNT.to_owned());
    create_if_missing(&api, &account)
        .await
        .map_err(|e| TestEnvError::ServiceAccount {
            namespace: namespace.to_owned(),
            source: Box::new(e),
        })
}

/// Creates seed object number `index`, finding its resource through discovery, then writes its
/// `status` where the kind has a status subresource.
async fn create_seed(env: &TestEnv, index: usize, object: Value) -> Result<(), TestEnvError> {
    let label = seed_label(index, &object);
    let setup_error = |what: String| TestEnvError::Setup(format!("{label}: {what}"));
    let seed_error = |source: kube::Error| TestEnvError::Seed {
        object: label.clone(),
        source: Box::new(source),
    };
    let status = object.get("status").filter(|s| !s.is_null()).cloned();
    let mut object: DynamicObject =
        serde_json::from_value(object).map_err(|e| setup_error(e.to_string()))?;
    let types = object
        .types
        .as_ref()
        .filter(|t| !t.api_version.is_empty() && !t.kind.is_empty())
        .ok_or_else(|| setup_error("an object needs its apiVersion and kind".into()))?;
    let gvk = GroupVersionKind::try_from(types).map_err(|e| setup_error(e.to_string()))?;
    let (resource, capabilities) = kube::discovery::pinned_kind(&env.client, &gvk)
        .await
        .map_err(seed_error)?;
    let api: Api<DynamicObject> = match capabilities.scope {
        Scope::Namespaced => {
            let namespace = object
                .metadata
                .namespace
                .get_or_insert_with(|| env.namespace.clone());
            Api::namespaced_with(env.client.clone(), namespace, &resource)
        }
        Scope::Cluster => Api::all_with(env.client.clone(), &resource),
    };
    let created = api
        .create(&PostParams::default(), &object)
        .await
        .map_err(seed_error)?;
    let has_status = capabilities
        .subresources
        .iter()
        .any(|(sub, _)| sub.plural == "status");
    if let (Some(status), true) = (status, has_status) {
        let name = created.metadata.name.unwrap_or_default();
        api.patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "status": status })),
        )
        .await
        .map_err(seed_error)?;
    }
    Ok(())
}

/// How errors name a seed object: its place in the list, kind and name.
fn seed_label(index: usize, object: &Value) -> String {
    let field = |pointer: &str| object.pointer(pointer).and_then(Value::as_str);
    let name = field("/metadata/name")
        .map(str::to_owned)
        .or_else(|| field("/metadata/generateName").map(|g| format!("{g}*")))
        .unwrap_or_default();
    match field("/kind") {
        Some(kind) => format!("seed object {index} ({kind} {name:?})"),
        None => format!("seed object {index}"),
    }
}
