//! Creates of the Reading kind, whose schema follows serde attributes that change what serde
//! reads: variants serde never reads or reads under aliases, unions whose variants refuse
//! unknown fields, a field alias, flattened fields; and names from long `generateName`s.

use serde_json::{Value, json};

use super::{READINGS, SCALARS, object};
use crate::conformance::script::Case;

fn reading(case: &str, spec: Value) -> Case {
    Case::new(format!("serde reads: {case}")).create(READINGS, "Reading", object("r", spec))
}

pub fn cases() -> Vec<Case> {
    let specs = [
        ("a variant's alias", json!({"pace": "Quick"})),
        ("a variant serde never reads", json!({"pace": "Legacy"})),
        (
            "internal, own fields",
            json!({"shape": {"type": "Square", "side": 1, "rounded": true}}),
        ),
        (
            "internal, another variant's field",
            json!({"shape": {"type": "Circle", "radiusM": 1, "side": 2}}),
        ),
        (
            "internal, a unit variant with fields",
            json!({"shape": {"type": "Empty", "side": 2}}),
        ),
        (
            "internal, a tag's alias",
            json!({"shape": {"type": "Box", "side": 1, "height": 2}}),
        ),
        (
            "untagged, the second variant",
            json!({"endpoint": {"path": "/p", "port": 1}}),
        ),
        (
            "untagged, fields of both variants",
            json!({"endpoint": {"host": "h", "port": 1, "path": "/p"}}),
        ),
        (
            "adjacent, another variant's field",
            json!({"step": {"kind": "Label", "with": {"key": "k", "replicas": 1}}}),
        ),
        (
            "adjacent, a unit variant",
            json!({"step": {"kind": "Pause"}}),
        ),
        (
            "a closed struct in a variant, another variant's field",
            json!({"bound": {"kind": "Limited", "max": 1, "note": "n"}}),
        ),
        (
            "an open variant, another variant's field",
            json!({"bound": {"kind": "Open", "max": 1}}),
        ),
        ("a field's alias", json!({"oldName": "a"})),
        (
            "a flattened optional struct",
            json!({"cpu": 1, "burst": true}),
        ),
        (
            "a flattened optional struct, partly",
            json!({"burst": true}),
        ),
        (
            "a flattened map",
            json!({"labels": {"name": "n", "extra": {"a": [1, "b"]}, "more": 2}}),
        ),
        (
            "a flattened map without its own field",
            json!({"labels": {"extra": 1}}),
        ),
    ];
    let mut cases: Vec<Case> = specs
        .into_iter()
        .map(|(what, spec)| reading(what, spec))
        .collect();
    cases.push(
        Case::new("serde reads: a field's alias with fieldValidation=Strict").create_with(
            READINGS,
            "Reading",
            Some("fieldValidation=Strict"),
            object("r", json!({"oldName": "a"})),
        ),
    );
    // The apiserver cuts a generateName to 58 bytes so the name stays within 63.
    for (what, prefix) in [
        ("a generateName of 58 bytes", "g".repeat(57) + "-"),
        ("a generateName past 58 bytes", "g".repeat(70) + "-"),
        ("a generateName past 253 bytes", "g".repeat(260) + "-"),
    ] {
        cases.push(Case::new(format!("scalar: {what}")).create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"generateName": prefix}, "spec": {}}),
        ));
    }
    cases
}
