//! lister-gen's backing store: a thread-safe indexed cache of `Arc<K>`.
//!
//! Objects are stored once, behind `Arc`, keyed by `namespace/name`. A namespace index is
//! built in and custom indexers (`fn(&K) -> Vec<String>`) can be added before the first
//! object arrives; index lookups touch only the matching keys, so listing one namespace
//! costs in proportion to that namespace, not to the cache.

use std::collections::HashMap;
use std::sync::Arc;

use ahash::RandomState;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use kube::Resource;
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::selector::LabelSelector;

/// Computes the values under which an object is indexed.
pub type IndexFunc<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// The built-in index: objects by namespace.
pub const NAMESPACE_INDEX: &str = "namespace";

/// Why an indexer could not be added.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum IndexerError {
    /// Indexers must be added before the store holds objects (before the informer starts).
    #[error(
        "indexer `{0}` was added after the cache started filling; add indexers before starting the informer"
    )]
    AlreadyStarted(String),
    /// An indexer of that name exists.
    #[error("an indexer named `{0}` already exists")]
    Duplicate(String),
}

/// The cache key of an object: `namespace/name`, or `name` for cluster-scoped objects.
pub fn key_of<K: Resource>(object: &K) -> Arc<str> {
    let (namespace, name) = slot(object);
    match namespace {
        "" => name.into(),
        ns => format!("{ns}/{name}").into(),
    }
}

/// Where an object lives: its namespace ("" for cluster-scoped objects) and name.
fn slot<K: Resource>(object: &K) -> (&str, &str) {
    let meta = object.meta();
    (
        meta.namespace.as_deref().unwrap_or(""),
        meta.name.as_deref().unwrap_or(""),
    )
}

/// Splits a cache key into namespace and name (names and namespaces contain no `/`).
fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}

/// A set of `Arc<K>` keyed by each object's own namespace and name. The key is read from
/// the object rather than stored beside it, so membership costs one pointer per object.
pub(crate) struct ObjectSet<K> {
    hasher: RandomState,
    table: HashTable<Arc<K>>,
}

impl<K: Resource> Default for ObjectSet<K> {
    fn default() -> Self {
        ObjectSet {
            hasher: RandomState::new(),
            table: HashTable::new(),
        }
    }
}

impl<K: Resource> ObjectSet<K> {
    fn hash(hasher: &RandomState, at: (&str, &str)) -> u64 {
        hasher.hash_one(at)
    }

    /// The object at `namespace`/`name`.
    pub(crate) fn get(&self, namespace: &str, name: &str) -> Option<&Arc<K>> {
        let at = (namespace, name);
        self.table
            .find(Self::hash(&self.hasher, at), |o| slot(&**o) == at)
    }

    /// Whether an object sits at the same place as `object`.
    pub(crate) fn holds_place_of(&self, object: &K) -> bool {
        let (namespace, name) = slot(object);
        self.get(namespace, name).is_some()
    }

    /// Inserts `object`, replacing (and returning) the one at the same place.
    pub(crate) fn put(&mut self, object: Arc<K>) -> Option<Arc<K>> {
        let ObjectSet { hasher, table } = self;
        let at = slot(&*object);
        let entry = table.entry(
            Self::hash(hasher, at),
            |o| slot(&**o) == at,
            |o| Self::hash(hasher, slot(&**o)),
        );
        match entry {
            Entry::Occupied(mut e) => Some(std::mem::replace(e.get_mut(), object)),
            Entry::Vacant(e) => {
                e.insert(object);
                None
            }
        }
    }

    /// Removes and returns the object at `namespace`/`name`.
    pub(crate) fn remove(&mut self, namespace: &str, name: &str) -> Option<Arc<K>> {
        let at = (namespace, name);
        let hash = Self::hash(&self.hasher, at);
        match self.table.find_entry(hash, |o| slot(&**o) == at) {
            Ok(e) => Some(e.remove().0),
            Err(_) => None,
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<K>> {
        self.table.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

impl<K> IntoIterator for ObjectSet<K> {
    type Item = Arc<K>;
    type IntoIter = hashbrown::hash_table::IntoIter<Arc<K>>;

    fn into_iter(self) -> Self::IntoIter {
        self.table.into_iter()
    }
}

type Map<V> = HashMap<String, V, RandomState>;

/// Adds `object` to `sets[value]`, creating the set.
fn add_to<K: Resource>(sets: &mut Map<ObjectSet<K>>, value: &str, object: &Arc<K>) {
    match sets.get_mut(value) {
        Some(set) => {
            set.put(object.clone());
        }
        None => {
            let mut set = ObjectSet::default();
            set.put(object.clone());
            sets.insert(value.to_owned(), set);
        }
    }
}

/// Removes `namespace`/`name` from `sets[value]`, dropping the set once it is empty.
fn remove_from<K: Resource>(sets: &mut Map<ObjectSet<K>>, value: &str, at: (&str, &str)) {
    if let Some(set) = sets.get_mut(value) {
        set.remove(at.0, at.1);
        if set.is_empty() {
            sets.remove(value);
        }
    }
}

struct Inner<K> {
    /// Every object, found by namespace and name in one probe.
    objects: ObjectSet<K>,
    /// The namespace index: namespace → its objects.
    namespaces: Map<ObjectSet<K>>,
    /// Custom indexers, and per indexer (same order) value → objects. An object's old
    /// index values are recomputed from the old object when it changes (as client-go
    /// does), so nothing per object is stored for them.
    indexers: Vec<(String, IndexFunc<K>)>,
    indices: Vec<Map<ObjectSet<K>>>,
}

impl<K: Resource> Inner<K> {
    fn index_values(&self, object: &K) -> Vec<Vec<String>> {
        self.indexers.iter().map(|(_, f)| f(object)).collect()
    }

    fn remove(&mut self, namespace: &str, name: &str) -> Option<Arc<K>> {
        let old = self.objects.get(namespace, name)?.clone();
        // Index functions run before anything changes, so a panicking one leaves the
        // maps consistent.
        let values = self.index_values(&old);
        self.objects.remove(namespace, name);
        remove_from(&mut self.namespaces, namespace, (namespace, name));
        for (values, index) in values.iter().zip(self.indices.iter_mut()) {
            for v in values {
                remove_from(index, v, (namespace, name));
            }
        }
        Some(old)
    }
}

/// A thread-safe indexed store of `Arc<K>`.
pub struct Store<K> {
    inner: RwLock<Inner<K>>,
}

impl<K: Resource + Send + Sync + 'static> Default for Store<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Resource + Send + Sync + 'static> Store<K> {
    /// An empty store (the namespace index is built in).
    pub fn new() -> Self {
        Store {
            inner: RwLock::new(Inner {
                objects: ObjectSet::default(),
                namespaces: Map::default(),
                indexers: Vec::new(),
                indices: Vec::new(),
            }),
        }
    }

    // parking_lot's lock: uncontended reads are cheaper than std's, and it does not poison
    // (index functions run before any mutation, so a panic leaves the maps consistent).
    fn read(&self) -> RwLockReadGuard<'_, Inner<K>> {
        self.inner.read()
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner<K>> {
        self.inner.write()
    }

    /// Adds a custom indexer. Only before the store holds objects.
    pub fn add_indexer(
        &self,
        name: &str,
        index: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<(), IndexerError> {
        let mut inner = self.write();
        if !inner.objects.is_empty() {
            return Err(IndexerError::AlreadyStarted(name.to_owned()));
        }
        if name == NAMESPACE_INDEX || inner.indexers.iter().any(|(n, _)| n == name) {
            return Err(IndexerError::Duplicate(name.to_owned()));
        }
        inner.indexers.push((name.to_owned(), Arc::new(index)));
        inner.indices.push(Map::default());
        Ok(())
    }

    /// Inserts or replaces an object; returns the previous version.
    pub fn insert(&self, object: Arc<K>) -> Option<Arc<K>> {
        let (namespace, name) = slot(&*object);
        let mut guard = self.write();
        let inner = &mut *guard;
        // Index functions run under the lock (as client-go's do): they must be quick and
        // must not touch this store. They run before anything changes.
        let values = inner.index_values(&object);
        let stale = match inner.objects.get(namespace, name) {
            Some(old) if !inner.indexers.is_empty() => inner.index_values(old),
            _ => Vec::new(),
        };
        let old = inner.objects.put(object.clone());
        add_to(&mut inner.namespaces, namespace, &object);
        for (i, index) in inner.indices.iter_mut().enumerate() {
            for v in &values[i] {
                add_to(index, v, &object);
            }
            for v in stale.get(i).into_iter().flatten() {
                if !values[i].contains(v) {
                    remove_from(index, v, (namespace, name));
                }
            }
        }
        old
    }

    /// Removes the object at `namespace/name` (or `name` for cluster-scoped kinds); returns it.
    pub fn remove(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>> {
        self.write().remove(namespace.unwrap_or(""), name)
    }

    /// Removes the object at the same place as `object` (its namespace and name); returns it.
    pub fn remove_object(&self, object: &K) -> Option<Arc<K>> {
        let (namespace, name) = slot(object);
        self.write().remove(namespace, name)
    }

    /// Removes an object by cache key (`namespace/name`, or `name`); returns it.
    pub fn remove_by_key(&self, key: &str) -> Option<Arc<K>> {
        let (namespace, name) = split_key(key);
        self.write().remove(namespace, name)
    }

    /// The object at `namespace/name` (or `name` for cluster-scoped kinds).
    pub fn get(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>> {
        self.read()
            .objects
            .get(namespace.unwrap_or(""), name)
            .cloned()
    }

    /// The object under a cache key.
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        let (namespace, name) = split_key(key);
        self.read().objects.get(namespace, name).cloned()
    }

    /// Every object the selector matches.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        select(self.read().objects.iter(), selector)
    }

    /// The objects whose indexer `index` produced `value` (`namespace` is built in); costs
    /// in proportion to the result.
    pub fn by_index(&self, index: &str, value: &str) -> Vec<Arc<K>> {
        if index == NAMESPACE_INDEX {
            return self.list_namespace(value, &LabelSelector::everything());
        }
        let inner = self.read();
        let Some(i) = inner.indexers.iter().position(|(n, _)| n == index) else {
            return Vec::new();
        };
        match inner.indices[i].get(value) {
            Some(set) => set.iter().cloned().collect(),
            None => Vec::new(),
        }
    }

    /// The objects in `namespace` that the selector matches.
    pub fn list_namespace(&self, namespace: &str, selector: &LabelSelector) -> Vec<Arc<K>> {
        match self.read().namespaces.get(namespace) {
            Some(set) => select(set.iter(), selector),
            None => Vec::new(),
        }
    }

    /// Every cache key (`namespace/name`, or `name`).
    pub fn keys(&self) -> Vec<Arc<str>> {
        self.read().objects.iter().map(|o| key_of(&**o)).collect()
    }

    /// How many objects are cached.
    pub fn len(&self) -> usize {
        self.read().objects.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.read().objects.is_empty()
    }
}

fn select<'a, K: Resource + 'a>(
    objects: impl Iterator<Item = &'a Arc<K>>,
    selector: &LabelSelector,
) -> Vec<Arc<K>> {
    objects
        .filter(|o| matches(&***o, selector))
        .cloned()
        .collect()
}

fn matches<K: Resource>(object: &K, selector: &LabelSelector) -> bool {
    if selector.0.is_empty() {
        return true;
    }
    static EMPTY: std::sync::OnceLock<std::collections::BTreeMap<String, String>> =
        std::sync::OnceLock::new();
    let labels = object
        .meta()
        .labels
        .as_ref()
        .unwrap_or_else(|| EMPTY.get_or_init(Default::default));
    selector.matches(labels)
}

/// Reads a kind's cache: the generic half of every generated `XLister`.
pub struct Lister<K> {
    store: Arc<Store<K>>,
}

impl<K> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Lister {
            store: self.store.clone(),
        }
    }
}

impl<K: Resource + Send + Sync + 'static> Lister<K> {
    /// A lister over `store`.
    pub fn new(store: Arc<Store<K>>) -> Self {
        Lister { store }
    }

    /// Every cached object the selector matches.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        self.store.list(selector)
    }

    /// Objects by a named index (`namespace` is built in).
    pub fn by_index(&self, index: &str, value: &str) -> Vec<Arc<K>> {
        self.store.by_index(index, value)
    }

    /// A cluster-scoped object by name (generated listers expose this as `get`).
    pub fn get_cluster(&self, name: &str) -> Option<Arc<K>> {
        self.store.get(None, name)
    }

    /// The objects of one namespace (generated listers name this after the kind).
    pub fn namespace<'a>(&'a self, namespace: &'a str) -> NamespaceLister<'a, K> {
        NamespaceLister {
            store: &self.store,
            namespace,
        }
    }

    /// The underlying store.
    pub fn store(&self) -> &Arc<Store<K>> {
        &self.store
    }
}

/// Reads one namespace of a kind's cache.
pub struct NamespaceLister<'a, K> {
    store: &'a Store<K>,
    namespace: &'a str,
}

impl<K: Resource + Send + Sync + 'static> NamespaceLister<'_, K> {
    /// The object `name` in this namespace.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.store.get(Some(self.namespace), name)
    }

    /// The objects in this namespace that the selector matches.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        self.store.list_namespace(self.namespace, selector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn cm(ns: &str, name: &str, app: &str) -> Arc<ConfigMap> {
        Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(ns.into()),
                labels: Some([("app".to_string(), app.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    #[test]
    fn indexes_follow_inserts_updates_and_removals() {
        let store: Store<ConfigMap> = Store::new();
        store
            .add_indexer("app", |c: &ConfigMap| {
                c.metadata
                    .labels
                    .iter()
                    .flat_map(|l| l.get("app").cloned())
                    .collect()
            })
            .unwrap();
        assert_eq!(
            store.add_indexer("app", |_: &ConfigMap| vec![]),
            Err(IndexerError::Duplicate("app".into()))
        );
        store.insert(cm("a", "x", "web"));
        store.insert(cm("a", "y", "api"));
        store.insert(cm("b", "x", "web"));
        assert_eq!(store.by_index("app", "web").len(), 2);
        assert_eq!(
            store
                .list_namespace("a", &LabelSelector::everything())
                .len(),
            2
        );
        assert_eq!(
            store
                .list_namespace("a", &LabelSelector::parse("app=api").unwrap())
                .len(),
            1
        );
        let old = store.insert(cm("a", "x", "api")).unwrap();
        assert_eq!(old.metadata.labels.as_ref().unwrap()["app"], "web");
        assert_eq!(
            store.by_index("app", "web").len(),
            1,
            "the update moved a/x out of app=web"
        );
        assert_eq!(store.by_index("app", "api").len(), 2);
        assert_eq!(
            store.remove_by_key("a/y").unwrap().metadata.name.as_deref(),
            Some("y")
        );
        assert!(store.remove(Some("a"), "y").is_none());
        let removed = store.remove_object(&cm("b", "x", "other labels")).unwrap();
        assert_eq!(removed.metadata.namespace.as_deref(), Some("b"));
        store.insert(removed);
        assert_eq!(store.by_index("app", "api").len(), 1);
        assert_eq!(store.by_index(NAMESPACE_INDEX, "a").len(), 1);
        assert!(store.get(Some("b"), "x").is_some());
        assert_eq!(
            store.add_indexer("late", |_: &ConfigMap| vec![]),
            Err(IndexerError::AlreadyStarted("late".into()))
        );
        let lister = Lister::new(Arc::new(store));
        assert_eq!(
            lister
                .namespace("b")
                .get("x")
                .unwrap()
                .metadata
                .name
                .as_deref(),
            Some("x")
        );
        assert_eq!(
            lister
                .list(&LabelSelector::parse("app in (web,api)").unwrap())
                .len(),
            2
        );
    }
}
