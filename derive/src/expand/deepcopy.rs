//! deepcopy-gen: `DeepCopy` field by field.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::parse::{Model, Shape, Variant};

fn probe_copy(src: TokenStream) -> TokenStream {
    quote!((&&::kubegen::__private::DeepCopyProbe(#src)).probe_deep_copy())
}

fn probe_copy_into(src: TokenStream, dst: TokenStream) -> TokenStream {
    quote!((&&::kubegen::__private::DeepCopyProbe(#src)).probe_deep_copy_into(#dst);)
}

pub fn expand(model: &Model) -> TokenStream {
    let ident = &model.input.ident;
    let (copy, copy_into) = match &model.shape {
        Shape::Struct(fields) => {
            let members: Vec<_> = fields.iter().map(|f| &f.member).collect();
            let copies = members.iter().map(|m| probe_copy(quote!(&self.#m)));
            let intos = members
                .iter()
                .map(|m| probe_copy_into(quote!(&self.#m), quote!(&mut out.#m)));
            (quote!(Self { #(#members: #copies),* }), quote!(#(#intos)*))
        }
        Shape::Newtype(f) => {
            let m = &f.member;
            let copy = probe_copy(quote!(&self.#m));
            let into = probe_copy_into(quote!(&self.#m), quote!(&mut out.#m));
            (quote!(Self { #m: #copy }), into)
        }
        Shape::Enum(variants) => enum_bodies(variants),
        _ => return TokenStream::new(),
    };
    quote! {
        impl ::kubegen::DeepCopy for #ident {
            #[inline]
            #[allow(unused_imports)]
            fn deep_copy(&self) -> Self {
                use ::kubegen::__private::{ViaClone as _, ViaDeepCopy as _};
                #copy
            }

            #[inline]
            #[allow(unused_imports)]
            fn deep_copy_into(&self, out: &mut Self) {
                use ::kubegen::__private::{ViaClone as _, ViaDeepCopy as _};
                #copy_into
            }
        }
    }
}

fn enum_bodies(variants: &[Variant]) -> (TokenStream, TokenStream) {
    let mut copy_arms = Vec::new();
    let mut into_arms = Vec::new();
    for v in variants {
        let vi = v.ident;
        let members: Vec<_> = v.fields.iter().map(|f| &f.member).collect();
        let src: Vec<_> = (0..members.len())
            .map(|i| format_ident!("__s{i}"))
            .collect();
        let dst: Vec<_> = (0..members.len())
            .map(|i| format_ident!("__d{i}"))
            .collect();
        let copies = src.iter().map(|s| probe_copy(quote!(#s)));
        let intos = src
            .iter()
            .zip(&dst)
            .map(|(s, d)| probe_copy_into(quote!(#s), quote!(#d)));
        copy_arms.push(
            quote!(Self::#vi { #(#members: #src),* } => Self::#vi { #(#members: #copies),* },),
        );
        into_arms.push(quote!((Self::#vi { #(#members: #src),* }, Self::#vi { #(#members: #dst),* }) => { #(#intos)* }));
    }
    let copy = quote!(match self { #(#copy_arms)* });
    let into = quote! {
        #[allow(unreachable_patterns)]
        match (self, out) {
            #(#into_arms)*
            (src, dst) => *dst = ::kubegen::DeepCopy::deep_copy(src),
        }
    };
    (copy, into)
}
