//! The cluster's own behaviour in memory: what kube-controller-manager's controllers do,
//! run by the in-memory server (`ApiServer::start_controllers`), and how a test waits for
//! them (`settle`) and drives their time (the server's `Clock`); and the behavioural
//! conformance suite comparing them with the real kube-controller-manager.

pub mod behaviour;
pub mod conformance;
pub mod cronjob;
pub mod daemonset;
pub mod deployment;
pub mod framework;
pub mod gc;
pub mod job;
pub mod kinds;
pub mod namespace;
pub mod statefulset;
pub mod support;
