//! The crates' module layout: within each crate under `runtime/`, no two top-level modules
//! depend on each other, directly or through others. A module depends on another when its
//! code (not its comments or its tests) names it by a `crate::` path; a re-export counts too,
//! since the modules it joins can then no longer be read, or split off, one before the other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code without its unit tests (`tests.rs` files, and a trailing `mod tests`).
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs")
        || path.components().any(|c| c.as_os_str() == "tests")
    {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text,
    };
    (text.lines())
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The crate's top-level modules (`src/<name>.rs` or `src/<name>/`), each with the others it
/// names.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            rust_files(&path, files.entry(name).or_default());
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            files.entry(name).or_default().push(path);
        }
    }
    let mut graph = BTreeMap::new();
    for (module, paths) in &files {
        let mut uses = BTreeSet::new();
        for path in paths {
            let code = code(path);
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != *module && files.contains_key(&name) {
                    uses.insert(name);
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// The modules from which `from` can be reached.
fn reaching(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = vec![from];
    while let Some(module) = todo.pop() {
        for (other, uses) in graph {
            if uses.contains(module) && seen.insert(other.clone()) {
                todo.push(other);
            }
        }
    }
    seen
}

#[test]
fn no_crate_has_modules_that_depend_on_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cycles = Vec::new();
    for krate in [
        "runtime/core",
        "runtime",
        "runtime/testing",
        "runtime/go",
        "derive",
    ] {
        let graph = module_graph(&root.join(krate).join("src"));
        assert!(graph.len() > 3, "{krate}: its modules were not found");
        for (module, uses) in &graph {
            let reached_from = reaching(&graph, module);
            let back: Vec<&String> = uses.iter().filter(|u| reached_from.contains(*u)).collect();
            if !back.is_empty() {
                cycles.push(format!(
                    "{krate}: {module} uses {back:?}, which depend on it"
                ));
            }
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_check_finds_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("lib.rs", "mod a; mod b; mod c;");
    write(
        "a.rs",
        "use crate::b::B;\n// crate::c in a comment is no use\n",
    );
    write("b.rs", "pub struct B;\nfn f() { crate::a::g() }\n");
    write("c.rs", "#[cfg(test)]\nmod tests { use crate::a; }\n");
    let graph = module_graph(dir.path());
    assert_eq!(graph["a"], BTreeSet::from(["b".to_owned()]));
    assert_eq!(graph["c"], BTreeSet::new());
    assert_eq!(
        reaching(&graph, "a"),
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
    assert!(reaching(&graph, "c").is_empty());
}
