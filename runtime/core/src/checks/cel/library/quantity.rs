//! The quantity library where kube-cel fails with other words than the apiserver:
//! `asInteger()` of a quantity that is not an integer or does not fit fails with
//! `cannot convert value to integer`. What it returns otherwise is kube-cel's.

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

use super::{fail, kube_cel};

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("asInteger", as_integer);
}

fn as_integer(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    kube_cel("asInteger", Some(this), &args).map_err(|e| match e {
        ExecutionError::FunctionError { .. } => {
            fail("asInteger", "cannot convert value to integer")
        }
        other => other,
    })
}
