//! Go's behaviour, where Kubernetes shows it to users, for Rust.
//!
//! The apiserver is a Go program: a CRD's `pattern` and CEL's `matches`, `find` and `findAll`
//! are Go regular expressions, read and run by Go's standard library. kubegen checks patterns
//! when a type is compiled (the derive), when a CRD is built, and when an object is validated
//! locally or by the in-memory apiserver; all of them must agree with the real one. This crate
//! holds what both the derive (a proc-macro, which cannot depend on the runtime) and the
//! runtime need for that:
//!
//! - [`json`]: Go's `encoding/json` as the apiserver decodes request bodies and encodes
//!   responses — its syntax errors, depth limit, U+FFFD for what is not text, numbers,
//!   duplicate keys and float formatting.
//! - [`strconv`]: Go's `strconv.Quote`, `unicode.IsPrint` and float formatting, as the
//!   apiserver's messages print values.
//! - [`yaml`]: go-yaml v2 (YAML 1.1) through sigs.k8s.io/yaml, as the apiserver reads
//!   apply and YAML bodies — its scalar types, first-document reading, limits and errors.
//! - [`regexp`]: Go's `regexp` package — the syntax of `regexp/syntax` (RE2's, as
//!   `regexp.Compile` parses it), its error messages word for word, and its matching, with the
//!   Unicode tables of Go's `unicode` package.
//! - [`cel`]: how the apiserver's CEL names an object's properties (`cel.Escape`), which the
//!   derive's rule checks and the runtime's rule compiler share.
//! - [`formats`]: the schema `format` names the apiserver validates, which the derive checks
//!   markers against and the runtime keeps in schemas.
//! - [`unicode`]: the predicates of Go's `unicode` package that Kubernetes' messages and
//!   checks depend on (`unicode.IsPrint`), from the same tables.
//!
//! It is a port of behaviour, not of code: the rules come from reading Go's source, and a
//! corpus recorded from the Go toolchain (`testdata/`) checks every answer.

#![warn(missing_docs, unreachable_pub)]

pub mod cel;
pub mod formats;
pub mod json;
pub mod regexp;
pub mod strconv;
pub mod unicode;
pub mod yaml;
