//! Go's `encoding/json` as the apiserver uses it on request and response bodies.
//!
//! kube-apiserver decodes a JSON body twice: Go's `encoding/json` reads its `apiVersion` and
//! `kind` into a struct (keys matched case-insensitively, the last one winning), and
//! sigs.k8s.io/json, a copy of `encoding/json` with Kubernetes' options, reads the object
//! into `map[string]interface{}` (keys matched exactly, integers kept as int64, duplicate
//! keys reported). Both share Go's scanner. What users see of them:
//!
//! - **Syntax errors** in the scanner's words (`invalid character 'x' after top-level value`,
//!   `unexpected end of JSON input`), found before anything is decoded.
//! - **Depth**: a container nested more than 10,000 deep is `invalid character '{' exceeded
//!   max depth`. Decoding here keeps its own stack, so any depth is safe to read.
//! - **Text**: bytes that are not UTF-8, and `\u` escapes of unpaired surrogates, become
//!   U+FFFD one by one, in keys and values; nothing is refused for it.
//! - **Numbers**: an integer literal that fits int64 stays an integer; anything else is the
//!   correctly rounded float64; a number float64 cannot hold is `json: cannot unmarshal
//!   number 1e309 into Go value of type float64`.
//! - **Duplicate keys**: the last one wins; their paths are reported (`spec.ports[0].name`).
//!
//! Writing ([`to_vec`]) is Go's `json.Marshal`: keys sorted, HTML characters and U+2028/2029
//! escaped, floats in Go's format ([`format_float`]).
//!
//! ```
//! use kubegen_go::json;
//!
//! let decoded = json::decode(b"{\"kind\":\"W\",\"n\":1.0,\"s\":\"a\xffb\",\"n\":1e3}", &["apiVersion", "kind"]).unwrap();
//! let value = decoded.value.unwrap();
//! assert_eq!(value["s"], "a\u{FFFD}b");
//! assert_eq!(decoded.duplicates, ["n"]);
//! assert_eq!(
//!     String::from_utf8(json::to_vec(&value)).unwrap(),
//!     "{\"kind\":\"W\",\"n\":1000,\"s\":\"a\u{FFFD}b\"}"
//! );
//! assert_eq!(decoded.fields.unwrap(), ["", "W"]);
//! assert_eq!(
//!     json::decode(b"{} x", &[]).unwrap_err().to_string(),
//!     "invalid character 'x' after top-level value"
//! );
//! ```

mod decode;
mod encode;
mod number;
mod text;

use std::fmt;

use serde_json::Value;

pub use encode::{to_vec, write_value};
pub use number::{format_float, through_storage};
pub use text::lossy;

/// How deep Go's scanner lets containers nest (`maxNestingDepth`).
pub const MAX_DEPTH: usize = 10_000;

/// A body Go's scanner refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    message: String,
    offset: usize,
}

impl SyntaxError {
    /// How many bytes were read when the error was found (Go's `SyntaxError.Offset`).
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// A well-formed body that does not fit what it is decoded into: Go's `UnmarshalTypeError`
/// (`json: cannot unmarshal number 1e309 into Go value of type float64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmarshalError(String);

impl fmt::Display for UnmarshalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnmarshalError {}

/// A well-formed JSON body, as Go decodes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The body decoded into `interface{}` with sigs.k8s.io/json's `PreserveInts`, or the
    /// first error doing so (a number float64 cannot hold).
    pub value: Result<Value, UnmarshalError>,
    /// The paths of keys that repeat a key of their object, in the order found, each once
    /// and at most 100 (sigs.k8s.io/json's `duplicate field` errors).
    pub duplicates: Vec<String>,
    /// How deep containers nest (the root object is 1).
    pub depth: usize,
    /// The body decoded with `encoding/json` into a struct of `omitempty` string fields
    /// named by the `fields` given to [`decode`] (as kube-apiserver reads `apiVersion` and
    /// `kind`): their values, or the first type error.
    pub fields: Result<Vec<String>, UnmarshalError>,
}

/// Decodes `data` as Go does (see the module documentation); `fields` names the string
/// fields of a struct to decode it into as well (`Decoded::fields`).
pub fn decode(data: &[u8], fields: &[&str]) -> Result<Decoded, SyntaxError> {
    decode::Parser::new(data, decode::Fields::new(fields)).parse()
}

/// Go's name for the JSON type of a value in `json: cannot unmarshal <type> into ...`.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Drops `value` without recursion. `serde_json::Value`'s own drop recurses once per level
/// of nesting, so dropping a value 10,000 deep can overflow a thread's stack; this takes it
/// apart level by level instead.
pub fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            Value::Array(items) => pending.extend(items),
            Value::Object(fields) => pending.extend(fields.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
