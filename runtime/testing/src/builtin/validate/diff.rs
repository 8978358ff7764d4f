//! The text diff the apiserver appends to "spec is immutable" style messages (Pod and
//! PersistentVolumeClaim updates): a unified diff, three lines of context, of the two specs
//! printed as indented JSON.
//!
//! Go prints its internal structs (Go field names, declaration order, every field); this
//! prints the objects as they are, so the hunks name the same changed values but their
//! line numbers and context differ from the apiserver's.

use serde_json::Value;

/// The unified diff of `old` and `new`, each line ending in `\n`.
pub(super) fn unified(old: &Value, new: &Value) -> String {
    let a = lines(old);
    let b = lines(new);
    let edits = edit_script(&a, &b);
    let mut out = String::new();
    let mut i = 0;
    while i < edits.len() {
        if matches!(edits[i], Edit::Same(..)) {
            i += 1;
            continue;
        }
        // A hunk: from three lines before the first change to three after the last change
        // that is no more than six unchanged lines from the next.
        let start = i.saturating_sub(3);
        let mut end = i;
        let mut j = i;
        while j < edits.len() {
            if !matches!(edits[j], Edit::Same(..)) {
                end = j;
                j += 1;
                continue;
            }
            let run = edits[j..]
                .iter()
                .take_while(|e| matches!(e, Edit::Same(..)))
                .count();
            if j + run >= edits.len() || run > 6 {
                break;
            }
            j += run;
        }
        let stop = (end + 4).min(edits.len());
        let hunk = &edits[start..stop];
        let (old_start, new_start) = position(&edits[..start]);
        let old_len = hunk.iter().filter(|e| !matches!(e, Edit::Add(_))).count();
        let new_len = hunk
            .iter()
            .filter(|e| !matches!(e, Edit::Remove(_)))
            .count();
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            old_start + 1,
            new_start + 1
        ));
        for e in hunk {
            match e {
                Edit::Same(l) => out.push_str(&format!(" {l}\n")),
                Edit::Remove(l) => out.push_str(&format!("-{l}\n")),
                Edit::Add(l) => out.push_str(&format!("+{l}\n")),
            }
        }
        i = stop;
    }
    out
}

enum Edit<'a> {
    Same(&'a str),
    Remove(&'a str),
    Add(&'a str),
}

fn position(before: &[Edit<'_>]) -> (usize, usize) {
    let old = before.iter().filter(|e| !matches!(e, Edit::Add(_))).count();
    let new = before
        .iter()
        .filter(|e| !matches!(e, Edit::Remove(_)))
        .count();
    (old, new)
}

/// `json.MarshalIndent(v, "", " ")`, split into lines.
fn lines(value: &Value) -> Vec<String> {
    let mut out = String::new();
    indent(value, 0, &mut out);
    out.lines().map(str::to_owned).collect()
}

fn indent(value: &Value, depth: usize, out: &mut String) {
    let pad = |d: usize| " ".repeat(d);
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in m.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                indent(v, depth + 1, out);
                out.push_str(if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                indent(v, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        other => out.push_str(&kubegen_core::go_print::marshal(other)),
    }
}

/// The shortest edit script from `a` to `b` (longest common subsequence).
fn edit_script<'a>(a: &'a [String], b: &'a [String]) -> Vec<Edit<'a>> {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut edits = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            edits.push(Edit::Same(&a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            edits.push(Edit::Add(&b[j]));
            j += 1;
        } else {
            edits.push(Edit::Remove(&a[i]));
            i += 1;
        }
    }
    // Go's diff lists a changed line's removal before its addition.
    let mut k = 0;
    while k + 1 < edits.len() {
        if matches!(edits[k], Edit::Add(_)) && matches!(edits[k + 1], Edit::Remove(_)) {
            edits.swap(k, k + 1);
            k = k.saturating_sub(1);
        } else {
            k += 1;
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_changed_value_is_one_hunk_with_context() {
        let old = json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9});
        let mut new = old.clone();
        new["e"] = json!(50);
        let diff = unified(&old, &new);
        assert_eq!(
            diff,
            "@@ -3,7 +3,7 @@\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4,\n- \"e\": 5,\n+ \"e\": 50,\n  \"f\": 6,\n  \"g\": 7,\n  \"h\": 8,\n"
        );
    }
}
