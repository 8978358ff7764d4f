//! The validator against answers recorded from kube-apiserver v1.36.2: every case in
//! `testdata/apiserver.json` is a request sent (with `dryRun=All`) to a real apiserver and
//! the `Status` it returned.
//!
//! Go walks an object's properties in a random order, so the apiserver's causes for
//! sibling properties come in a different rotation from one request to the next. The
//! comparison therefore checks the causes as a multiset, and the order of the causes of
//! each field (which is deterministic) exactly.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{ResourceValidator, invalid_message};
use crate::kind_info::ScaleInfo;

const CASES: &str = include_str!("testdata/apiserver.json");

/// `[format, value, accepted]` rows: each value was sent in a `format`-typed string field
/// to kube-apiserver v1.36.2, which accepted it or answered `must be of type <format>`.
const FORMATS: &str = include_str!("testdata/formats.json");

#[test]
fn formats_accept_what_the_apiserver_accepts() {
    let rows: Vec<(String, String, bool)> =
        serde_json::from_str(FORMATS).unwrap_or_else(|e| panic!("testdata: {e}"));
    assert!(rows.len() > 150, "the recorded verdicts are all there");
    let wrong: Vec<String> = rows
        .iter()
        .filter(|(format, value, accepted)| super::formats::validates(format, value) != *accepted)
        .map(|(format, value, accepted)| format!("{format} {value:?}: apiserver says {accepted}"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn validator(crd: &str, schema: &Value) -> ResourceValidator {
    match crd {
        "probe" => ResourceValidator::new(
            "v.example.com",
            "v1",
            "Probe",
            true,
            schema,
            Some(ScaleInfo {
                spec_replicas_path: ".spec.replicas",
                status_replicas_path: ".status.replicas",
                label_selector_path: None,
            }),
        ),
        "format" => ResourceValidator::new("v.example.com", "v1", "Format", false, schema, None),
        _ => ResourceValidator::new("v.example.com", "v1", "Ratchet", true, schema, None),
    }
}

fn cause_key(c: &Value) -> String {
    format!("{} | {} | {}", c["field"], c["reason"], c["message"])
}

#[test]
fn causes_match_the_recorded_apiserver_answers() {
    let data: Value = serde_json::from_str(CASES).unwrap_or_else(|e| panic!("testdata: {e}"));
    let cases = data["cases"].as_array().cloned().unwrap_or_default();
    assert!(cases.len() >= 30, "the recorded cases are all there");
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        let crd = case["crd"].as_str().unwrap_or("");
        let v = validator(crd, &data["schemas"][crd]);
        let object = &case["object"];
        let errors = match case["op"].as_str() {
            Some("create") => v.validate_create(object),
            Some("update") => v.validate_update(object, &case["old"]),
            _ => {
                // The status strategy keeps everything of the stored object but its status.
                let mut new = case["old"].clone();
                new["status"] = object["status"].clone();
                v.validate_status_update(&new, &case["old"])
            }
        };
        let actual: Vec<Value> = errors.iter().map(|e| e.cause()).collect();
        let expected: Vec<Value> = case["status"]["causes"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut a: Vec<String> = actual.iter().map(cause_key).collect();
        let mut e: Vec<String> = expected.iter().map(cause_key).collect();
        a.sort();
        e.sort();
        assert_eq!(a, e, "{name}: causes");
        let per_field = |causes: &[Value]| {
            let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
            // `<nil>` gathers causes of many properties, labels and annotations of many keys:
            // their order is Go's random map order.
            let random = ["<nil>", "metadata.labels", "metadata.annotations"];
            for c in causes
                .iter()
                .filter(|c| !random.iter().any(|r| c["field"] == *r))
            {
                m.entry(c["field"].to_string())
                    .or_default()
                    .push(cause_key(c));
            }
            m
        };
        assert_eq!(
            per_field(&actual),
            per_field(&expected),
            "{name}: order per field"
        );
        if let Some(message) = case["status"]["message"].as_str() {
            let kind = object["kind"].as_str().unwrap_or("");
            let obj_name = object["metadata"]["name"].as_str().unwrap_or("");
            let ours = invalid_message(kind, "v.example.com", obj_name, &errors);
            assert_eq!(ours.len(), message.len(), "{name}: message {ours}");
            for error in &errors {
                assert!(message.contains(&error.to_string()), "{name}: {error}");
            }
        }
    }
}

#[test]
fn ratcheting_drops_errors_only_in_unchanged_values() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "title": {"type": "string", "maxLength": 3},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 1}},
    }}}});
    let v = ResourceValidator::new("g", "v1", "K", false, &schema, None);
    let object = |title: &str, tags: Value| {
        json!({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "resourceVersion": "1"},
               "spec": {"title": title, "tags": tags}})
    };
    let old = object("long", json!(["ab"]));
    assert!(
        v.validate_update(&object("long", json!(["ab"])), &old)
            .is_empty()
    );
    // Atomic lists do not correlate items: a changed list is validated whole.
    let fields: Vec<String> = v
        .validate_update(&object("long", json!(["ab", "c"])), &old)
        .iter()
        .map(|e| e.field.clone())
        .collect();
    assert_eq!(fields, ["spec.tags[0]"]);
    let fields: Vec<String> = v
        .validate_update(&object("longer", json!(["ab"])), &old)
        .iter()
        .map(|e| e.field.clone())
        .collect();
    assert_eq!(fields, ["spec.title"]);
}
