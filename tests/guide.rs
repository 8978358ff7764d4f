//! The guide's listings (`docs/src`): every `{{#include path}}` names a file that exists, and
//! every `{{#include path:anchor}}` an anchor that file opens and closes, so a renamed file or a
//! moved `// ANCHOR:` line fails here rather than leaving an empty listing in the book.

use std::path::{Path, PathBuf};

/// Every include directive of the guide: the chapter, the included file, the anchor if any.
fn includes() -> Vec<(PathBuf, PathBuf, Option<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let chapter = entry.unwrap().path();
        if chapter.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&chapter).unwrap();
        for (_, rest) in text
            .match_indices("{{#include ")
            .map(|(i, _)| text.split_at(i))
        {
            let directive = &rest["{{#include ".len()..rest.find("}}").unwrap()];
            let (path, anchor) = match directive.split_once(':') {
                Some((path, anchor)) => (path, Some(anchor.trim().to_owned())),
                None => (directive, None),
            };
            found.push((chapter.clone(), src.join(path.trim()), anchor));
        }
    }
    found
}

#[test]
fn every_included_file_and_anchor_exists() {
    let includes = includes();
    assert!(
        includes.len() >= 10,
        "the guide includes its listings: {includes:?}"
    );
    for (chapter, file, anchor) in includes {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: includes {}: {e}", chapter.display(), file.display()));
        if let Some(anchor) = anchor {
            // mdBook's anchors: a line containing `ANCHOR: name`, then one containing
            // `ANCHOR_END: name`.
            let open = text
                .lines()
                .position(|l| l.contains(&format!("ANCHOR: {anchor}")));
            let close = text
                .lines()
                .position(|l| l.contains(&format!("ANCHOR_END: {anchor}")));
            assert!(
                matches!((open, close), (Some(o), Some(c)) if o < c),
                "{}: includes {}:{anchor}, which the file does not open and close",
                chapter.display(),
                file.display()
            );
        }
    }
}
