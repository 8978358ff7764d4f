//! `#[convert(...)]`: a spoke version's hub, on the type, and how a field converts.

use darling::FromMeta;
use darling::util::{Flag, SpannedValue};
use syn::Attribute;

use super::values::{StrList, TypeRef};

/// `#[convert(hub = HubType, filled = ["..."], restored = ["..."])]` on a struct.
#[derive(Debug, FromMeta)]
pub struct ConvertArgs {
    /// The matching struct of the hub (storage) version.
    pub hub: SpannedValue<TypeRef>,
    /// Hub fields (serde names) the spoke lacks that `ManualConvert::to_hub` sets.
    #[darling(default)]
    pub filled: StrList,
    /// Hub fields (serde names) the spoke lacks, kept in the conversion-data annotation.
    #[darling(default)]
    pub restored: SpannedValue<StrList>,
}

/// `#[convert(manual)]` or `#[convert(clone)]` on a field.
#[derive(Debug, Default, FromMeta)]
pub struct FieldConvert {
    /// Converted by the author's `ManualConvert`.
    pub manual: Flag,
    /// The same type on both sides, copied with `Clone`.
    pub clone: Flag,
}

fn attr(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs.iter().find(|a| a.path().is_ident("convert"))
}

/// The type's `#[convert(...)]`, if any.
pub fn parse_type(
    attrs: &[Attribute],
    errors: &mut darling::error::Accumulator,
) -> Option<ConvertArgs> {
    errors.handle(ConvertArgs::from_meta(&attr(attrs)?.meta))
}

/// A field's `#[convert(...)]`.
pub fn parse_field(attrs: &[Attribute], errors: &mut darling::error::Accumulator) -> FieldConvert {
    attr(attrs)
        .and_then(|a| errors.handle(FieldConvert::from_meta(&a.meta)))
        .unwrap_or_default()
}
