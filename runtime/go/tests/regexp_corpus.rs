//! kubegen-go's `regexp` against Go's own answers: `testdata/regexp/corpus.json`, recorded from
//! the Go toolchain by `testdata/regexp/gen.go`. Every pattern must get Go's error text, or
//! Go's match verdict and Go's matches on every input.

use kubegen_go::regexp::Regexp;
use serde_json::Value;

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A pattern as the corpus writes it: literally, or built from repeated parts.
fn pattern(entry: &Value) -> String {
    let Some(build) = entry.get("build") else {
        return entry["pattern"].as_str().unwrap_or_default().to_owned();
    };
    let part = |k: &str| build[k].as_str().unwrap_or_default();
    let count = build["count"].as_u64().unwrap_or_default() as usize;
    format!(
        "{}{}{}{}{}",
        part("prefix"),
        part("unit").repeat(count),
        part("middle"),
        part("close").repeat(count),
        part("suffix")
    )
}

/// Matches as the corpus writes them: `start-end` or, for an empty match, `start`.
fn spans(re: &Regexp, input: &str) -> String {
    re.find_iter(input)
        .map(|m| match (m.start(), m.end()) {
            (s, e) if s == e => s.to_string(),
            (s, e) => format!("{s}-{e}"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(120).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    format!("{out:?}")
}

#[test]
fn every_pattern_behaves_as_in_go() {
    let corpus: Value = serde_json::from_str(include_str!("../testdata/regexp/corpus.json"))
        .expect("the corpus is JSON");
    assert_eq!(corpus["unicode"], kubegen_go::regexp::UNICODE_VERSION);
    let shared = strings(&corpus["shared"]);
    let entries = corpus["patterns"].as_array().expect("patterns");
    let mut failures = Vec::new();
    let (mut compiled, mut refused, mut checks) = (0, 0, 0);
    for entry in entries {
        let pattern = pattern(entry);
        let want_error = entry
            .get("error")
            .and_then(Value::as_str)
            .map(|e| e.replacen("<pattern>", &pattern, 1));
        // Long built patterns without inputs are there for Go's limits: parsing decides them,
        // and compiling one takes seconds.
        if entry.get("build").is_some() && entry.get("inputs").is_none() {
            let got = kubegen_go::regexp::check(&pattern)
                .err()
                .map(|e| e.to_string());
            if got != want_error {
                failures.push(format!(
                    "{}: {got:?}, Go says {want_error:?}",
                    short(&pattern)
                ));
            }
            refused += usize::from(got.is_some());
            compiled += usize::from(got.is_none());
            continue;
        }
        let re = match (Regexp::new(&pattern), want_error) {
            (Err(got), Some(want)) => {
                refused += 1;
                if got.to_string() != want {
                    failures.push(format!(
                        "{}: error {:?}, Go says {want:?}",
                        short(&pattern),
                        got.to_string()
                    ));
                }
                continue;
            }
            (Err(got), None) => {
                failures.push(format!(
                    "{}: refused ({got}), Go compiles it",
                    short(&pattern)
                ));
                continue;
            }
            (Ok(_), Some(want)) => {
                failures.push(format!("{}: compiles, Go says {want:?}", short(&pattern)));
                continue;
            }
            (Ok(re), None) => re,
        };
        compiled += 1;
        let own = strings(&entry["inputs"]);
        let inputs: Vec<&str> = if entry["own_only"] == true {
            own
        } else {
            shared.iter().copied().chain(own).collect()
        };
        let verdicts = entry["match"].as_str().unwrap_or_default().as_bytes();
        let mut finds = strings(&entry["find"]).into_iter();
        assert_eq!(verdicts.len(), inputs.len(), "{}", short(&pattern));
        for (input, &verdict) in inputs.iter().zip(verdicts) {
            checks += 1;
            let want = verdict == b'1';
            if re.is_match(input) != want {
                failures.push(format!(
                    "{} on {}: matches {}, Go says {want}",
                    short(&pattern),
                    short(input),
                    !want
                ));
                if want {
                    finds.next();
                }
                continue;
            }
            if want {
                let want_spans = finds.next().unwrap_or_default();
                let got = spans(&re, input);
                if got != want_spans {
                    failures.push(format!(
                        "{} on {}: finds {got}, Go finds {want_spans}",
                        short(&pattern),
                        short(input)
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with Go ({} patterns compiled, {} refused, {} inputs checked):\n{}",
        failures.len(),
        compiled,
        refused,
        checks,
        failures
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    eprintln!(
        "{compiled} patterns compiled and {refused} refused as Go does; {checks} inputs matched as in Go"
    );
}
