//! kubegen-go's `json` against Go's own answers: `testdata/json/corpus.json`, recorded from the
//! Go toolchain (v1 `encoding/json`, as kube-apiserver is built) by `testdata/json/gen.go`.
//! Every body must get Go's error text, or Go's value written back byte for byte, and the
//! same `apiVersion` and `kind` (or error) as Go's decode into a struct.

use kubegen_go::json;
use serde_json::Value;

fn text(entry: &Value, key: &str) -> String {
    entry[key].as_str().unwrap_or_default().to_owned()
}

/// The body an entry describes: text, hex, or a long body built from repeated parts.
fn body(entry: &Value) -> Vec<u8> {
    if let Some(build) = entry.get("build") {
        let part = |k: &str| build[k].as_str().unwrap_or_default();
        let count = build["count"].as_u64().unwrap_or_default() as usize;
        return format!(
            "{}{}{}{}",
            part("prefix"),
            part("unit").repeat(count),
            part("middle"),
            part("close").repeat(count)
        )
        .into_bytes();
    }
    if let Some(hex) = entry.get("hex").and_then(Value::as_str) {
        return (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect();
    }
    text(entry, "input").into_bytes()
}

fn short(data: &[u8]) -> String {
    let s = json::lossy(data);
    let mut out: String = s.chars().take(100).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    format!("{out:?}")
}

#[test]
fn every_body_decodes_as_in_go() {
    let corpus: Value = serde_json::from_str(include_str!("../testdata/json/corpus.json"))
        .expect("the corpus is JSON");
    let entries = corpus["entries"].as_array().expect("entries");
    let mut failures = Vec::new();
    for entry in entries {
        let data = body(entry);
        let (want_error, want_value) = (text(entry, "error"), text(entry, "value"));
        let decoded = json::decode(&data, &["apiVersion", "kind"]);
        let (got_error, got_value) = match &decoded {
            Err(e) => (e.to_string(), String::new()),
            Ok(d) => match &d.value {
                Err(e) => (e.to_string(), String::new()),
                Ok(v) => (
                    String::new(),
                    String::from_utf8(json::to_vec(v)).expect("UTF-8"),
                ),
            },
        };
        if (&got_error, &got_value) != (&want_error, &want_value) {
            failures.push(format!(
                "{}: got {got_error:?} {got_value:?}, Go says {want_error:?} {want_value:?}",
                short(&data)
            ));
        }
        let want_fields = match entry.get("fields") {
            Some(f) => Ok(f.clone()),
            None => Err(text(entry, "fields_error")),
        };
        let got_fields = match &decoded {
            Err(e) => Err(e.to_string()),
            Ok(d) => d.fields.clone().map(Value::from).map_err(|e| e.to_string()),
        };
        if got_fields != want_fields {
            failures.push(format!(
                "{} fields: got {got_fields:?}, Go says {want_fields:?}",
                short(&data)
            ));
        }
        if let Ok(d) = decoded
            && let Ok(v) = d.value
        {
            json::dismantle(v);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bodies differ from Go:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}
