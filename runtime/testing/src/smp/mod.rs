//! Strategic merge patch (`application/strategic-merge-patch+json`) as kube-apiserver
//! v1.36.2 applies it to built-in kinds: a port of `strategicpatch.StrategicMergeMapPatch`
//! (`k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`, server side: parallel lists
//! merged, unmatched nulls ignored), with the patch strategies and merge keys read from the
//! kind's OpenAPI schema (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`),
//! which publishes the Go struct tags the apiserver reads.
//!
//! What a client sees:
//! - maps merge key by key, `null` deletes a key; lists without a strategy are replaced;
//! - lists with strategy `merge` merge items by their merge key (lists of scalars as sets);
//!   the patch's items come first, then the items only the object had, each group in its own
//!   order, unless `$setElementOrder/<list>` gives the order;
//! - directives: `$patch: replace | delete` in a map or as a list item (`merge` is refused),
//!   `$deleteFromPrimitiveList/<list>`, `$setElementOrder/<list>`, `$retainKeys`;
//! - a field the schema does not know is copied into the result (the decoder then drops it,
//!   or refuses it under `fieldValidation=Strict`); merging into the inside of a field the
//!   schema knows nothing of (`RawExtension`, a map of objects or lists) is the apiserver's
//!   500 `unable to find api field ...` / `... data type is not struct, instead is: map`.
//!
//! The result is the patched object as JSON, before the apiserver decodes it into its Go
//! type, defaults and validates it: empty maps and lists, unknown fields and stray directives
//! inside new values are still there.

mod merge;
mod meta;
mod order;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use super::status::ApiError;
use kubegen_core::go_print;

/// `$patch`: a directive in a map or a list item.
const PATCH: &str = "$patch";
/// `$retainKeys`: the keys of a map to keep, the others cleared.
const RETAIN_KEYS: &str = "$retainKeys";
/// `$deleteFromPrimitiveList/<list>`: scalars to remove from a merging list of scalars.
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
/// `$setElementOrder/<list>`: the order of a merging list after the patch.
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Why the apiserver refuses a strategic merge patch, in the shape it answers with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum SmpError {
    /// 400 `BadRequest` with this message: a malformed `$retainKeys`,
    /// `$deleteFromPrimitiveList/` or `$setElementOrder/` directive, or a patch that is
    /// not a JSON object.
    #[error("{0}")]
    BadRequest(String),
    /// 422 `Invalid` with the generic message `the server rejected our request due to an
    /// error in our request` and `details: {}` (`lists of lists are not supported`, the
    /// text kept here, is not shown).
    #[error("{0}")]
    Unprocessable(String),
    /// 500 without a reason, this message as the Status message: a list item without its
    /// merge key, an unknown `$patch`, mismatched list element types, a merge into a field
    /// the schema does not describe.
    #[error("{0}")]
    Internal(String),
    /// The apiserver panics (a `null` first item of a merging list): its panic handler
    /// answers 500 with the `text/plain` body `This request caused apiserver to panic. Look
    /// in the logs for details.`
    #[error("{0}")]
    Panic(String),
}

impl SmpError {
    /// The HTTP status code the apiserver answers with.
    #[cfg(test)]
    pub(super) fn code(&self) -> u16 {
        match self {
            SmpError::BadRequest(_) => 400,
            SmpError::Unprocessable(_) => 422,
            SmpError::Internal(_) | SmpError::Panic(_) => 500,
        }
    }

    /// The Status the apiserver answers with. A panic has no Status (its body is plain
    /// text); it is given here as a 500 with the panic handler's text.
    pub(super) fn api_error(&self) -> ApiError {
        match self {
            SmpError::BadRequest(message) => ApiError::bad_request(message.clone()),
            SmpError::Unprocessable(_) => ApiError::patch_not_applicable(),
            SmpError::Internal(message) => ApiError::internal(message.clone()),
            SmpError::Panic(_) => ApiError::internal(PANIC_BODY),
        }
    }
}

/// What the apiserver's panic handler writes.
pub(super) const PANIC_BODY: &str =
    "This request caused apiserver to panic. Look in the logs for details.";

/// `original` patched by `patch` as the apiserver's strategicpatch package does for a
/// built-in kind whose OpenAPI v3 schema (references resolved, see `builtin::resolve`) is
/// `schema`.
#[cfg(test)]
pub(super) fn apply(original: &Value, patch: &Value, schema: &Value) -> Result<Value, SmpError> {
    let mut patch = patch.clone();
    apply_leaving_patch(original, &mut patch, schema)
}

/// [`apply`], leaving `patch` as the apiserver leaves its decoded patch: the directives it
/// consumed (`$retainKeys`, `$setElementOrder/` and their lists, a replacing map's `$patch`)
/// taken out, nulls dropped from new values. The apiserver prints that map (`%+v`) when the
/// patched object does not decode: 422 `Invalid` on the field `patch`, see
/// [`patch_value_for_message`].
pub(super) fn apply_leaving_patch(
    original: &Value,
    patch: &mut Value,
    schema: &Value,
) -> Result<Value, SmpError> {
    let original = match original {
        Value::Object(members) => members.clone(),
        _ => Map::new(),
    };
    match patch {
        // `json.Unmarshal` of `null` into a map leaves it nil: nothing to merge.
        Value::Null => Ok(Value::Object(original)),
        Value::Object(patch) => merge::merge_map(original, patch, schema).map(Value::Object),
        other => Err(SmpError::BadRequest(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_kind(other)
        ))),
    }
}

/// The patch as the apiserver's `patch: Invalid value: "<this>"` messages print it
/// (`fmt.Sprintf("%+v", patchMap)` after [`apply_leaving_patch`]).
pub(super) fn patch_value_for_message(patch: &Value) -> String {
    match patch {
        Value::Null => "map[]".into(),
        other => go_print::print(other),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null | Value::Object(_) => "object",
    }
}

/// `mergepatch.ErrNoMergeKey`.
fn no_merge_key(item: &Value, key: &str) -> SmpError {
    SmpError::Internal(format!(
        "map: {} does not contain declared merge key: {key}",
        go_print::print(item)
    ))
}

/// `mergepatch.ErrBadArgType`: `expected` is the Go type wanted (`map[string]interface {}`
/// or `[]interface {}`).
fn bad_arg_type(expected: &str, actual: &Value) -> SmpError {
    let actual = match actual {
        Value::Null => "%!s(<nil>)",
        other => go_print::type_name(other),
    };
    SmpError::Internal(format!("expected a {expected}, but received a {actual}"))
}

/// `mergepatch.ErrBadPatchType`.
fn bad_patch_type(directive: &Value, map: &Value) -> SmpError {
    SmpError::Internal(format!(
        "unknown patch type: {} in map: {}",
        print_s(directive),
        go_print::print(map)
    ))
}

/// Go's `%s` of an unstructured value: strings as they are, other scalars as `%!s(T=v)`.
fn print_s(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "%!s(<nil>)".into(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(print_s).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(members) => {
            let parts: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{k}:{}", print_s(v)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        scalar => format!(
            "%!s({}={})",
            go_print::type_name(scalar),
            go_print::print(scalar)
        ),
    }
}
