//! Type conversions and types as cel-go has them: `int`, `uint`, `double`, `string`,
//! `bool`, `bytes`, `duration` and `timestamp` with Go's parsing and cel-go's errors
//! (`type conversion error from 'string' to 'int'`, `integer overflow`); `type(x)` and
//! `dyn(x)`, which the cel crate lacks (int-or-string rules need them), with the type
//! identifiers (`int`, `string`, ...) as values to compare with.

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use kube_cel::cel::objects::Opaque;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::super::super::formats::go_duration;
use super::{fail, kube_cel, string, subject};
use crate::go_print;

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("int", int);
    ctx.add_function("uint", uint);
    ctx.add_function("double", double);
    ctx.add_function("string", to_string);
    ctx.add_function("bool", to_bool);
    ctx.add_function("bytes", bytes);
    ctx.add_function("duration", duration);
    ctx.add_function("timestamp", timestamp);
    ctx.add_function("type", type_of);
    ctx.add_function("dyn", subject);
}

/// The type identifiers a rule can compare `type(x)` with.
pub(super) fn register_types(ctx: &mut Context<'static>) {
    for name in [
        "int",
        "uint",
        "double",
        "bool",
        "string",
        "bytes",
        "list",
        "map",
        "null_type",
        "type",
    ] {
        ctx.add_variable_from_value(name, CelType::value(name));
    }
}

/// `type conversion error from 'string' to 'int'`.
fn conversion(from: &str, to: &str) -> ExecutionError {
    fail(
        "convert",
        format!("type conversion error from '{from}' to '{to}'"),
    )
}

fn int_overflow() -> ExecutionError {
    fail("convert", "integer overflow")
}

fn uint_overflow() -> ExecutionError {
    fail("convert", "unsigned integer overflow")
}

/// The seconds of timestamps CEL allows: 0001-01-01 to 9999-12-31.
const MIN_UNIX: i64 = -62_135_596_800;
const MAX_UNIX: i64 = 253_402_300_799;

fn int(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    Ok(Value::Int(match v {
        Value::Int(i) => i,
        Value::UInt(u) => i64::try_from(u).map_err(|_| int_overflow())?,
        Value::Float(d) => {
            if !d.is_finite() || d <= i64::MIN as f64 || d >= i64::MAX as f64 {
                return Err(int_overflow());
            }
            d as i64
        }
        Value::String(s) => go_int(&s).ok_or_else(|| conversion("string", "int"))?,
        Value::Timestamp(t) => t.timestamp(),
        Value::Duration(d) => d.num_nanoseconds().ok_or_else(int_overflow)?,
        _ => return Err(ExecutionError::NoSuchOverload),
    }))
}

/// `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits.
fn go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

fn uint(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    Ok(Value::UInt(match v {
        Value::UInt(u) => u,
        Value::Int(i) => u64::try_from(i).map_err(|_| uint_overflow())?,
        Value::Float(d) => {
            if !(0.0..18_446_744_073_709_551_616.0).contains(&d) {
                return Err(uint_overflow());
            }
            d as u64
        }
        Value::String(s) => {
            let ok = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            ok.then(|| s.parse().ok())
                .flatten()
                .ok_or_else(|| conversion("string", "uint"))?
        }
        _ => return Err(ExecutionError::NoSuchOverload),
    }))
}

fn double(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    Ok(Value::Float(match v {
        Value::Float(d) => d,
        Value::Int(i) => i as f64,
        Value::UInt(u) => u as f64,
        Value::String(s) => go_float(&s).ok_or_else(|| conversion("string", "double"))?,
        _ => return Err(ExecutionError::NoSuchOverload),
    }))
}

/// `strconv.ParseFloat(s, 64)` for decimal input: digits with an optional fraction and
/// exponent, or `inf`/`infinity`/`nan` in any case, with a sign.
fn go_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return s.to_ascii_lowercase().parse().ok();
    }
    let valid = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && body.bytes().any(|b| b.is_ascii_digit());
    valid.then(|| s.parse().ok()).flatten()
}

fn to_string(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    Ok(match v {
        Value::String(_) => v,
        Value::Int(i) => string(i.to_string()),
        Value::UInt(u) => string(u.to_string()),
        Value::Float(d) => string(go_print::format_float(d)),
        Value::Bool(b) => string(b.to_string()),
        Value::Bytes(b) => match std::str::from_utf8(&b) {
            Ok(s) => string(s),
            Err(_) => {
                return Err(fail(
                    "string",
                    "invalid UTF-8 in bytes, cannot convert to string",
                ));
            }
        },
        Value::Timestamp(t) => string(rfc3339_nano(&t)),
        Value::Duration(d) => {
            let seconds = d
                .num_nanoseconds()
                .map_or(d.num_seconds() as f64, |n| n as f64 / 1e9);
            string(format!("{}s", go_print::plain_decimal(seconds)))
        }
        // IPs and CIDRs print as kube-cel prints them.
        Value::Opaque(_) => kube_cel("string", None, &[v])?,
        _ => return Err(ExecutionError::NoSuchOverload),
    })
}

fn to_bool(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    Ok(Value::Bool(match v {
        Value::Bool(b) => b,
        Value::String(s) => match s.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
            "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
            _ => return Err(conversion("string", "bool")),
        },
        _ => return Err(ExecutionError::NoSuchOverload),
    }))
}

fn bytes(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    match v {
        Value::Bytes(_) => Ok(v),
        Value::String(s) => Ok(Value::Bytes(Arc::new(s.as_bytes().to_vec()))),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

fn duration(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    match v {
        Value::Duration(_) => Ok(v),
        Value::String(s) => go_duration(&s)
            .map(|n| Value::Duration(chrono::Duration::nanoseconds(n)))
            .ok_or_else(|| conversion("string", "google.protobuf.Duration")),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

fn timestamp(ftx: &FunctionContext) -> ResolveResult {
    let v = subject(ftx)?;
    let t = match v {
        Value::Timestamp(_) => return Ok(v),
        Value::String(s) => {
            rfc3339(&s).ok_or_else(|| conversion("string", "google.protobuf.Timestamp"))?
        }
        Value::Int(i) => {
            if !(MIN_UNIX..=MAX_UNIX).contains(&i) {
                return Err(fail("timestamp", "timestamp overflow"));
            }
            Utc.timestamp_opt(i, 0)
                .single()
                .ok_or_else(|| fail("timestamp", "timestamp overflow"))?
                .fixed_offset()
        }
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    if !(MIN_UNIX..=MAX_UNIX).contains(&t.timestamp()) {
        return Err(fail("timestamp", "timestamp overflow"));
    }
    Ok(Value::Timestamp(t))
}

/// `time.Parse(time.RFC3339, s)`: an upper-case `T` and `Z` (chrono also takes lower case).
fn rfc3339(s: &str) -> Option<DateTime<chrono::FixedOffset>> {
    if s.as_bytes().get(10) != Some(&b'T') || s.contains('z') {
        return None;
    }
    DateTime::parse_from_rfc3339(s).ok()
}

/// Go's `time.RFC3339Nano`: the fraction without trailing zeros, `Z` for UTC.
fn rfc3339_nano(t: &DateTime<chrono::FixedOffset>) -> String {
    let mut out = t.format("%Y-%m-%dT%H:%M:%S").to_string();
    let nanos = t.timestamp_subsec_nanos();
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    match t.offset().local_minus_utc() {
        0 => out.push('Z'),
        secs => {
            let sign = if secs < 0 { '-' } else { '+' };
            let secs = secs.abs();
            out.push_str(&format!("{sign}{:02}:{:02}", secs / 3600, secs % 3600 / 60));
        }
    }
    out
}

/// A CEL type as a value (`type(1) == int`).
#[derive(Debug, PartialEq, Eq)]
struct CelType(&'static str);

impl Opaque for CelType {
    fn runtime_type_name(&self) -> &str {
        "type"
    }
}

impl CelType {
    fn value(name: &'static str) -> Value {
        Value::Opaque(Arc::new(CelType(name)))
    }
}

fn type_of(ftx: &FunctionContext) -> ResolveResult {
    let this = subject(ftx)?;
    Ok(CelType::value(match &this {
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::Null => "null_type",
        Value::Duration(_) => "google.protobuf.Duration",
        Value::Timestamp(_) => "google.protobuf.Timestamp",
        Value::Function(..) => "function",
        Value::Opaque(o) if o.runtime_type_name() == "type" => "type",
        Value::Opaque(o) if o.runtime_type_name() == "optional_type" => "optional_type",
        Value::Opaque(_) => "opaque",
    }))
}
