//! List functions where kube-cel fails with other words than the apiserver: `min()` and
//! `max()` of an empty list (`min called on empty list`) and `slice` out of range
//! (`cannot slice(1, 2), list is length 0`). What they return otherwise is kube-cel's.

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::{Context, FunctionContext, ResolveResult, Value};

use super::{fail, kube_cel};

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function(
        "min",
        |ftx: &FunctionContext, Arguments(args): Arguments| extreme("min", ftx.this.clone(), &args),
    );
    ctx.add_function(
        "max",
        |ftx: &FunctionContext, Arguments(args): Arguments| extreme("max", ftx.this.clone(), &args),
    );
    ctx.add_function("slice", slice);
}

/// `<list>.min()`/`<list>.max()`; the variadic `min(a, b)` of the cel crate otherwise.
fn extreme(name: &str, this: Option<Value>, args: &[Value]) -> ResolveResult {
    if let Some(Value::List(list)) = &this
        && args.is_empty()
        && list.is_empty()
    {
        return Err(fail(name, format!("{name} called on empty list")));
    }
    kube_cel(name, this, args)
}

fn slice(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    if let (Value::List(list), [Value::Int(start), Value::Int(end)]) = (&this, args.as_slice()) {
        let (start, end) = (*start, *end);
        let problem = if start < 0 || end < 0 {
            Some("negative indexes not supported".to_owned())
        } else if start > end {
            Some("start index must be less than or equal to end index".to_owned())
        } else if end > list.len() as i64 {
            Some(format!("list is length {}", list.len()))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(fail(
                "slice",
                format!("cannot slice({start}, {end}), {problem}"),
            ));
        }
    }
    kube_cel("slice", Some(this), &args)
}
