//! applyconfiguration-gen: `<Type>ApplyConfiguration` for every struct with named fields,
//! `<Kind>ApplyConfiguration` for the kind with its identity, and the Extract functions.
//!
//! Every field of a configuration is an `Option` of the field type's own configuration
//! (`<T as Apply>::Configuration`), left out of the JSON when `None`. Configurations are
//! `Clone` and `Debug`, so the types written whole inside them (enums, newtypes) must be too.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Type;
use syn::ext::IdentExt;

use super::client::snake_case;
use crate::parse::{Field, Model, ResourceArgs, Shape, generic_arg, option_inner};

fn apply_trait() -> TokenStream {
    quote!(::kubegen::apply::Apply)
}

/// `<ty as Apply>::Configuration`, spanned at `ty` so a missing impl is reported there.
fn configuration_of(ty: &Type) -> TokenStream {
    use syn::spanned::Spanned;
    let apply = apply_trait();
    quote::quote_spanned!(ty.span()=> <#ty as #apply>::Configuration)
}

/// The configuration type of a field: its type's, or with `#[apply(whole)]` the type itself
/// (without `Option`).
fn field_configuration(f: &Field) -> TokenStream {
    if f.apply.whole.is_present() {
        let ty = option_inner(f.ty).unwrap_or(f.ty);
        return quote!(#ty);
    }
    configuration_of(f.ty)
}

/// `impl Apply` for a type written whole. The `for<'__a>` turns the bounds into a condition
/// of the impl: an enum without `Clone` still compiles, and only a configuration holding it
/// reports what is missing.
fn own_configuration(ident: &syn::Ident) -> TokenStream {
    let apply = apply_trait();
    let serde = quote!(::kubegen::__private::serde);
    quote! {
        impl #apply for #ident
        where
            for<'__a> #ident: ::core::clone::Clone + ::core::fmt::Debug + #serde::Serialize + #serde::de::DeserializeOwned,
        {
            type Configuration = Self;
        }
    }
}

/// The configuration of a spec or API type.
pub fn expand(model: &Model) -> TokenStream {
    let ident = &model.input.ident;
    let fields = match &model.shape {
        Shape::Struct(fields)
            if model.wire_override.is_none() && fields.iter().all(|f| f.custom_serde.is_none()) =>
        {
            fields
        }
        Shape::Union(_) => return TokenStream::new(),
        // Enums, newtypes and types with their own wire format are one value: their own
        // configuration, always (one impl costs nothing to compile).
        _ => return own_configuration(ident),
    };
    // A configuration of fields is generated only for a type that asks (`#[apply]`): it is
    // most of what a type costs to compile.
    if !model.apply {
        return TokenStream::new();
    }
    let fields: Vec<&Field> = fields.iter().filter(|f| !f.skipped).collect();
    let cfg = format_ident!("{}ApplyConfiguration", ident);
    let vis = &model.input.vis;
    let doc = format!(
        "The apply configuration of [`{ident}`] (applyconfiguration-gen): every field optional, \
         only what was set is serialized."
    );
    let decls = fields.iter().map(|f| {
        let m = &f.member;
        let fvis = f.vis;
        let ty = field_configuration(f);
        let docs = f.docs.as_ref().map(|d| quote!(#[doc = #d]));
        quote! {
            #docs
            #fvis #m: ::core::option::Option<#ty>,
        }
    });
    let wire = wire(&cfg, &fields);
    let builders = fields.iter().map(|f| builder(f));
    let apply = apply_trait();
    quote! {
        #[doc = #doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #cfg {
            #(#decls)*
        }

        #wire

        impl #apply for #ident {
            type Configuration = #cfg;
        }

        impl #cfg {
            /// An empty configuration: sets nothing.
            #[inline]
            pub fn new() -> Self {
                ::core::default::Default::default()
            }

            #(#builders)*
        }
    }
}

/// A configuration's `Serialize` and `Deserialize`: a call per field to the runtime's one
/// implementation (`kubegen::__private::apply_wire`), instead of serde's derive per type.
fn wire(cfg: &syn::Ident, fields: &[&Field]) -> TokenStream {
    let writes = fields.iter().map(|f| {
        let m = &f.member;
        let name = &f.name;
        if f.flatten {
            quote!(__w.flatten(&self.#m)?;)
        } else {
            quote!(__w.field(#name, &self.#m)?;)
        }
    });
    // Named fields are taken first; flattened ones read from what is left.
    let named = fields.iter().filter(|f| !f.flatten).map(|f| {
        let m = &f.member;
        let name = &f.name;
        quote!(let #m = __r.field(#name)?;)
    });
    let flattened = fields.iter().filter(|f| f.flatten).map(|f| {
        let m = &f.member;
        quote!(let #m = __r.flatten();)
    });
    let members = fields.iter().map(|f| &f.member);
    wire_impls(
        cfg,
        quote!(#(#writes)*),
        quote! {
            #(#named)*
            #(#flattened)*
            Self { #(#members),* }
        },
    )
}

/// `Serialize` and `Deserialize` for a configuration through `apply_wire`: `writes` calls the
/// writer `__w` for each field; `read` takes the fields from the reader `__r` and ends with the
/// value.
fn wire_impls(cfg: &syn::Ident, writes: TokenStream, read: TokenStream) -> TokenStream {
    let serde = quote!(::kubegen::__private::serde);
    let wire = quote!(::kubegen::__private::apply_wire);
    quote! {
        impl #serde::Serialize for #cfg {
            fn serialize<__S: #serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                #[allow(unused_mut)]
                let mut __w = #wire::write(__s)?;
                #writes
                __w.end()
            }
        }

        impl<'de> #serde::Deserialize<'de> for #cfg {
            fn deserialize<__D: #serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                #[allow(unused_mut)]
                let mut __r = #wire::read(__d)?;
                ::core::result::Result::Ok({ #read })
            }
        }
    }
}

/// What a field holds, for its builder: lists append, maps insert, the rest is set.
enum Holds<'a> {
    List(&'a Type),
    Map(&'a Type, &'a Type),
    One,
}

fn holds(ty: &Type) -> Holds<'_> {
    let ty = option_inner(ty).unwrap_or(ty);
    if let Some(item) = generic_arg(ty, "Vec") {
        return Holds::List(item);
    }
    if let Type::Path(p) = ty
        && let Some(last) = p.path.segments.last()
        && (last.ident == "BTreeMap" || last.ident == "HashMap")
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let [syn::GenericArgument::Type(k), syn::GenericArgument::Type(v)] =
            args.args.iter().collect::<Vec<_>>().as_slice()
    {
        return Holds::Map(k, v);
    }
    Holds::One
}

fn builder(f: &Field) -> TokenStream {
    let m = &f.member;
    let label = match m {
        syn::Member::Named(i) => i.unraw().to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    };
    let with = syn::Ident::new(&format!("with_{label}"), Span::call_site());
    let holds = if f.flatten || f.apply.whole.is_present() {
        Holds::One
    } else {
        holds(f.ty)
    };
    match holds {
        Holds::List(item) => {
            let item = configuration_of(item);
            let doc = format!("Appends items to `{}`.", f.name);
            quote! {
                #[doc = #doc]
                pub fn #with(mut self, items: impl ::core::iter::IntoIterator<Item = impl ::core::convert::Into<#item>>) -> Self {
                    let list = self.#m.get_or_insert_with(::core::default::Default::default);
                    ::core::iter::Extend::extend(list, ::core::iter::Iterator::map(::core::iter::IntoIterator::into_iter(items), ::core::convert::Into::into));
                    self
                }
            }
        }
        Holds::Map(key, value) => {
            let value = configuration_of(value);
            let doc = format!(
                "Adds entries to `{}` (a later value for a key replaces an earlier one).",
                f.name
            );
            quote! {
                #[doc = #doc]
                pub fn #with<__K: ::core::convert::Into<#key>, __V: ::core::convert::Into<#value>>(mut self, entries: impl ::core::iter::IntoIterator<Item = (__K, __V)>) -> Self {
                    let map = self.#m.get_or_insert_with(::core::default::Default::default);
                    for (k, v) in entries {
                        map.insert(::core::convert::Into::into(k), ::core::convert::Into::into(v));
                    }
                    self
                }
            }
        }
        Holds::One => {
            let ty = field_configuration(f);
            let doc = format!("Sets `{}`.", f.name);
            quote! {
                #[doc = #doc]
                pub fn #with(mut self, value: impl ::core::convert::Into<#ty>) -> Self {
                    self.#m = ::core::option::Option::Some(::core::convert::Into::into(value));
                    self
                }
            }
        }
    }
}

/// The kind's configuration: identity fixed by `new`, metadata, spec and status.
pub fn expand_kind(model: &Model, r: &ResourceArgs) -> TokenStream {
    let spec = &model.input.ident;
    let vis = &model.input.vis;
    let kind_name = r.kind.as_str();
    let kind = format_ident!("{}", kind_name);
    let cfg = format_ident!("{}ApplyConfiguration", kind_name);
    let api_version = format!("{}/{}", r.group.as_str(), r.version.as_str());
    let cluster = r.scope.as_ref().is_some_and(|s| s.as_str() == "Cluster");
    let meta =
        quote!(::kubegen::__private::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let apply = apply_trait();
    let spec_cfg = configuration_of(&syn::parse_quote!(#spec));
    let status_ty = r.status.as_ref().map(|s| &s.0);
    let status_cfg = status_ty.map(configuration_of);
    let status_decl = status_cfg.as_ref().map(|t| {
        quote! {
            /// Observed state, applied through the status subresource.
            pub status: ::core::option::Option<#t>,
        }
    });
    let status_write = status_ty.map(|_| quote!(__w.field("status", &self.status)?;));
    let status_read = status_ty.map(|_| quote!(status: __r.field("status")?,));
    let wire = wire_impls(
        &cfg,
        quote! {
            __w.entry("apiVersion", &self.api_version)?;
            __w.entry("kind", &self.kind)?;
            __w.entry("metadata", &self.metadata)?;
            __w.field("spec", &self.spec)?;
            #status_write
        },
        quote! {
            Self {
                api_version: __r.required("apiVersion")?,
                kind: __r.required("kind")?,
                metadata: __r.or_default("metadata")?,
                spec: __r.field("spec")?,
                #status_read
            }
        },
    );
    let status_init = status_ty.map(|_| quote!(status: ::core::option::Option::None,));
    let status_builder = status_cfg.as_ref().map(|t| {
        quote! {
            /// Sets `status`.
            pub fn with_status(mut self, status: impl ::core::convert::Into<#t>) -> Self {
                self.status = ::core::option::Option::Some(::core::convert::Into::into(status));
                self
            }
        }
    });
    let (new_args, namespace_init, new_doc) = if cluster {
        (
            quote!(name: impl ::core::convert::Into<::std::string::String>),
            quote!(::core::option::Option::None),
            format!(
                "The configuration of the `{kind_name}` named `name`; it sets nothing else yet."
            ),
        )
    } else {
        (
            quote!(name: impl ::core::convert::Into<::std::string::String>, namespace: impl ::core::convert::Into<::std::string::String>),
            quote!(::core::option::Option::Some(::core::convert::Into::into(
                namespace
            ))),
            format!(
                "The configuration of the `{kind_name}` named `name` in `namespace`; it sets \
                 nothing else yet."
            ),
        )
    };
    let doc = format!(
        "The apply configuration of a [`{kind_name}`] (applyconfiguration-gen): `apiVersion`, \
         `kind`, name{} are set by [`{cfg}::new`]; everything else only when a builder sets it.",
        if cluster { "" } else { " and namespace" }
    );
    let snake = snake_case(kind_name);
    let extract = format_ident!("extract_{}", snake);
    let extract_doc = format!(
        "What `manager` applied to `object` as a [`{cfg}`] (client-go's `Extract{kind_name}`): \
         the fields its Apply entry in `managedFields` owns, with the name and namespace."
    );
    let extract_status = status_ty.map(|_| {
        let f = format_ident!("extract_{}_status", snake);
        let doc = format!("What `manager` applied to `object` through the status subresource, as a [`{cfg}`].");
        quote! {
            #[doc = #doc]
            #vis fn #f(object: &#kind, manager: &str) -> ::core::result::Result<#cfg, ::kubegen::apply::ExtractError> {
                ::kubegen::apply::extract_status(object, manager)
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #cfg {
            api_version: ::std::string::String,
            kind: ::std::string::String,
            /// Metadata: the identity, and labels, annotations, finalizers and owner
            /// references a manager sets.
            pub metadata: #meta,
            /// Desired state.
            pub spec: ::core::option::Option<#spec_cfg>,
            #status_decl
        }

        #wire

        impl #apply for #kind {
            type Configuration = #cfg;
        }

        impl ::kubegen::apply::ObjectConfiguration for #cfg {
            #[inline]
            fn metadata(&self) -> &#meta {
                &self.metadata
            }
            #[inline]
            fn metadata_mut(&mut self) -> &mut #meta {
                &mut self.metadata
            }
        }

        impl #cfg {
            #[doc = #new_doc]
            pub fn new(#new_args) -> Self {
                Self {
                    api_version: ::std::string::ToString::to_string(#api_version),
                    kind: ::std::string::ToString::to_string(#kind_name),
                    metadata: #meta {
                        name: ::core::option::Option::Some(::core::convert::Into::into(name)),
                        namespace: #namespace_init,
                        ..::core::default::Default::default()
                    },
                    spec: ::core::option::Option::None,
                    #status_init
                }
            }

            /// Sets `spec`.
            pub fn with_spec(mut self, spec: impl ::core::convert::Into<#spec_cfg>) -> Self {
                self.spec = ::core::option::Option::Some(::core::convert::Into::into(spec));
                self
            }

            #status_builder
        }

        #[doc = #extract_doc]
        #vis fn #extract(object: &#kind, manager: &str) -> ::core::result::Result<#cfg, ::kubegen::apply::ExtractError> {
            ::kubegen::apply::extract(object, manager)
        }

        #extract_status
    }
}
