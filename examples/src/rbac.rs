//! The permissions the CronJob operator ([`crate::operator`]) runs with: what its informer,
//! its server-side applies and its cleanup call, and nothing more. `cargo run --bin rbacgen`
//! prints them as a ServiceAccount, a ClusterRole and a ClusterRoleBinding; `tests/rbac.rs`
//! runs the operator under exactly this role on a real apiserver, and shows it failing with
//! 403 Forbidden when one rule is taken away.

use kubegen::rbac::Rules;

/// The name of the operator's ServiceAccount, ClusterRole and ClusterRoleBinding.
pub const OPERATOR: &str = "cronjob-operator";

/// The operator's rules, as its Manager declares them ([`crate::operator::rules`]):
/// - `cronjobs` list and watch (its informer), patch (the server-side apply adding and
///   removing its finalizer);
/// - `cronjobs/status` patch (the status apply);
/// - `batch` `jobs` list and watch (the informer of the Jobs it owns), create and patch (the
///   apply that creates a Job: creating through a patch needs `create`), delete (cleanup);
/// - leases for leader election and events for its recorder.
pub fn operator_rules() -> Rules {
    crate::operator::rules()
}
