//! Enums: the serde shapes a Kubernetes schema can express.

use super::*;

pub(super) fn enumeration(model: &Model, errors: &mut Accumulator) {
    let Shape::Enum(variants) = &model.shape else {
        return;
    };
    let live: Vec<_> = variants.iter().filter(|v| !v.skipped).collect();
    if live.is_empty() {
        errors.push(error_at(
            model.input.ident.span(),
            "an enum needs at least one variant serde can read",
        ));
        return;
    }
    for v in &live {
        if let Some(span) = v.untagged {
            errors.push(error_at(span, "#[serde(untagged)] on single variants is not supported; make the whole enum untagged or tagged"));
        }
        if matches!(v.style, serde_derive_internals::ast::Style::Tuple) {
            errors.push(error_at(
                v.span,
                "tuple variants serialize as JSON arrays of mixed types, which Kubernetes cannot describe; use a struct variant",
            ));
        }
        v.fields.iter().for_each(|f| field(f, errors));
    }
    let unit = |v: &&&crate::parse::Variant| {
        v.fields.is_empty() && !matches!(v.style, serde_derive_internals::ast::Style::Newtype)
    };
    match &model.repr {
        Repr::External => {
            let units = live.iter().filter(unit).count();
            if units > 0 && units < live.len() {
                let first_unit = live
                    .iter()
                    .find(unit)
                    .map(|v| v.span)
                    .unwrap_or_else(Span::call_site);
                errors.push(error_at(
                    first_unit,
                    "this enum mixes unit variants (written as strings) with data variants (written as objects), \
                     and a Kubernetes schema node has one type; add #[serde(tag = \"type\")] or give every variant data",
                ));
            }
        }
        Repr::Internal { .. } => {
            for v in &live {
                if let [f] = v.fields.as_slice()
                    && matches!(v.style, serde_derive_internals::ast::Style::Newtype)
                    && !matches!(classify(f.schema_type()), TyClass::Unknown | TyClass::Map)
                {
                    errors.push(error_at(v.span, "a variant of an internally tagged enum must hold a struct or a map: serde writes the tag into it"));
                }
            }
        }
        Repr::Adjacent { .. } => {}
        Repr::Untagged => untagged(&live, errors),
    }
}

fn untagged(live: &[&crate::parse::Variant], errors: &mut Accumulator) {
    let mut seen: Vec<(TyClass, Span)> = Vec::new();
    for v in live {
        let class = match (v.style, v.fields.as_slice()) {
            (serde_derive_internals::ast::Style::Unit, _) => {
                errors.push(error_at(v.span, "a unit variant of an untagged enum serializes as null, which a Kubernetes schema cannot mix with other types"));
                continue;
            }
            (serde_derive_internals::ast::Style::Newtype, [f]) => classify(f.schema_type()),
            (serde_derive_internals::ast::Style::Struct, _) => TyClass::Map,
            _ => continue,
        };
        let class = match class {
            TyClass::Integer | TyClass::Number => TyClass::Number,
            TyClass::Unknown | TyClass::Any => continue,
            c => c,
        };
        if !seen.iter().any(|(c, _)| *c == class) {
            seen.push((class, v.span));
        }
    }
    let classes: Vec<TyClass> = seen.iter().map(|(c, _)| *c).collect();
    let int_or_string = classes.len() == 2
        && classes.contains(&TyClass::Number)
        && classes.contains(&TyClass::String);
    if classes.len() > 1 && !int_or_string {
        let described: Vec<&str> = classes.iter().map(|c| c.describe()).collect();
        errors.push(error_at(
            seen[1].1,
            format!(
                "this untagged enum's variants serialize as {}, and a Kubernetes schema node has one type \
                 (integer-or-string aside); use #[serde(tag = \"...\")] or one shape for every variant",
                described.join(" and ")
            ),
        ));
    }
}
