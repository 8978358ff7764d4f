//! Evaluation errors in the apiserver's words: the cel crate's [`ExecutionError`]s as cel-go
//! writes the same failures (`no such key: x`, `division by zero`, `no such overload`, ...).

use kube_cel::cel::{ExecutionError, Value};

/// cel-go's text for an overload that does not exist for the arguments' types; the
/// apiserver words such errors its own way.
pub(super) const NO_SUCH_OVERLOAD: &str = "no such overload";

/// The text cel-go gives the same failure.
pub(super) fn describe(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::Overflow(_, lhs, _) => match lhs {
            Value::UInt(_) => "unsigned integer overflow".to_owned(),
            Value::Duration(_) => "duration overflow".to_owned(),
            Value::Timestamp(_) => "timestamp overflow".to_owned(),
            _ => "integer overflow".to_owned(),
        },
        ExecutionError::IndexOutOfBounds(index) => {
            format!("index out of bounds: {}", scalar(index))
        }
        ExecutionError::FunctionError { message, .. } => message.clone(),
        // `oldSelf` without an old value (in a message expression, as in the apiserver).
        ExecutionError::UndeclaredReference(name) if name.as_str() == "oldSelf" => {
            format!("no such attribute(s): {name}")
        }
        // The cel crate lacks a function the apiserver has (`sortBy`, two-variable
        // comprehensions): say so rather than pretend the rule failed.
        ExecutionError::UndeclaredReference(name) => {
            format!("kubegen cannot evaluate '{name}' (the cel crate does not implement it)")
        }
        _ => NO_SUCH_OVERLOAD.to_owned(),
    }
}

/// A scalar as Go's `%v` prints it.
fn scalar(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::String(s) => s.to_string(),
        other => format!("{other:?}"),
    }
}
