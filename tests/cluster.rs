//! The cluster's own behaviour in memory: what kube-controller-manager's controllers do,
//! run by the in-memory server (`ApiServer::start_controllers`), and how a test waits for
//! them (`settle`) and drives their time (the server's `Clock`).

mod cluster {
    pub mod framework;
}
