//! Local validation: `obj.validate()` and friends give the apiserver's verdict without a
//! server. Each verdict is also checked against a server (`#[kubegen::test]`): the in-memory
//! one, and a real apiserver when one is configured.

use kubegen::client::{ClientError, PostParams};
use kubegen::prelude::*;
use kubegen::testing::TestEnv;
use kubegen::validation::ValidateError;

mod raw;

/// A kind with bounds, a pattern and a default.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "validate.kubegen.dev", version = "v1", kind = "Part")]
#[serde(rename_all = "camelCase")]
pub struct PartSpec {
    #[validate(maximum = 10)]
    pub size: i32,
    #[validate(pattern = "^[a-z]+$")]
    pub code: String,
    #[default(3)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies: Option<i32>,
}

/// A kind whose patterns Go's RE2 and Rust's `regex` read differently: `\w` is ASCII (but
/// `(?i)` folds in the Kelvin sign and the long s), and `\<` is a `<`.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "validate.kubegen.dev", version = "v1", kind = "Label")]
pub struct LabelSpec {
    #[validate(pattern = r"^(?i)\w+$")]
    pub name: String,
    #[validate(pattern = r"^\<[a-z]+\>$")]
    pub tag: String,
}

/// A kind with CEL rules: one comparing two fields, a transition rule, a message expression.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "validate.kubegen.dev", version = "v1", kind = "Quota")]
#[serde(rename_all = "camelCase")]
#[rule(
    "self.min <= self.max",
    message = "min must not exceed max",
    field_path = ".min"
)]
pub struct QuotaSpec {
    pub min: i32,
    #[validate(maximum = 100)]
    pub max: i32,
    #[rule("self == oldSelf", message = "the owner is immutable")]
    #[validate(max_length = 20)]
    pub owner: String,
    #[rule(
        "self.all(t, t.startsWith('team-'))",
        message_expression = "self.filter(t, !t.startsWith('team-'))[0] + ' does not start with team-'"
    )]
    #[validate(max_items = 5)]
    #[serde(default)]
    pub tags: Vec<Tag>,
}

/// A tag, bounded so the rules over tags stay within the apiserver's cost budget.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[validate(max_length = 20)]
pub struct Tag(pub String);

fn quota(name: &str, min: i32, max: i32, owner: &str, tags: &[&str]) -> Quota {
    Quota::new(
        name,
        QuotaSpec {
            min,
            max,
            owner: owner.into(),
            tags: tags.iter().map(|t| Tag(t.to_string())).collect(),
        },
    )
}

fn causes(result: Result<(), ValidateError>) -> Vec<String> {
    match result {
        Ok(()) => Vec::new(),
        Err(e) => e
            .into_invalid()
            .expect("an Invalid verdict")
            .causes
            .iter()
            .map(ToString::to_string)
            .collect(),
    }
}

#[test]
fn rules_are_part_of_the_verdict() {
    quota("q", 1, 2, "a", &["team-a"]).validate().unwrap();
    assert_eq!(
        causes(quota("q", 3, 2, "a", &[]).validate()),
        ["spec.min: Invalid value: min must not exceed max"]
    );
    assert_eq!(
        causes(quota("q", 1, 2, "a", &["team-a", "x", "y"]).validate()),
        ["spec.tags: Invalid value: x does not start with team-"]
    );
}

#[test]
fn a_blocking_schema_error_stops_the_rules() {
    // Too long is blocking (the rules would see a value the schema refused); a value over
    // its maximum is not, and the rules run beside it.
    assert_eq!(
        causes(quota("q", 300, 200, "a", &["x"]).validate()),
        [
            "spec.max: Invalid value: 200: spec.max in body should be less than or equal to 100",
            "spec.min: Invalid value: min must not exceed max",
            "spec.tags: Invalid value: x does not start with team-",
        ]
    );
    assert_eq!(
        causes(quota("q", 3, 2, "an-owner-name-too-long", &["x"]).validate()),
        [
            "spec.owner: Too long: may not be more than 20 bytes",
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ]
    );
}

#[test]
fn transition_rules_and_ratcheting_on_updates() {
    let old = quota("q", 1, 2, "a", &["x"]);
    // The owner is new on a create, so the transition rule does not run.
    quota("q", 1, 2, "b", &["team-a"]).validate().unwrap();
    assert_eq!(
        causes(quota("q", 1, 2, "b", &["x"]).validate_update(&old)),
        ["spec.owner: Invalid value: \"b\": the owner is immutable"]
    );
    // The bad tag was there before and did not change: the apiserver only warns.
    quota("q", 1, 3, "a", &["x"]).validate_update(&old).unwrap();
    assert_eq!(
        causes(quota("q", 1, 3, "a", &["x", "y"]).validate_update(&old)),
        ["spec.tags: Invalid value: x does not start with team-"]
    );
}

fn part(name: &str, size: i32, code: &str) -> Part {
    Part::new(
        name,
        PartSpec {
            size,
            code: code.into(),
            copies: None,
        },
    )
}

#[test]
fn a_valid_object_passes_and_an_invalid_one_gets_the_apiservers_verdict() {
    part("ok", 3, "abc").validate().unwrap();
    let invalid = part("bad", 11, "ABC")
        .validate()
        .unwrap_err()
        .into_invalid()
        .expect("an Invalid verdict");
    assert_eq!(
        (
            invalid.group.as_str(),
            invalid.kind.as_str(),
            invalid.name.as_str()
        ),
        ("validate.kubegen.dev", "Part", "bad")
    );
    let mut causes: Vec<String> = invalid.causes.iter().map(ToString::to_string).collect();
    causes.sort();
    assert_eq!(
        causes,
        [
            "spec.code: Invalid value: \"ABC\": spec.code in body should match '^[a-z]+$'",
            "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
        ]
    );
    let status = invalid.to_status();
    assert_eq!(
        (status["code"].as_i64(), status["reason"].as_str()),
        (Some(422), Some("Invalid"))
    );
}

#[test]
fn metadata_is_checked_as_the_apiserver_checks_it() {
    let invalid = part("Not_A_Name", 1, "a")
        .validate()
        .unwrap_err()
        .into_invalid()
        .unwrap();
    assert_eq!(invalid.causes[0].field, "metadata.name");
    let mut unnamed = part("x", 1, "a");
    unnamed.metadata.name = None;
    let invalid = unnamed.validate().unwrap_err().into_invalid().unwrap();
    assert_eq!(
        invalid.causes[0].to_string(),
        "metadata.name: Required value: name or generateName is required"
    );
    // A create names an object from its generateName before validating it.
    unnamed.metadata.generate_name = Some("part-".into());
    unnamed.validate().unwrap();
    unnamed.metadata.generate_name = Some("Part-".into());
    let invalid = unnamed.validate().unwrap_err().into_invalid().unwrap();
    let fields: Vec<&str> = invalid.causes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(fields, ["metadata.generateName", "metadata.name"]);
    assert!(invalid.name.starts_with("Part-"), "{}", invalid.name);
}

#[test]
fn an_update_is_checked_against_the_old_object() {
    let old = part("p", 3, "abc");
    part("p", 4, "abc").validate_update(&old).unwrap();
    assert!(matches!(
        part("p", 40, "abc").validate_update(&old),
        Err(ValidateError::Invalid(_))
    ));
}

// The local verdict and the server's agree: valid objects are created, invalid ones get
// the same Status message.
#[kubegen::test]
async fn local_verdicts_match_the_servers(e: TestEnv) {
    let parts = e.client.parts(&e.namespace);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    for (name, size, code) in [
        ("a", 3, "abc"),
        ("b", 11, "abc"),
        ("c", 1, "A1"),
        ("d", 20, ""),
    ] {
        let object = part(name, size, code);
        let local = object.validate();
        let served = parts.create_with(&dry_run, &object).await;
        compare(name, local, served.map(|_| ()));
    }
    let mut generated = part("", 3, "abc");
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("part-".into());
    generated.validate().unwrap();
    let served = parts.create_with(&dry_run, &generated).await.unwrap();
    assert!(served.metadata.name.unwrap().starts_with("part-"));
}

// Pattern verdicts, local and served, are Go's.
#[kubegen::test]
async fn local_pattern_verdicts_match_the_servers(e: TestEnv) {
    let labels = e.client.labels(&e.namespace);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    for (name, word, tag, valid) in [
        ("ascii", "abc_1", "<a>", true),
        ("kelvin sign and long s", "\u{212a}\u{17f}", "<a>", true),
        ("non-ascii letter", "héllo", "<a>", false),
        ("no angle brackets", "abc", "a", false),
    ] {
        let object = Label::new(
            &name.replace(' ', "-"),
            LabelSpec {
                name: word.into(),
                tag: tag.into(),
            },
        );
        let local = object.validate();
        assert_eq!(local.is_ok(), valid, "{name}: {local:?}");
        let served = labels.create_with(&dry_run, &object).await;
        compare(name, local, served.map(|_| ()));
    }
}

// Rule verdicts, local and served, agree on creates and updates.
#[kubegen::test]
async fn local_rule_verdicts_match_the_servers(e: TestEnv) {
    let quotas = e.client.quotas(&e.namespace);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let stored = quotas
        .create(&quota("q", 1, 2, "a", &["team-a"]))
        .await
        .unwrap();
    for (name, candidate) in [
        ("valid", quota("c", 1, 5, "a", &["team-a"])),
        ("min over max", quota("c", 6, 5, "a", &["team-a"])),
        ("bad tags", quota("c", 1, 5, "a", &["team-a", "b"])),
        ("schema error", quota("c", 1, 500, "a", &[])),
        (
            "blocking schema error",
            quota("c", 1, 5, "an-owner-name-too-long", &["b"]),
        ),
    ] {
        let local = candidate.validate();
        let served = quotas.create_with(&dry_run, &candidate).await;
        compare(name, local, served.map(|_| ()));
    }
    for (name, mut candidate) in [
        ("unchanged", quota("q", 1, 3, "a", &["team-a"])),
        ("owner changed", quota("q", 1, 2, "b", &["team-a"])),
        ("new bad tag", quota("q", 1, 2, "a", &["team-a", "z"])),
    ] {
        candidate.metadata = stored.metadata.clone();
        let local = candidate.validate_update(&stored);
        let served = quotas.update_with(&dry_run, &candidate).await;
        compare(name, local, served.map(|_| ()));
    }
}

/// The local verdict and the server's: both accept, or both refuse with the same message.
fn compare(name: &str, local: Result<(), ValidateError>, served: Result<(), ClientError>) {
    match (local, served) {
        (Ok(()), Ok(())) => {}
        (Err(ValidateError::Invalid(invalid)), Err(ClientError::Invalid { status, .. })) => {
            assert_eq!(
                sorted_message(&invalid.to_string()),
                sorted_message(&status.message),
                "{name}"
            );
        }
        (local, served) => panic!("{name}: local {local:?}, server {served:?}"),
    }
}

/// An `Invalid` message with the causes of a multi-cause list in sorted order (the
/// apiserver lists sibling fields' errors in Go map order).
fn sorted_message(message: &str) -> String {
    match message.split_once(": [") {
        Some((head, list)) => {
            // Every cause here is under `spec.`: split before each one.
            let list = format!(", {}", list.trim_end_matches(']'));
            let mut parts: Vec<&str> = list.split(", spec.").filter(|p| !p.is_empty()).collect();
            parts.sort();
            format!("{head}: [spec.{}]", parts.join(", spec."))
        }
        None => message.to_owned(),
    }
}
