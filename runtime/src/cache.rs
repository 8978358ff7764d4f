//! lister-gen's backing store: a thread-safe indexed cache of `Arc<K>`.
//!
//! Objects are stored once, behind `Arc`, keyed by `namespace/name`. A namespace index is
//! built in and custom indexers (`fn(&K) -> Vec<String>`) can be added before the first
//! object arrives; index lookups touch only the matching keys, so listing one namespace
//! costs in proportion to that namespace, not to the cache.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use ahash::RandomState;
use kube::Resource;

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
    let meta = object.meta();
    let name = meta.name.as_deref().unwrap_or("");
    match meta.namespace.as_deref() {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}").into(),
        _ => name.into(),
    }
}

type Map<K, V> = HashMap<K, V, RandomState>;
type Set<K> = HashSet<K, RandomState>;

/// Where an object lives: its namespace ("" for cluster-scoped kinds) and name.
type Slot = (Arc<str>, Arc<str>);

/// Splits a cache key into namespace and name (names and namespaces contain no `/`).
fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}

struct Entry<K> {
    object: Arc<K>,
    /// The values the object was indexed under, per custom indexer, to unindex it later.
    indexed: Vec<Vec<String>>,
}

struct Inner<K> {
    /// namespace → name → object. The outer map is the namespace index, and a lookup hashes
    /// the two strings in place instead of building a `namespace/name` key.
    namespaces: Map<Arc<str>, Map<Arc<str>, Entry<K>>>,
    len: usize,
    /// Custom indexers, and per indexer (same order) value → slots.
    indexers: Vec<(String, IndexFunc<K>)>,
    indices: Vec<Map<String, Set<Slot>>>,
}

impl<K> Inner<K> {
    fn entry(&self, namespace: &str, name: &str) -> Option<&Entry<K>> {
        self.namespaces.get(namespace)?.get(name)
    }

    fn remove(&mut self, namespace: &str, name: &str) -> Option<Entry<K>> {
        let names = self.namespaces.get_mut(namespace)?;
        let (name_key, entry) = names.remove_entry(name)?;
        let ns_key = match names.is_empty() {
            true => self.namespaces.remove_entry(namespace).map(|(k, _)| k),
            false => self
                .namespaces
                .get_key_value(namespace)
                .map(|(k, _)| k.clone()),
        };
        self.len -= 1;
        if let Some(ns_key) = ns_key {
            let slot = (ns_key, name_key);
            for (values, index) in entry.indexed.iter().zip(self.indices.iter_mut()) {
                for v in values {
                    unindex_one(index, v, &slot);
                }
            }
        }
        Some(entry)
    }
}

fn unindex_one(index: &mut Map<String, Set<Slot>>, value: &str, slot: &Slot) {
    if let Some(slots) = index.get_mut(value) {
        slots.remove(slot);
        if slots.is_empty() {
            index.remove(value);
        }
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
                namespaces: Map::default(),
                len: 0,
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
        if inner.len > 0 {
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
        let meta = object.meta();
        let namespace = meta.namespace.as_deref().unwrap_or("");
        let name = meta.name.as_deref().unwrap_or("");
        let mut guard = self.write();
        let inner = &mut *guard;
        // Index functions run under the lock (as client-go's do): they must be quick and
        // must not touch this store.
        let indexed: Vec<Vec<String>> = inner.indexers.iter().map(|(_, f)| f(&object)).collect();
        let ns_key: Arc<str> = match inner.namespaces.get_key_value(namespace) {
            Some((k, _)) => k.clone(),
            None => {
                let k: Arc<str> = namespace.into();
                inner.namespaces.insert(k.clone(), Map::default());
                k
            }
        };
        let names = inner.namespaces.get_mut(namespace).expect("inserted above");
        let name_key: Arc<str> = match names.get_key_value(name) {
            Some((k, _)) => k.clone(),
            None => name.into(),
        };
        let slot = (ns_key, name_key.clone());
        // `namespace` and `name` borrow the object, which moves into the map here.
        let old = names.insert(name_key, Entry { object, indexed });
        if old.is_none() {
            inner.len += 1;
        }
        let current = &inner.namespaces[&*slot.0][&*slot.1].indexed;
        for (i, values) in current.iter().enumerate() {
            let stale: Vec<String> = match &old {
                Some(o) => o.indexed[i]
                    .iter()
                    .filter(|v| !values.contains(v))
                    .cloned()
                    .collect(),
                None => Vec::new(),
            };
            let index = &mut inner.indices[i];
            for v in values {
                match index.get_mut(v.as_str()) {
                    Some(slots) => {
                        slots.insert(slot.clone());
                    }
                    None => {
                        let mut slots = Set::default();
                        slots.insert(slot.clone());
                        index.insert(v.clone(), slots);
                    }
                }
            }
            for v in stale {
                unindex_one(index, &v, &slot);
            }
        }
        old.map(|e| e.object)
    }

    /// Removes an object by cache key (`namespace/name`, or `name`); returns it.
    pub fn remove(&self, key: &str) -> Option<Arc<K>> {
        let (namespace, name) = split_key(key);
        self.write().remove(namespace, name).map(|e| e.object)
    }

    /// The object at `namespace/name` (or `name` for cluster-scoped kinds).
    pub fn get(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>> {
        self.read()
            .entry(namespace.unwrap_or(""), name)
            .map(|e| e.object.clone())
    }

    /// The object under a cache key.
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        let (namespace, name) = split_key(key);
        self.read().entry(namespace, name).map(|e| e.object.clone())
    }

    /// Every object the selector matches.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        let inner = self.read();
        inner
            .namespaces
            .values()
            .flat_map(|names| names.values())
            .filter(|e| matches(&*e.object, selector))
            .map(|e| e.object.clone())
            .collect()
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
            Some(slots) => slots
                .iter()
                .filter_map(|(ns, name)| inner.entry(ns, name))
                .map(|e| e.object.clone())
                .collect(),
            None => Vec::new(),
        }
    }

    /// The objects in `namespace` that the selector matches.
    pub fn list_namespace(&self, namespace: &str, selector: &LabelSelector) -> Vec<Arc<K>> {
        let inner = self.read();
        match inner.namespaces.get(namespace) {
            Some(names) => names
                .values()
                .filter(|e| matches(&*e.object, selector))
                .map(|e| e.object.clone())
                .collect(),
            None => Vec::new(),
        }
    }

    /// Every cache key (`namespace/name`, or `name`).
    pub fn keys(&self) -> Vec<Arc<str>> {
        let inner = self.read();
        let mut keys = Vec::with_capacity(inner.len);
        for (ns, names) in &inner.namespaces {
            for name in names.keys() {
                keys.push(if ns.is_empty() {
                    name.clone()
                } else {
                    format!("{ns}/{name}").into()
                });
            }
        }
        keys
    }

    /// How many objects are cached.
    pub fn len(&self) -> usize {
        self.read().len
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.read().len == 0
    }
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
        store.remove("a/y");
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
