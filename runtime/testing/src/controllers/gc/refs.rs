//! What the garbage collector knows of objects and their references: an object's
//! coordinates as a reference names them, a reference, the deletion marks a change carries,
//! and the owners known to be absent.

use std::num::NonZeroUsize;

use lru::LruCache;

use serde_json::Value;

/// The finalizers the garbage collector acts on.
pub(super) const ORPHAN: &str = "orphan";
pub(super) const FOREGROUND: &str = "foregroundDeletion";

/// How many owners known to be absent are remembered (`absentOwnerCache`).
const ABSENT_CAPACITY: NonZeroUsize = NonZeroUsize::new(500).unwrap();

/// An object's coordinates as an ownerReference names them, with a namespace (`""` for a
/// cluster-scoped object, or for an owner known to be one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Identity {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    pub namespace: String,
}

impl Identity {
    /// The coordinates `reference` names, in `namespace`.
    pub(super) fn of_reference(reference: &OwnerRef, namespace: &str) -> Self {
        Identity {
            api_version: reference.api_version.clone(),
            kind: reference.kind.clone(),
            name: reference.name.clone(),
            uid: reference.uid.clone(),
            namespace: namespace.to_owned(),
        }
    }

    /// Whether `reference` names exactly these coordinates (`ownerReferenceMatchesCoordinates`).
    pub(super) fn matches(&self, reference: &OwnerRef) -> bool {
        self.uid == reference.uid
            && self.name == reference.name
            && self.kind == reference.kind
            && self.api_version == reference.api_version
    }

    /// The order `getAlternateOwnerIdentity` picks identities in: kind, apiVersion,
    /// namespace, name, uid.
    pub(super) fn order_key(&self) -> (&str, &str, &str, &str, &str) {
        (
            &self.kind,
            &self.api_version,
            &self.namespace,
            &self.name,
            &self.uid,
        )
    }
}

impl std::fmt::Display for Identity {
    /// As `objectReference.String()` prints it, in logs and the event's message.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{}/{}, namespace: {}, name: {}, uid: {}]",
            self.api_version, self.kind, self.namespace, self.name, self.uid
        )
    }
}

/// One ownerReference of an object, as it was written.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct OwnerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    pub block_owner_deletion: Option<bool>,
    /// The reference as the object holds it (for patches that write references back).
    pub raw: Value,
}

impl OwnerRef {
    /// The references of `object`, in order.
    pub(super) fn all_of(object: &Value) -> Vec<OwnerRef> {
        object["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                let text = |k: &str| r[k].as_str().unwrap_or("").to_owned();
                OwnerRef {
                    api_version: text("apiVersion"),
                    kind: text("kind"),
                    name: text("name"),
                    uid: text("uid"),
                    block_owner_deletion: r["blockOwnerDeletion"].as_bool(),
                    raw: r.clone(),
                }
            })
            .collect()
    }

    pub(super) fn blocks(&self) -> bool {
        self.block_owner_deletion == Some(true)
    }
}

/// The deletion state of an object a change carries.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks {
    pub being_deleted: bool,
    pub orphan: bool,
    pub foreground: bool,
}

impl Marks {
    pub(super) fn of(object: &Value) -> Self {
        let meta = &object["metadata"];
        let has = |f: &str| {
            meta["finalizers"]
                .as_array()
                .is_some_and(|all| all.iter().any(|x| x == f))
        };
        Marks {
            being_deleted: meta["deletionTimestamp"].is_string(),
            orphan: has(ORPHAN),
            foreground: has(FOREGROUND),
        }
    }
}

/// The identities known not to exist, the least recently used forgotten first.
pub(super) struct AbsentOwners(LruCache<Identity, ()>);

impl Default for AbsentOwners {
    fn default() -> Self {
        AbsentOwners(LruCache::new(ABSENT_CAPACITY))
    }
}

impl AbsentOwners {
    /// Remembers `identity` as the most recently used, forgetting the least recently used
    /// one when full.
    pub(super) fn add(&mut self, identity: Identity) {
        self.0.put(identity, ());
    }

    /// Whether `identity` is known to be absent; a known one becomes the most recently used,
    /// as `absentOwnerCache.Has` does.
    pub(super) fn has(&mut self, identity: &Identity) -> bool {
        self.0.get(identity).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(n: usize) -> Identity {
        Identity {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: format!("owner-{n}"),
            uid: format!("uid-{n}"),
            namespace: "default".into(),
        }
    }

    #[test]
    fn absent_owners_forget_the_least_recently_used_first() {
        let mut absent = AbsentOwners::default();
        let full = ABSENT_CAPACITY.get();
        for n in 0..full {
            absent.add(owner(n));
        }
        // Looking owner 0 up makes it the most recently used; adding owner 1 again does too.
        assert!(absent.has(&owner(0)));
        absent.add(owner(1));
        absent.add(owner(full));
        absent.add(owner(full + 1));
        assert!(absent.has(&owner(0)) && absent.has(&owner(1)));
        assert!(!absent.has(&owner(2)) && !absent.has(&owner(3)));
        assert!(absent.has(&owner(4)) && absent.has(&owner(full + 1)));
        assert!(!absent.has(&owner(full + 2)));
    }
}
