//! kubegen-derive: `#[derive(CustomResource)]` and `#[derive(ApiType)]`.
//!
//! Three phases, one module each: `parse` reads the input into a model (serde's attributes
//! through `serde_derive_internals`, kubegen's through darling), `check` applies every
//! rule and collects all errors with their spans, and `expand` emits one block of code per
//! generator. Users reach these macros through the `kubegen` crate, which documents them.

mod check;
mod expand;
mod parse;
mod test_attr;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use parse::Which;

/// Generates a Kubernetes kind from its spec struct: the kind and its list, deep-copy,
/// defaulting, the schema and CRD, the typed client, lister and informer accessors (with
/// kubegen's `runtime` feature, on by default), with `#[apply]` on the struct apply
/// configurations (the kind's, the spec's and `extract_*`; opt-in because they are most of a
/// kind's compile time), and with `#[convert]` conversions. Every other type inside the kind
/// derives [`ApiType`](macro@ApiType).
///
/// ```ignore
/// use kubegen::prelude::*;
///
/// #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
/// #[resource(group = "example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
/// #[serde(rename_all = "camelCase")]
/// pub struct WidgetSpec {
///     #[validate(minimum = 1)]
///     pub size: i32,
/// }
///
/// #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
/// pub struct WidgetStatus {
///     pub ready: bool,
/// }
/// ```
///
/// (This crate cannot depend on `kubegen`, so the example is compiled in `kubegen`'s crate
/// documentation instead.)
///
#[doc = include_str!("doc/resource.md")]
///
#[doc = include_str!("doc/markers.md")]
#[proc_macro_derive(
    CustomResource,
    attributes(
        resource, validate, default, rule, schema, required, optional, convert, apply
    )
)]
pub fn derive_custom_resource(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    run(&input, Which::CustomResource).into()
}

/// Generates deep-copy, defaulting and schema code for a type used inside a kind (status,
/// nested structs, enums), and with `#[apply]` its apply configuration, taking the same
/// field markers as [`CustomResource`](macro@CustomResource).
///
#[doc = include_str!("doc/markers.md")]
// `resource` is accepted only to report it as misplaced, not as rustc's "cannot find attribute".
#[proc_macro_derive(
    ApiType,
    attributes(
        resource, validate, default, rule, schema, required, optional, convert, apply
    )
)]
pub fn derive_api_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    run(&input, Which::ApiType).into()
}

/// Runs an async test on every backend: the in-memory server, and a real apiserver when the
/// environment names one; `in_memory` keeps it to the first, `controllers` asks for
/// kube-controller-manager's controllers and a kubelet, `setup = f` describes the server it
/// needs. See `kubegen::test`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    test_attr::expand(args.into(), item.into()).into()
}

fn run(input: &DeriveInput, which: Which) -> proc_macro2::TokenStream {
    let mut errors = darling::Error::accumulator();
    let model = parse::parse(input, which, &mut errors);
    let deferred = model.as_ref().map(|model| check::check(model, &mut errors));
    if let Err(e) = errors.finish() {
        let mut out = e.write_errors();
        if which == Which::CustomResource {
            out.extend(expand::fallback::expand(input));
        }
        return out;
    }
    let (Some(model), Some(deferred)) = (&model, deferred) else {
        return proc_macro2::TokenStream::new();
    };
    let mut out = expand::api_type(model, &deferred);
    out.extend(expand::convert::expand(model));
    if let Some(resource) = &model.resource {
        out.extend(expand::kind::expand(model, resource));
        out.extend(expand::client::subresources(resource));
        if model.apply {
            out.extend(expand::apply::expand_kind(model, resource));
        }
        out.extend(expand::convert::expand_kind(model, resource));
        // The typed client, lister and informer need kubegen's `runtime` feature: the facade's
        // `__runtime!` keeps them with it and drops them without.
        let mut runtime = expand::client::expand(model, resource);
        runtime.extend(expand::lister::expand(model, resource));
        out.extend(quote::quote!(::kubegen::__runtime! { #runtime }));
    }
    out
}
