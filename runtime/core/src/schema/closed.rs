//! `#[serde(deny_unknown_fields)]`: types that refuse fields they do not declare.
//!
//! The apiserver prunes undeclared fields before anyone reads an object, so a closed type's
//! own node needs nothing more. It matters where a node keeps fields the type does not
//! declare: a union's node holds every variant's fields (a closed variant must refuse the
//! others'), `preserve_unknown_fields` and a flattened map keep unknown fields, and an
//! embedded resource keeps `apiVersion`, `kind` and `metadata`. While a schema is being
//! assembled the builders mark a closed type's node with [`KEY`]; [`strip`] removes the
//! marks from the finished schema.

use serde_json::{Map, Value, json};

use super::markers::Marker;

/// Marks the node of a type with `#[serde(deny_unknown_fields)]` during assembly.
pub(super) const KEY: &str = "x-kubegen-closed";

/// Marks `node` as a closed type's.
pub(super) fn mark(node: &mut Map<String, Value>) {
    node.insert(KEY.into(), Value::Bool(true));
}

/// Whether `node` is a closed type's.
pub(super) fn is_closed(node: &Value) -> bool {
    node.get(KEY) == Some(&Value::Bool(true))
}

/// The constraint that refuses every field in `fields`, for a `not`-free branch to hold:
/// `{"anyOf": [{"required": [a]}, ...]}` (or `{"required": [a]}` for one), to go under `not`.
pub(super) fn refusing(fields: &[&String]) -> Option<Value> {
    match fields {
        [] => None,
        [one] => Some(json!({"required": [one]})),
        many => Some(json!({
            "anyOf": many.iter().map(|f| json!({"required": [f]})).collect::<Vec<_>>()
        })),
    }
}

/// A union whose node keeps unknown fields (one variant is a map) cannot hold a variant that
/// refuses them: the apiserver would keep fields that variant cannot read.
pub(super) fn check_union<'a>(
    contents: impl Iterator<Item = Option<&'a schemars::Schema>>,
    preserve: bool,
    errors: &mut Vec<String>,
) {
    if preserve && contents.flatten().any(|s| is_closed(s.as_value())) {
        errors.push(
            "a variant refuses unknown fields (#[serde(deny_unknown_fields)]) while another \
             keeps them, so the apiserver would keep fields the first cannot read; \
             drop deny_unknown_fields or make the other variant a struct"
                .into(),
        );
    }
}

/// Why `marker` cannot apply to a closed type's `node`, if it cannot.
pub(super) fn marker_conflict(node: &Map<String, Value>, marker: &Marker) -> Option<String> {
    if node.get(KEY) != Some(&Value::Bool(true)) {
        return None;
    }
    match marker {
        Marker::PreserveUnknownFields => Some(
            "`preserve_unknown_fields` keeps fields this type refuses (#[serde(deny_unknown_fields)]), \
             so objects the apiserver accepts would not decode; remove one of them"
                .into(),
        ),
        Marker::EmbeddedResource => {
            let declared = |f: &str| {
                node.get("properties")
                    .and_then(|p| p.get(f))
                    .is_some()
            };
            let missing: Vec<&str> = ["apiVersion", "kind", "metadata"]
                .into_iter()
                .filter(|f| !declared(f))
                .collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "an embedded resource keeps `{}`, which this type refuses \
                     (#[serde(deny_unknown_fields)]); declare them as fields or drop deny_unknown_fields",
                    missing.join("`, `")
                )
            })
        }
        _ => None,
    }
}

/// Removes the marks from a finished schema, at every schema position.
pub(super) fn strip(schema: &mut schemars::Schema) {
    if let Some(object) = schema.as_object_mut() {
        strip_object(object);
    }
}

fn strip_object(object: &mut Map<String, Value>) {
    object.remove(KEY);
    let mut children: Vec<&mut Value> = Vec::new();
    for (key, child) in object.iter_mut() {
        match (key.as_str(), child) {
            ("properties", Value::Object(properties)) => children.extend(properties.values_mut()),
            ("items" | "additionalProperties" | "not", child) => children.push(child),
            ("allOf" | "anyOf" | "oneOf", Value::Array(branches)) => children.extend(branches),
            _ => {}
        }
    }
    for child in children {
        if let Value::Object(o) = child {
            strip_object(o);
        }
    }
}
