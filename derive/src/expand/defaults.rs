//! defaulter-gen: `Defaults::set_defaults` from `#[default(expr)]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::default_value;
use crate::parse::{Field, Model, Shape, option_inner};

/// Sets the field's own default when it is unset, then recurses into its value.
fn field(f: &Field, place: TokenStream) -> TokenStream {
    let own = match &f.markers.default {
        // Only `Option` fields can be unset; a non-Option field with `#[default]` has a serde
        // default, which serde applied when it read the value.
        Some(expr) if f.is_option() => {
            let inner = option_inner(f.ty).unwrap_or(f.ty);
            let value = default_value(expr, inner);
            quote_spanned! {expr.span()=>
                if ::core::option::Option::is_none(#place) {
                    *#place = ::core::option::Option::Some(#value);
                }
            }
        }
        _ => TokenStream::new(),
    };
    quote! {
        #own
        (&mut &mut ::kubegen::__private::DefaultsProbe(#place)).probe_set_defaults();
    }
}

pub fn expand(model: &Model) -> TokenStream {
    let ident = &model.input.ident;
    let body = match &model.shape {
        Shape::Struct(fields) => {
            let each = fields.iter().map(|f| {
                let m = &f.member;
                field(f, quote!(&mut self.#m))
            });
            quote!(#(#each)*)
        }
        Shape::Newtype(f) => {
            let m = &f.member;
            field(f, quote!(&mut self.#m))
        }
        Shape::Enum(variants) => {
            let arms = variants.iter().map(|v| {
                let vi = v.ident;
                let members: Vec<_> = v.fields.iter().map(|f| &f.member).collect();
                let bindings: Vec<_> = (0..members.len())
                    .map(|i| format_ident!("__f{i}"))
                    .collect();
                let each = v
                    .fields
                    .iter()
                    .zip(&bindings)
                    .map(|(f, b)| field(f, quote!(#b)));
                quote!(Self::#vi { #(#members: #bindings),* } => { #(#each)* })
            });
            quote!(match self { #(#arms)* })
        }
        _ => return TokenStream::new(),
    };
    quote! {
        impl ::kubegen::Defaults for #ident {
            #[inline]
            #[allow(unused_imports, unused_variables)]
            fn set_defaults(&mut self) {
                use ::kubegen::__private::{NoDefaults as _, ViaDefaults as _};
                #body
            }
        }
    }
}
