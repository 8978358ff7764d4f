//! lister-gen's backing store: a thread-safe indexed cache of `Arc<K>`.
//!
//! Objects are stored once, behind `Arc`, keyed by `namespace/name`. A namespace index is
//! built in and custom indexers (`fn(&K) -> Vec<String>`) can be added before the first
//! object arrives; index lookups touch only the matching keys, so listing one namespace
//! costs in proportion to that namespace, not to the cache.
//!
//! Use it through an informer: the informer fills a [`Store`] from a watch and hands out a
//! [`Lister`] (`informer.lister()`, `manager.cache().deployments().lister()`), and a
//! reconciler reads the lister instead of the apiserver. Build one by hand to test code
//! that reads a lister, or to keep objects of your own indexed.
//!
//! ```
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::cache::{Lister, Store};
//! use kubegen::selector::LabelSelector;
//!
//! let config_map = |namespace: &str, name: &str, owner: &str| {
//!     let mut cm = ConfigMap::default();
//!     cm.metadata.namespace = Some(namespace.into());
//!     cm.metadata.name = Some(name.into());
//!     cm.metadata.labels = Some([("owner".to_string(), owner.to_string())].into());
//!     Arc::new(cm)
//! };
//! let store = Arc::new(Store::<ConfigMap>::new());
//! // Indexers come first: the store refuses one once it holds objects.
//! store
//!     .add_indexer("owner", |cm: &ConfigMap| {
//!         let labels = cm.metadata.labels.iter().flatten();
//!         labels.filter(|(k, _)| *k == "owner").map(|(_, v)| v.clone()).collect()
//!     })
//!     .unwrap();
//! store.insert(config_map("a", "one", "alice"));
//! store.insert(config_map("a", "two", "bob"));
//! store.insert(config_map("b", "three", "alice"));
//!
//! let lister = Lister::new(store.clone());
//! assert!(lister.namespace("a").get("one").is_some());
//! assert_eq!(lister.namespace("b").list(&LabelSelector::everything()).len(), 1);
//! assert_eq!(lister.by_index("owner", "alice").len(), 2);
//! let bob = LabelSelector::parse("owner=bob").unwrap();
//! assert_eq!(lister.list(&bob)[0].metadata.name.as_deref(), Some("two"));
//! assert!(store.add_indexer("late", |_: &ConfigMap| vec![]).is_err());
//! ```

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
    join_key(namespace, name).into()
}

/// Where an object lives: its namespace ("" for cluster-scoped objects) and name.
fn slot<K: Resource>(object: &K) -> (&str, &str) {
    let meta = object.meta();
    (
        meta.namespace.as_deref().unwrap_or(""),
        meta.name.as_deref().unwrap_or(""),
    )
}

/// The cache key of `namespace`/`name`.
fn join_key<'a>(namespace: &str, name: &'a str) -> std::borrow::Cow<'a, str> {
    match namespace {
        "" => name.into(),
        ns => format!("{ns}/{name}").into(),
    }
}

/// An object's resourceVersion as the integer the apiserver makes it.
fn resource_version<K: Resource>(object: &K) -> Option<u64> {
    object.meta().resource_version.as_deref()?.parse().ok()
}

/// Splits a cache key into namespace and name (names and namespaces contain no `/`).
pub(crate) fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}

/// Something with a place in the cache: a namespace ("" when cluster-scoped) and a name.
pub(crate) trait Placed {
    fn place(&self) -> (&str, &str);
}

impl<K: Resource> Placed for Arc<K> {
    fn place(&self) -> (&str, &str) {
        slot(&**self)
    }
}

/// A set keyed by each item's own namespace and name. The key is read from the item
/// rather than stored beside it, so membership costs one item (a pointer or two) per object.
pub(crate) struct ObjectSet<T> {
    hasher: RandomState,
    table: HashTable<T>,
}

impl<T> Default for ObjectSet<T> {
    fn default() -> Self {
        ObjectSet {
            hasher: RandomState::new(),
            table: HashTable::new(),
        }
    }
}

impl<T: Placed> ObjectSet<T> {
    fn hash(hasher: &RandomState, at: (&str, &str)) -> u64 {
        hasher.hash_one(at)
    }

    /// The item at `namespace`/`name`.
    pub(crate) fn get(&self, namespace: &str, name: &str) -> Option<&T> {
        let at = (namespace, name);
        self.table
            .find(Self::hash(&self.hasher, at), |o| o.place() == at)
    }

    /// Inserts `item`, replacing (and returning) the one at the same place.
    pub(crate) fn put(&mut self, item: T) -> Option<T> {
        let ObjectSet { hasher, table } = self;
        let at = item.place();
        let entry = table.entry(
            Self::hash(hasher, at),
            |o| o.place() == at,
            |o| Self::hash(hasher, o.place()),
        );
        match entry {
            Entry::Occupied(mut e) => Some(std::mem::replace(e.get_mut(), item)),
            Entry::Vacant(e) => {
                e.insert(item);
                None
            }
        }
    }

    /// Removes and returns the item at `namespace`/`name`.
    pub(crate) fn remove(&mut self, namespace: &str, name: &str) -> Option<T> {
        let at = (namespace, name);
        let hash = Self::hash(&self.hasher, at);
        match self.table.find_entry(hash, |o| o.place() == at) {
            Ok(e) => Some(e.remove().0),
            Err(_) => None,
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.table.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

impl<T> IntoIterator for ObjectSet<T> {
    type Item = T;
    type IntoIter = hashbrown::hash_table::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.table.into_iter()
    }
}

/// An object kept encoded ([`Store::pack`]): its cache key and its JSON.
pub(crate) struct Packed {
    key: Box<str>,
    json: Box<[u8]>,
}

/// One cached object, decoded or packed. Clones share it.
pub(crate) enum Held<K> {
    Decoded(Arc<K>),
    Packed(Arc<Packed>),
}

impl<K> Clone for Held<K> {
    fn clone(&self) -> Self {
        match self {
            Held::Decoded(o) => Held::Decoded(o.clone()),
            Held::Packed(p) => Held::Packed(p.clone()),
        }
    }
}

impl<K: Resource> Placed for Held<K> {
    fn place(&self) -> (&str, &str) {
        match self {
            Held::Decoded(o) => slot(&**o),
            Held::Packed(p) => split_key(&p.key),
        }
    }
}

/// How a packing store encodes and decodes its kind: JSON through the kind's own serde
/// implementations, which is what the apiserver sent and what `extract_*` reads back.
struct Codec<K> {
    encode: fn(&K) -> serde_json::Result<Vec<u8>>,
    decode: Decode<K>,
    /// Whether the first object's round trip was checked.
    checked: bool,
}

type Decode<K> = fn(&[u8]) -> serde_json::Result<K>;

/// The object `held` stands for, decoded when packed. A packed object that does not decode
/// is logged and skipped: the store checked the kind's round trip on its first object, so
/// this means a kind whose serde implementations disagree for some values.
fn open<K>(decode: Option<Decode<K>>, held: &Held<K>) -> Option<Arc<K>> {
    match (held, decode) {
        (Held::Decoded(o), _) => Some(o.clone()),
        (Held::Packed(p), Some(decode)) => match decode(&p.json) {
            Ok(o) => Some(Arc::new(o)),
            Err(error) => {
                tracing::error!(key = &*p.key, %error, "a packed cached object does not decode; it is skipped");
                None
            }
        },
        (Held::Packed(_), None) => None,
    }
}

type Map<V> = HashMap<String, V, RandomState>;

/// The members of one of a store's sets.
type Members<'a, K> = Box<dyn Iterator<Item = &'a Held<K>> + 'a>;

/// Adds `object` to `sets[value]`, creating the set.
fn add_to<K: Resource>(sets: &mut Map<ObjectSet<Held<K>>>, value: &str, object: &Held<K>) {
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
fn remove_from<K: Resource>(sets: &mut Map<ObjectSet<Held<K>>>, value: &str, at: (&str, &str)) {
    if let Some(set) = sets.get_mut(value) {
        set.remove(at.0, at.1);
        if set.is_empty() {
            sets.remove(value);
        }
    }
}

struct Inner<K> {
    /// Every object, found by namespace and name in one probe.
    objects: ObjectSet<Held<K>>,
    /// The namespace index: namespace → its objects.
    namespaces: Map<ObjectSet<Held<K>>>,
    /// Custom indexers, and per indexer (same order) value → objects. An object's old
    /// index values are recomputed from the old object when it changes (as client-go
    /// does), so nothing per object is stored for them.
    indexers: Vec<(String, IndexFunc<K>)>,
    indices: Vec<Map<ObjectSet<Held<K>>>>,
    /// Set when objects are kept encoded.
    codec: Option<Codec<K>>,
    /// Read-your-writes: per cache key, the resourceVersion of a version this process wrote
    /// and [`Store::observe`]d, while the watch has not caught up with it.
    written: Map<u64>,
}

impl<K: Resource> Inner<K> {
    fn index_values(&self, object: &K) -> Vec<Vec<String>> {
        self.indexers.iter().map(|(_, f)| f(object)).collect()
    }

    /// How to decode this store's packed objects.
    fn decoder(&self) -> Option<Decode<K>> {
        self.codec.as_ref().map(|c| c.decode)
    }

    /// The object `held` stands for, decoded when packed.
    fn open(&self, held: &Held<K>) -> Option<Arc<K>> {
        open(self.decoder(), held)
    }

    /// How `object` is held: packed when this store packs and the object encodes.
    fn hold(&mut self, object: &Arc<K>) -> Held<K> {
        let Some(codec) = &mut self.codec else {
            return Held::Decoded(object.clone());
        };
        let json = match (codec.encode)(object) {
            Ok(json) => json,
            Err(error) => {
                tracing::warn!(key = &*key_of(&**object), %error, "a cached object does not encode; it is kept decoded");
                return Held::Decoded(object.clone());
            }
        };
        if !codec.checked {
            codec.checked = true;
            let again = (codec.decode)(&json).and_then(|o| (codec.encode)(&o));
            if again.as_deref().ok() != Some(&json[..]) {
                tracing::warn!(
                    kind = std::any::type_name::<K>(),
                    "the kind's JSON does not survive a decode and encode; the cache keeps its objects decoded instead of packed"
                );
                self.codec = None;
                return Held::Decoded(object.clone());
            }
        }
        Held::Packed(Arc::new(Packed {
            key: key_of(&**object).as_ref().into(),
            json: json.into_boxed_slice(),
        }))
    }

    /// Puts `object` at its place, keeping the indices current; see [`Store::replace`].
    fn put(&mut self, object: Arc<K>, want_old: bool) -> Option<Option<Arc<K>>> {
        let (namespace, name) = slot(&*object);
        // Index functions run under the lock (as client-go's do): they must be quick and
        // must not touch this store. They run before anything changes.
        let values = self.index_values(&object);
        let previous = self.objects.get(namespace, name).cloned();
        let old = match &previous {
            Some(held) if want_old || !self.indexers.is_empty() => self.open(held),
            _ => None,
        };
        let stale = match &old {
            Some(old) if !self.indexers.is_empty() => self.index_values(old),
            _ => Vec::new(),
        };
        let held = self.hold(&object);
        self.objects.put(held.clone());
        add_to(&mut self.namespaces, namespace, &held);
        for (i, index) in self.indices.iter_mut().enumerate() {
            for v in &values[i] {
                add_to(index, v, &held);
            }
            for v in stale.get(i).into_iter().flatten() {
                if !values[i].contains(v) {
                    remove_from(index, v, (namespace, name));
                }
            }
        }
        previous.map(|_| old)
    }

    fn remove(&mut self, namespace: &str, name: &str) -> Option<Arc<K>> {
        if !self.written.is_empty() {
            self.written.remove(&*join_key(namespace, name));
        }
        let held = self.objects.get(namespace, name)?.clone();
        let old = self.open(&held);
        // Index functions run before anything changes, so a panicking one leaves the
        // maps consistent.
        let values = match &old {
            Some(old) => self.index_values(old),
            None => Vec::new(),
        };
        self.objects.remove(namespace, name);
        remove_from(&mut self.namespaces, namespace, (namespace, name));
        for (values, index) in values.iter().zip(self.indices.iter_mut()) {
            for v in values {
                remove_from(index, v, (namespace, name));
            }
        }
        if old.is_none() {
            // Its index values are unknown: look for it in every index.
            for index in &mut self.indices {
                index.retain(|_, set| {
                    set.remove(namespace, name);
                    !set.is_empty()
                });
            }
        }
        old
    }
}

/// A thread-safe indexed store of `Arc<K>`.
///
/// By default objects are kept decoded, each once behind `Arc`: reads are a reference
/// count. [`Store::pack`] keeps them as JSON instead, decoded on every read, for a
/// quarter of the memory.
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
                codec: None,
                written: Map::default(),
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

    /// Keeps objects encoded as JSON and decodes them on every read: about a quarter of
    /// the memory of decoded objects (`cargo bench --bench memory`), for a decode
    /// (microseconds per object) on each `get`, `list` and index lookup, and on every
    /// replacement when the old version is asked for. `metadata.managedFields` stays in
    /// the JSON, so `extract_*` works on what is read back. Every read returns a fresh
    /// `Arc`.
    ///
    /// Only before the store holds objects (returns false after). The first object's
    /// round trip is checked: a kind whose JSON does not survive a decode and encode
    /// unchanged is kept decoded instead, with a warning.
    pub fn pack(&self) -> bool
    where
        K: serde::Serialize + serde::de::DeserializeOwned,
    {
        let mut inner = self.write();
        if !inner.objects.is_empty() {
            return false;
        }
        inner.codec = Some(Codec {
            encode: |o| serde_json::to_vec(o),
            decode: |json| serde_json::from_slice(json),
            checked: false,
        });
        true
    }

    /// Whether objects are kept encoded ([`Store::pack`]).
    pub fn is_packed(&self) -> bool {
        self.read().codec.is_some()
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
        self.replace(object, true).flatten()
    }

    /// Inserts or replaces an object without decoding the previous version when packed;
    /// returns whether there was one.
    pub fn upsert(&self, object: Arc<K>) -> bool {
        self.replace(object, false).is_some()
    }

    /// Inserts `object`. `None` when nothing was at its place; otherwise the old version
    /// when `want_old` (or when the indexers need it). A version older than one
    /// [`observe`](Self::observe)d is not stored; the observed one stays (and is the old
    /// version returned).
    fn replace(&self, object: Arc<K>, want_old: bool) -> Option<Option<Arc<K>>> {
        let mut guard = self.write();
        let inner = &mut *guard;
        if !inner.written.is_empty() {
            let (namespace, name) = slot(&*object);
            let key = join_key(namespace, name);
            if let Some(&written) = inner.written.get(&*key) {
                match resource_version(&*object) {
                    Some(rv) if rv < written => {
                        let previous = inner.objects.get(namespace, name).cloned();
                        return previous.map(|held| want_old.then(|| inner.open(&held)).flatten());
                    }
                    // The watch caught up (or the version cannot be compared).
                    _ => {
                        inner.written.remove(&*key);
                    }
                }
            }
        }
        inner.put(object, want_old)
    }

    /// Read-your-writes: puts `written`, an object as the apiserver returned it from a
    /// write of this process, into the cache when it is newer than the cached version, and
    /// keeps it there against older versions the watch may still deliver, until the watch
    /// reaches it (or the object is deleted). A read right after the write then sees at
    /// least what was written, as JOSDK guarantees and controller-runtime does not.
    ///
    /// Returns whether the cache changed. resourceVersions are compared as the integers
    /// the apiserver makes them (Kubernetes 1.35 documents them comparable); an object
    /// whose resourceVersion is not one is not taken. Handlers are not called: the
    /// informer still delivers the write's own event when the watch reaches it.
    pub fn observe(&self, written: Arc<K>) -> bool {
        let Some(rv) = resource_version(&*written) else {
            return false;
        };
        let (namespace, name) = slot(&*written);
        let mut guard = self.write();
        let inner = &mut *guard;
        let cached = inner
            .objects
            .get(namespace, name)
            .cloned()
            .and_then(|held| inner.open(&held));
        if cached.is_some_and(|c| resource_version(&*c).is_none_or(|c| c >= rv)) {
            return false;
        }
        let key = join_key(namespace, name).into_owned();
        inner.put(written, false);
        inner.written.insert(key, rv);
        true
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
        self.get_at(namespace.unwrap_or(""), name)
    }

    /// The object under a cache key.
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        let (namespace, name) = split_key(key);
        self.get_at(namespace, name)
    }

    fn get_at(&self, namespace: &str, name: &str) -> Option<Arc<K>> {
        let inner = self.read();
        let packed = match inner.objects.get(namespace, name)? {
            Held::Decoded(o) => return Some(o.clone()),
            Held::Packed(p) => Held::Packed(p.clone()),
        };
        // Decoded after the lock is released.
        let decode = inner.decoder();
        drop(inner);
        open(decode, &packed)
    }

    /// Every object the selector matches.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        self.select(|inner| Some(Box::new(inner.objects.iter())), selector)
    }

    /// The objects whose indexer `index` produced `value` (`namespace` is built in); costs
    /// in proportion to the result.
    pub fn by_index(&self, index: &str, value: &str) -> Vec<Arc<K>> {
        self.by_index_in(None, index, value)
    }

    /// [`by_index`](Self::by_index), within `namespace` when given.
    fn by_index_in(&self, namespace: Option<&str>, index: &str, value: &str) -> Vec<Arc<K>> {
        if index == NAMESPACE_INDEX {
            return match namespace {
                Some(ns) if ns != value => Vec::new(),
                _ => self.list_namespace(value, &LabelSelector::everything()),
            };
        }
        let namespace = namespace.map(str::to_owned);
        self.select(
            move |inner| {
                let i = inner.indexers.iter().position(|(n, _)| n == index)?;
                let members = inner.indices[i].get(value)?.iter();
                Some(match namespace {
                    Some(ns) => Box::new(members.filter(move |held| held.place().0 == ns)),
                    None => Box::new(members),
                })
            },
            &LabelSelector::everything(),
        )
    }

    /// The objects in `namespace` that the selector matches.
    pub fn list_namespace(&self, namespace: &str, selector: &LabelSelector) -> Vec<Arc<K>> {
        self.select(
            |inner| Some(Box::new(inner.namespaces.get(namespace)?.iter())),
            selector,
        )
    }

    /// The objects of the set `pick` finds that the selector matches. Decoded objects are
    /// filtered under the read lock; packed ones are decoded after it is released, so a
    /// long listing does not hold the informer's writes back.
    fn select(
        &self,
        pick: impl for<'a> FnOnce(&'a Inner<K>) -> Option<Members<'a, K>>,
        selector: &LabelSelector,
    ) -> Vec<Arc<K>> {
        let inner = self.read();
        let Some(members) = pick(&inner) else {
            return Vec::new();
        };
        let Some(decode) = inner.decoder() else {
            return members
                .filter_map(|held| match held {
                    Held::Decoded(o) if matches(&**o, selector) => Some(o.clone()),
                    _ => None,
                })
                .collect();
        };
        let held: Vec<Held<K>> = members.cloned().collect();
        drop(inner);
        held.iter()
            .filter_map(|h| open(Some(decode), h))
            .filter(|o| matches(&**o, selector))
            .collect()
    }

    /// Whether an object is cached at `namespace/name` (`""` for cluster-scoped kinds),
    /// without decoding it.
    pub fn contains(&self, namespace: &str, name: &str) -> bool {
        self.read().objects.get(namespace, name).is_some()
    }

    /// Every cache key (`namespace/name`, or `name`).
    pub fn keys(&self) -> Vec<Arc<str>> {
        self.read()
            .objects
            .iter()
            .map(|held| match held {
                Held::Decoded(o) => key_of(&**o),
                Held::Packed(p) => p.key.as_ref().into(),
            })
            .collect()
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

    /// Read-your-writes: makes the cache show at least `written`, what a write of this
    /// process returned ([`Store::observe`]).
    pub fn observe(&self, written: Arc<K>) -> bool {
        self.store.observe(written)
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

    /// The objects in this namespace whose indexer `index` produced `value`: a field
    /// indexer queried within a namespace, as controller-runtime's cache-backed
    /// `List(InNamespace(ns), MatchingFields{index: value})` does. Costs in proportion to
    /// the index's objects for `value`, in every namespace.
    pub fn by_index(&self, index: &str, value: &str) -> Vec<Arc<K>> {
        self.store.by_index_in(Some(self.namespace), index, value)
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
        indexes_follow_changes(Store::new());
    }

    #[test]
    fn a_packed_store_indexes_and_reads_the_same() {
        let store = Store::new();
        assert!(store.pack());
        indexes_follow_changes(store);
    }

    /// Indexes a ConfigMap by its `app` label.
    fn by_app(c: &ConfigMap) -> Vec<String> {
        c.metadata
            .labels
            .iter()
            .flat_map(|l| l.get("app").cloned())
            .collect()
    }

    fn indexes_follow_changes(store: Store<ConfigMap>) {
        let packed = store.is_packed();
        store.add_indexer("app", by_app).unwrap();
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
        let store = Arc::new(store);
        let lister = Lister::new(store.clone());
        let in_a = |index: &str, value: &str| {
            let mut found: Vec<String> = lister
                .namespace("a")
                .by_index(index, value)
                .iter()
                .map(|o| key_of(&**o).to_string())
                .collect();
            found.sort();
            found
        };
        assert_eq!(in_a("app", "api"), vec!["a/x", "a/y"]);
        assert_eq!(lister.namespace("b").by_index("app", "api").len(), 0);
        assert_eq!(in_a("app", "web"), Vec::<String>::new());
        assert_eq!(in_a(NAMESPACE_INDEX, "a").len(), 2);
        assert_eq!(in_a(NAMESPACE_INDEX, "b").len(), 0);
        assert_eq!(in_a("no such index", "api").len(), 0);
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
        assert!(store.contains("b", "x") && !store.contains("b", "y"));
        assert!(!store.pack(), "too late once the store holds objects");
        assert_eq!(store.is_packed(), packed);
        assert_eq!(
            store.add_indexer("late", |_: &ConfigMap| vec![]),
            Err(IndexerError::AlreadyStarted("late".into()))
        );
        let lister = Lister::new(store.clone());
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

    #[test]
    fn a_packed_store_gives_back_the_whole_object() {
        let object: ConfigMap = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "a", "namespace": "n", "resourceVersion": "7",
                "labels": {"app": "web"},
                "managedFields": [{"manager": "m", "operation": "Apply", "apiVersion": "v1",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:k": {}}}}]},
            "data": {"k": "v"},
        }))
        .unwrap();
        let store = Store::new();
        assert!(store.pack());
        assert!(store.insert(Arc::new(object.clone())).is_none());
        let read = store.get(Some("n"), "a").unwrap();
        assert_eq!(*read, object, "managedFields and all");
        assert!(
            !Arc::ptr_eq(&read, &store.get(Some("n"), "a").unwrap()),
            "each read decodes anew"
        );
        let mut newer = object.clone();
        newer.metadata.resource_version = Some("8".into());
        assert!(store.upsert(Arc::new(newer.clone())));
        assert_eq!(*store.insert(Arc::new(object)).unwrap(), newer);
        assert_eq!(store.keys(), vec![Arc::<str>::from("n/a")]);
        assert_eq!(
            store.remove_by_key("n/a").unwrap().metadata.name.as_deref(),
            Some("a")
        );
        assert!(store.is_empty());
    }

    /// A kind whose JSON does not survive a round trip: a counter serialized on each encode.
    #[derive(Clone, Debug, serde::Deserialize)]
    struct Drifting {
        metadata: ObjectMeta,
        #[serde(default)]
        seen: u32,
    }

    impl serde::Serialize for Drifting {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeStruct;
            let mut st = s.serialize_struct("Drifting", 2)?;
            st.serialize_field("metadata", &self.metadata)?;
            st.serialize_field("seen", &(self.seen + 1))?;
            st.end()
        }
    }

    impl Resource for Drifting {
        type DynamicType = ();
        type Scope = kube::core::NamespaceResourceScope;
        fn kind(_: &()) -> std::borrow::Cow<'_, str> {
            "Drifting".into()
        }
        fn group(_: &()) -> std::borrow::Cow<'_, str> {
            "".into()
        }
        fn version(_: &()) -> std::borrow::Cow<'_, str> {
            "v1".into()
        }
        fn plural(_: &()) -> std::borrow::Cow<'_, str> {
            "driftings".into()
        }
        fn meta(&self) -> &ObjectMeta {
            &self.metadata
        }
        fn meta_mut(&mut self) -> &mut ObjectMeta {
            &mut self.metadata
        }
    }

    #[test]
    fn a_kind_that_does_not_round_trip_stays_decoded() {
        let store = Store::new();
        assert!(store.pack());
        let object = Arc::new(Drifting {
            metadata: ObjectMeta {
                name: Some("a".into()),
                namespace: Some("n".into()),
                ..Default::default()
            },
            seen: 0,
        });
        store.insert(object.clone());
        assert!(
            !store.is_packed(),
            "the round trip check turned packing off"
        );
        let read = store.get(Some("n"), "a").unwrap();
        assert!(Arc::ptr_eq(&read, &object), "kept as it came");
        assert_eq!(read.seen, 0);
    }

    #[test]
    fn an_observed_write_holds_against_older_watch_events() {
        for packed in [false, true] {
            let store = Arc::new(Store::new());
            store.add_indexer("app", by_app).unwrap();
            assert!(!packed || store.pack());
            check_observe(store);
        }
    }

    fn check_observe(store: Arc<Store<ConfigMap>>) {
        use crate::informer::Processor;
        use kube::runtime::watcher::Event;
        let at = |rv: &str, app: &str| {
            let mut o = (*cm("a", "x", app)).clone();
            o.metadata.resource_version = Some(rv.into());
            o
        };
        let mut p = Processor::new(store.clone());
        p.apply(Event::Apply(at("10", "web")));
        // This process wrote version 12; the watch has delivered only 10.
        assert!(store.observe(Arc::new(at("12", "api"))));
        assert!(
            !store.observe(Arc::new(at("11", "old"))),
            "older than cached"
        );
        let rv = |s: &Store<ConfigMap>| {
            s.get(Some("a"), "x")
                .unwrap()
                .metadata
                .resource_version
                .clone()
        };
        assert_eq!(rv(&store).as_deref(), Some("12"));
        assert_eq!(store.by_index("app", "api").len(), 1);
        assert!(store.by_index("app", "web").is_empty());
        // Version 11, an earlier write the watch still delivers, does not hide 12.
        p.apply(Event::Apply(at("11", "other")));
        assert_eq!(rv(&store).as_deref(), Some("12"));
        assert!(store.by_index("app", "other").is_empty());
        // The watch reaches 12: the hold ends, later versions replace it as usual.
        p.apply(Event::Apply(at("12", "api")));
        p.apply(Event::Apply(at("13", "web")));
        assert_eq!(rv(&store).as_deref(), Some("13"));
        assert_eq!(store.by_index("app", "web").len(), 1);
        // A deletion ends a hold too.
        assert!(store.observe(Arc::new(at("20", "api"))));
        p.apply(Event::Delete(at("14", "web")));
        assert!(store.get(Some("a"), "x").is_none());
        p.apply(Event::Apply(at("5", "recreated")));
        assert_eq!(
            rv(&store).as_deref(),
            Some("5"),
            "no hold after the deletion"
        );
        let mut opaque = at("x1", "web");
        opaque.metadata.name = Some("y".into());
        assert!(
            !store.observe(Arc::new(opaque)),
            "not a comparable resourceVersion"
        );
    }
}
