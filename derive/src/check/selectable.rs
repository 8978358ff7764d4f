//! `selectable = ".spec.color"`: a path the apiserver resolves against the schema, to a
//! string, boolean or integer field outside `metadata`, each once, at most eight per version.
//!
//! Steps through the spec struct are checked here; the first step into another type (the
//! status type, a field's struct) is left in [`Deferred`](super::Deferred) for a constant to
//! check; deeper steps, and fields whose type the derive cannot see, are checked by `crd()`.

use super::cel::closest;
use super::rules::RuleField;
use super::*;

const MAX: usize = 8;

pub(super) fn selectable<'a>(
    model: &'a Model,
    r: &'a ResourceArgs,
    errors: &mut Accumulator,
) -> Vec<RuleField<'a>> {
    if r.selectable.len() > MAX {
        errors.push(error_at(
            r.selectable[MAX].span(),
            "a version may declare at most 8 selectable fields",
        ));
    }
    let mut deferred = Vec::new();
    for (i, s) in r.selectable.iter().enumerate() {
        if r.selectable[..i].iter().any(|o| o.as_str() == s.as_str()) {
            errors.push(error_at(s.span(), "this selectable field is given twice"));
        }
        match path(model, r, s) {
            Ok(Some(field)) => deferred.push(field),
            Ok(None) => {}
            Err(message) => errors.push(error_at(s.span(), message)),
        }
    }
    deferred
}

/// Checks one path; a step into another type comes back for a constant to check.
fn path<'a>(
    model: &'a Model,
    r: &'a ResourceArgs,
    s: &darling::util::SpannedValue<String>,
) -> Result<Option<RuleField<'a>>, String> {
    let Some(rest) = s.strip_prefix('.') else {
        return Err(
            "a selectable field is a JSON path starting with `.`, e.g. `.spec.color`".into(),
        );
    };
    if rest.contains(['[', ']']) {
        return Err(format!(
            "selectable field `{}`: the apiserver takes no `[...]` in selectable paths; name each field after a `.`, e.g. `.spec.labels.team`",
            s.as_str()
        ));
    }
    let steps: Vec<&str> = rest.split('.').collect();
    if steps.iter().any(|step| step.is_empty()) {
        return Err(format!(
            "selectable field `{}` has an empty step; write fields between single dots, e.g. `.spec.color`",
            s.as_str()
        ));
    }
    let not_scalar = |what: &str| {
        format!(
            "selectable field `{}` names {what}; the apiserver selects only on strings, booleans and integers",
            s.as_str()
        )
    };
    match steps.as_slice() {
        ["metadata", ..] => Err(format!(
            "selectable field `{}` points into metadata, which the apiserver refuses; `metadata.name` and `metadata.namespace` are selectable without declaring them",
            s.as_str()
        )),
        ["spec" | "status"] => Err(not_scalar("an object")),
        ["apiVersion" | "kind"] => Ok(None),
        ["spec", name, more @ ..] => spec_field(model, s, name, more, not_scalar),
        ["status", name, ..] => match &r.status {
            None => Err(format!(
                "selectable field `{}` points into the status, but this kind has none; declare `status = ...`, or select a spec field",
                s.as_str()
            )),
            Some(status) => Ok(Some(RuleField {
                ty: &status.0,
                name: (*name).to_owned(),
                context: format!("selectable field `{}`", s.as_str()),
                span: s.span(),
            })),
        },
        _ => Err(format!(
            "selectable field `{}` is not in the object; selectable paths start with `.spec.` or `.status.`",
            s.as_str()
        )),
    }
}

/// A path through a field of the spec struct itself.
fn spec_field<'a>(
    model: &'a Model,
    s: &darling::util::SpannedValue<String>,
    name: &str,
    more: &[&str],
    not_scalar: impl Fn(&str) -> String,
) -> Result<Option<RuleField<'a>>, String> {
    let Shape::Struct(fields) = &model.shape else {
        return Ok(None);
    };
    let listed = || fields.iter().filter(|f| !f.skipped && !f.flatten);
    let Some(field) = listed().find(|f| f.name == name) else {
        // A flattened field's fields are not listed here; `crd()` checks those paths.
        if fields.iter().any(|f| f.flatten && !f.skipped) {
            return Ok(None);
        }
        let suggestion = closest(name, listed().map(|f| f.name.as_str()))
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        return Err(format!(
            "selectable field `{}`: `{}` has no field `{name}` (fields go by their serde names){suggestion}",
            s.as_str(),
            model.input.ident
        ));
    };
    let ty = field.schema_type();
    match (classify(ty), more) {
        (TyClass::String | TyClass::Integer | TyClass::Bool | TyClass::Unknown, []) => Ok(None),
        // A map's keys are steps too (`.spec.labels.team`); what lies beyond, `crd()` checks.
        (TyClass::Map, [_, ..]) => Ok(None),
        (TyClass::Unknown, [next, ..]) => Ok(Some(RuleField {
            ty,
            name: (*next).to_owned(),
            context: format!("selectable field `{}`", s.as_str()),
            span: s.span(),
        })),
        (
            TyClass::Map | TyClass::List | TyClass::Number | TyClass::IntOrString | TyClass::Any,
            [],
        ) => Err(not_scalar(classify(ty).describe())),
        (class, _) => Err(format!(
            "selectable field `{}`: `{name}` is {}, which has no fields to select",
            s.as_str(),
            class.describe()
        )),
    }
}
