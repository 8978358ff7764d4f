//! What a `CustomResource` derive with errors still emits beside them: the kind struct, its
//! `new` and its list type, so that code using the kind does not add "cannot find type"
//! errors to the real ones (as thiserror emits a fallback `Display` for the same reason).

use proc_macro2::{TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::{DeriveInput, Ident, LitStr, Type};

/// The kind's struct, `new` and list, named from `#[resource(kind = "...")]`; nothing when
/// the attribute names no kind that is an identifier.
pub fn expand(input: &DeriveInput) -> TokenStream {
    let Some(kind_name) = resource_value(input, "kind") else {
        return TokenStream::new();
    };
    // A kind that is no identifier, or that names the spec struct itself, is the error.
    let spec_name = input.ident.to_string();
    if syn::parse_str::<Ident>(&kind_name).is_err()
        || [kind_name.clone(), format!("{kind_name}List")].contains(&spec_name)
    {
        return TokenStream::new();
    }
    let kind = format_ident!("{}", kind_name);
    let list = format_ident!("{}List", kind_name);
    let spec = &input.ident;
    let vis = &input.vis;
    let status = resource_value(input, "status").and_then(|s| syn::parse_str::<Type>(&s).ok());
    let status_field = status
        .as_ref()
        .map(|t| quote!(pub status: ::core::option::Option<#t>,));
    let status_init = status
        .as_ref()
        .map(|_| quote!(status: ::core::option::Option::None,));
    let meta =
        quote!(::kubegen::__private::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    quote! {
        #[allow(dead_code)]
        #[derive(::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #kind {
            pub metadata: #meta,
            pub spec: #spec,
            #status_field
        }

        #[allow(dead_code)]
        #vis type #list = ::kubegen::List<#kind>;

        #[allow(dead_code)]
        impl #kind {
            pub fn new(name: &str, spec: #spec) -> Self {
                Self {
                    metadata: #meta {
                        name: ::core::option::Option::Some(name.into()),
                        ..::core::default::Default::default()
                    },
                    spec,
                    #status_init
                }
            }
        }
    }
}

/// The string given to `key` in the `#[resource(...)]` attribute, read from its tokens alone
/// (the attribute may be what failed to parse).
fn resource_value(input: &DeriveInput, key: &str) -> Option<String> {
    let attr = input.attrs.iter().find(|a| a.path().is_ident("resource"))?;
    let list = attr.meta.require_list().ok()?;
    let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
    tokens.windows(3).find_map(|w| match w {
        [
            TokenTree::Ident(k),
            TokenTree::Punct(eq),
            TokenTree::Literal(value),
        ] if k == key && eq.as_char() == '=' => {
            syn::parse2::<LitStr>(TokenTree::Literal(value.clone()).into())
                .ok()
                .map(|s| s.value())
        }
        _ => None,
    })
}
