//! What the garbage collector knows of objects and their references: an object's
//! coordinates as a reference names them, a reference, the deletion marks a change carries,
//! and the owners known to be absent.

use std::collections::{HashSet, VecDeque};

use serde_json::Value;

/// The finalizers the garbage collector acts on.
pub(super) const ORPHAN: &str = "orphan";
pub(super) const FOREGROUND: &str = "foregroundDeletion";

/// How many owners known to be absent are remembered (`absentOwnerCache`).
const ABSENT_CAPACITY: usize = 500;

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
#[derive(Default)]
pub(super) struct AbsentOwners {
    order: VecDeque<Identity>,
    known: HashSet<Identity>,
}

impl AbsentOwners {
    pub(super) fn add(&mut self, identity: Identity) {
        if self.known.contains(&identity) {
            self.touch(&identity);
            return;
        }
        if self.order.len() >= ABSENT_CAPACITY
            && let Some(oldest) = self.order.pop_front()
        {
            self.known.remove(&oldest);
        }
        self.known.insert(identity.clone());
        self.order.push_back(identity);
    }

    pub(super) fn has(&mut self, identity: &Identity) -> bool {
        let known = self.known.contains(identity);
        if known {
            self.touch(identity);
        }
        known
    }

    fn touch(&mut self, identity: &Identity) {
        if let Some(i) = self.order.iter().position(|x| x == identity)
            && let Some(id) = self.order.remove(i)
        {
            self.order.push_back(id);
        }
    }
}
