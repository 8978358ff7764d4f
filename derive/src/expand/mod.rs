//! Expand: one module per generator. Nothing here re-checks input: `check` already did.

pub mod apply;
pub mod client;
pub mod convert;
pub mod deepcopy;
pub mod defaults;
pub mod fallback;
pub mod fields;
pub mod kind;
pub mod lister;
pub mod schema;

use proc_macro2::TokenStream;
use quote::quote;

use crate::check::Deferred;
use crate::parse::{Field, Model};

/// Everything `#[derive(ApiType)]` generates (and `CustomResource` generates for its spec).
pub fn api_type(model: &Model, deferred: &Deferred) -> TokenStream {
    let deepcopy = deepcopy::expand(model);
    let defaults = defaults::expand(model);
    let schema = schema::expand(model);
    let fields = fields::expand(model, deferred);
    let apply = apply::expand(model);
    quote! {
        #apply
        #deepcopy
        #defaults
        #schema
        #fields
    }
}

/// Whether the schema lists the field as required: serde needs it on read and nothing
/// (a serde default, `Option`, `skip_serializing_if`, a `#[default]`) lets it be absent,
/// unless `#[required]` / `#[optional]` says otherwise.
pub fn required(f: &Field) -> bool {
    if f.markers.required.is_some() {
        return true;
    }
    if f.markers.optional.is_some() {
        return false;
    }
    !f.is_option() && !f.serde_default && !f.skip_serializing_if && f.markers.default.is_none()
}

/// The `#[default(expr)]` value as a `ty`: written as is, so literals take the field's type
/// (`#[default(7)]` on a `u32`), except string literals, which go through `Into` so
/// `#[default("TCP")]` fills a `String`.
pub fn default_value(expr: &syn::Expr, ty: &syn::Type) -> TokenStream {
    use syn::spanned::Spanned;
    let is_str = matches!(
        expr,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
    );
    if is_str {
        quote::quote_spanned!(expr.span()=> { let __v: #ty = ::core::convert::Into::into(#expr); __v })
    } else {
        quote::quote_spanned!(expr.span()=> { let __v: #ty = #expr; __v })
    }
}

/// `Some("...")` or `None` as tokens.
pub fn opt_str(s: &Option<String>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}
