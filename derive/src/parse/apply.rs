//! `#[apply]` on a type (generate its apply configuration) and `#[apply(...)]` on a field
//! (how the field's configuration is made).

use darling::FromMeta;
use darling::util::Flag;
use syn::Attribute;

/// `#[apply(whole)]`: the field's type is its own configuration, written whole — for a type
/// without an `Apply` impl that cannot be given one (another crate's type).
#[derive(Debug, Default, FromMeta)]
pub struct FieldApply {
    /// The field is set whole.
    pub whole: Flag,
}

/// A field's `#[apply(...)]`.
pub fn parse_field(attrs: &[Attribute], errors: &mut darling::error::Accumulator) -> FieldApply {
    attrs
        .iter()
        .find(|a| a.path().is_ident("apply"))
        .and_then(|a| errors.handle(FieldApply::from_meta(&a.meta)))
        .unwrap_or_default()
}

/// The type's own `#[apply]`: a bare path; anything inside it is refused.
pub fn parse_type(attrs: &[Attribute], errors: &mut darling::error::Accumulator) -> bool {
    let Some(attr) = attrs.iter().find(|a| a.path().is_ident("apply")) else {
        return false;
    };
    if attr.meta.require_path_only().is_err() {
        errors.push(super::error_at(
            syn::spanned::Spanned::span(&attr.meta),
            "`#[apply]` on a type takes no arguments: it asks for the type's apply configuration",
        ));
    }
    true
}
