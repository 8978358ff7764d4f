//! What the two conformance suites (the apiserver's answers, the cluster's behaviour) share:
//! where two JSON values differ, as `path: ours != <theirs> value` lines, the tally of answers
//! against the real server's, and their recording's text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// A conformance suite's tally against the real server: answers compared, agreeing, differing
/// on purpose, the differences printed, and the cases without a recording or whose recording
/// the live server no longer matches.
#[derive(Default)]
pub struct Report {
    pub total: usize,
    pub agreed: usize,
    pub intentional: usize,
    pub differences: String,
    pub unrecorded: Vec<String>,
    pub stale: Vec<String>,
}

impl Report {
    /// Compares case `name`'s answers, ours against the reference's one by one; `label` is the
    /// key naming each answer (`step`, `request`), `who` the other side. The differences of an
    /// `intentional` case are counted, not printed.
    pub fn compare(
        &mut self,
        name: &str,
        intentional: bool,
        (label, who): (&str, &str),
        ours: &[Value],
        reference: &[Value],
    ) {
        for (i, want) in reference.iter().enumerate() {
            self.total += 1;
            let got = ours.get(i).unwrap_or(&Value::Null);
            if got == want {
                self.agreed += 1;
                continue;
            }
            if intentional {
                self.intentional += 1;
                continue;
            }
            let _ = writeln!(
                self.differences,
                "\n{name} #{i}: {}",
                want[label].as_str().unwrap_or("")
            );
            for line in diff("", got, want, who) {
                let _ = writeln!(self.differences, "    {line}");
            }
        }
    }
}

/// The recording as one line per case, so a re-recording's diff names the cases that changed.
pub fn recording_text(recording: &BTreeMap<String, Vec<Value>>) -> String {
    let lines: Vec<String> = recording
        .iter()
        .map(|(name, answers)| {
            format!(
                "  {}: {}",
                serde_json::to_string(name).unwrap(),
                serde_json::to_string(answers).unwrap()
            )
        })
        .collect();
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}

/// The differences between `ours` and `theirs` under `path`, `who` naming the other side.
pub fn diff(path: &str, ours: &Value, theirs: &Value, who: &str) -> Vec<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            let missing = Value::String("(missing)".into());
            keys.into_iter()
                .flat_map(|k| {
                    diff(
                        &format!("{path}/{k}"),
                        a.get(k).unwrap_or(&missing),
                        b.get(k).unwrap_or(&missing),
                        who,
                    )
                })
                .collect()
        }
        // Lists of objects: matched by kind and name.
        (Value::Array(a), Value::Array(b))
            if a.iter().chain(b).all(|v| v.get("name").is_some()) =>
        {
            let key = |v: &Value| {
                format!(
                    "{} {}",
                    v["kind"].as_str().unwrap_or(""),
                    v["name"].as_str().unwrap_or("")
                )
            };
            let mut keys: Vec<String> = a.iter().chain(b).map(key).collect();
            keys.sort();
            keys.dedup();
            let missing = Value::String("(missing)".into());
            keys.into_iter()
                .flat_map(|k| {
                    let x: Vec<&Value> = a.iter().filter(|v| key(v) == k).collect();
                    let y: Vec<&Value> = b.iter().filter(|v| key(v) == k).collect();
                    match (x.len(), y.len()) {
                        (1, 1) => diff(&format!("{path}[{k}]"), x[0], y[0], who),
                        (0, _) => diff(
                            &format!("{path}[{k}]"),
                            &missing,
                            &Value::from(y.len()),
                            who,
                        ),
                        (_, 0) => diff(
                            &format!("{path}[{k}]"),
                            &Value::from(x.len()),
                            &missing,
                            who,
                        ),
                        // Several of one name (a generated one's pattern): compared in order.
                        (n, m) if n == m => {
                            let mut x = x;
                            let mut y = y;
                            x.sort_by_key(|v| v.to_string());
                            y.sort_by_key(|v| v.to_string());
                            x.iter()
                                .zip(&y)
                                .enumerate()
                                .flat_map(|(i, (p, q))| {
                                    diff(&format!("{path}[{k}#{i}]"), p, q, who)
                                })
                                .collect()
                        }
                        (n, m) => diff(
                            &format!("{path}[{k}]"),
                            &Value::from(n),
                            &Value::from(m),
                            who,
                        ),
                    }
                })
                .collect()
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .flat_map(|(i, (x, y))| diff(&format!("{path}/{i}"), x, y, who))
            .collect(),
        (a, b) if a == b => Vec::new(),
        (a, b) => vec![format!("{path}: ours {a} != {who} {b}")],
    }
}
