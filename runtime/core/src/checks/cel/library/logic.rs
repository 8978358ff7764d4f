//! `&&` and `||` as cel-go evaluates them: both sides are evaluated unless the left one
//! decides; a side that decides absorbs the other's error, and when neither decides the
//! left side's error wins. (The cel crate reports the right side's error when both fail,
//! so `self.min() >= 0 && self.max() <= 9` on an empty list would name `max`.)
//! `compile::prepare` routes the operators here.

use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

/// The functions the operators are rewritten to.
pub(in crate::checks::cel) const AND: &str = "@and";
pub(in crate::checks::cel) const OR: &str = "@or";

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function(AND, |ftx: &FunctionContext| logical(ftx, false));
    ctx.add_function(OR, |ftx: &FunctionContext| logical(ftx, true));
}

/// `decisive` is the value that decides the result: `false` for `&&`, `true` for `||`.
fn logical(ftx: &FunctionContext, decisive: bool) -> ResolveResult {
    let [left, right] = ftx.args else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let left = Value::resolve(left, ftx.ptx);
    if matches!(left, Ok(Value::Bool(b)) if b == decisive) {
        return Ok(Value::Bool(decisive));
    }
    let right = Value::resolve(right, ftx.ptx);
    if matches!(right, Ok(Value::Bool(b)) if b == decisive) {
        return Ok(Value::Bool(decisive));
    }
    match (left, right) {
        (Ok(Value::Bool(_)), Ok(Value::Bool(_))) => Ok(Value::Bool(!decisive)),
        (Err(e), _) | (Ok(Value::Bool(_)), Err(e)) => Err(e),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}
