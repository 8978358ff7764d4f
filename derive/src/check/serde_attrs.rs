//! serde attributes that make serde read something other than what it writes, or other than
//! any schema can say. The schema describes what serde reads (so everything the apiserver
//! accepts decodes) and what it writes (so the apiserver accepts the type's own objects);
//! where one attribute breaks that and no schema can describe it, it is refused here.
//!
//! What the schema follows instead (skip, `skip_deserializing` variants, aliases, `other`,
//! `deny_unknown_fields` in unions, tags) is in `expand/schema.rs` and the runtime's
//! schema builders; what only the built schema shows (a flattened map, a default a custom
//! `Deserialize` refuses) is reported by `crd()`.

use super::*;
use crate::parse::serde_spans;
use crate::parse::{MarkerKind, Variant};

pub(super) fn serde_attrs(model: &Model, errors: &mut Accumulator) {
    if model.deny_unknown_fields.is_some()
        && let Some(marker) = model
            .markers
            .list
            .iter()
            .find(|m| matches!(m.kind, MarkerKind::PreserveUnknownFields))
    {
        errors.push(error_at(
            marker.span,
            "`preserve_unknown_fields` keeps fields that #[serde(deny_unknown_fields)] refuses, so objects \
             the apiserver accepts would not decode; remove one of the two",
        ));
    }
    match &model.shape {
        Shape::Struct(fields) => fields.iter().for_each(|f| field(model, f, errors)),
        Shape::Newtype(f) => field(model, f, errors),
        Shape::Enum(variants) => {
            for v in variants.iter().filter(|v| !v.skipped) {
                variant(v, errors);
                v.fields.iter().for_each(|f| field(model, f, errors));
            }
        }
        _ => {}
    }
}

/// Where an error about `key` points: the key in the field's `#[serde(...)]`, else the field.
fn at(f: &Field, key: &str) -> Span {
    serde_spans::find(f.serde_attrs, key).unwrap_or(f.span)
}

fn field(model: &Model, f: &Field, errors: &mut Accumulator) {
    if f.skipped || f.flatten {
        return;
    }
    // serde fills the field itself when it is missing.
    let optional_on_read = f.is_option() || f.serde_default;
    if let Some(de_name) = &f.de_name
        && !f.write_skipped
        && !f.read_skipped
    {
        errors.push(error_at(
            at(f, "rename"),
            format!(
                "serde writes this field as `{}` but reads it as `{de_name}`, and a schema gives a field one \
                 name; use one name both ways (`#[serde(rename = \"{}\")]`)",
                f.name, f.name
            ),
        ));
    }
    if f.write_skipped && !optional_on_read {
        errors.push(error_at(
            at(f, "skip_serializing"),
            "serde never writes this field but requires it on read, so the objects this type writes \
             do not decode (and the apiserver refuses them); add #[serde(default)] or make it `Option<T>`",
        ));
    }
    if f.skip_serializing_if && !optional_on_read {
        errors.push(error_at(
            at(f, "skip_serializing_if"),
            "serde leaves this field out when the condition holds but requires it on read, so objects \
             without it (which the schema must then accept) do not decode; add #[serde(default)]",
        ));
    }
    if f.read_skipped && model.deny_unknown_fields.is_some() {
        errors.push(error_at(
            at(f, "skip_deserializing"),
            "serde writes this field but #[serde(deny_unknown_fields)] refuses it on read, so the type \
             cannot read its own objects; skip it both ways (#[serde(skip)]) or drop deny_unknown_fields",
        ));
    }
    if let (Some(span), Some(_)) = (f.markers.default_span, f.custom_serde) {
        errors.push(error_at(
            span,
            "#[default] writes the value with the field type's own Serialize, not with this field's \
             #[serde(with)] functions, so the apiserver would store it in another form; drop it and \
             let serde fill the field on read (#[serde(default = \"...\")])",
        ));
    }
}

fn variant(v: &Variant, errors: &mut Accumulator) {
    if let Some(de_name) = &v.de_name
        && !v.other
    {
        errors.push(error_at(
            serde_spans::find(v.serde_attrs, "rename").unwrap_or(v.span),
            format!(
                "serde writes this variant as `{}` but reads it as `{de_name}`, and the schema's values are \
                 what serde reads; use one name both ways (`#[serde(rename = \"{}\")]`)",
                v.name, v.name
            ),
        ));
    }
    if let Some(span) = v.custom_serde {
        errors.push(error_at(
            span,
            "kubegen cannot see what these functions read and write, and a variant has no schema node of its \
             own to describe them with; move the custom (de)serialization onto a field of the variant \
             (`#[serde(with)]` with `#[schema(with = WireType)]`) or remove it",
        ));
    }
}
