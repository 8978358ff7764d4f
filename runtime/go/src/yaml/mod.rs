//! YAML as kube-apiserver reads it: go-yaml v2 (YAML 1.1), through sigs.k8s.io/yaml.
//!
//! The apiserver reads server-side apply bodies (`application/apply-patch+yaml`) and
//! `application/yaml` create and update bodies with sigs.k8s.io/yaml, which decodes them
//! with go-yaml v2 into Go values and converts those to JSON. What users see of that:
//!
//! - **YAML 1.1**: unquoted `yes`, `no`, `on`, `off`, `y` and `n` are booleans (as keys,
//!   `"true"` and `"false"`), `012` is octal, `0x10` hex, `1_000` an int, `.inf` a float,
//!   `~` null; `<<` merges mappings; `!!binary` is decoded; unknown tags are ignored.
//! - **Only the first document** is read; what follows it is never parsed, as long as the
//!   scanner could finish the first one.
//! - **Numbers as JSON reads them back**: go-yaml's floats go through Go's JSON encoder,
//!   so integral ones (`1.0`, `1e3`) become integers, NaN and infinities are refused
//!   (`json: unsupported value: +Inf`), and numbers past float64 stay strings (`1e309`).
//! - **Errors in go-yaml's words** (`yaml: line 3: did not find expected key`), its depth
//!   limit of 10,000 and its aliasing limit (`yaml: document contains excessive aliasing`).
//! - **Duplicate keys**: the last wins; strict decoding reports each as `line 7: key "s"
//!   already set in map`.
//!
//! The scanner and parser are libyaml's (go-yaml v2 is a port of libyaml to Go, so both
//! read the same events and fail with the same problems at the same marks), through the
//! `unsafe-libyaml` crate; this module resolves scalars as YAML 1.1 and builds values as
//! go-yaml does on top of those events.
//!
//! ```
//! use kubegen_go::yaml;
//!
//! let doc = yaml::unmarshal(b"spec:\n  on: yes\n  size: 012\n  ratio: 1.0\n  s: a\n  s: b\n---\nignored: [").unwrap();
//! assert_eq!(doc.value, serde_json::json!({"spec": {"true": true, "size": 10, "ratio": 1, "s": "b"}}));
//! assert_eq!(doc.duplicates, [r#"line 6: key "s" already set in map"#]);
//! assert_eq!(
//!     yaml::unmarshal(b"a: [1, 2").unwrap_err().to_string(),
//!     "yaml: line 1: did not find expected ',' or ']'"
//! );
//! ```

mod decode;
mod events;
mod gosyntax;
mod resolve;
mod tree;

use std::fmt;

use serde_json::Value;

/// Why a YAML body cannot be read: go-yaml's error (`yaml: …`), or sigs.k8s.io/yaml's
/// conversion's (`unsupported map key of type: …`, `json: unsupported value: NaN`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    fn new(message: String) -> Self {
        Error(message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// The first document of a YAML body, as sigs.k8s.io/yaml converts it to JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The document as JSON (`null` for an empty body).
    pub value: Value,
    /// What strict decoding (`yaml.UnmarshalStrict`) reports: one line per key set twice in
    /// a mapping, merges included (`line 7: key "s" already set in map`), in document order.
    pub duplicates: Vec<String>,
    /// How deep sequences and mappings nest in the value (the root mapping is 1).
    pub depth: usize,
}

/// Reads the first document of `data` as go-yaml v2 reads it into `interface{}` and
/// sigs.k8s.io/yaml converts that to JSON (`yaml.YAMLToJSON`).
pub fn unmarshal(data: &[u8]) -> Result<Document, Error> {
    let decoded = decode::decode(tree::parse(data)?)?;
    Ok(Document {
        value: decoded.value,
        duplicates: decoded.duplicates,
        depth: decoded.depth,
    })
}

/// The error go-yaml's strict decoding returns for `duplicates` (a [`Document`]'s), or
/// `None` when there are none: `yaml: unmarshal errors:` and one indented line each.
pub fn strict_error(duplicates: &[String]) -> Option<String> {
    (!duplicates.is_empty())
        .then(|| format!("yaml: unmarshal errors:\n  {}", duplicates.join("\n  ")))
}

#[cfg(test)]
mod tests;
