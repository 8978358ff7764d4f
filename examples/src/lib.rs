//! Sample APIs defined with kubegen: the kubebuilder tutorial's CronJob, a cluster-scoped
//! Widget with status and scale subresources, a Database with two versions, a Cache whose
//! two versions really differ, with conversion and admission webhooks, and Kubernetes'
//! sample-controller, whose Foo owns an `apps/v1` Deployment.
//!
//! `cargo run --bin crdgen` (from the repository root) prints their CRDs, and
//! `cargo run --bin rbacgen` the CronJob operator's ServiceAccount, ClusterRole and binding.

pub mod cache;
pub mod cluster;
pub mod cronjob;
pub mod database;
pub mod operator;
pub mod rbac;
pub mod sample_controller;
pub mod tour;
pub mod widget;
