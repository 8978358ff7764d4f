//! kubegen-go's corpus tests, one binary: Go's answers, recorded by the programs under `gen/`,
//! against this crate's.

mod json_corpus;
mod regexp_corpus;
