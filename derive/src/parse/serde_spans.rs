//! Where a key of `#[serde(...)]` is written, so an error about it points at it.
//! (`serde_derive_internals` reads what the keys mean, but does not keep their spans.)

use proc_macro2::{Span, TokenStream};
use syn::Attribute;
use syn::spanned::Spanned;

/// The span of `key` (`deny_unknown_fields`, `alias`, ...) in the `#[serde(...)]` attributes
/// of `attrs`, the first time it is written.
pub fn find(attrs: &[Attribute], key: &str) -> Option<Span> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // A malformed attribute is serde's to report; it just has no span to offer here.
        let _ = attr.parse_nested_meta(|meta| {
            if found.is_none() && meta.path.is_ident(key) {
                found = Some(meta.path.span());
            }
            // Skip the key's value: `= expr` or `(...)`.
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                content.parse::<TokenStream>()?;
            }
            Ok(())
        });
    }
    found
}
