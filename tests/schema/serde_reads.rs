//! The schema is what serde reads: for each serde attribute that changes what serde reads,
//! what the apiserver's checks accept (here `validate_json`: pruned, defaulted, validated)
//! decodes into the Rust type, and where the schema cannot say what serde reads, `crd()`
//! says why.

use std::collections::BTreeMap;

use kubegen::prelude::*;
use kubegen::validation::{FieldValidation, ValidateError, validate_json};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::fixtures::reads::{ClosedUnions, Limits};

/// Whether the apiserver would accept `spec` in a `K`, and whether what it would store
/// decodes into `K`; a refused object's own decoding instead.
fn verdict<K: CustomResource + DeserializeOwned>(spec: Value) -> (bool, bool) {
    let object = json!({
        "apiVersion": format!("{}/{}", K::INFO.group, K::INFO.version),
        "kind": K::INFO.kind,
        "metadata": {"name": "x"},
        "spec": spec,
    });
    match validate_json::<K>(&object, FieldValidation::Warn) {
        Ok(accepted) => (true, serde_json::from_value::<K>(accepted.object).is_ok()),
        Err(ValidateError::Invalid(_)) => (false, serde_json::from_value::<K>(object).is_ok()),
        Err(other) => panic!("{other}"),
    }
}

/// The `crd()` error of `K`, as text.
fn crd_error<K: CustomResource>() -> String {
    match K::crd() {
        Ok(_) => panic!("{} has a CRD", K::INFO.kind),
        Err(e) => e.to_string(),
    }
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Pace {
    #[serde(alias = "Quick")]
    Fast,
    Slow,
    #[serde(skip_deserializing)]
    Legacy,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Shape {
    #[serde(alias = "Ring")]
    Circle { radius: u32 },
    #[serde(skip_deserializing)]
    Blob { size: u32 },
}

/// Externally tagged: an alias is one more key an object may hold instead.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Probe {
    #[serde(alias = "httpGet")]
    Http {
        path: String,
    },
    Exec {
        command: String,
    },
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "serde.kubegen.dev", version = "v1", kind = "Paced")]
pub struct PacedSpec {
    pub pace: Pace,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    #[serde(alias = "oldName", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[test]
fn variants_serde_never_reads_are_left_out_and_aliases_are_in() {
    let crd = serde_json::to_value(Paced::crd().unwrap()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["properties"]["pace"]["enum"],
        json!(["Fast", "Quick", "Slow"])
    );
    assert_eq!(
        spec["properties"]["shape"]["properties"]["type"]["enum"],
        json!(["Circle", "Ring"])
    );
    assert_eq!(verdict::<Paced>(json!({"pace": "Quick"})), (true, true));
    assert_eq!(verdict::<Paced>(json!({"pace": "Legacy"})), (false, false));
    assert_eq!(
        verdict::<Paced>(json!({"pace": "Slow", "shape": {"type": "Ring", "radius": 1}})),
        (true, true)
    );
    assert_eq!(
        verdict::<Paced>(json!({"pace": "Slow", "shape": {"type": "Blob", "size": 1}})),
        (false, false)
    );
    let probe = |p: Value| verdict::<Paced>(json!({"pace": "Slow", "probe": p}));
    assert_eq!(probe(json!({"httpGet": {"path": "/"}})), (true, true));
    assert_eq!(
        probe(json!({"http": {"path": "/"}, "httpGet": {"path": "/"}})),
        (false, false)
    );
}

#[test]
fn a_field_alias_is_pruned_as_any_unknown_field() {
    let object = json!({"apiVersion": "serde.kubegen.dev/v1", "kind": "Paced",
        "metadata": {"name": "x"}, "spec": {"pace": "Fast", "oldName": "a"}});
    let accepted = validate_json::<Paced>(&object, FieldValidation::Warn).unwrap();
    assert_eq!(accepted.warnings, ["unknown field \"spec.oldName\""]);
    assert_eq!(accepted.object["spec"], json!({"pace": "Fast"}));
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "serde.kubegen.dev",
    version = "v1",
    kind = "LegacyDefault",
    register = false
)]
pub struct LegacyDefaultSpec {
    #[default(Pace::Legacy)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<Pace>,
}

/// An even number: its own `Deserialize` refuses odd ones.
#[derive(ApiType, Clone, Debug, Serialize)]
pub struct Even(pub u32);

impl<'de> Deserialize<'de> for Even {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = u32::deserialize(d)?;
        match n % 2 {
            0 => Ok(Even(n)),
            _ => Err(serde::de::Error::custom(format!("{n} is odd"))),
        }
    }
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "serde.kubegen.dev",
    version = "v1",
    kind = "OddDefault",
    register = false
)]
pub struct OddDefaultSpec {
    #[default(Even(3))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<Even>,
    #[schema(example = "Medium")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<Pace>,
}

#[test]
fn defaults_and_examples_serde_cannot_read_are_refused_by_crd() {
    let legacy = crd_error::<LegacyDefault>();
    assert!(legacy.contains(".spec.pace"), "{legacy}");
    assert!(
        legacy.contains("the #[default] value \"Legacy\" does not decode"),
        "{legacy}"
    );
    let odd = crd_error::<OddDefault>();
    assert!(
        odd.contains("the #[default] value 3 does not decode") && odd.contains("3 is odd"),
        "{odd}"
    );
    assert!(
        odd.contains("the `example` value \"Medium\" does not decode"),
        "{odd}"
    );
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "serde.kubegen.dev", version = "v1", kind = "Closed")]
pub struct ClosedSpec {
    /// Unions of types that refuse unknown fields.
    #[serde(flatten)]
    pub unions: ClosedUnions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
}

#[test]
fn a_variant_that_refuses_unknown_fields_refuses_the_other_variants_fields() {
    for (spec, expected) in [
        (
            json!({"shape": {"type": "Circle", "radiusM": 1}}),
            (true, true),
        ),
        (
            json!({"shape": {"type": "Circle", "radiusM": 1, "side": 2}}),
            (false, false),
        ),
        // serde reads a unit variant whatever fields come with it.
        (json!({"shape": {"type": "Empty", "side": 2}}), (true, true)),
        (
            json!({"shape": {"type": "Box", "side": 1, "height": 2}}),
            (true, true),
        ),
        (json!({"endpoint": {"host": "h", "port": 1}}), (true, true)),
        (json!({"endpoint": {"path": "/p", "port": 1}}), (true, true)),
        (
            json!({"endpoint": {"host": "h", "port": 1, "path": "/p"}}),
            (false, false),
        ),
        (json!({"endpoint": {"host": "h"}}), (false, false)),
        (
            json!({"step": {"kind": "Scale", "with": {"replicas": 1}}}),
            (true, true),
        ),
        (
            json!({"step": {"kind": "Scale", "with": {"replicas": 1, "key": "k"}}}),
            (false, false),
        ),
        (json!({"step": {"kind": "Pause"}}), (true, true)),
        (
            json!({"bound": {"kind": "Limited", "max": 1}}),
            (true, true),
        ),
        (
            json!({"bound": {"kind": "Limited", "max": 1, "note": "n"}}),
            (false, false),
        ),
        (json!({"bound": {"kind": "Open", "max": 1}}), (true, true)),
        // Outside a union the apiserver prunes what a type does not declare.
        (
            json!({"limits": {"max": 1, "min": 0, "other": 2}}),
            (true, true),
        ),
    ] {
        assert_eq!(verdict::<Closed>(spec.clone()), expected, "{spec}");
    }
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct TypedRest {
    pub name: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, String>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosedRest {
    pub name: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "serde.kubegen.dev",
    version = "v1",
    kind = "Flattened",
    register = false
)]
pub struct FlattenedSpec {
    pub typed: TypedRest,
    pub closed: ClosedRest,
    #[schema(preserve_unknown_fields)]
    pub kept: Limits,
}

#[test]
fn what_the_apiserver_would_keep_untyped_must_be_readable() {
    let error = crd_error::<Flattened>();
    assert!(
        error.contains(".spec.typed: a flattened map collects every unknown field"),
        "{error}"
    );
    assert!(
        error.contains(
            ".spec.closed: #[serde(deny_unknown_fields)] refuses every field the flattened map"
        ),
        "{error}"
    );
    assert!(
        error.contains(".spec.kept: `preserve_unknown_fields` keeps fields this type refuses"),
        "{error}"
    );
}
