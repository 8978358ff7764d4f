//! `ApiFields`: a struct's serialized fields and transition rules, and the constants that
//! check what this type's `#[rule]`s assume about other types (`check::Deferred`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};

use super::required;
use crate::check::Deferred;
use crate::parse::{Model, Shape};

pub fn expand(model: &Model, deferred: &Deferred) -> TokenStream {
    let mut out = api_fields(model, deferred);
    out.extend(checks(deferred));
    out
}

fn api_fields(model: &Model, deferred: &Deferred) -> TokenStream {
    let Shape::Struct(fields) = &model.shape else {
        return TokenStream::new();
    };
    let ident = &model.input.ident;
    let infos = fields.iter().filter(|f| !f.skipped && !f.flatten).map(|f| {
        let name = &f.name;
        let required = required(f);
        let has_default = f.markers.default.is_some();
        quote!(::kubegen::FieldInfo { name: #name, required: #required, has_default: #has_default })
    });
    let all_listed = fields.iter().any(|f| !f.skipped && f.flatten).then(|| {
        quote!(
            const ALL_LISTED: bool = false;
        )
    });
    let old_self_rule = deferred
        .old_self_rule
        .as_ref()
        .map(|rule| quote!(const OLD_SELF_RULE: ::core::option::Option<&'static str> = ::core::option::Option::Some(#rule);));
    quote! {
        impl ::kubegen::ApiFields for #ident {
            const FIELDS: &'static [::kubegen::FieldInfo] = &[#(#infos),*];
            #all_listed
            #old_self_rule
        }
    }
}

/// A type as the user wrote it, for messages (`Vec<Port>`, not `Vec < Port >`).
pub fn type_name(ty: &syn::Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

/// One constant per field of another type a rule names, and per list of another type whose
/// items the apiserver does not correlate: each fails compilation with its message.
///
/// The paths are written out inside `quote_spanned!`: the compiler reports a failed constant
/// at the call, which must carry the span of the rule or field that asked for it.
fn checks(deferred: &Deferred) -> TokenStream {
    let mut seen = std::collections::BTreeSet::new();
    let fields = deferred
        .rule_fields
        .iter()
        .filter(|f| seen.insert((type_name(f.ty), f.name.clone(), f.context.clone())));
    let fields = fields.map(|f| {
        let ty = f.ty;
        let (name, context, type_name) = (&f.name, &f.context, type_name(f.ty));
        quote_spanned! {f.span=>
            const _: () = {
                #[allow(unused_imports)]
                use ::kubegen::__private::NoApiFields as _;
                ::kubegen::__private::check_rule_field(
                    <::kubegen::__private::FieldsOf<#ty>>::FIELDS, #name, #context, #type_name,
                );
            };
        }
    });
    let correlations = deferred.correlations.iter().map(|c| {
        let item = c.item;
        let (field, item_name) = (&c.field, type_name(c.item));
        quote_spanned! {c.span=>
            const _: () = {
                #[allow(unused_imports)]
                use ::kubegen::__private::NoApiFields as _;
                ::kubegen::__private::check_items_correlate(
                    <::kubegen::__private::FieldsOf<#item>>::OLD_SELF_RULE, #field, #item_name,
                );
            };
        }
    });
    quote!(#(#fields)* #(#correlations)*)
}
