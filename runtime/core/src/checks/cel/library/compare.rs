//! Equality, ordering and negation as cel-go evaluates them. The cel crate's interpreter
//! compares an `int` and a `double` as unequal where CEL's heterogeneous equality finds them
//! equal, answers `no such overload` where cel-go says `NaN values cannot be ordered`, and
//! panics negating the smallest integer; `compile::prepare` routes these operators here.

use std::cmp::Ordering;

use kube_cel::cel::extractors::Arguments;
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

use super::fail;

/// The functions the operators are rewritten to; `@` keeps them out of reach of rules.
pub(in crate::checks::cel) const EQUALS: &str = "@equals";
pub(in crate::checks::cel) const NOT_EQUALS: &str = "@notEquals";
pub(in crate::checks::cel) const LESS: &str = "@less";
pub(in crate::checks::cel) const LESS_EQUALS: &str = "@lessEquals";
pub(in crate::checks::cel) const GREATER: &str = "@greater";
pub(in crate::checks::cel) const GREATER_EQUALS: &str = "@greaterEquals";
pub(in crate::checks::cel) const NEGATE: &str = "@negate";

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function(EQUALS, |Arguments(a): Arguments| -> ResolveResult {
        let [x, y] = two(&a)?;
        Ok(Value::Bool(x == y))
    });
    ctx.add_function(NOT_EQUALS, |Arguments(a): Arguments| -> ResolveResult {
        let [x, y] = two(&a)?;
        Ok(Value::Bool(x != y))
    });
    ctx.add_function(LESS, |Arguments(a): Arguments| ordered(&a, Ordering::is_lt));
    ctx.add_function(LESS_EQUALS, |Arguments(a): Arguments| {
        ordered(&a, Ordering::is_le)
    });
    ctx.add_function(GREATER, |Arguments(a): Arguments| {
        ordered(&a, Ordering::is_gt)
    });
    ctx.add_function(GREATER_EQUALS, |Arguments(a): Arguments| {
        ordered(&a, Ordering::is_ge)
    });
    ctx.add_function(NEGATE, negate);
}

fn two(args: &[Value]) -> Result<[&Value; 2], ExecutionError> {
    match args {
        [x, y] => Ok([x, y]),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

fn ordered(args: &[Value], test: fn(Ordering) -> bool) -> ResolveResult {
    let [x, y] = two(args)?;
    Ok(Value::Bool(test(compare(x, y)?)))
}

fn nan() -> ExecutionError {
    fail("compare", "NaN values cannot be ordered")
}

fn doubles(a: f64, b: f64) -> Result<Ordering, ExecutionError> {
    a.partial_cmp(&b).ok_or_else(nan)
}

/// `compareDoubleInt`: beyond the int range a double is simply greater or smaller.
fn double_int(d: f64, i: i64) -> Result<Ordering, ExecutionError> {
    if d.is_nan() {
        return Err(nan());
    }
    if d < i64::MIN as f64 {
        return Ok(Ordering::Less);
    }
    if d > i64::MAX as f64 {
        return Ok(Ordering::Greater);
    }
    doubles(d, i as f64)
}

fn double_uint(d: f64, u: u64) -> Result<Ordering, ExecutionError> {
    if d.is_nan() {
        return Err(nan());
    }
    if d < 0.0 {
        return Ok(Ordering::Less);
    }
    if d > u64::MAX as f64 {
        return Ok(Ordering::Greater);
    }
    doubles(d, u as f64)
}

fn int_uint(i: i64, u: u64) -> Ordering {
    match u64::try_from(i) {
        Ok(i) => i.cmp(&u),
        Err(_) => Ordering::Less,
    }
}

/// cel-go's `Compare` (with cross-type numeric comparisons, as the apiserver enables).
pub(super) fn compare(a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => doubles(*x, *y)?,
        (Value::Int(i), Value::UInt(u)) => int_uint(*i, *u),
        (Value::UInt(u), Value::Int(i)) => int_uint(*i, *u).reverse(),
        (Value::Float(d), Value::Int(i)) => double_int(*d, *i)?,
        (Value::Int(i), Value::Float(d)) => double_int(*d, *i)?.reverse(),
        (Value::Float(d), Value::UInt(u)) => double_uint(*d, *u)?,
        (Value::UInt(u), Value::Float(d)) => double_uint(*d, *u)?.reverse(),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        (Value::Duration(x), Value::Duration(y)) => x.cmp(y),
        _ => return Err(ExecutionError::NoSuchOverload),
    })
}

fn negate(Arguments(a): Arguments) -> ResolveResult {
    match a.as_slice() {
        [Value::Int(i)] => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| fail("negate", "integer overflow")),
        [Value::Float(f)] => Ok(Value::Float(-f)),
        [Value::Duration(d)] => Ok(Value::Duration(-*d)),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}
