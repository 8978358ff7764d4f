//! kubegen's integration tests: one binary, a module per capability, sharing the `fixtures`
//! module. Every kind derived here registers in this one binary, so the in-memory server and
//! Envtest of a test without its own `setup` serve them all; the kinds are unique across
//! modules (group and kind), and the deliberately broken or conflicting ones (`crd::thing_*`,
//! `crd::Broken`, ...) are kept out of the registry with `#[resource(register = false)]`.
//!
//! A module that needs a cargo feature is compiled with it: `cargo test --all-features` runs
//! every one. Run one module with a filter: `cargo test --all-features --test integration
//! -- client::`. The compile-fail cases are the other test binary, `tests/ui.rs`.

mod fixtures;

// What the derives generate, without a server.
mod cel_cost;
mod convert;
mod crd;
mod deepcopy;
mod defaults;
mod guide;
mod layout;
mod schema;

// The in-memory server, and a real apiserver when one is configured.
#[cfg(feature = "testing")]
mod apply;
#[cfg(feature = "testing")]
mod client;
#[cfg(feature = "testing")]
mod cluster;
#[cfg(feature = "testing")]
mod conformance;
#[cfg(feature = "testing")]
mod decode;
#[cfg(feature = "testing")]
mod embedded_apply;
#[cfg(feature = "testing")]
mod harness;
#[cfg(feature = "testing")]
mod http;
#[cfg(feature = "testing")]
mod informer;
#[cfg(feature = "testing")]
mod leader_election;
#[cfg(feature = "testing")]
mod migrate;
#[cfg(feature = "testing")]
mod rules;
#[cfg(feature = "testing")]
mod validate;

// Controllers and the Manager.
#[cfg(all(feature = "testing", feature = "manager"))]
mod controller;
#[cfg(all(feature = "testing", feature = "manager"))]
mod manager;

// Webhooks: the server, in-process admission, manifests, the fuzzer's webhook requests.
#[cfg(all(feature = "testing", feature = "webhook"))]
mod fuzz;
#[cfg(all(feature = "testing", feature = "webhook"))]
mod inmem_versions;
#[cfg(all(feature = "testing", feature = "webhook"))]
mod manifests;
#[cfg(feature = "webhook")]
mod webhook;

// Envtest itself: starting and stopping kube-apiserver and kube-controller-manager.
#[cfg(feature = "envtest")]
mod envtest;
