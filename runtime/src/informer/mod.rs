//! informer-gen: shared informers over kube-runtime's watcher.
//!
//! A [`SharedInformerFactory`] holds one [`SharedIndexInformer`] per kind, however many
//! callers ask for it; each runs one list+watch (kube-runtime's `watcher`, which brings
//! backoff and relisting after 410 Gone), keeps a [`Store`] current, and calls its event
//! handlers: add, update (old and new), delete (with the last known state, including
//! objects deleted while the watch was down, found when the relist no longer has them).
//!
//! Use it to read objects many times without asking the apiserver each time: a controller's
//! reconciles read from it (the [`Manager`](crate::manager::Manager) owns one factory for all
//! its controllers), and listers answer by namespace or by a custom index. The derive adds an
//! accessor per kind (`factory.widgets()`) and a lister type (`WidgetLister`). What a cache
//! keeps is a choice per kind ([`KindCache`]): a namespace, label and field selectors,
//! managedFields stripped or only this process's, objects packed as JSON. A cache lags the
//! apiserver; a controller that must read its own write calls the lister's `observe`.
//!
//! ```
//! # mod api {
//! #     use kubegen::prelude::*;
//! #     #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #     #[resource(group = "informers.example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
//! #     pub struct WidgetSpec {
//! #         pub size: i32,
//! #     }
//! #     #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct WidgetStatus {
//! #         pub seen: i32,
//! #     }
//! # }
//! # use api::*;
//! use std::time::Duration;
//! use kubegen::informer::SharedInformerFactory;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let server = kubegen::testing::ApiServer::new();
//! server.create_namespace("demo").unwrap();
//! let client = server.client();
//! client.widgets("demo").create(&Widget::new("w", WidgetSpec { size: 1 })).await.unwrap();
//!
//! let factory = SharedInformerFactory::new(client.clone()).namespace("demo");
//! let informer = factory.widgets();
//! factory.start();
//! assert!(factory.wait_for_cache_sync(Duration::from_secs(10)).await);
//! let lister = WidgetLister::from(&informer);
//! let cached = lister.widgets("demo").get("w").expect("in the cache");
//! assert_eq!(cached.spec.size, 1);
//! # });
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kube::Resource;
use kube::api::Api;
use kube::runtime::watcher::{self, Event};
use kube::runtime::{WatchStreamExt, watcher as watch_stream};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::cache::{IndexerError, Lister, ObjectSet, Store, split_key};
use crate::selector::LabelSelector;

mod factory;
mod managed_fields;

pub use factory::{
    ApiMaker, KindCache, KindScope, SharedInformerFactory, SyncError, cluster_api, namespaced_api,
};
pub use managed_fields::{CompactManagedFields, WithoutManagedFields};

/// Receives an informer's events. Handlers run on the informer's task, in order: keep them
/// quick (push a key onto a work queue) and do the work elsewhere.
pub trait ResourceEventHandler<K>: Send + Sync + 'static {
    /// A new object; `in_initial_list` while the first list is being delivered.
    fn on_add(&self, object: &Arc<K>, in_initial_list: bool) {
        let _ = (object, in_initial_list);
    }
    /// A changed object (or, on resync, the same object twice).
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        let _ = (old, new);
    }
    /// A deleted object, in its last known state.
    fn on_delete(&self, last_known: &Arc<K>) {
        let _ = last_known;
    }
}

type AddFn<K> = Box<dyn Fn(&Arc<K>, bool) + Send + Sync>;
type UpdateFn<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync>;
type DeleteFn<K> = Box<dyn Fn(&Arc<K>) + Send + Sync>;

/// A handler from closures.
pub struct Handlers<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
}

impl<K> Default for Handlers<K> {
    fn default() -> Self {
        Handlers {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K> Handlers<K> {
    /// No callbacks yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Called for added objects.
    pub fn on_add(mut self, f: impl Fn(&Arc<K>, bool) + Send + Sync + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }
    /// Called for updated objects.
    pub fn on_update(mut self, f: impl Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }
    /// Called for deleted objects.
    pub fn on_delete(mut self, f: impl Fn(&Arc<K>) + Send + Sync + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K: Send + Sync + 'static> ResourceEventHandler<K> for Handlers<K> {
    fn on_add(&self, object: &Arc<K>, initial: bool) {
        if let Some(f) = &self.add {
            f(object, initial)
        }
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if let Some(f) = &self.update {
            f(old, new)
        }
    }
    fn on_delete(&self, last: &Arc<K>) {
        if let Some(f) = &self.delete {
            f(last)
        }
    }
}

type HandlerList<K> = Arc<RwLock<Vec<Arc<dyn ResourceEventHandler<K>>>>>;

/// Changes objects before they are cached (client-go's `SetTransform`).
pub type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync>;

/// The transform operators use to cut cache memory: drops `metadata.managedFields`, which
/// controllers rarely read and which is often the largest part of an object. An informer
/// does better with [`SharedIndexInformer::strip_managed_fields`], which never decodes them.
pub fn strip_managed_fields<K: Resource>(object: &mut K) {
    object.meta_mut().managed_fields = None;
}

/// Gives back the spare capacity decoding leaves in metadata lists: a list decoded from JSON
/// grows by doubling (one managedFields entry takes room for four), and a cached object
/// keeps that room for as long as it is cached.
fn compact_metadata<K: Resource>(object: &mut K) {
    let meta = object.meta_mut();
    if let Some(l) = &mut meta.finalizers {
        l.shrink_to_fit();
    }
    if let Some(l) = &mut meta.managed_fields {
        l.shrink_to_fit();
    }
    if let Some(l) = &mut meta.owner_references {
        l.shrink_to_fit();
    }
}

/// Drops the managedFields entries of managers not in `keep` (all of them, to `None`, when
/// none is left), as [`SharedIndexInformer::keep_managed_fields_of`] does.
pub fn keep_managed_fields_of<K: Resource>(object: &mut K, keep: &[String]) {
    let meta = object.meta_mut();
    if let Some(entries) = &mut meta.managed_fields {
        entries.retain(|e| e.manager.as_ref().is_some_and(|m| keep.contains(m)));
        if entries.is_empty() {
            meta.managed_fields = None;
        }
    }
}

/// Applies watcher events to a store and tells handlers what changed. The informer's run
/// loop feeds it; benchmarks and tests can feed it directly.
pub struct Processor<K> {
    store: Arc<Store<K>>,
    handlers: HandlerList<K>,
    transform: Option<Transform<K>>,
    relist: Option<ObjectSet<Arc<K>>>,
    synced: bool,
}

impl<K: Resource + Send + Sync + 'static> Processor<K> {
    /// A processor writing into `store`, with no handlers.
    pub fn new(store: Arc<Store<K>>) -> Self {
        Self::with_handlers(store, Arc::default(), None)
    }

    fn with_handlers(
        store: Arc<Store<K>>,
        handlers: HandlerList<K>,
        transform: Option<Transform<K>>,
    ) -> Self {
        Processor {
            store,
            handlers,
            transform,
            relist: None,
            synced: false,
        }
    }

    /// The store this processor writes.
    pub fn store(&self) -> &Arc<Store<K>> {
        &self.store
    }

    /// Applies `transform` to every object before it is cached.
    pub fn with_transform(mut self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Self {
        self.transform = Some(Arc::new(transform));
        self
    }

    fn prepare(&self, mut object: K) -> Arc<K> {
        if let Some(t) = &self.transform {
            t(&mut object);
        }
        compact_metadata(&mut object);
        Arc::new(object)
    }

    fn has_handlers(&self) -> bool {
        !self
            .handlers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    fn each(&self, f: impl Fn(&dyn ResourceEventHandler<K>)) {
        let handlers = self.handlers.read().unwrap_or_else(|e| e.into_inner());
        for h in handlers.iter() {
            f(h.as_ref());
        }
    }

    /// Applies one watcher event. Returns true when a relist just completed.
    pub fn apply(&mut self, event: Event<K>) -> bool {
        match event {
            Event::Apply(object) => {
                let object = self.prepare(object);
                if self.has_handlers() {
                    match self.store.insert(object.clone()) {
                        Some(old) => self.each(|h| h.on_update(&old, &object)),
                        None => self.each(|h| h.on_add(&object, false)),
                    }
                } else {
                    // Nobody to tell: a packed cache need not decode the old version.
                    self.store.upsert(object);
                }
            }
            Event::Delete(object) => {
                let last = match self.store.remove_object(&object) {
                    Some(last) => last,
                    None => self.prepare(object),
                };
                self.each(|h| h.on_delete(&last));
            }
            Event::Init => self.relist = Some(ObjectSet::default()),
            Event::InitApply(object) => {
                let object = self.prepare(object);
                self.relist.get_or_insert_default().put(object);
            }
            Event::InitDone => {
                let fresh = self.relist.take().unwrap_or_default();
                // Objects the relist no longer has were deleted while the watch was down.
                // Found by key, so a packed cache decodes only what is gone.
                for key in self.store.keys() {
                    let (namespace, name) = split_key(&key);
                    if fresh.get(namespace, name).is_none()
                        && let Some(last) = self.store.remove_by_key(&key)
                    {
                        self.each(|h| h.on_delete(&last));
                    }
                }
                let initial = !self.synced;
                for object in fresh {
                    match self.store.insert(object.clone()) {
                        Some(old)
                            if old.meta().resource_version != object.meta().resource_version =>
                        {
                            self.each(|h| h.on_update(&old, &object))
                        }
                        Some(_) => {}
                        None => self.each(|h| h.on_add(&object, initial)),
                    }
                }
                self.synced = true;
                return true;
            }
        }
        false
    }

    /// Tells every handler about every object again, as `on_update(o, o)`.
    pub fn resync(&self) {
        for o in self.store.list(&LabelSelector::everything()) {
            self.each(|h| h.on_update(&o, &o));
        }
    }
}

struct InformerInner<K> {
    api: Api<K>,
    transform: RwLock<Option<Transform<K>>>,
    strip_managed_fields: AtomicBool,
    /// Set by [`SharedIndexInformer::keep_managed_fields_of`].
    keep_managers: RwLock<Option<Arc<[String]>>>,
    config: watcher::Config,
    resync: Option<Duration>,
    store: Arc<Store<K>>,
    handlers: HandlerList<K>,
    started: AtomicBool,
    /// Turned true by [`SharedIndexInformer::stop`]: this informer alone ends.
    halt: watch::Sender<bool>,
    synced: watch::Sender<bool>,
    /// Set when the first list found the kind not served (a 404); cleared once synced.
    unserved: watch::Sender<Option<NotServed>>,
}

/// A kind the apiserver does not serve: its first list was answered 404 (no such group,
/// version or resource; for a custom resource, usually a CRD not installed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} ({api_version}, resource {plural}) is not served by the apiserver: {answer}")]
pub struct NotServed {
    /// The kind's name.
    pub kind: String,
    /// Its group and version.
    pub api_version: String,
    /// Its resource name.
    pub plural: String,
    /// The apiserver's answer to the list.
    pub answer: String,
}

impl NotServed {
    fn of<K: InformerKind>(e: &watcher::Error) -> Option<NotServed> {
        let watcher::Error::InitialListFailed(kube::Error::Api(status)) = e else {
            return None;
        };
        (status.code == 404).then(|| NotServed {
            kind: K::kind(&()).into_owned(),
            api_version: K::api_version(&()).into_owned(),
            plural: K::plural(&()).into_owned(),
            // A plain-text answer (`404 page not found`, an unknown group) already says 404.
            answer: match status.message.trim() {
                "" => "404".to_owned(),
                m if m.starts_with("404") => m.to_owned(),
                m => format!("404 {m}"),
            },
        })
    }
}

/// One kind's shared informer: a cache kept current by one list+watch, and event handlers.
pub struct SharedIndexInformer<K> {
    inner: Arc<InformerInner<K>>,
}

impl<K> Clone for SharedIndexInformer<K> {
    fn clone(&self) -> Self {
        SharedIndexInformer {
            inner: self.inner.clone(),
        }
    }
}

/// The bounds an informer's kind meets (every kubegen kind does).
pub trait InformerKind:
    Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static
{
}

impl<K> InformerKind for K where
    K: Resource<DynamicType = ()>
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

impl<K: InformerKind> SharedIndexInformer<K> {
    /// An informer over `api` (not started).
    pub fn new(api: Api<K>, config: watcher::Config, resync: Option<Duration>) -> Self {
        let (synced, _) = watch::channel(false);
        SharedIndexInformer {
            inner: Arc::new(InformerInner {
                api,
                transform: RwLock::new(None),
                strip_managed_fields: AtomicBool::new(false),
                keep_managers: RwLock::new(None),
                config,
                resync,
                store: Arc::new(Store::new()),
                handlers: Arc::default(),
                started: AtomicBool::new(false),
                halt: watch::Sender::new(false),
                synced,
                unserved: watch::Sender::new(None),
            }),
        }
    }

    /// Adds an event handler. Handlers added after the initial list get the cached objects
    /// as adds first, as client-go does.
    pub fn add_event_handler(&self, handler: impl ResourceEventHandler<K>) {
        let handler: Arc<dyn ResourceEventHandler<K>> = Arc::new(handler);
        if self.has_synced() {
            for o in self.inner.store.list(&LabelSelector::everything()) {
                handler.on_add(&o, true);
            }
        }
        self.inner
            .handlers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(handler);
    }

    /// Adds a custom index; only before the informer starts.
    pub fn add_indexer(
        &self,
        name: &str,
        index: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<(), IndexerError> {
        if self.inner.started.load(Ordering::SeqCst) {
            return Err(IndexerError::AlreadyStarted(name.to_owned()));
        }
        self.inner.store.add_indexer(name, index)
    }

    /// Changes every object before it is cached, e.g. [`strip_managed_fields`]. Only before
    /// the informer starts; later calls are ignored (returns false).
    pub fn set_transform(&self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> bool {
        if self.inner.started.load(Ordering::SeqCst) {
            return false;
        }
        *self
            .inner
            .transform
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(transform));
        true
    }

    /// Leaves `metadata.managedFields` out of the cache, skipping it while decoding (see
    /// [`WithoutManagedFields`]): the memory saving of [`strip_managed_fields`] without the
    /// cost of decoding what is dropped. Only before the informer starts (returns false
    /// after).
    pub fn strip_managed_fields(&self) -> bool {
        if self.inner.started.load(Ordering::SeqCst) {
            return false;
        }
        self.inner
            .strip_managed_fields
            .store(true, Ordering::SeqCst);
        true
    }

    /// Keeps the cached objects encoded as JSON, decoded on every read: about a quarter
    /// of the memory, with `metadata.managedFields` kept so `extract_*` works (see
    /// [`Store::pack`] for the costs). Only before the informer starts (returns false
    /// after).
    pub fn pack_objects(&self) -> bool {
        !self.inner.started.load(Ordering::SeqCst) && self.inner.store.pack()
    }

    /// Keeps in the cache only the managedFields entries of these managers, the ones this
    /// process writes as: `extract_*` for them works on cached objects, and the entries of
    /// every other manager (usually most of an object's managedFields) cost no memory. The
    /// kept entries' `fieldsV1` are held as JSON text in a string rather than a tree
    /// ([`CompactManagedFields`]), which `extract_*` reads; every entry's `fieldsV1` is read
    /// as text, never built as a tree. Cached objects are then for reading: their
    /// managedFields must not be sent back to the apiserver (a controller's writes never
    /// include them). Only before the informer starts (returns false after).
    pub fn keep_managed_fields_of<S: AsRef<str>>(&self, managers: &[S]) -> bool {
        if self.inner.started.load(Ordering::SeqCst) {
            return false;
        }
        let managers: Arc<[String]> = managers.iter().map(|m| m.as_ref().to_owned()).collect();
        *self
            .inner
            .keep_managers
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(managers);
        true
    }

    /// A lister over this informer's cache.
    pub fn lister(&self) -> Lister<K> {
        Lister::new(self.inner.store.clone())
    }

    /// The cache.
    pub fn store(&self) -> &Arc<Store<K>> {
        &self.inner.store
    }

    /// Whether the first list has been delivered into the cache.
    pub fn has_synced(&self) -> bool {
        *self.inner.synced.borrow()
    }

    /// Why the informer cannot sync, when its first list found the kind not served. It
    /// keeps retrying (a CRD may be installed later); this clears once it syncs.
    pub fn not_served(&self) -> Option<NotServed> {
        self.inner.unserved.borrow().clone()
    }

    /// Waits until the first list is in the cache (or `timeout` passes); true when synced.
    pub async fn wait_for_cache_sync(&self, timeout: Duration) -> bool {
        let mut rx = self.inner.synced.subscribe();
        tokio::time::timeout(timeout, rx.wait_for(|s| *s))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Ends this informer's list+watch (a started one stops at once; one not started never
    /// starts). The cache keeps what it last saw and handlers get nothing more. Informers
    /// sharing its factory go on; [`SharedInformerFactory::remove_informer`] also forgets
    /// it, so the kind can be watched again later.
    pub fn stop(&self) {
        self.inner.started.store(true, Ordering::SeqCst);
        self.inner.halt.send_replace(true);
    }

    /// Whether [`stop`](Self::stop) was called.
    pub fn is_stopped(&self) -> bool {
        *self.inner.halt.borrow()
    }

    /// Starts the list+watch on the current Tokio runtime, once; ends when `stop` turns true.
    pub fn start(&self, stop: watch::Receiver<bool>) {
        if self.inner.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let inner = self.inner.clone();
        tokio::spawn(run(inner, stop));
    }
}

async fn run<K: InformerKind>(inner: Arc<InformerInner<K>>, mut stop: watch::Receiver<bool>) {
    let mut halt = inner.halt.subscribe();
    let transform = inner
        .transform
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let keep = inner
        .keep_managers
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    // Kept entries are decoded with their fieldsV1 as text, the others' only to be dropped.
    let compact = keep.is_some();
    let transform: Option<Transform<K>> = match (transform, keep) {
        (transform, None) => transform,
        (transform, Some(keep)) => Some(Arc::new(move |object: &mut K| {
            keep_managed_fields_of(object, &keep);
            if let Some(t) = &transform {
                t(object);
            }
        })),
    };
    let mut processor =
        Processor::with_handlers(inner.store.clone(), inner.handlers.clone(), transform);
    let mut events = match (inner.strip_managed_fields.load(Ordering::SeqCst), compact) {
        (true, _) => watch_stream(WithoutManagedFields::api(&inner.api), inner.config.clone())
            .map_ok(WithoutManagedFields::unwrap_event)
            .default_backoff()
            .boxed(),
        (false, true) => watch_stream(CompactManagedFields::api(&inner.api), inner.config.clone())
            .map_ok(CompactManagedFields::unwrap_event)
            .default_backoff()
            .boxed(),
        (false, false) => watch_stream(inner.api.clone(), inner.config.clone())
            .default_backoff()
            .boxed(),
    };
    let period = inner.resync.unwrap_or(Duration::from_secs(365 * 24 * 3600));
    let mut resync = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    loop {
        tokio::select! {
            // Stopping comes first: once `stop` has returned, no event is applied, even one
            // that was already waiting (an unbiased select picks among ready branches at
            // random).
            biased;
            _ = stop.wait_for(|s| *s) => return,
            _ = halt.wait_for(|s| *s) => return,
            _ = resync.tick(), if inner.resync.is_some() => processor.resync(),
            event = events.next() => match event {
                Some(Ok(event)) => {
                    if processor.apply(event) {
                        inner.synced.send_replace(true);
                        inner.unserved.send_replace(None);
                    }
                }
                // The backoff already waits between attempts; the watcher relists after 410.
                Some(Err(e)) => {
                    let kind = K::kind(&());
                    // A watch expired (410) is routine: the watcher lists again.
                    match &e {
                        watcher::Error::WatchError(s) if s.code == 410 => {
                            tracing::debug!(%kind, error = %e, "informer watch expired; relisting");
                        }
                        _ => tracing::warn!(%kind, error = %e, "informer list/watch failed; retrying"),
                    }
                    if !*inner.synced.borrow()
                        && let Some(unserved) = NotServed::of::<K>(&e)
                    {
                        inner.unserved.send_replace(Some(unserved));
                    }
                }
                None => return,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    #[test]
    fn a_first_list_answered_404_names_the_kind_not_served() {
        let failed = |status: serde_json::Value| {
            let status: kube::core::Status = serde_json::from_value(status).unwrap();
            watcher::Error::InitialListFailed(kube::Error::Api(Box::new(status)))
        };
        // A built-in group's Status, and the plain text of an unknown group.
        let unserved = NotServed::of::<ConfigMap>(&failed(serde_json::json!({
            "code": 404, "message": "the server could not find the requested resource",
        })))
        .unwrap();
        assert_eq!(
            unserved.to_string(),
            "ConfigMap (v1, resource configmaps) is not served by the apiserver: 404 the server could not find the requested resource"
        );
        let plain = failed(serde_json::json!({"code": 404, "message": "404 page not found\n"}));
        assert_eq!(
            NotServed::of::<ConfigMap>(&plain).unwrap().answer,
            "404 page not found"
        );
        // Other failures are retried without a verdict.
        assert!(NotServed::of::<ConfigMap>(&failed(serde_json::json!({"code": 403}))).is_none());
        assert!(NotServed::of::<ConfigMap>(&watcher::Error::NoResourceVersion).is_none());
    }

    #[test]
    fn cached_objects_keep_no_spare_room_in_metadata_lists() {
        // Decoded from JSON, a one-entry list has room for four.
        let json = serde_json::json!({
            "metadata": {
                "name": "a", "namespace": "ns", "finalizers": ["example.com/cleanup"],
                "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}],
            },
        });
        let decoded: ConfigMap =
            serde_json::from_slice(&serde_json::to_vec(&json).unwrap()).unwrap();
        let lists = |c: &ConfigMap| {
            let m = &c.metadata;
            [
                m.finalizers.as_ref().map(|l| (l.len(), l.capacity())),
                m.managed_fields.as_ref().map(|l| (l.len(), l.capacity())),
                m.owner_references.as_ref().map(|l| (l.len(), l.capacity())),
            ]
        };
        assert!(lists(&decoded).iter().all(|l| l.unwrap().1 > 1));
        let mut p = Processor::new(Arc::new(Store::new()));
        p.apply(Event::Apply(decoded.clone()));
        let cached = p.store().get(Some("ns"), "a").unwrap();
        assert_eq!(lists(&cached), [Some((1, 1)); 3]);
        assert_eq!(*cached, decoded, "compacting changes no content");
    }

    #[test]
    fn a_delete_of_an_uncached_object_reaches_handlers_transformed() {
        let seen: Arc<Mutex<Vec<Arc<ConfigMap>>>> = Arc::default();
        let sink = seen.clone();
        let handlers: HandlerList<ConfigMap> = Arc::new(RwLock::new(vec![Arc::new(
            Handlers::new()
                .on_delete(move |o: &Arc<ConfigMap>| sink.lock().unwrap().push(o.clone())),
        )]));
        let mut p = Processor::with_handlers(
            Arc::new(Store::new()),
            handlers,
            Some(Arc::new(strip_managed_fields::<ConfigMap>)),
        );
        let mut gone = ConfigMap::default();
        gone.metadata.name = Some("gone".into());
        gone.metadata.managed_fields = Some(vec![Default::default()]);
        p.apply(Event::Delete(gone));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].metadata.name.as_deref(), Some("gone"));
        assert_eq!(seen[0].metadata.managed_fields, None, "the transform ran");
    }
}
