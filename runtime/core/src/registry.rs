//! register-gen: every generated kind registers its [`ResourceInfo`] at link time.
//!
//! A binary's registry is every kind version derived in it or in the crates it links
//! (except those marked `#[resource(register = false)]`). `crdgen` prints
//! [`crds`] of it; `Envtest` and the in-memory server install it when a test names no kinds
//! of its own. Use it to list or install "everything this operator defines" without naming
//! each kind.
//!
//! ```
//! # mod api {
//! #     use kubegen::prelude::*;
//! #     #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #     #[resource(group = "registry.example.com", version = "v1", kind = "Widget")]
//! #     pub struct WidgetSpec {
//! #         pub size: i32,
//! #     }
//! # }
//! let kinds: Vec<String> = kubegen::registry::registered().iter().map(|i| i.crd_name()).collect();
//! assert!(kinds.contains(&"widgets.registry.example.com".to_string()));
//! let crds = kubegen::registry::crds().unwrap(); // one per kind, versions merged
//! assert!(crds.iter().any(|c| c.spec.names.kind == "Widget"));
//! ```

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::crd_build::{self as crd, CrdError};
use crate::kind_info::ResourceInfo;

/// A kind's entry in the process-wide registry (submitted by generated code).
#[doc(hidden)]
pub struct Registration(pub &'static ResourceInfo);

inventory::collect!(Registration);

/// Every registered kind version, ordered by group, kind and version.
pub fn registered() -> Vec<&'static ResourceInfo> {
    let mut all: Vec<&'static ResourceInfo> = inventory::iter::<Registration>
        .into_iter()
        .map(|r| r.0)
        .collect();
    all.sort_by(|a, b| (a.group, a.kind, a.version).cmp(&(b.group, b.kind, b.version)));
    all
}

/// The registered versions grouped by (group, kind): one entry per CRD.
pub fn by_kind() -> BTreeMap<(&'static str, &'static str), Vec<&'static ResourceInfo>> {
    group(registered())
}

/// `versions` grouped by (group, kind), each group in the order given.
fn group(
    versions: impl IntoIterator<Item = &'static ResourceInfo>,
) -> BTreeMap<(&'static str, &'static str), Vec<&'static ResourceInfo>> {
    let mut kinds: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for info in versions {
        kinds.entry((info.group, info.kind)).or_default().push(info);
    }
    kinds
}

/// One CRD per registered group/kind, versions merged, ordered by CRD name: what `crdgen`
/// prints. Every kind that fails is reported, not just the first.
pub fn crds() -> Result<Vec<CustomResourceDefinition>, CrdError> {
    crds_of(registered())
}

/// [`crds`] of the given kind versions instead of the registered ones (those of several
/// kinds, in any order), for a program that picks its kinds itself.
pub fn crds_of(
    versions: impl IntoIterator<Item = &'static ResourceInfo>,
) -> Result<Vec<CustomResourceDefinition>, CrdError> {
    let mut crds = Vec::new();
    let mut errors = Vec::new();
    for versions in group(versions).values() {
        match crd::build(versions) {
            Ok(crd) => crds.push(crd),
            Err(e) => errors.push(e),
        }
    }
    match errors.len() {
        0 => {}
        1 => return Err(errors.remove(0)),
        _ => return Err(CrdError::Several(errors)),
    }
    crds.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    for pair in crds.windows(2) {
        if pair[0].metadata.name == pair[1].metadata.name {
            return Err(CrdError::Conflict {
                crd: pair[0].metadata.name.clone().unwrap_or_default(),
                what: "the CRD name",
                detail: format!(
                    "kinds {} and {} share plural and group; give one a different `plural`",
                    pair[0].spec.names.kind, pair[1].spec.names.kind
                ),
            });
        }
    }
    Ok(crds)
}
