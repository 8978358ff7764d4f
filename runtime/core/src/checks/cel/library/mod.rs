//! The function environment rules run in: the cel crate's standard functions and kube-cel's
//! Kubernetes libraries, with kubegen's corrections registered over them where kube-cel or
//! the cel crate answer differently from the apiserver. Each submodule lists its
//! corrections; `compile::prepare` routes the operators kubegen implements to them. The URL
//! library (`urls`) is kubegen's alone, over its port of Go's `net/url`.

mod compare;
mod comprehensions;
mod convert;
mod formats;
mod lists;
mod logic;
mod net;
mod netip;
mod quantity;
mod semver;
mod strings;
mod time;
mod urls;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use kube_cel::KubeCelExt;
use kube_cel::cel::common::ast::{CallExpr, Expr, IdedExpr};
use kube_cel::cel::objects::{Opaque, OptionalValue};
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};
use parking_lot::Mutex;

pub(super) use compare::{EQUALS, GREATER, GREATER_EQUALS, LESS, LESS_EQUALS, NEGATE, NOT_EQUALS};
pub(super) use comprehensions::{ALL, EXISTS};
pub(super) use logic::{AND, OR};
pub(super) use strings::OPTIONAL_SELECT;

/// The root context every evaluation starts from: kube-cel's functions, kubegen's
/// corrections over them, and the type identifiers (`int`, `string`, ...).
pub(super) static ROOT: LazyLock<Context<'static>> = LazyLock::new(|| {
    let mut ctx = Context::default();
    ctx.register_all();
    compare::register(&mut ctx);
    comprehensions::register(&mut ctx);
    logic::register(&mut ctx);
    convert::register(&mut ctx);
    strings::register(&mut ctx);
    lists::register(&mut ctx);
    formats::register(&mut ctx);
    net::register(&mut ctx);
    urls::register(&mut ctx);
    quantity::register(&mut ctx);
    semver::register(&mut ctx);
    time::register(&mut ctx);
    convert::register_types(&mut ctx);
    ctx
});

/// kube-cel's functions as kube-cel registers them, for corrections that only change how a
/// function fails and otherwise delegate ([`kube_cel`]).
static KUBE_CEL: LazyLock<Context<'static>> = LazyLock::new(|| {
    let mut ctx = Context::default();
    ctx.register_all();
    ctx
});

/// Calls kube-cel's own `function`, on `target` when it is a method (`ip.family()`), else
/// as a global function (`ip('...')`, `ip.isCanonical('...')`).
pub(super) fn kube_cel(function: &str, target: Option<Value>, args: &[Value]) -> ResolveResult {
    /// A call's function, whether it has a target, and its arity.
    type Shape = (String, bool, usize);
    static CALLS: LazyLock<Mutex<HashMap<Shape, Arc<IdedExpr>>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let key = (function.to_owned(), target.is_some(), args.len());
    let call = CALLS
        .lock()
        .entry(key)
        .or_insert_with(|| {
            let ident = |name: String| IdedExpr {
                id: 0,
                expr: Expr::Ident(name),
            };
            Arc::new(IdedExpr {
                id: 0,
                expr: Expr::Call(CallExpr {
                    func_name: function.to_owned(),
                    target: target
                        .as_ref()
                        .map(|_| Box::new(ident("@target".to_owned()))),
                    args: (0..args.len()).map(|i| ident(format!("@arg{i}"))).collect(),
                }),
            })
        })
        .clone();
    let mut ctx = KUBE_CEL.new_inner_scope();
    if let Some(t) = target {
        ctx.add_variable_from_value("@target", t);
    }
    for (i, a) in args.iter().enumerate() {
        ctx.add_variable_from_value(format!("@arg{i}"), a.clone());
    }
    Value::resolve(&call, &ctx)
}

/// The value a function applies to: the target of a method call, else the first argument
/// (`int(x)`). Unlike the cel crate's `This`, an argument that fails to evaluate keeps its
/// own error (`no such key: x`).
pub(super) fn subject(ftx: &FunctionContext) -> ResolveResult {
    match (&ftx.this, ftx.args.first()) {
        (Some(this), _) => Ok(this.clone()),
        (None, Some(arg)) => Value::resolve(arg, ftx.ptx),
        (None, None) => Err(ExecutionError::NoSuchOverload),
    }
}

/// An error with the apiserver's text (reported as is, see `errors::describe`).
pub(super) fn fail(function: &str, message: impl ToString) -> ExecutionError {
    ExecutionError::function_error(function, message)
}

/// `optional.of(v)` or `optional.none()`.
pub(super) fn optional(value: Option<Value>) -> Value {
    Value::Opaque(Arc::new(match value {
        Some(v) => OptionalValue::of(v),
        None => OptionalValue::none(),
    }))
}

/// The value inside an optional, `Err` when `value` is not one.
pub(super) fn optional_inner(value: &Value) -> Result<Option<&Value>, ExecutionError> {
    match value {
        Value::Opaque(o) => o
            .downcast_ref::<OptionalValue>()
            .map(OptionalValue::value)
            .ok_or(ExecutionError::NoSuchOverload),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// The opaque value of type `T` inside `value`, if it is one.
pub(super) fn opaque<T: Opaque>(value: &Value) -> Option<&T> {
    match value {
        Value::Opaque(o) => o.downcast_ref::<T>(),
        _ => None,
    }
}

fn string(s: impl Into<String>) -> Value {
    Value::String(Arc::new(s.into()))
}
