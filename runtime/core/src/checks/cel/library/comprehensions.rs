//! Comprehensions as cel-go evaluates them. The apiserver's environment has cel-go's
//! two-variable comprehensions (`m.all(k, v, p)`, `exists`, `existsOne`/`exists_one`,
//! `transformList`, `transformMap`, `transformMapEntry`) and the `sortBy` macro of its list
//! extension and `optMap`/`optFlatMap` of its optional types, which the cel crate lacks; and in
//! cel-go an error in one element of `all`/`exists` is absorbed when another element
//! decides the result (`[0, 1].all(x, 1 / x > 5)` is `false`, not `division by zero`),
//! where the cel crate's comprehension stops at the first error. `compile::prepare`
//! rewrites the one-variable `all` and `exists` into [`ALL`] and [`EXISTS`]; the
//! two-variable forms reach these functions as calls under their own names.

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::common::ast::{Expr, IdedExpr};
use kube_cel::cel::objects::{Key, Map};
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::compare::compare;
use super::{fail, optional, optional_inner};

/// The one-variable `all` and `exists`, rewritten (`@` keeps them out of reach of rules).
pub(in crate::checks::cel) const ALL: &str = "@all";
pub(in crate::checks::cel) const EXISTS: &str = "@exists";

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function(ALL, |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::All)
    });
    ctx.add_function(EXISTS, |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::Exists)
    });
    ctx.add_function("all", |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::All)
    });
    ctx.add_function("exists", |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::Exists)
    });
    ctx.add_function("sortBy", sort_by);
    ctx.add_function("optMap", |ftx: &FunctionContext| opt_map(ftx, false));
    ctx.add_function("optFlatMap", |ftx: &FunctionContext| opt_map(ftx, true));
    ctx.add_function("existsOne", exists_one);
    ctx.add_function("exists_one", exists_one);
    ctx.add_function("transformList", transform_list);
    ctx.add_function("transformMap", |ftx: &FunctionContext| {
        transform_map(ftx, false)
    });
    ctx.add_function("transformMapEntry", |ftx: &FunctionContext| {
        transform_map(ftx, true)
    });
}

/// What a comprehension iterates: list items with their index, or map keys with their
/// value; the one-variable form binds the item (or the key) alone.
struct Iteration<'a, 'c, 'call> {
    elements: Vec<(Value, Value)>,
    /// The variables, one or two.
    vars: Vec<&'call str>,
    /// The expressions after the variables.
    body: &'call [IdedExpr],
    ftx: &'a FunctionContext<'c, 'call>,
}

impl<'a, 'c, 'call> Iteration<'a, 'c, 'call> {
    /// Reads the target and the `var_count` variables; `bodies` are the numbers of
    /// expressions that may follow them.
    fn new(
        ftx: &'a FunctionContext<'c, 'call>,
        var_count: usize,
        bodies: &[usize],
    ) -> Result<Self, ExecutionError> {
        let (Some(target), Some(body_len)) = (&ftx.this, ftx.args.len().checked_sub(var_count))
        else {
            return Err(ExecutionError::NoSuchOverload);
        };
        if !bodies.contains(&body_len) {
            return Err(ExecutionError::NoSuchOverload);
        }
        let args: &'call [IdedExpr] = ftx.args;
        let vars = args[..var_count]
            .iter()
            .map(|a| match &a.expr {
                Expr::Ident(name) => Ok(name.as_str()),
                _ => Err(fail(ftx.name, "argument must be a simple name")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let elements = match target {
            Value::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (Value::Int(i as i64), v.clone()))
                .collect(),
            Value::Map(map) => map
                .map
                .iter()
                .map(|(k, v)| (key_value(k), v.clone()))
                .collect(),
            _ => return Err(ExecutionError::NoSuchOverload),
        };
        Ok(Iteration {
            elements,
            vars,
            body: &args[var_count..],
            ftx,
        })
    }

    /// Evaluates body expression `i` for `element`.
    fn eval(&self, element: &(Value, Value), i: usize) -> ResolveResult {
        let mut scope = self.ftx.ptx.new_inner_scope();
        match self.vars.as_slice() {
            [one] => {
                // One variable: a list's item, a map's key.
                let bound = match &self.ftx.this {
                    Some(Value::List(_)) => element.1.clone(),
                    _ => element.0.clone(),
                };
                scope.add_variable_from_value(*one, bound);
            }
            [first, second] => {
                scope.add_variable_from_value(*first, element.0.clone());
                scope.add_variable_from_value(*second, element.1.clone());
            }
            _ => return Err(ExecutionError::NoSuchOverload),
        }
        Value::resolve(&self.body[i], &scope)
    }
}

/// A map key as a value.
fn key_value(k: &Key) -> Value {
    match k {
        Key::Int(i) => Value::Int(*i),
        Key::Uint(u) => Value::UInt(*u),
        Key::Bool(b) => Value::Bool(*b),
        Key::String(s) => Value::String(s.clone()),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Quantifier {
    All,
    Exists,
}

/// `all` and `exists`: stop at the deciding value (`false` for all, `true` for exists);
/// an error is kept and reported only if no element decides.
fn quantifier(ftx: &FunctionContext, q: Quantifier) -> ResolveResult {
    let it = Iteration::new(ftx, ftx.args.len().saturating_sub(1).clamp(1, 2), &[1])?;
    let decisive = q == Quantifier::Exists;
    let mut error = None;
    for element in &it.elements {
        match it.eval(element, 0) {
            Ok(Value::Bool(b)) if b == decisive => return Ok(Value::Bool(decisive)),
            Ok(Value::Bool(_)) => {}
            Ok(_) => {
                error.get_or_insert(ExecutionError::NoSuchOverload);
            }
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(Value::Bool(!decisive)),
    }
}

/// `existsOne`/`exists_one` with two variables: every element is evaluated, and the first
/// error is the result.
fn exists_one(ftx: &FunctionContext) -> ResolveResult {
    let it = Iteration::new(ftx, 2, &[1])?;
    let mut count = 0;
    for element in &it.elements {
        match it.eval(element, 0)? {
            Value::Bool(true) => count += 1,
            Value::Bool(false) => {}
            _ => return Err(ExecutionError::NoSuchOverload),
        }
    }
    Ok(Value::Bool(count == 1))
}

/// Whether the optional filter (body expression 0 of two) admits `element`.
fn admitted(it: &Iteration<'_, '_, '_>, element: &(Value, Value)) -> Result<bool, ExecutionError> {
    if it.body.len() < 2 {
        return Ok(true);
    }
    match it.eval(element, 0)? {
        Value::Bool(b) => Ok(b),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// `transformList(i, v, [filter,] transform)`.
fn transform_list(ftx: &FunctionContext) -> ResolveResult {
    let it = Iteration::new(ftx, 2, &[1, 2])?;
    let last = it.body.len() - 1;
    let mut out = Vec::new();
    for element in &it.elements {
        if admitted(&it, element)? {
            out.push(it.eval(element, last)?);
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// `transformMap(k, v, [filter,] transform)` (the key stays, the value is the transform) and
/// `transformMapEntry(k, v, [filter,] entry)` (each entry map merged in, a repeated key an
/// error).
fn transform_map(ftx: &FunctionContext, entries: bool) -> ResolveResult {
    let it = Iteration::new(ftx, 2, &[1, 2])?;
    let last = it.body.len() - 1;
    let mut out: HashMap<Key, Value> = HashMap::new();
    for element in &it.elements {
        if !admitted(&it, element)? {
            continue;
        }
        let value = it.eval(element, last)?;
        if !entries {
            let key: Key = element
                .0
                .clone()
                .try_into()
                .map_err(|_| ExecutionError::NoSuchOverload)?;
            out.insert(key, value);
            continue;
        }
        let Value::Map(entry) = value else {
            return Err(ExecutionError::NoSuchOverload);
        };
        for (k, v) in entry.map.iter() {
            if out.contains_key(k) {
                return Err(fail(
                    ftx.name,
                    format!("insert failed: key {k} already exists"),
                ));
            }
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(Value::Map(Map { map: Arc::new(out) }))
}

/// `<list>.sortBy(x, key)`: the items ordered by their keys (a stable sort), which must be
/// comparable with each other.
fn sort_by(ftx: &FunctionContext) -> ResolveResult {
    let it = Iteration::new(ftx, 1, &[1])?;
    let Some(Value::List(_)) = &ftx.this else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let mut keyed = Vec::with_capacity(it.elements.len());
    for element in &it.elements {
        keyed.push((it.eval(element, 0)?, element.1.clone()));
    }
    let mut failure = None;
    keyed.sort_by(|(a, _), (b, _)| {
        compare(a, b).unwrap_or_else(|e| {
            failure.get_or_insert(e);
            std::cmp::Ordering::Equal
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(Value::List(Arc::new(
        keyed.into_iter().map(|(_, v)| v).collect(),
    )))
}

/// `<optional>.optMap(v, expr)`: `optional.of(expr)` with `v` the value, or `none`;
/// `optFlatMap` when `expr` is itself an optional.
fn opt_map(ftx: &FunctionContext, flat: bool) -> ResolveResult {
    let (Some(target), [var, body]) = (&ftx.this, ftx.args) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let Expr::Ident(var) = &var.expr else {
        return Err(fail(ftx.name, "argument must be a simple name"));
    };
    let Some(value) = optional_inner(target)? else {
        return Ok(optional(None));
    };
    let mut scope = ftx.ptx.new_inner_scope();
    scope.add_variable_from_value(var.as_str(), value.clone());
    let mapped = Value::resolve(body, &scope)?;
    match flat {
        true => optional_inner(&mapped).map(|_| mapped.clone()),
        false => Ok(optional(Some(mapped))),
    }
}
