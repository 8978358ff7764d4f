//! Prints the CronJob operator's ServiceAccount, ClusterRole and ClusterRoleBinding:
//! `cargo run --bin rbacgen -- --namespace cronjob-operator-system > rbac.yaml`.

use kubegen_examples::rbac::{OPERATOR, operator_rules};

fn main() {
    kubegen::rbac::rbacgen::main(OPERATOR, &operator_rules())
}
