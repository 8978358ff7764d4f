//! Sample APIs defined with kubegen: the kubebuilder tutorial's CronJob, a cluster-scoped
//! Widget with status and scale subresources, and a Database with two versions.
//!
//! `cargo run --bin crdgen` (from the repository root) prints their CRDs.

pub mod cluster;
pub mod cronjob;
pub mod database;
pub mod operator;
pub mod tour;
pub mod widget;
