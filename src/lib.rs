//! # kubegen
//!
//! Define Kubernetes APIs in Rust. One derive on a spec struct generates what Go's
//! code-generator and kubebuilder's controller-gen produce: the kind type and its list,
//! a CustomResourceDefinition with a structural OpenAPI v3 schema, deep-copy, defaulting,
//! a typed client (`client.cron_jobs("ns")`), a lister over a shared indexed cache, an
//! informer accessor on `informer::SharedInformerFactory`, and a registry that `crdgen`
//! prints from. With the `testing` feature, `testing::ApiServer` is an in-memory API server
//! to run all of it against; with `envtest`, `testing::Envtest` runs a real kube-apiserver.
//! The clients, listers, informers and controllers are the `runtime` feature's, on by
//! default; a crate that only defines an API can leave it out (`default-features = false`)
//! and keeps everything else the derives give.
//!
//! ```
//! use kubegen::prelude::*;
//!
//! /// A Widget is a thing with a size.
//! #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #[resource(group = "example.com", version = "v1", kind = "Widget", shortname = "wd")]
//! #[serde(rename_all = "camelCase")]
//! pub struct WidgetSpec {
//!     /// How big it is.
//!     #[validate(minimum = 1, maximum = 10)]
//!     #[default(3)]
//!     pub size: Option<i32>,
//! }
//!
//! let mut widget = Widget::new("w", WidgetSpec { size: None });
//! widget.set_defaults();
//! assert_eq!(widget.spec.size, Some(3));
//!
//! let crd = Widget::crd().unwrap();
//! assert_eq!(crd.metadata.name.as_deref(), Some("widgets.example.com"));
//! ```
//!
//! The guide (`docs/src/kinds.md` in the repository) lists every `#[resource]` key and marker.
//!
//! This crate re-exports, at stable paths, crates split where I/O starts:
//! [`kubegen_core`](https://docs.rs/kubegen-core) (kinds, schemas, CRDs, validation and CEL,
//! field paths, conversion, apply configurations, RBAC; no tokio or hyper),
//! [`kubegen_runtime`](https://docs.rs/kubegen-runtime) (clients, caches, informers,
//! controllers, the Manager, webhooks), [`kubegen_testing`](https://docs.rs/kubegen-testing)
//! (the `testing` feature), `kubegen_derive` and `kubegen_go` (Go's regexp, JSON and YAML as
//! the apiserver has them). Depend on `kubegen` alone.

// docs.rs (and CI's docs build) mark what each feature gates.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use kubegen_derive::{ApiType, CustomResource};

// `crd` is kubegen-core's (building, merging and checking CRDs), with the runtime's installing
// and migrating added when the `runtime` feature is on.
#[cfg(not(feature = "runtime"))]
pub use kubegen_core::crd;
pub use kubegen_core::{
    ApiFields, CrdError, CustomResource, DeepCopy, Defaults, FieldInfo, List, PrinterColumn,
    ResourceInfo, ScaleInfo, Scope, apply, convert, crdgen, fieldpath, rbac, registry, schema,
    selector, validation,
};
/// Runs an `async fn name(env: testing::TestEnv)` test on every backend: as `name::in_memory`
/// on the in-memory server, and as `name::on_apiserver` on the real apiserver that
/// `KUBEGEN_TEST_KUBECONFIG` or `KUBEBUILDER_ASSETS` configures (it passes without running
/// when neither is set). Each test gets a namespace of its own, created on either backend.
/// `#[kubegen::test(in_memory)]` makes only the first, for tests that inject faults;
/// `#[kubegen::test(controllers)]` gives the test a cluster that does what
/// kube-controller-manager does (garbage collection, namespace deletion, the workload
/// controllers) and a kubelet that runs its Pods, on every backend;
/// `#[kubegen::test(setup = f)]` (also with `in_memory`) runs `fn f(&mut testing::TestSetup)`
/// to describe the server the test needs — kinds, further namespaces, seed objects, hooks on
/// the in-memory server — applied on every backend. See [`testing::backend`].
#[cfg(feature = "testing")]
pub use kubegen_derive::test;
#[cfg(feature = "runtime")]
pub use kubegen_runtime::crd;
#[cfg(feature = "runtime")]
pub use kubegen_runtime::{
    builtin, cache, client, controller, events, informer, leaderelection, metrics, workqueue,
};

/// The in-memory API server for tests (feature `testing`), and `Envtest`, a real etcd +
/// kube-apiserver from `KUBEBUILDER_ASSETS` (feature `envtest`).
#[cfg(feature = "testing")]
#[doc(inline)]
pub use kubegen_testing as testing;

/// The Manager: cache, controllers, leader election, metrics and health endpoints, events,
/// graceful shutdown (feature `manager`).
#[cfg(feature = "manager")]
pub use kubegen_runtime::manager;

/// The HTTPS server for conversion and admission webhooks (feature `webhook`).
#[cfg(feature = "webhook")]
pub use kubegen_runtime::webhook;

/// Everything a file defining an API needs: the derives, kubegen's traits, and serde's and
/// schemars' derive-facing names.
pub mod prelude {
    pub use crate::{ApiType, CustomResource};
    pub use kubegen_core::apply::ObjectConfiguration as _;
    pub use kubegen_core::validation::Validate;
    pub use kubegen_core::{DeepCopy, Defaults};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

#[doc(hidden)]
#[cfg(not(feature = "runtime"))]
pub use kubegen_core::__private;
#[doc(hidden)]
#[cfg(feature = "runtime")]
pub use kubegen_runtime::__private;

/// What the derives wrap their client, lister and informer code in: the code itself with the
/// `runtime` feature, nothing without it. Not a public API.
#[doc(hidden)]
#[cfg(feature = "runtime")]
#[macro_export]
macro_rules! __runtime {
    ($($item:tt)*) => { $($item)* };
}

/// What the derives wrap their client, lister and informer code in: the code itself with the
/// `runtime` feature, nothing without it. Not a public API.
#[doc(hidden)]
#[cfg(not(feature = "runtime"))]
#[macro_export]
macro_rules! __runtime {
    ($($item:tt)*) => {};
}

/// The README's example, compiled and run with the doctests so that it cannot drift.
#[cfg(all(doctest, feature = "testing"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The guide's chapters (docs/src; the conformance and crdgen chapters hold no Rust): every
/// Rust block is compiled with the doctests and run, except those marked `no_run` because
/// they need a real cluster, a port or a process's `main`.
#[cfg(all(doctest, feature = "envtest", feature = "secure-metrics"))]
pub mod guide {
    #[doc = include_str!("../docs/src/example.md")]
    pub struct Example;
    #[doc = include_str!("../docs/src/kinds.md")]
    pub struct Kinds;
    #[doc = include_str!("../docs/src/clients.md")]
    pub struct Clients;
    #[doc = include_str!("../docs/src/testing.md")]
    pub struct Testing;
    #[doc = include_str!("../docs/src/cluster.md")]
    pub struct Cluster;
    #[doc = include_str!("../docs/src/controllers.md")]
    pub struct Controllers;
    #[doc = include_str!("../docs/src/operator.md")]
    pub struct Operator;
    #[doc = include_str!("../docs/src/evolving.md")]
    pub struct Evolving;
    #[doc = include_str!("../docs/src/webhooks.md")]
    pub struct Webhooks;
}
