//! `metadata.managedFields`: who owns which fields of an object, and the field manager that
//! keeps it up to date on every write, as the apiserver does.
//!
//! - [`ManagedFields`]: the decoded entries, keyed by manager identifier (the manager's name,
//!   operation, subresource, and for Update operations the apiVersion), with their field sets
//!   and times; [`ManagedFields::decode`] and [`ManagedFields::encode`] read and write the
//!   `managedFields` list in the apiserver's order.
//! - [`Updater`]: structured-merge-diff's updater: the fields an Update takes, and the apply
//!   merge with conflicts, `force`, and removal of fields a manager stopped applying.
//! - [`FieldManager`]: the apiserver's chain around it for one resource (and subresource):
//!   manager names, `before-first-apply`, fields never owned, fields a subresource resets, at
//!   most ten Update entries, times.
//! - [`ScaleHandler`]: ownership of the replicas field through the scale subresource.
//! - [`extract`]: the part of an object one applier owns, as a configuration it could apply.

mod conflict;
mod entries;
mod extract;
mod field_manager;
mod last_applied;
mod scale;
mod updater;

pub use conflict::{Conflict, Conflicts};
pub use entries::{ManagedFields, ManagedFieldsError, ManagerId, Operation, VersionedSet};
pub use extract::{ExtractFieldsError, extract};
pub use field_manager::{
    ApplyError, FieldManager, MAX_MANAGER_LENGTH, MAX_UPDATE_MANAGERS, manager_from_user_agent,
};
pub use last_applied::LAST_APPLIED;
pub use scale::{SCALE_API_VERSION, ScaleHandler};
pub use updater::{Convert, TrackError, Updater, relabel};

#[cfg(test)]
mod tests;
