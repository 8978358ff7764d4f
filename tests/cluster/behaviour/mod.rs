//! The behavioural conformance suite's parts: scenarios, running them, snapshots.

pub mod run;
pub mod scenarios;
pub mod script;
pub mod snapshot;
