//! The conformance cases, by area.

mod apply_sequences;
mod builtin_kinds;
mod builtins;
mod cel;
mod cel_probes;
mod cel_updates;
mod collections;
mod decoding;
mod deletion;
mod http;
mod ownership;
mod patterns;
mod reads;
mod registry;
mod scalars;
mod selectors;
mod serde_reads;
mod unions;
mod versions;
mod writes;

use serde_json::{Value, json};

use crate::conformance::script::{Case, Res};

const GROUP: &str = "conformance.kubegen.dev";

/// Built-in resources more than one area's cases use.
pub const CONFIGMAPS: Res = Res::new("", "v1", "configmaps", true);
pub const SERVICE_ACCOUNTS: Res = Res::new("", "v1", "serviceaccounts", true);
pub const DEPLOYMENTS: Res = Res::new("apps", "v1", "deployments", true);

pub const SCALARS: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "scalars",
    namespaced: true,
};
pub const COLLECTIONS: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "collections",
    namespaced: true,
};
pub const UNIONS: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "unions",
    namespaced: true,
};
pub const RULEDS: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "ruleds",
    namespaced: true,
};
pub const READINGS: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "readings",
    namespaced: true,
};
pub const GLOBALS: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "globals",
    namespaced: false,
};

/// An object named `name` with `spec`.
pub fn object(name: &str, spec: Value) -> Value {
    json!({"metadata": {"name": name}, "spec": spec})
}

/// A case that creates one Scalar with `spec`.
pub fn scalar(case: &str, spec: Value) -> Case {
    Case::new(case).create(SCALARS, "Scalar", object("s", spec))
}

/// A case named `name` creating one object per spec (`o0`, `o1`, ...), each followed by its GET.
pub fn creates(name: &str, r: Res, kind: &str, specs: Vec<Value>) -> Case {
    specs
        .into_iter()
        .enumerate()
        .fold(Case::new(name), |c, (i, spec)| {
            c.create(r, kind, object(&format!("o{i}"), spec))
        })
}

/// Every case, in a stable order.
pub fn all() -> Vec<Case> {
    [
        scalars::cases(),
        collections::cases(),
        unions::cases(),
        serde_reads::cases(),
        writes::cases(),
        reads::cases(),
        selectors::cases(),
        ownership::cases(),
        apply_sequences::cases(),
        cel::cases(),
        cel_probes::cases(),
        cel_updates::cases(),
        builtins::cases(),
        versions::cases(),
        patterns::cases(),
        http::cases(),
        decoding::cases(),
        registry::cases(),
        builtin_kinds::cases(),
        deletion::cases(),
    ]
    .concat()
}
