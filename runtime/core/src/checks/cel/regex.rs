//! Regular expressions as CEL's `matches`, `find` and `findAll` run them in the apiserver:
//! Go's `regexp.Compile` (kubegen-go's port), with Go's error text (`error parsing regexp:
//! missing closing ]: `[``) for a pattern that does not compile. Compiled patterns are
//! cached, as a rule usually matches against the same few.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use kubegen_go::regexp::Regexp;
use parking_lot::Mutex;

/// How many compiled patterns the cache keeps before it starts over.
const CACHE_SIZE: usize = 256;

/// A pattern compiled, or Go's error for it.
type Compiled = Result<Arc<Regexp>, String>;

static CACHE: LazyLock<Mutex<HashMap<String, Compiled>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Compiles `pattern` as Go's `regexp.Compile` does, or returns Go's error message.
pub(super) fn compile(pattern: &str) -> Compiled {
    if let Some(hit) = CACHE.lock().get(pattern) {
        return hit.clone();
    }
    let compiled = Regexp::new(pattern)
        .map(Arc::new)
        .map_err(|e| e.to_string());
    let mut cache = CACHE.lock();
    if cache.len() >= CACHE_SIZE {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), compiled.clone());
    compiled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_go_writes_them() {
        let err = |p: &str| compile(p).err().unwrap_or_default();
        // Each expected text is what kube-apiserver v1.36.2 answered for the pattern.
        assert_eq!(err("(["), "error parsing regexp: missing closing ]: `[`");
        assert_eq!(
            err("a{2}{3}"),
            "error parsing regexp: invalid nested repetition operator: `{2}{3}`"
        );
        assert!(compile("^[a-z]+$").is_ok());
    }

    #[test]
    fn patterns_mean_what_go_means() {
        let re = |p: &str| compile(p).unwrap_or_else(|e| panic!("{e}"));
        assert!(re(r"^\d+$").is_match("123"));
        assert!(!re(r"^\d+$").is_match("١٢٣"));
        assert!(re(r"\<").is_match("a<b"), "an escaped < is a <");
        assert!(
            re("[a&&b]").is_match("&"),
            "no set operations in Go's classes"
        );
    }
}
