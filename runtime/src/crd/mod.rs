//! Assembling CustomResourceDefinitions, merging the versions of one kind into one CRD, and
//! installing them on a cluster.
//!
//! Every kind has `crd()` (its CRD, with every version of it registered in the binary) and
//! `INFO`, what the derive knows of one version. [`build`] merges chosen versions into one
//! CRD, [`validate`] runs the apiserver's checks on a CRD (structural schema, CEL cost,
//! names), and `crdgen` prints what [`registry::crds`](crate::registry::crds) builds from
//! every registered kind: all of that is kubegen-core's ([`kubegen_core::crd`]), re-exported
//! here. What needs a cluster is here: [`install_crds`] creates or updates CRDs and waits
//! until they are established, and [`migrate_storage_version`] moves stored objects to a new
//! storage version.

#[doc(inline)]
pub use kubegen_core::crd::*;

mod install;
mod migrate;

pub use install::{InstallError, install, install_crds, is_established};
pub use migrate::{MigrateError, Migration, migrate_storage_version};
