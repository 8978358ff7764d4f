//! `#[kubegen::test]`: one async test body, run on every backend.
//!
//! ```ignore
//! #[kubegen::test]
//! async fn create_and_get(env: TestEnv) { ... }
//! ```
//! becomes a module `create_and_get` holding the body and two `#[test]`s, `in_memory` and
//! `on_apiserver`, each calling into `kubegen::testing::backend`, which owns the runtime,
//! the choice of server and the namespace. `#[kubegen::test(in_memory)]` makes only the first,
//! for tests that inject faults into the in-memory server.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Error, ItemFn};

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand_fn(args, item) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

fn expand_fn(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let in_memory_only = match syn::parse2::<Option<syn::Ident>>(args.clone()) {
        Ok(None) => false,
        Ok(Some(flag)) if flag == "in_memory" => true,
        _ => {
            return Err(Error::new(
                args.span(),
                "unknown argument: write `#[kubegen::test]` for every backend, or \
                 `#[kubegen::test(in_memory)]` for the in-memory server only",
            ));
        }
    };
    let function: ItemFn = syn::parse2(item)?;
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(Error::new(
            signature.fn_token.span,
            "a kubegen test is an `async fn`: write `async fn name(env: TestEnv)`",
        ));
    }
    if signature.inputs.len() != 1 || !signature.generics.params.is_empty() {
        return Err(Error::new(
            signature.inputs.span(),
            "a kubegen test takes exactly one argument, the `kubegen::testing::TestEnv` it runs in",
        ));
    }
    let name = &signature.ident;
    let mut body_signature = signature.clone();
    body_signature.ident = format_ident!("body");
    let block = &function.block;
    let attrs = &function.attrs;
    let vis = &function.vis;
    let test = |runner: &str, test_name: &str| {
        let runner = format_ident!("{runner}");
        let test_name = format_ident!("{test_name}");
        quote! {
            #[test]
            #(#attrs)*
            fn #test_name() {
                ::kubegen::testing::backend::#runner(
                    ::core::module_path!(),
                    body,
                );
            }
        }
    };
    let in_memory = test("run_in_memory", "in_memory");
    let on_apiserver = (!in_memory_only).then(|| test("run_on_apiserver", "on_apiserver"));
    Ok(quote! {
        #vis mod #name {
            #[allow(unused_imports)]
            use super::*;

            #body_signature #block

            #in_memory
            #on_apiserver
        }
    })
}
