//! Check: every rule the model must obey, each error at the tokens that broke it.
//!
//! Nothing here emits code. Rules that need types the derive cannot see (a marker on a
//! field whose type is a user type or alias) are checked again at run time by the schema
//! builders and reported by `crd()`; facts about other kubegen types (the fields a `#[rule]`
//! names) are returned as [`Deferred`] for `expand` to check with constants.

use darling::error::Accumulator;
use proc_macro2::Span;
use syn::Type;
use syn::spanned::Spanned;

use crate::parse::{
    Field, Marker, MarkerKind, Markers, Model, Repr, ResourceArgs, Shape, Which, error_at,
    generic_arg,
};

mod cel;
mod convert;
mod enums;
mod markers;
mod metadata;
mod pattern;
mod resource;
mod rules;
mod selectable;
mod serde_attrs;

use enums::enumeration;
pub use markers::{TyClass, classify};
use markers::{field, markers};
pub use resource::plural;
pub use rules::Deferred;
use serde_attrs::serde_attrs;

/// Checks the whole model; returns what constants must check about other types.
pub fn check<'a>(model: &'a Model, errors: &mut Accumulator) -> Deferred<'a> {
    shape(model, errors);
    if !model.input.generics.params.is_empty() {
        errors.push(error_at(
            model.input.generics.span(),
            "kubegen types cannot be generic: a CRD schema describes one concrete type; define a concrete struct instead",
        ));
    }
    if let Some((what, span)) = model.wire_override {
        errors.push(error_at(
            span,
            format!(
                "#[serde({what} = ...)] changes what serde reads and writes, so kubegen cannot describe it; \
                 derive kubegen on the wire type instead"
            ),
        ));
    }
    type_markers(model, errors);
    serde_attrs(model, errors);
    match &model.shape {
        Shape::Struct(fields) => fields.iter().for_each(|f| field(f, errors)),
        Shape::Newtype(f) => field(f, errors),
        Shape::Enum(_) => enumeration(model, errors),
        _ => {}
    }
    let mut selectable = Vec::new();
    if let Some(resource) = &model.resource {
        resource::resource(model, resource, errors);
        metadata::metadata(resource, errors);
        selectable = selectable::selectable(model, resource, errors);
    }
    convert::convert(model, errors);
    let mut deferred = rules::rules(model, errors);
    deferred.rule_fields.extend(selectable);
    deferred
}

fn shape(model: &Model, errors: &mut Accumulator) {
    let derive = match model.which {
        Which::CustomResource => "CustomResource",
        Which::ApiType => "ApiType",
    };
    match (&model.shape, model.which) {
        (Shape::Union(span), _) => errors.push(error_at(*span, format!("#[derive({derive})] does not support unions: serde cannot serialize them"))),
        (Shape::Struct(_), _) | (Shape::Newtype(_) | Shape::Enum(_), Which::ApiType) => {}
        (Shape::Tuple(span), _) => errors.push(error_at(
            *span,
            format!("#[derive({derive})] does not support tuple structs: they serialize as JSON arrays of mixed types, which Kubernetes cannot describe; use named fields"),
        )),
        (Shape::Unit(span), _) => errors.push(error_at(*span, format!("#[derive({derive})] does not support unit structs: they serialize as null"))),
        (Shape::Newtype(_) | Shape::Enum(_), Which::CustomResource) => errors.push(error_at(
            model.input.ident.span(),
            "#[derive(CustomResource)] goes on the spec struct, which needs named fields; derive ApiType for enums and newtypes used inside it",
        )),
    }
}

fn type_markers(model: &Model, errors: &mut Accumulator) {
    let m = &model.markers;
    for span in [m.default_span, m.required, m.optional]
        .into_iter()
        .flatten()
    {
        errors.push(error_at(
            span,
            "#[default], #[required] and #[optional] go on fields, not on types",
        ));
    }
    if m.schema_with.is_some() {
        errors.push(error_at(
            model.input.ident.span(),
            "#[schema(with = ...)] goes on fields",
        ));
    }
    let class = match &model.shape {
        Shape::Struct(_) => TyClass::Map,
        Shape::Newtype(f) => classify(f.schema_type()),
        Shape::Enum(variants)
            if model.repr == Repr::External && variants.iter().all(|v| v.fields.is_empty()) =>
        {
            TyClass::String
        }
        Shape::Enum(_) => TyClass::Unknown,
        _ => return,
    };
    markers(m, class, errors);
}
