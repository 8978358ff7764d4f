//! Selectable fields (`ValidateCustomResourceSelectableFields`): paths into the schema, to
//! a string, boolean or integer outside `metadata`, each once, at most eight.
//!
//! Where the apiserver looks for the schema depends on the [`Layout`](super::Layout): selectable
//! fields that every version declares alike are checked against the schema every version
//! shares — and refused when the schemas differ; per-version ones against their version's
//! schema — and refused when the schemas are all alike.

use std::collections::BTreeSet;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion;
use serde_json::Value;

use super::{Refusal, schema_of};
use crate::checks::cel::resolve_field_path;
use crate::checks::{BadValue, FieldError};

const MAX: usize = 8;

const PATH_HINT: &str = "a `selectable` path names a string, boolean or integer field of the \
    spec or status, by its serde names (`.spec.color`, `.status.phase`); not a list, map, \
    struct or number, and nothing under `.metadata` (the apiserver selects on `metadata.name` \
    and `metadata.namespace` already)";

const ALIKE_HINT: &str = "the apiserver checks selectable fields that every version declares \
    alike against a schema every version shares, so it refuses them when the versions' schemas \
    differ (and per-version ones when the schemas are all alike): declare the selectable fields \
    on only some versions, or list them in a different order on one version";

fn declared(
    version: &CustomResourceDefinitionVersion,
) -> &[k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::SelectableField] {
    version.selectable_fields.as_deref().unwrap_or_default()
}

/// Selectable fields the versions declare differently: checked per version.
pub(super) fn per_version(
    version: &CustomResourceDefinitionVersion,
    i: usize,
    schema_shared: bool,
) -> Vec<Refusal> {
    let path = format!("spec.versions[{i}].selectableFields");
    if declared(version).is_empty() {
        return Vec::new();
    }
    if schema_shared {
        return vec![Refusal::new(
            FieldError::invalid(
                &path,
                BadValue::str(""),
                "may only be set when `version.schema.openAPIV3Schema` is not included",
            ),
            ALIKE_HINT,
        )];
    }
    check(version, &path)
}

/// Selectable fields every version declares alike: checked once, here with the first.
pub(super) fn shared(first: &CustomResourceDefinitionVersion, schema_shared: bool) -> Vec<Refusal> {
    let path = "spec.selectableFields";
    if declared(first).is_empty() {
        return Vec::new();
    }
    if !schema_shared {
        return vec![Refusal::new(
            FieldError::invalid(
                path,
                BadValue::str(""),
                "may only be set when validations.schema is included",
            ),
            ALIKE_HINT,
        )];
    }
    check(first, path)
}

fn check(version: &CustomResourceDefinitionVersion, path: &str) -> Vec<Refusal> {
    let schema = schema_of(version).unwrap_or_default();
    let mut out = Vec::new();
    let mut unique = BTreeSet::new();
    for (i, selectable) in declared(version).iter().enumerate() {
        let field = format!("{path}[{i}].jsonPath");
        let json_path = selectable.json_path.as_str();
        let invalid =
            |detail: String| FieldError::invalid(&field, BadValue::str(json_path), detail);
        if json_path.is_empty() {
            out.push(Refusal::new(FieldError::required(&field, ""), PATH_HINT));
            continue;
        }
        let (found, node) = match resolve_field_path(json_path, &schema, false) {
            Ok(found) => found,
            Err(reason) => {
                out.push(Refusal::new(
                    invalid(format!("is an invalid path: {reason}")),
                    PATH_HINT,
                ));
                continue;
            }
        };
        let root = found.split(['.', '[']).next().unwrap_or_default();
        if root == "metadata" {
            out.push(Refusal::new(
                invalid("must not point to fields in metadata".into()),
                PATH_HINT,
            ));
        }
        if !matches!(
            node.get("type").and_then(Value::as_str),
            Some("string" | "boolean" | "integer")
        ) {
            out.push(Refusal::new(
                invalid(
                    "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."
                        .into(),
                ),
                PATH_HINT,
            ));
        }
        if !unique.insert(found) {
            out.push(Refusal::new(
                FieldError::duplicate(&field, BadValue::str(json_path)),
                "each selectable field is declared once",
            ));
        }
    }
    if unique.len() > MAX {
        out.push(Refusal::new(
            FieldError::too_many(path, unique.len() as i64, MAX as i64),
            "a version may declare at most 8 selectable fields",
        ));
    }
    out
}
