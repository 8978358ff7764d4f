//! `ApiFields`: a struct's serialized fields, for compile-time `list_map_keys` checks.

use proc_macro2::TokenStream;
use quote::quote;

use super::required;
use crate::parse::{Model, Shape};

pub fn expand(model: &Model) -> TokenStream {
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
    quote! {
        impl ::kubegen::ApiFields for #ident {
            const FIELDS: &'static [::kubegen::FieldInfo] = &[#(#infos),*];
        }
    }
}
