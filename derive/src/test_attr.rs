//! `#[kubegen::test]`: one async test body, run on every backend.
//!
//! ```ignore
//! #[kubegen::test]
//! async fn create_and_get(env: TestEnv) { ... }
//! ```
//! becomes a module `create_and_get` holding the body and two `#[test]`s, `in_memory` and
//! `on_apiserver`, each calling into `kubegen::testing::backend`, which owns the runtime,
//! the choice of server and the namespace. The arguments:
//! - `in_memory`: only the first test, for tests that inject faults into the in-memory server;
//! - `controllers`: a cluster with kube-controller-manager's controllers and a kubelet, on every
//!   backend (`TestSetup::controllers` with all of them and a default `Kubelet`);
//! - `setup = path::to::function`: a `fn(&mut kubegen::testing::TestSetup)` describing the
//!   server the test needs (kinds, namespaces, seed objects, in-memory hooks), which both tests
//!   apply before the body runs.
//!
//! The steps are thiserror's: parse the arguments into [`Args`] (collecting every mistake),
//! check the function, then expand.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, Expr, ItemFn, Meta, Path, Token};

/// What every argument message ends with: the arguments there are.
const USAGE: &str = "`#[kubegen::test]` takes `in_memory` (run on the in-memory server only), \
                     `controllers` (a cluster with kube-controller-manager's controllers and a \
                     kubelet) and `setup = path::to::function` (a \
                     `fn(&mut kubegen::testing::TestSetup)` describing the server the test needs)";

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand_fn(args, item) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

/// The attribute's arguments.
#[derive(Default)]
struct Args {
    /// `in_memory`: no `on_apiserver` test.
    in_memory: Option<Path>,
    /// `controllers`: kube-controller-manager's controllers and a kubelet on every backend.
    controllers: Option<Path>,
    /// `setup = path`: the function describing the server.
    setup: Option<Path>,
}

impl Args {
    /// Parses `in_memory` and `setup = path`, in any order, each at most once. Every mistake is
    /// reported, each at its own tokens, beside what could be read.
    fn parse(args: TokenStream) -> (Args, Option<Error>) {
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
            Ok(metas) => metas,
            Err(e) => {
                let e = Error::new(e.span(), format!("{e}: {USAGE}"));
                return (Args::default(), Some(e));
            }
        };
        let mut parsed = Args::default();
        let mut errors: Option<Error> = None;
        let mut fail = |e: Error| match &mut errors {
            Some(first) => first.combine(e),
            None => errors = Some(e),
        };
        for meta in metas {
            let key = meta.path();
            let flag = ["in_memory", "controllers"]
                .into_iter()
                .find(|name| key.is_ident(name));
            if let Some(name) = flag {
                let slot = match name {
                    "in_memory" => &mut parsed.in_memory,
                    _ => &mut parsed.controllers,
                };
                match meta {
                    Meta::Path(path) if slot.is_some() => fail(Error::new(
                        path.span(),
                        format!("`{name}` is given twice: write it once"),
                    )),
                    Meta::Path(path) => *slot = Some(path),
                    other => fail(Error::new(
                        other.span(),
                        format!(
                            "`{name}` is a flag and takes no value: write \
                             `#[kubegen::test({name})]`"
                        ),
                    )),
                }
            } else if key.is_ident("setup") {
                match meta {
                    Meta::NameValue(nv) if parsed.setup.is_some() => fail(Error::new(
                        nv.span(),
                        "`setup` is given twice: one function describes the server; call \
                         the other from it",
                    )),
                    Meta::NameValue(nv) => match nv.value {
                        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
                            parsed.setup = Some(p.path)
                        }
                        other => fail(Error::new(
                            other.span(),
                            "`setup` names a function: write `setup = path::to::function`, \
                             where `fn function(setup: &mut kubegen::testing::TestSetup)`",
                        )),
                    },
                    other => fail(Error::new(
                        other.span(),
                        "`setup` needs a function: write `setup = path::to::function`, where \
                         `fn function(setup: &mut kubegen::testing::TestSetup)`",
                    )),
                }
            } else {
                let name = quote!(#key).to_string().replace(' ', "");
                fail(Error::new(
                    key.span(),
                    format!("unknown argument `{name}`: {USAGE}"),
                ));
            }
        }
        (parsed, errors)
    }
}

/// Checks that `function` is an `async fn` of one argument.
fn check(function: &ItemFn) -> syn::Result<()> {
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
    Ok(())
}

/// The tests, or every mistake: with only the arguments wrong, beside the tests made from the
/// rest; with the function wrong, beside the function as written, so that the names it uses
/// stay used and only the real errors show (thiserror's `fallback.rs`).
fn expand_fn(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let (args, errors) = Args::parse(args);
    let function: ItemFn = syn::parse2(item).map_err(|e| after(errors.clone(), e))?;
    if let Err(e) = check(&function) {
        let errors = after(errors, e).to_compile_error();
        return Ok(quote! {
            #errors
            #[allow(dead_code)]
            #function
        });
    }
    let tests = expand_tests(&args, &function);
    let errors = errors.map(|e| e.to_compile_error());
    Ok(quote! {
        #errors
        #tests
    })
}

/// `e` after the errors found before it.
fn after(errors: Option<Error>, e: Error) -> Error {
    match errors {
        Some(mut first) => {
            first.combine(e);
            first
        }
        None => e,
    }
}

/// The module of tests for a checked function.
fn expand_tests(args: &Args, function: &ItemFn) -> TokenStream {
    let signature = &function.sig;
    let name = &signature.ident;
    let mut body_signature = signature.clone();
    body_signature.ident = format_ident!("body");
    let block = &function.block;
    let attrs = &function.attrs;
    let vis = &function.vis;

    // The setup function is named where the user wrote it, outside the test's module, so its
    // path resolves as written (`super::f`, `self::f`, a name the module imports); the
    // constant's type makes a function of the wrong signature an error at the path.
    let setup_const = format_ident!(
        "__KUBEGEN_SETUP_{}",
        syn::ext::IdentExt::unraw(name).to_string().to_uppercase()
    );
    let setup_item = args.setup.as_ref().map(|path| {
        quote_spanned! {path.span()=>
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #setup_const: fn(&mut ::kubegen::testing::backend::TestSetup) = #path;
        }
    });
    // `controllers` asks for them before the test's own setup runs, which may narrow them.
    let controllers = args.controllers.as_ref().map(|path| {
        quote_spanned! {path.span()=>
            setup.controllers(
                ::kubegen::testing::Controllers::all().kubelet(::kubegen::testing::Kubelet::new()),
            );
        }
    });
    let user_setup = args
        .setup
        .as_ref()
        .map(|_| quote!(super::#setup_const(setup);));
    let setup = match (&controllers, &user_setup) {
        (None, None) => quote!(|_| {}),
        (None, Some(_)) => quote!(super::#setup_const),
        _ => quote! {
            |setup: &mut ::kubegen::testing::backend::TestSetup| {
                #controllers
                #user_setup
            }
        },
    };

    let test = |runner: &str, test_name: &str| {
        let runner = format_ident!("{runner}");
        let test_name = format_ident!("{test_name}");
        quote! {
            #[test]
            #(#attrs)*
            fn #test_name() {
                ::kubegen::testing::backend::#runner(
                    ::core::module_path!(),
                    #setup,
                    body,
                );
            }
        }
    };
    let in_memory = test("run_in_memory_with", "in_memory");
    let on_apiserver = args
        .in_memory
        .is_none()
        .then(|| test("run_on_apiserver_with", "on_apiserver"));
    quote! {
        #setup_item

        #vis mod #name {
            #[allow(unused_imports)]
            use super::*;

            #body_signature #block

            #in_memory
            #on_apiserver
        }
    }
}
