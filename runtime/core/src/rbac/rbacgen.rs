//! `rbacgen`: prints the ServiceAccount, ClusterRole and ClusterRoleBinding an operator runs
//! with, from its [`Rules`]. crdgen finds kinds through the registry; rules are the operator's
//! own choice, so its binary passes them in:
//!
//! ```no_run
//! // src/bin/rbacgen.rs
//! use kubegen_core::rbac::{Rules, Verb};
//!
//! fn main() {
//!     let rules = Rules::new().grant_resource("apps", "deployments", &[Verb::Get]);
//!     kubegen_core::rbac::rbacgen::main("my-operator", &rules)
//! }
//! ```

use std::io::Write;

use clap::Parser;

use super::{RbacError, Rules, manifests};
use crate::crd::crdgen::{Format, run_command};

/// Prints a ServiceAccount, a ClusterRole holding the operator's rules, and a
/// ClusterRoleBinding granting that role to the ServiceAccount.
#[derive(Clone, Debug, Parser)]
#[command(name = "rbacgen", version)]
pub struct Args {
    /// The name of the ServiceAccount, the ClusterRole and the ClusterRoleBinding [default:
    /// the operator's name].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The ServiceAccount's namespace [default: NAME-system, as kubebuilder names it].
    #[arg(long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    pub format: Format,
}

/// Runs rbacgen with the process arguments for the operator `name` and its `rules`; prints
/// errors and exits non-zero on failure.
pub fn main(name: &str, rules: &Rules) {
    let code = run_cli(
        std::env::args_os(),
        name,
        rules,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}

/// Runs rbacgen as a command line would: parses `args` (the first is the program name),
/// writes output to `out` and messages to `err`, and returns the exit code.
pub fn run_cli<I, T>(
    args: I,
    name: &str,
    rules: &Rules,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run_command("rbacgen", args, out, err, |args: Args, out| {
        run(&args, name, rules, out)
    })
}

/// Writes the manifests `args` asks for.
pub fn run(args: &Args, name: &str, rules: &Rules, out: &mut dyn Write) -> Result<(), RbacError> {
    let name = args.name.as_deref().unwrap_or(name);
    let namespace = args
        .namespace
        .clone()
        .unwrap_or_else(|| format!("{name}-system"));
    let text = manifests::print(rules, name, &namespace, args.format)?;
    out.write_all(text.as_bytes())
        .map_err(|source| RbacError::Io {
            what: "standard output".into(),
            source,
        })
}
