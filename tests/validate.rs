//! Local validation: `obj.validate()` and friends give the apiserver's verdict without a
//! server. Each verdict is also checked against a server (`#[kubegen::test]`): the in-memory
//! one, and a real apiserver when one is configured.

use kubegen::client::{ClientError, PostParams};
use kubegen::prelude::*;
use kubegen::testing::TestEnv;
use kubegen::validation::ValidateError;

/// A kind with bounds, a pattern, a default and a rule.
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
    for (name, size, code) in [
        ("a", 3, "abc"),
        ("b", 11, "abc"),
        ("c", 1, "A1"),
        ("d", 20, ""),
    ] {
        let object = part(name, size, code);
        let local = object.validate();
        let served = parts
            .create_with(
                &PostParams {
                    dry_run: true,
                    ..Default::default()
                },
                &object,
            )
            .await;
        match (local, served) {
            (Ok(()), Ok(_)) => {}
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
}

/// An `Invalid` message with the causes of a multi-cause list in sorted order (the
/// apiserver lists sibling fields' errors in Go map order).
fn sorted_message(message: &str) -> String {
    match message.split_once(": [") {
        Some((head, list)) => {
            let mut parts: Vec<&str> = list.trim_end_matches(']').split(", spec.").collect();
            parts.sort();
            format!("{head}: [{}]", parts.join(", spec."))
        }
        None => message.to_owned(),
    }
}
