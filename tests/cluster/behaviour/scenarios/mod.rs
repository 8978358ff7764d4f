//! Every scenario, by area.

mod basics;
mod cronjob;
mod job;

use super::script::Scenario;

/// Every scenario, in the order they run.
pub fn all() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend(basics::scenarios());
    all.extend(job::scenarios());
    all.extend(cronjob::scenarios());
    all
}
