//! String functions where the cel crate or kube-cel answer differently from cel-go:
//! - `size` counts code points (the cel crate counts bytes);
//! - `charAt`, `indexOf`, `lastIndexOf` and `substring` count code points and fail with
//!   cel-go's messages (`index out of range: 10`, `invalid substring range. ...`);
//! - `matches`, `find` and `findAll` use Go's regexp dialect and its error messages;
//! - `x.?f` is `optional.none()` when `f` is absent (the cel crate fails instead).

use std::sync::Arc;

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::Key;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::super::regex;
use super::{fail, kube_cel, optional, optional_inner, string, subject};

/// The function kubegen rewrites `x.?field` into (see `compile::prepare`).
pub(in crate::checks::cel) const OPTIONAL_SELECT: &str = "@optionalSelect";

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("size", size);
    ctx.add_function("charAt", char_at);
    ctx.add_function("indexOf", index_of);
    ctx.add_function("lastIndexOf", last_index_of);
    ctx.add_function("substring", substring);
    ctx.add_function("matches", matches);
    ctx.add_function("find", find);
    ctx.add_function("findAll", find_all);
    ctx.add_function(OPTIONAL_SELECT, optional_select);
}

fn size(ftx: &FunctionContext) -> ResolveResult {
    let this = subject(ftx)?;
    let n = match &this {
        Value::String(s) => s.chars().count(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.map.len(),
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    Ok(Value::Int(n as i64))
}

fn out_of_range(function: &str, i: i64) -> ExecutionError {
    fail(function, format!("index out of range: {i}"))
}

fn char_at(This(this): This<Arc<String>>, i: i64) -> ResolveResult {
    let chars: Vec<char> = this.chars().collect();
    match usize::try_from(i) {
        Ok(i) if i < chars.len() => Ok(string(chars[i].to_string())),
        Ok(i) if i == chars.len() => Ok(string("")),
        _ => Err(out_of_range("charAt", i)),
    }
}

/// A search of `indexOf`/`lastIndexOf`: the string and the substring in code points, and
/// the offset when one is given.
type Search = (Vec<char>, Vec<char>, Option<i64>);

/// The string and search arguments of `indexOf`/`lastIndexOf`, or `None` for a list (which
/// kube-cel's list functions handle).
fn search_args(this: &Value, args: &[Value]) -> Result<Option<Search>, ExecutionError> {
    let Value::String(s) = this else {
        return Ok(None);
    };
    let (sub, offset) = match args {
        [Value::String(sub)] => (sub, None),
        [Value::String(sub), Value::Int(off)] => (sub, Some(*off)),
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    Ok(Some((s.chars().collect(), sub.chars().collect(), offset)))
}

fn found_at(hay: &[char], needle: &[char], i: usize) -> bool {
    hay.get(i..i + needle.len()) == Some(needle)
}

fn index_of(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    let Some((hay, needle, offset)) = search_args(&this, &args)? else {
        return kube_cel("indexOf", Some(this), &args);
    };
    let off = offset.unwrap_or(0);
    if needle.is_empty() {
        return Ok(Value::Int(off));
    }
    let start = usize::try_from(off).map_err(|_| out_of_range("indexOf", off))?;
    if start >= hay.len() {
        return Ok(Value::Int(-1));
    }
    let end = hay.len().saturating_sub(needle.len() - 1);
    let found = (start..end).find(|&i| found_at(&hay, &needle, i));
    Ok(Value::Int(found.map_or(-1, |i| i as i64)))
}

fn last_index_of(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    let Some((hay, needle, offset)) = search_args(&this, &args)? else {
        return kube_cel("lastIndexOf", Some(this), &args);
    };
    let Some(off) = offset else {
        if needle.is_empty() {
            return Ok(Value::Int(hay.len() as i64));
        }
        if hay.len() < needle.len() {
            return Ok(Value::Int(-1));
        }
        return Ok(Value::Int(last_from(&hay, &needle, hay.len() - 1)));
    };
    if needle.is_empty() {
        return Ok(Value::Int(off));
    }
    let start = usize::try_from(off).map_err(|_| out_of_range("lastIndexOf", off))?;
    if start >= hay.len() {
        return Ok(Value::Int(-1));
    }
    Ok(Value::Int(last_from(&hay, &needle, start)))
}

/// The last match at or before `start` (clamped so the needle fits).
fn last_from(hay: &[char], needle: &[char], start: usize) -> i64 {
    let Some(limit) = hay.len().checked_sub(needle.len()) else {
        return -1;
    };
    let start = start.min(limit);
    (0..=start)
        .rev()
        .find(|&i| found_at(hay, needle, i))
        .map_or(-1, |i| i as i64)
}

fn substring(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    let chars: Vec<char> = this.chars().collect();
    let len = chars.len() as i64;
    let (start, end) = match args.as_slice() {
        [Value::Int(start)] => (*start, None),
        [Value::Int(start), Value::Int(end)] => (*start, Some(*end)),
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    if let Some(end) = end
        && start > end
    {
        return Err(fail(
            "substring",
            format!("invalid substring range. start: {start}, end: {end}"),
        ));
    }
    if start < 0 || start > len {
        return Err(out_of_range("substring", start));
    }
    let end = end.unwrap_or(len);
    if end < 0 || end > len {
        return Err(out_of_range("substring", end));
    }
    Ok(string(
        chars[start as usize..end as usize]
            .iter()
            .collect::<String>(),
    ))
}

/// A compiled pattern, or the apiserver's error for it (`prefix` before Go's message).
fn pattern(
    function: &str,
    prefix: &str,
    pattern: &str,
) -> Result<Arc<kubegen_go::regexp::Regexp>, ExecutionError> {
    regex::compile(pattern).map_err(|e| fail(function, format!("{prefix}{e}")))
}

fn matches(This(this): This<Arc<String>>, re: Arc<String>) -> ResolveResult {
    Ok(Value::Bool(pattern("matches", "", &re)?.is_match(&this)))
}

fn find(This(this): This<Arc<String>>, re: Arc<String>) -> ResolveResult {
    let re = pattern("find", "Illegal regex: ", &re)?;
    // Go's FindString: "" when nothing matches.
    Ok(string(re.find(&this).map_or("", |m| m.as_str())))
}

fn find_all(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    let (re, limit) = match args.as_slice() {
        [Value::String(re)] => (re, -1),
        [Value::String(re), Value::Int(n)] => (re, *n),
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    let re = pattern("findAll", "Illegal regex: ", re)?;
    // Go's FindAllString: a negative limit is no limit.
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    let found = re
        .find_iter(&this)
        .take(take)
        .map(|m| string(m.as_str()))
        .collect();
    Ok(Value::List(Arc::new(found)))
}

/// `x.?f`: `optional.of(x.f)` when `x` has `f`, `optional.none()` when not; on an optional
/// `x`, the same inside it.
fn optional_select(Arguments(args): Arguments) -> ResolveResult {
    let [target, Value::String(field)] = args.as_slice() else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let target = match target {
        Value::Opaque(_) => match optional_inner(target)? {
            Some(inner) => inner,
            None => return Ok(optional(None)),
        },
        other => other,
    };
    let Value::Map(map) = target else {
        return Err(ExecutionError::NoSuchOverload);
    };
    Ok(optional(map.map.get(&Key::String(field.clone())).cloned()))
}
