//! A kind whose versions really differ, served with conversion and admission webhooks.
//!
//! - [`v1alpha1`] said `engine: "redis:7.2"` and `memory: "512Mi"` as strings;
//! - [`v1`] (the storage version, the hub) splits the engine into an enum and a version,
//!   makes memory a `Quantity` and adds `persistence`, which v1alpha1 cannot hold.
//!
//! The derive writes the conversions (`#[convert]` on v1alpha1's spec); the author writes
//! only the string parsing ([`v1alpha1`]'s `ManualConvert`). [`webhook`] holds the defaulting
//! and validating functions, and `src/bin/cache_webhook.rs` serves them with the conversions.

pub mod v1;
pub mod v1alpha1;
pub mod webhook;
