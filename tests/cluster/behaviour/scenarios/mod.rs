//! Every scenario, by area.

mod basics;
pub mod namespace;

use super::script::Scenario;

/// Every scenario, in the order they run.
pub fn all() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend(basics::scenarios());
    all.extend(namespace::scenarios());
    all
}
