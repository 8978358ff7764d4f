//! register-gen: every generated kind registers its [`ResourceInfo`] at link time.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::crd::{self, CrdError};
use crate::resource::ResourceInfo;

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
    let mut kinds: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for info in registered() {
        kinds.entry((info.group, info.kind)).or_default().push(info);
    }
    kinds
}

/// One CRD per registered group/kind, versions merged, ordered by CRD name. Every kind
/// that fails is reported, not just the first.
pub fn crds() -> Result<Vec<CustomResourceDefinition>, CrdError> {
    let mut crds = Vec::new();
    let mut errors = Vec::new();
    for versions in by_kind().values() {
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
