//! Raw objects: `validate_json` gives the apiserver's answer to objects that do not decode
//! into the Rust type — the same causes (type, field, message), the same refusals of bodies
//! it cannot decode, the same warnings — checked against a server on every backend.

use http::{Method, Request};
use http_body_util::BodyExt;
use kubegen::prelude::*;
use kubegen::testing::TestEnv;
use kubegen::validation::{
    Accepted, FieldValidation, ValidateError, validate_json, validate_json_update, validate_yaml,
};
use serde_json::{Value, json};

/// A kind with every kind of cause: bounds, an enum, required fields, a list of objects with
/// its own bounds, a format, a pattern, a default, a CEL rule, and a status the main
/// resource cannot write.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "validate.kubegen.dev",
    version = "v1",
    kind = "Gauge",
    status = "GaugeStatus"
)]
#[serde(rename_all = "camelCase")]
#[rule("self.min <= self.max", message = "min must not exceed max")]
pub struct GaugeSpec {
    #[validate(minimum = 0, maximum = 100)]
    pub min: i32,
    #[validate(minimum = 0, maximum = 100)]
    pub max: i32,
    pub unit: Unit,
    #[validate(max_items = 3)]
    #[serde(default)]
    pub points: Vec<Point>,
    #[validate(format = "email")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[validate(pattern = "^[a-z]+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[default(5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<i32>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Unit {
    Celsius,
    Kelvin,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Point {
    #[validate(max_length = 8)]
    pub name: String,
    #[validate(minimum = 0)]
    pub weight: i64,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct GaugeStatus {
    #[validate(maximum = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<i32>,
}

const API_VERSION: &str = "validate.kubegen.dev/v1";

fn gauge(metadata: Value, spec: Value) -> Value {
    json!({"apiVersion": API_VERSION, "kind": "Gauge", "metadata": metadata, "spec": spec})
}

fn valid_spec() -> Value {
    json!({"min": 1, "max": 5, "unit": "Celsius"})
}

fn with(mut object: Value, path: &[&str], value: Value) -> Value {
    let mut at = &mut object;
    for key in &path[..path.len() - 1] {
        at = &mut at[*key];
    }
    at[path[path.len() - 1]] = value;
    object
}

/// The corpus: objects the Rust type mostly cannot decode, each with what it exercises.
fn corpus() -> Vec<(&'static str, Value, FieldValidation)> {
    let named = |name: &str| json!({"name": name});
    let ok = gauge(named("g"), valid_spec());
    let warn = FieldValidation::Warn;
    vec![
        ("valid, defaulted", ok.clone(), warn),
        (
            "wrong types",
            with(
                with(ok.clone(), &["spec", "min"], json!("one")),
                &["spec", "points"],
                json!({"a": 1}),
            ),
            warn,
        ),
        (
            "missing required fields",
            gauge(named("g"), json!({"min": 1})),
            warn,
        ),
        (
            "a value outside the enum",
            with(ok.clone(), &["spec", "unit"], json!("Fahrenheit")),
            warn,
        ),
        (
            "bad items of a list",
            with(
                ok.clone(),
                &["spec", "points"],
                json!([{"weight": -1}, {"name": "too-long-a-name", "weight": "x"}]),
            ),
            warn,
        ),
        (
            "too many items",
            with(
                ok.clone(),
                &["spec", "points"],
                json!([{"name": "a", "weight": 1}, {"name": "b", "weight": 1}, {"name": "c", "weight": 1}, {"name": "d", "weight": 1}]),
            ),
            warn,
        ),
        (
            "bounds, format and pattern",
            gauge(
                named("g"),
                json!({"min": -1, "max": 101, "unit": "Kelvin", "owner": "not-an-email", "code": "ABC"}),
            ),
            warn,
        ),
        (
            "a CEL rule",
            with(
                with(ok.clone(), &["spec", "min"], json!(50)),
                &["spec", "max"],
                json!(10),
            ),
            warn,
        ),
        (
            "a null spec field",
            with(ok.clone(), &["spec", "unit"], Value::Null),
            warn,
        ),
        (
            "a null defaulted field",
            with(ok.clone(), &["spec", "interval"], Value::Null),
            warn,
        ),
        (
            "spec is not an object",
            with(ok.clone(), &["spec"], json!("x")),
            warn,
        ),
        (
            "no spec",
            json!({"apiVersion": API_VERSION, "kind": "Gauge", "metadata": {"name": "g"}}),
            warn,
        ),
        (
            "bad metadata",
            gauge(
                json!({"name": "Bad_Name", "labels": {"bad key!": "v"}, "annotations": {"": "x"}}),
                valid_spec(),
            ),
            warn,
        ),
        (
            "generateName alone",
            gauge(json!({"generateName": "gauge-"}), valid_spec()),
            warn,
        ),
        (
            "an invalid generateName",
            gauge(json!({"generateName": "Bad_"}), valid_spec()),
            warn,
        ),
        (
            "neither name nor generateName",
            gauge(json!({"labels": {"a": "b"}}), valid_spec()),
            warn,
        ),
        (
            "unknown fields, warned",
            with(
                with(ok.clone(), &["spec", "extra"], json!(1)),
                &["metadata", "bogus"],
                json!(true),
            ),
            warn,
        ),
        (
            "unknown fields, strict",
            with(ok.clone(), &["spec", "extra"], json!(1)),
            FieldValidation::Strict,
        ),
        (
            "unknown fields, ignored",
            with(ok.clone(), &["spec", "extra"], json!(1)),
            FieldValidation::Ignore,
        ),
        (
            "metadata of the wrong type",
            with(ok.clone(), &["metadata", "name"], json!(5)),
            warn,
        ),
        (
            "labels of the wrong type",
            with(ok.clone(), &["metadata", "labels"], json!({"a": 1})),
            warn,
        ),
        (
            "another apiVersion",
            with(
                ok.clone(),
                &["apiVersion"],
                json!("validate.kubegen.dev/v2"),
            ),
            warn,
        ),
        (
            "another kind",
            with(ok.clone(), &["kind"], json!("Meter")),
            warn,
        ),
        (
            "no kind",
            json!({"apiVersion": API_VERSION, "metadata": {"name": "g"}, "spec": valid_spec()}),
            warn,
        ),
        (
            "status is not written on create",
            with(ok.clone(), &["status"], json!({"level": 99})),
            warn,
        ),
    ]
}

/// What a server answered: the HTTP code, the body, the warnings.
struct Served {
    code: u16,
    body: Value,
    warnings: Vec<String>,
}

async fn send(e: &TestEnv, method: Method, uri: String, body: &Value) -> Served {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(serde_json::to_vec(body).unwrap())
        .unwrap();
    let response = e.client.send(request.map(Into::into)).await.unwrap();
    let code = response.status().as_u16();
    let warnings = response
        .headers()
        .get_all(http::header::WARNING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(|w| {
            let text = w.strip_prefix("299 - \"").unwrap_or(w);
            text.strip_suffix('"').unwrap_or(text).replace("\\\"", "\"")
        })
        .collect();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Served {
        code,
        body,
        warnings,
    }
}

fn collection(e: &TestEnv) -> String {
    format!(
        "/apis/validate.kubegen.dev/v1/namespaces/{}/gauges",
        e.namespace
    )
}

fn query(field_validation: FieldValidation) -> &'static str {
    match field_validation {
        FieldValidation::Strict => "?dryRun=All&fieldValidation=Strict",
        FieldValidation::Ignore => "?dryRun=All&fieldValidation=Ignore",
        FieldValidation::Warn => "?dryRun=All&fieldValidation=Warn",
    }
}

/// A name generated from `generateName` differs by server: its five random characters are
/// blanked.
fn blank_generated(text: &str) -> String {
    let re = regex::Regex::new("(gauge-|Bad_)[bcdfghjklmnpqrstvwxz2456789]{5}").unwrap();
    re.replace_all(text, "${1}<suffix>").into_owned()
}

/// The causes of an `Invalid` status as comparable lines, sorted (the apiserver lists
/// sibling fields' errors in Go map order).
fn causes(status: &Value) -> Vec<String> {
    let mut lines: Vec<String> = status["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            blank_generated(&format!(
                "{} | {} | {}",
                c["reason"].as_str().unwrap_or(""),
                c["field"].as_str().unwrap_or(""),
                c["message"].as_str().unwrap_or("")
            ))
        })
        .collect();
    lines.sort();
    lines
}

/// The local verdict and the server's answer agree: both accept (with the same warnings and
/// the same spec), or both refuse with the same status, the same causes and the same message
/// up to the order of its causes.
fn compare(name: &str, local: Result<Accepted, ValidateError>, served: Served) {
    match local {
        Ok(accepted) => {
            assert!(
                matches!(served.code, 200 | 201),
                "{name}: accepted locally, the server answered {} {}",
                served.code,
                served.body
            );
            let (mut ours, mut theirs) = (accepted.warnings, served.warnings);
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{name}: warnings");
            assert_eq!(accepted.object["spec"], served.body["spec"], "{name}: spec");
            assert_eq!(
                accepted.object.get("status"),
                served.body.get("status"),
                "{name}: status"
            );
        }
        Err(ValidateError::Invalid(invalid)) => {
            let status = invalid.to_status();
            assert_eq!(served.code, 422, "{name}: {}", served.body);
            assert_eq!(causes(&status), causes(&served.body), "{name}: causes");
            let head = |s: &Value| {
                let m = blank_generated(s["message"].as_str().unwrap_or(""));
                m.split_once(": ").map(|(h, _)| h.to_owned()).unwrap_or(m)
            };
            assert_eq!(head(&status), head(&served.body), "{name}: message");
            let details = |s: &Value| {
                let d = &s["details"];
                (
                    d["group"].clone(),
                    d["kind"].clone(),
                    blank_generated(d["name"].as_str().unwrap_or("")),
                )
            };
            assert_eq!(details(&status), details(&served.body), "{name}: details");
        }
        Err(ValidateError::Refused(refusal)) => {
            assert_eq!(
                (refusal.code, refusal.reason, refusal.message.as_str()),
                (
                    served.code,
                    served.body["reason"].as_str().unwrap_or(""),
                    served.body["message"].as_str().unwrap_or("")
                ),
                "{name}"
            );
        }
        Err(other) => panic!("{name}: {other}"),
    }
}

#[kubegen::test]
async fn raw_objects_get_the_apiservers_causes(e: TestEnv) {
    let uri = collection(&e);
    for (name, object, field_validation) in corpus() {
        let local = validate_json::<Gauge>(&object, field_validation);
        let served = send(
            &e,
            Method::POST,
            format!("{uri}{}", query(field_validation)),
            &object,
        )
        .await;
        compare(name, local, served);
    }
}

#[kubegen::test]
async fn raw_updates_get_the_apiservers_answers(e: TestEnv) {
    let uri = collection(&e);
    let stored = send(
        &e,
        Method::POST,
        uri.clone(),
        &gauge(json!({"name": "u"}), valid_spec()),
    )
    .await;
    assert_eq!(stored.code, 201, "{}", stored.body);
    let old = stored.body;
    let mut codes = std::collections::BTreeSet::new();
    let put = |spec: Value| {
        let mut new = old.clone();
        new["spec"] = spec;
        new
    };
    for (name, new) in [
        (
            "a valid update",
            put(json!({"min": 2, "max": 5, "unit": "Kelvin"})),
        ),
        (
            "an invalid update",
            put(json!({"min": 2, "max": "five", "unit": "Kelvin"})),
        ),
        (
            "another name",
            with(put(valid_spec()), &["metadata", "name"], json!("v")),
        ),
        (
            "a stale resourceVersion",
            with(
                put(valid_spec()),
                &["metadata", "resourceVersion"],
                json!("1"),
            ),
        ),
        (
            "status is kept on the main resource",
            with(put(valid_spec()), &["status"], json!({"level": 99})),
        ),
    ] {
        let local = validate_json_update::<Gauge>(&new, &old, FieldValidation::Warn);
        let served = send(&e, Method::PUT, format!("{uri}/u?dryRun=All"), &new).await;
        codes.insert(served.code);
        compare(name, local, served);
    }
    assert_eq!(codes, [200, 400, 409, 422].into(), "every kind of answer");
}

#[test]
fn yaml_documents_are_checked_as_their_kinds() {
    let text = r#"
apiVersion: validate.kubegen.dev/v1
kind: Gauge
metadata: {name: ok}
spec: {min: 1, max: 2, unit: Kelvin}
---
apiVersion: validate.kubegen.dev/v1
kind: Gauge
metadata: {generateName: g-}
spec: {min: 1, max: 2, unit: Miles, spare: 1}
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
"#;
    let results = validate_yaml(text, FieldValidation::Warn);
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].as_ref().unwrap().object["spec"]["interval"], 5);
    let invalid = match &results[1] {
        Err(ValidateError::Invalid(invalid)) => invalid,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        invalid
            .causes
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "spec.unit: Unsupported value: \"Miles\": supported values: \"Celsius\", \"Kelvin\"",
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ]
    );
    assert!(invalid.name.starts_with("g-"));
    assert!(matches!(
        &results[2],
        Err(ValidateError::UnknownKind { api_version, kind }) if api_version == "v1" && kind == "ConfigMap"
    ));
    let broken = validate_yaml("kind: [", FieldValidation::Warn);
    assert!(matches!(broken.as_slice(), [Err(ValidateError::Yaml(_))]));
}
