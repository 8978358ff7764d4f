//! lister-gen and informer-gen: a typed lister, and the factory accessor for the informer.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::client::snake_case;
use crate::check::plural;
use crate::parse::{Model, ResourceArgs};

pub fn expand(model: &Model, r: &ResourceArgs) -> TokenStream {
    let vis = &model.input.vis;
    let kind_name = r.kind.as_str();
    let kind = format_ident!("{}", kind_name);
    let lister = format_ident!("{}Lister", kind_name);
    let ext = format_ident!("{}InformerExt", kind_name);
    let method = format_ident!("{}", plural(&snake_case(kind_name)));
    let cluster = r.scope.as_ref().is_some_and(|s| s.as_str() == "Cluster");
    let arc = quote!(::std::sync::Arc<#kind>);
    let selector = quote!(::kubegen::selector::LabelSelector);
    let lister_doc = format!("Reads the shared cache of [`{kind_name}`] objects (lister-gen).");
    let scoped = if cluster {
        quote! {
            /// The object `name`.
            #[inline]
            pub fn get(&self, name: &str) -> ::core::option::Option<#arc> {
                self.0.get_cluster(name)
            }
        }
    } else {
        let doc = format!("The `{kind_name}` objects of one namespace.");
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #method<'a>(&'a self, namespace: &'a str) -> ::kubegen::cache::NamespaceLister<'a, #kind> {
                self.0.namespace(namespace)
            }
        }
    };
    let make_api = if cluster {
        quote!(::kubegen::informer::cluster_api::<#kind>)
    } else {
        quote!(::kubegen::informer::namespaced_api::<#kind>)
    };
    let ext_doc = format!("The shared informer for [`{kind_name}`] (informer-gen).");
    quote! {
        #[doc = #lister_doc]
        #[derive(Clone)]
        #vis struct #lister(::kubegen::cache::Lister<#kind>);

        impl #lister {
            /// Every cached object the selector matches.
            #[inline]
            pub fn list(&self, selector: &#selector) -> ::std::vec::Vec<#arc> {
                self.0.list(selector)
            }

            /// Objects by a named index (`namespace` is built in; add others with
            /// `SharedIndexInformer::add_indexer` before starting).
            #[inline]
            pub fn by_index(&self, index: &str, value: &str) -> ::std::vec::Vec<#arc> {
                self.0.by_index(index, value)
            }

            #scoped
        }

        impl ::core::convert::From<::kubegen::cache::Lister<#kind>> for #lister {
            #[inline]
            fn from(lister: ::kubegen::cache::Lister<#kind>) -> Self {
                #lister(lister)
            }
        }

        impl ::core::convert::From<&::kubegen::informer::SharedIndexInformer<#kind>> for #lister {
            #[inline]
            fn from(informer: &::kubegen::informer::SharedIndexInformer<#kind>) -> Self {
                #lister(informer.lister())
            }
        }

        #[doc = #ext_doc]
        #vis trait #ext {
            #[doc = #ext_doc]
            fn #method(&self) -> ::kubegen::informer::SharedIndexInformer<#kind>;
        }

        impl #ext for ::kubegen::informer::SharedInformerFactory {
            #[inline]
            fn #method(&self) -> ::kubegen::informer::SharedIndexInformer<#kind> {
                self.informer_with::<#kind>(#make_api)
            }
        }
    }
}
