//! Every scenario, by area.

mod basics;
pub mod cronjob;
mod daemonset;
pub mod deployment;
mod gc;
pub mod job;
mod namespace;
mod replicaset;
mod statefulset;

use super::script::Scenario;

/// Every scenario, in the order they run.
pub fn all() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend(basics::scenarios());
    all.extend(deployment::scenarios());
    all.extend(replicaset::scenarios());
    all.extend(statefulset::scenarios());
    all.extend(daemonset::scenarios());
    all.extend(gc::scenarios());
    all.extend(job::scenarios());
    all.extend(cronjob::scenarios());
    all.extend(namespace::scenarios());
    all
}
