//! `SharedInformerFactory`: one informer per kind, shared by every caller.

use super::*;

trait AnyInformer: Send + Sync {
    fn start(&self, stop: watch::Receiver<bool>);
    fn has_synced(&self) -> bool;
    fn not_served(&self) -> Option<NotServed>;
    fn as_any(&self) -> &dyn Any;
    fn stop(&self);
}

impl<K: InformerKind> AnyInformer for SharedIndexInformer<K> {
    fn start(&self, stop: watch::Receiver<bool>) {
        SharedIndexInformer::start(self, stop)
    }
    fn has_synced(&self) -> bool {
        SharedIndexInformer::has_synced(self)
    }
    fn not_served(&self) -> Option<NotServed> {
        SharedIndexInformer::not_served(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn stop(&self) {
        SharedIndexInformer::stop(self)
    }
}

/// One kind's cache options, overriding the factory's for that kind (controller-runtime's
/// `cache.Options.ByObject`): [`SharedInformerFactory::for_kind`]. What is left unset
/// follows the factory.
#[derive(Clone, Debug, Default)]
pub struct KindCache {
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
    resync: Option<Duration>,
    strip_managed_fields: Option<bool>,
    keep_managers: Option<Vec<String>>,
    pack_objects: Option<bool>,
}

impl KindCache {
    /// Everything as the factory has it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only this namespace (ignored for cluster-scoped kinds).
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = Some(namespace.to_owned());
        self
    }

    /// Only objects matching this label selector, instead of the factory's.
    pub fn label_selector(mut self, selector: &str) -> Self {
        self.labels = Some(selector.to_owned());
        self
    }

    /// Only objects matching this field selector, instead of the factory's.
    pub fn field_selector(mut self, selector: &str) -> Self {
        self.fields = Some(selector.to_owned());
        self
    }

    /// This resync period instead of the factory's.
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = Some(period);
        self
    }

    /// Whether managedFields are left out ([`SharedIndexInformer::strip_managed_fields`]).
    pub fn strip_managed_fields(mut self, strip: bool) -> Self {
        self.strip_managed_fields = Some(strip);
        self
    }

    /// Only these managers' managedFields entries are cached
    /// ([`SharedIndexInformer::keep_managed_fields_of`]).
    pub fn keep_managed_fields_of<S: AsRef<str>>(mut self, managers: &[S]) -> Self {
        self.keep_managers = Some(managers.iter().map(|m| m.as_ref().to_owned()).collect());
        self
    }

    /// Whether objects are kept packed ([`SharedIndexInformer::pack_objects`]).
    pub fn pack_objects(mut self, pack: bool) -> Self {
        self.pack_objects = Some(pack);
        self
    }

    /// These options, with what they leave unset taken from `defaults`.
    fn over(&self, defaults: &KindCache) -> KindCache {
        KindCache {
            namespace: self
                .namespace
                .clone()
                .or_else(|| defaults.namespace.clone()),
            labels: self.labels.clone().or_else(|| defaults.labels.clone()),
            fields: self.fields.clone().or_else(|| defaults.fields.clone()),
            resync: self.resync.or(defaults.resync),
            strip_managed_fields: self.strip_managed_fields.or(defaults.strip_managed_fields),
            keep_managers: self
                .keep_managers
                .clone()
                .or_else(|| defaults.keep_managers.clone()),
            pack_objects: self.pack_objects.or(defaults.pack_objects),
        }
    }
}

/// Why [`SharedInformerFactory::wait_for_sync`] gave up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    /// A kind's first list was answered 404.
    #[error(transparent)]
    NotServed(#[from] NotServed),
    /// Not every informer synced in time.
    #[error("the caches did not sync within {0:?}")]
    Timeout(Duration),
}

/// Builds an `Api` for a kind: namespaced kinds honour the factory's namespace.
pub type ApiMaker<K> = fn(kube::Client, Option<&str>) -> Api<K>;

/// `ApiMaker` for namespaced kinds.
pub fn namespaced_api<K>(client: kube::Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
{
    match namespace {
        Some(ns) => Api::namespaced(client, ns),
        None => Api::all(client),
    }
}

/// `ApiMaker` for cluster-scoped kinds.
pub fn cluster_api<K: Resource<DynamicType = ()>>(client: kube::Client, _: Option<&str>) -> Api<K> {
    Api::all(client)
}

/// How a kind's scope builds its `Api`: namespaced kinds honour the factory's namespace,
/// cluster-scoped ones ignore it. Lets code generic over a kind ask for its informer
/// ([`SharedInformerFactory::informer`]).
pub trait KindScope {
    /// Whether objects of this scope live in a namespace.
    const NAMESPACED: bool;

    /// The `Api` an informer of `K` lists and watches.
    fn api<K: Resource<DynamicType = (), Scope = Self>>(
        client: kube::Client,
        namespace: Option<&str>,
    ) -> Api<K>;
}

impl KindScope for k8s_openapi::NamespaceResourceScope {
    const NAMESPACED: bool = true;

    fn api<K: Resource<DynamicType = (), Scope = Self>>(
        client: kube::Client,
        namespace: Option<&str>,
    ) -> Api<K> {
        namespaced_api(client, namespace)
    }
}

impl KindScope for k8s_openapi::ClusterResourceScope {
    const NAMESPACED: bool = false;

    fn api<K: Resource<DynamicType = (), Scope = Self>>(
        client: kube::Client,
        namespace: Option<&str>,
    ) -> Api<K> {
        cluster_api(client, namespace)
    }
}

/// One informer per kind, shared by every caller (client-go's `SharedInformerFactory`).
/// The derive adds an accessor per kind: `factory.cron_jobs()`.
pub struct SharedInformerFactory {
    client: kube::Client,
    /// The options of every kind without its own.
    defaults: KindCache,
    by_kind: HashMap<TypeId, KindCache>,
    informers: Mutex<HashMap<TypeId, Arc<dyn AnyInformer>>>,
    stop: watch::Sender<bool>,
}

impl SharedInformerFactory {
    /// A factory watching all namespaces.
    pub fn new(client: kube::Client) -> Self {
        let (stop, _) = watch::channel(false);
        SharedInformerFactory {
            client,
            defaults: KindCache::default(),
            by_kind: HashMap::new(),
            informers: Mutex::default(),
            stop,
        }
    }

    /// Restricts namespaced kinds to one namespace.
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).namespace(namespace);
        self
    }

    /// Only objects matching this label selector.
    pub fn label_selector(mut self, selector: &str) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).label_selector(selector);
        self
    }

    /// Only objects matching this field selector.
    pub fn field_selector(mut self, selector: &str) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).field_selector(selector);
        self
    }

    /// Default resync period for informers this factory creates.
    pub fn resync(mut self, period: Duration) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).resync(period);
        self
    }

    /// Informers this factory creates leave `metadata.managedFields` out of their caches,
    /// never decoding it ([`SharedIndexInformer::strip_managed_fields`]).
    pub fn strip_managed_fields(mut self) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).strip_managed_fields(true);
        self
    }

    /// Informers this factory creates cache only these managers' managedFields entries
    /// ([`SharedIndexInformer::keep_managed_fields_of`]): those this process writes as.
    pub fn keep_managed_fields_of<S: AsRef<str>>(mut self, managers: &[S]) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).keep_managed_fields_of(managers);
        self
    }

    /// Informers this factory creates keep their objects encoded, decoded on each read
    /// ([`SharedIndexInformer::pack_objects`]): about a quarter of the memory.
    pub fn pack_objects(mut self) -> Self {
        self.defaults = std::mem::take(&mut self.defaults).pack_objects(true);
        self
    }

    /// `K`'s informer with these options instead of the factory's (controller-runtime's
    /// `ByObject`): another namespace or selectors, its own resync, managedFields or
    /// packing. Applies to the informer created next for `K`.
    ///
    /// ```
    /// # use kubegen_runtime::informer::{KindCache, SharedInformerFactory};
    /// # use k8s_openapi::api::core::v1::Secret;
    /// # fn f(client: kube::Client) {
    /// let factory = SharedInformerFactory::new(client)
    ///     .for_kind::<Secret>(KindCache::new().label_selector("app.kubernetes.io/managed-by=shop"));
    /// # }
    /// ```
    pub fn for_kind<K: 'static>(mut self, options: KindCache) -> Self {
        self.by_kind.insert(TypeId::of::<K>(), options);
        self
    }

    /// Stops `K`'s informer and forgets it (controller-runtime's `RemoveInformer`); true when
    /// there was one. Its cache and listers keep what they last saw. Asking for `K` again
    /// creates a new informer, which [`start`](Self::start) starts: a kind can be watched
    /// from some point of a run on, and stopped again.
    pub fn remove_informer<K: 'static>(&self) -> bool {
        let removed = self
            .informers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&TypeId::of::<K>());
        if let Some(informer) = &removed {
            informer.stop();
        }
        removed.is_some()
    }

    /// The informer for `K`, created on first use (generated accessors call this).
    pub fn informer_with<K: InformerKind>(&self, make_api: ApiMaker<K>) -> SharedIndexInformer<K> {
        let mut informers = self.informers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = informers.get(&TypeId::of::<K>())
            && let Some(i) = existing.as_any().downcast_ref::<SharedIndexInformer<K>>()
        {
            return i.clone();
        }
        let own = self.by_kind.get(&TypeId::of::<K>());
        let options = own.map_or(self.defaults.clone(), |o| o.over(&self.defaults));
        let mut config = watcher::Config::default();
        if let Some(l) = &options.labels {
            config = config.labels(l);
        }
        if let Some(f) = &options.fields {
            config = config.fields(f);
        }
        let api = make_api(self.client.clone(), options.namespace.as_deref());
        let informer = SharedIndexInformer::new(api, config, options.resync);
        if options.strip_managed_fields == Some(true) {
            informer.strip_managed_fields();
        }
        if let Some(keep) = &options.keep_managers {
            informer.keep_managed_fields_of(keep);
        }
        if options.pack_objects == Some(true) {
            informer.pack_objects();
        }
        informers.insert(TypeId::of::<K>(), Arc::new(informer.clone()));
        informer
    }

    /// The informer for `K`, created on first use; the same one `factory.<plural>()` returns
    /// for generated kinds, and it works for k8s-openapi's kinds too.
    pub fn informer<K>(&self) -> SharedIndexInformer<K>
    where
        K: InformerKind,
        K::Scope: KindScope,
    {
        self.informer_with::<K>(<K::Scope as KindScope>::api::<K>)
    }

    /// A metadata-only informer for `K` (controller-runtime's `PartialObjectMetadata`
    /// watches): it lists and watches with `Accept: ...;as=PartialObjectMetadata`, so the
    /// server sends, and the cache keeps, only each object's metadata. For kinds whose
    /// objects are large and of which a controller needs only names, labels, owners or
    /// finalizers (Secrets, ConfigMaps, Pods). Shares the factory's options (and
    /// [`for_kind::<PartialObjectMeta<K>>`](Self::for_kind)); it is a separate informer
    /// from `K`'s full one.
    pub fn metadata_informer<K>(&self) -> SharedIndexInformer<kube::core::PartialObjectMeta<K>>
    where
        K: Resource<DynamicType = ()> + Clone + Debug + Send + Sync + 'static,
        K::Scope: KindScope,
    {
        self.informer_with::<kube::core::PartialObjectMeta<K>>(
            <K::Scope as KindScope>::api::<kube::core::PartialObjectMeta<K>>,
        )
    }

    /// The client the informers list and watch with.
    pub fn client(&self) -> &kube::Client {
        &self.client
    }

    /// Starts every informer created so far that is not running yet.
    pub fn start(&self) {
        for i in self.informers() {
            i.start(self.stop.subscribe());
        }
    }

    /// Waits until every started informer has synced (or `timeout`); true when all did.
    /// False at once when a kind is not served (see [`SharedInformerFactory::wait_for_sync`]).
    pub async fn wait_for_cache_sync(&self, timeout: Duration) -> bool {
        self.wait_for_sync(timeout).await.is_ok()
    }

    /// Waits until every started informer has synced. Fails as soon as one finds its kind
    /// not served (its first list answered 404, as for a CRD not installed), naming the kind
    /// and the answer, and after `timeout` otherwise.
    pub async fn wait_for_sync(&self, timeout: Duration) -> Result<(), SyncError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if self.has_synced() {
                return Ok(());
            }
            if let Some(unserved) = self.informers().iter().find_map(|i| i.not_served()) {
                return Err(SyncError::NotServed(unserved));
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(SyncError::Timeout(timeout));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn informers(&self) -> Vec<Arc<dyn AnyInformer>> {
        self.informers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// Whether every informer created so far has delivered its first list.
    pub fn has_synced(&self) -> bool {
        self.informers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .all(|i| i.has_synced())
    }

    /// Stops every informer.
    pub fn shutdown(&self) {
        self.stop.send_replace(true);
    }
}

impl Drop for SharedInformerFactory {
    fn drop(&mut self) {
        self.shutdown();
    }
}
