//! `#[convert]`: what the derive can see itself. What needs the hub's fields is checked by
//! constants (`expand::convert`).

use darling::error::Accumulator;

use crate::parse::{Model, Shape, error_at};

pub fn convert(model: &Model, errors: &mut Accumulator) {
    let fields = match &model.shape {
        Shape::Struct(fields) => fields.as_slice(),
        _ => &[],
    };
    for f in fields {
        let (manual, clone) = (&f.convert.manual, &f.convert.clone);
        if manual.is_present() && clone.is_present() {
            errors.push(error_at(
                manual.span(),
                "a field is either `#[convert(manual)]` or `#[convert(clone)]`, not both",
            ));
        }
        if model.convert.is_none() && (manual.is_present() || clone.is_present()) {
            let span = if manual.is_present() {
                manual.span()
            } else {
                clone.span()
            };
            errors.push(error_at(
                span,
                "`#[convert]` on a field needs `#[convert(hub = HubType)]` on its type",
            ));
        }
    }
    let Some(args) = &model.convert else { return };
    if !matches!(model.shape, Shape::Struct(_)) {
        errors.push(error_at(
            args.hub.span(),
            "`#[convert(hub = ...)]` applies to structs with named fields; convert enums and other types in the struct that holds them, with `#[convert(manual)]`",
        ));
    }
    if model.resource.is_none() && !args.restored.0.is_empty() {
        errors.push(error_at(
            args.restored.span(),
            "`restored` applies to a `#[derive(CustomResource)]` spec, whose object carries the conversion-data annotation; in a nested type, list the field in `filled` and set it in `ManualConvert::fill_hub`",
        ));
    }
}
