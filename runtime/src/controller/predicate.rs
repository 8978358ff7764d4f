//! Which events of a watched kind reach the work queue (controller-runtime's predicates).
//!
//! A [`Predicate`] looks at each create, update and delete an informer delivers, before the
//! event becomes a key, and says whether it should. A controller takes predicates for its
//! own kind ([`Controller::with_predicate`](super::Controller::with_predicate)), for what it
//! owns ([`owns_with`](super::Controller::owns_with)) and for what it watches
//! ([`watches_with`](super::Controller::watches_with)); several on one source must all
//! agree. The objects of the informer's first list arrive as creates, as in
//! controller-runtime.
//!
//! The usual ones are here, typed for any kind: [`GenerationChanged`] (spec changes of a
//! kind with a status subresource, where status writes leave `metadata.generation` alone),
//! [`LabelChanged`], [`AnnotationChanged`], [`ResourceVersionChanged`] and [`Labels`]
//! (objects a label selector matches); [`Funcs`] makes one from closures, and
//! [`PredicateExt`] combines them with `and`, `or` and `not`.
//!
//! ```
//! use k8s_openapi::api::apps::v1::Deployment;
//! use kubegen_runtime::controller::predicate::{
//!     AnnotationChanged, GenerationChanged, Predicate, PredicateExt,
//! };
//!
//! // Spec or annotation changes; status writes are skipped.
//! let changed = GenerationChanged.or(AnnotationChanged);
//! let mut before = Deployment::default();
//! before.metadata.generation = Some(1);
//! let mut status_written = before.clone();
//! status_written.status = Some(Default::default());
//! assert!(!Predicate::<Deployment>::update(&changed, &before, &status_written));
//! let mut scaled = before.clone();
//! scaled.metadata.generation = Some(2);
//! assert!(Predicate::<Deployment>::update(&changed, &before, &scaled));
//! ```

use std::sync::Arc;

use kube::Resource;

use crate::selector::LabelSelector;

/// Decides which events of kind `K` are reconciled. Each method answers for one kind of
/// event; unless overridden, every event passes.
pub trait Predicate<K>: Send + Sync + 'static {
    /// An object added: created, or found by the informer's list.
    fn create(&self, object: &K) -> bool {
        let _ = object;
        true
    }

    /// An object changed from `old` to `new`.
    fn update(&self, old: &K, new: &K) -> bool {
        let _ = (old, new);
        true
    }

    /// An object deleted, as last seen.
    fn delete(&self, object: &K) -> bool {
        let _ = object;
        true
    }
}

/// Updates whose `metadata.generation` changed; creates and deletes pass. The apiserver
/// bumps the generation on spec changes (and deletion marks) only, so for kinds with a
/// status subresource this skips status writes and metadata-only changes
/// (controller-runtime's `GenerationChangedPredicate`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GenerationChanged;

impl<K: Resource> Predicate<K> for GenerationChanged {
    fn update(&self, old: &K, new: &K) -> bool {
        old.meta().generation != new.meta().generation
    }
}

/// Updates whose labels changed; creates and deletes pass. No labels and an empty set of
/// labels count as different, as Go's `reflect.DeepEqual` has them
/// (controller-runtime's `LabelChangedPredicate`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LabelChanged;

impl<K: Resource> Predicate<K> for LabelChanged {
    fn update(&self, old: &K, new: &K) -> bool {
        old.meta().labels != new.meta().labels
    }
}

/// Updates whose annotations changed; creates and deletes pass. No annotations and an
/// empty set count as different (controller-runtime's `AnnotationChangedPredicate`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AnnotationChanged;

impl<K: Resource> Predicate<K> for AnnotationChanged {
    fn update(&self, old: &K, new: &K) -> bool {
        old.meta().annotations != new.meta().annotations
    }
}

/// Updates whose `metadata.resourceVersion` changed, which skips the informer's resyncs
/// (the same object delivered again); creates and deletes pass
/// (controller-runtime's `ResourceVersionChangedPredicate`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ResourceVersionChanged;

impl<K: Resource> Predicate<K> for ResourceVersionChanged {
    fn update(&self, old: &K, new: &K) -> bool {
        old.meta().resource_version != new.meta().resource_version
    }
}

/// Objects whose labels a selector matches: a create or delete of a matching object, an
/// update whose new object matches (controller-runtime's `LabelSelectorPredicate`).
#[derive(Clone, Debug)]
pub struct Labels(LabelSelector);

impl Labels {
    /// Events of objects `selector` matches.
    pub fn new(selector: LabelSelector) -> Self {
        Labels(selector)
    }

    fn matches<K: Resource>(&self, object: &K) -> bool {
        static NONE: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
        self.0
            .matches(object.meta().labels.as_ref().unwrap_or(&NONE))
    }
}

impl<K: Resource> Predicate<K> for Labels {
    fn create(&self, object: &K) -> bool {
        self.matches(object)
    }

    fn update(&self, _old: &K, new: &K) -> bool {
        self.matches(new)
    }

    fn delete(&self, object: &K) -> bool {
        self.matches(object)
    }
}

type Check<K> = Arc<dyn Fn(&K) -> bool + Send + Sync>;
type UpdateCheck<K> = Arc<dyn Fn(&K, &K) -> bool + Send + Sync>;

/// A predicate made of closures, one per kind of event; events without one pass
/// (controller-runtime's `Funcs`).
///
/// ```
/// # use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen_runtime::controller::predicate::Funcs;
///
/// // Only ConfigMaps with data, and no deletes.
/// let filter = Funcs::<ConfigMap>::new()
///     .create(|c| c.data.is_some())
///     .update(|_, new| new.data.is_some())
///     .delete(|_| false);
/// # let _ = filter;
/// ```
pub struct Funcs<K> {
    create: Option<Check<K>>,
    update: Option<UpdateCheck<K>>,
    delete: Option<Check<K>>,
}

impl<K> Funcs<K> {
    /// A predicate every event passes, until closures are given.
    pub fn new() -> Self {
        Funcs {
            create: None,
            update: None,
            delete: None,
        }
    }

    /// Creates pass when `check` holds.
    pub fn create(mut self, check: impl Fn(&K) -> bool + Send + Sync + 'static) -> Self {
        self.create = Some(Arc::new(check));
        self
    }

    /// Updates pass when `check(old, new)` holds.
    pub fn update(mut self, check: impl Fn(&K, &K) -> bool + Send + Sync + 'static) -> Self {
        self.update = Some(Arc::new(check));
        self
    }

    /// Deletes pass when `check` holds.
    pub fn delete(mut self, check: impl Fn(&K) -> bool + Send + Sync + 'static) -> Self {
        self.delete = Some(Arc::new(check));
        self
    }
}

impl<K> Default for Funcs<K> {
    fn default() -> Self {
        Funcs::new()
    }
}

impl<K> Clone for Funcs<K> {
    fn clone(&self) -> Self {
        Funcs {
            create: self.create.clone(),
            update: self.update.clone(),
            delete: self.delete.clone(),
        }
    }
}

impl<K: 'static> Predicate<K> for Funcs<K> {
    fn create(&self, object: &K) -> bool {
        self.create.as_ref().is_none_or(|check| check(object))
    }

    fn update(&self, old: &K, new: &K) -> bool {
        self.update.as_ref().is_none_or(|check| check(old, new))
    }

    fn delete(&self, object: &K) -> bool {
        self.delete.as_ref().is_none_or(|check| check(object))
    }
}

/// Events both predicates pass (from [`PredicateExt::and`]).
#[derive(Clone, Copy, Debug)]
pub struct And<A, B>(A, B);

/// Events either predicate passes (from [`PredicateExt::or`]).
#[derive(Clone, Copy, Debug)]
pub struct Or<A, B>(A, B);

/// Events the predicate refuses (from [`PredicateExt::not`]).
#[derive(Clone, Copy, Debug)]
pub struct Not<A>(A);

impl<K, A: Predicate<K>, B: Predicate<K>> Predicate<K> for And<A, B> {
    fn create(&self, object: &K) -> bool {
        self.0.create(object) && self.1.create(object)
    }

    fn update(&self, old: &K, new: &K) -> bool {
        self.0.update(old, new) && self.1.update(old, new)
    }

    fn delete(&self, object: &K) -> bool {
        self.0.delete(object) && self.1.delete(object)
    }
}

impl<K, A: Predicate<K>, B: Predicate<K>> Predicate<K> for Or<A, B> {
    fn create(&self, object: &K) -> bool {
        self.0.create(object) || self.1.create(object)
    }

    fn update(&self, old: &K, new: &K) -> bool {
        self.0.update(old, new) || self.1.update(old, new)
    }

    fn delete(&self, object: &K) -> bool {
        self.0.delete(object) || self.1.delete(object)
    }
}

impl<K, A: Predicate<K>> Predicate<K> for Not<A> {
    fn create(&self, object: &K) -> bool {
        !self.0.create(object)
    }

    fn update(&self, old: &K, new: &K) -> bool {
        !self.0.update(old, new)
    }

    fn delete(&self, object: &K) -> bool {
        !self.0.delete(object)
    }
}

/// Combinators for every predicate (controller-runtime's `And`, `Or` and `Not`).
pub trait PredicateExt: Sized {
    /// Events this and `other` both pass.
    fn and<B>(self, other: B) -> And<Self, B> {
        And(self, other)
    }

    /// Events this or `other` passes.
    fn or<B>(self, other: B) -> Or<Self, B> {
        Or(self, other)
    }

    /// Events this refuses.
    fn not(self) -> Not<Self> {
        Not(self)
    }
}

impl<P> PredicateExt for P {}

/// The predicates of one source, all of which must pass.
pub(super) struct Predicates<K>(Vec<Arc<dyn Predicate<K>>>);

impl<K: 'static> Predicates<K> {
    pub(super) fn new() -> Self {
        Predicates(Vec::new())
    }

    pub(super) fn push(&mut self, predicate: impl Predicate<K>) {
        self.0.push(Arc::new(predicate));
    }

    pub(super) fn create(&self, object: &K) -> bool {
        self.0.iter().all(|p| p.create(object))
    }

    pub(super) fn update(&self, old: &K, new: &K) -> bool {
        self.0.iter().all(|p| p.update(old, new))
    }

    pub(super) fn delete(&self, object: &K) -> bool {
        self.0.iter().all(|p| p.delete(object))
    }
}

impl<K> Clone for Predicates<K> {
    fn clone(&self) -> Self {
        Predicates(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selector::LabelSelector;
    use k8s_openapi::api::core::v1::ConfigMap;
    use std::collections::BTreeMap;

    fn map(generation: Option<i64>, labels: Option<&[(&str, &str)]>) -> ConfigMap {
        let mut c = ConfigMap::default();
        c.metadata.generation = generation;
        c.metadata.labels = labels.map(|l| {
            l.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        });
        c
    }

    #[test]
    fn the_change_predicates_look_at_updates_only() {
        let a = map(Some(1), None);
        let b = map(Some(2), None);
        assert!(Predicate::<ConfigMap>::update(&GenerationChanged, &a, &b));
        assert!(!Predicate::<ConfigMap>::update(&GenerationChanged, &a, &a));
        assert!(Predicate::<ConfigMap>::create(&GenerationChanged, &a));
        assert!(Predicate::<ConfigMap>::delete(&GenerationChanged, &a));
        // No labels and empty labels differ, as DeepEqual has them.
        let empty = map(Some(1), Some(&[]));
        assert!(Predicate::<ConfigMap>::update(&LabelChanged, &a, &empty));
        assert!(!Predicate::<ConfigMap>::update(
            &LabelChanged,
            &empty,
            &empty.clone()
        ));
        let mut annotated = a.clone();
        annotated.metadata.annotations = Some(BTreeMap::from([("k".into(), "v".into())]));
        assert!(Predicate::<ConfigMap>::update(
            &AnnotationChanged,
            &a,
            &annotated
        ));
        assert!(!Predicate::<ConfigMap>::update(&AnnotationChanged, &a, &b));
        let mut rv = a.clone();
        rv.metadata.resource_version = Some("7".into());
        assert!(Predicate::<ConfigMap>::update(
            &ResourceVersionChanged,
            &a,
            &rv
        ));
        assert!(!Predicate::<ConfigMap>::update(
            &ResourceVersionChanged,
            &rv,
            &rv.clone()
        ));
    }

    #[test]
    fn combinators_and_selectors_decide_every_kind_of_event() {
        let app = map(Some(1), Some(&[("app", "web")]));
        let other = map(Some(2), Some(&[("app", "db")]));
        let web = Labels::new(LabelSelector::parse("app=web").expect("a selector"));
        assert!(Predicate::<ConfigMap>::create(&web, &app));
        assert!(!Predicate::<ConfigMap>::delete(&web, &other));
        assert!(!Predicate::<ConfigMap>::update(&web, &app, &other));
        assert!(Predicate::<ConfigMap>::update(&web, &other, &app));
        let both = web.clone().and(GenerationChanged);
        assert!(!Predicate::<ConfigMap>::update(&both, &app, &app.clone()));
        let either = web.clone().or(GenerationChanged);
        assert!(Predicate::<ConfigMap>::update(&either, &app, &other));
        let neither = either.not();
        assert!(!Predicate::<ConfigMap>::update(&neither, &app, &other));
        assert!(!Predicate::<ConfigMap>::create(&neither, &app));
        let funcs = Funcs::<ConfigMap>::new().delete(|_| false);
        assert!(Predicate::create(&funcs, &app));
        assert!(Predicate::update(&funcs, &app, &other));
        assert!(!Predicate::delete(&funcs, &app));
        let mut all = Predicates::new();
        all.push(GenerationChanged);
        all.push(Funcs::<ConfigMap>::new().update(|_, new| new.metadata.generation == Some(2)));
        assert!(all.update(&app, &other));
        assert!(!all.update(&other, &app));
    }
}
