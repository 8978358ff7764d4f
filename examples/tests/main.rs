//! The examples' tests: one binary, a module per example.

// What the example operator logs, read back by the tests that run it.
mod demo_log;

mod cache;
mod crds;
mod decode;
mod rbac;
mod sample_controller;
