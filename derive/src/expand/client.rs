//! client-gen: an extension trait on `kube::Client` naming the kind's typed client.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::plural;
use crate::parse::{Model, ResourceArgs};

/// `CronJob` → `cron_job`, `HTTPRoute` → `http_route`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

pub fn expand(model: &Model, r: &ResourceArgs) -> TokenStream {
    let vis = &model.input.vis;
    let kind_name = r.kind.as_str();
    let kind = format_ident!("{}", kind_name);
    let ext = format_ident!("{}ClientExt", kind_name);
    let method = format_ident!("{}", plural(&snake_case(kind_name)));
    let cluster = r.scope.as_ref().is_some_and(|s| s.as_str() == "Cluster");
    let client = quote!(::kubegen::client::ResourceClient<#kind>);
    let kube_client = quote!(::kubegen::__private::kube::Client);
    let trait_doc = format!("Typed clients for [`{kind_name}`] on `kube::Client` (client-gen).");
    if cluster {
        let doc = format!("`{kind_name}` objects (cluster-scoped).");
        quote! {
            #[doc = #trait_doc]
            #vis trait #ext {
                #[doc = #doc]
                fn #method(&self) -> #client;
            }

            impl #ext for #kube_client {
                #[inline]
                fn #method(&self) -> #client {
                    ::kubegen::client::ResourceClient::cluster(::core::clone::Clone::clone(self))
                }
            }
        }
    } else {
        let all = format_ident!("{}_all_namespaces", method);
        let doc = format!("`{kind_name}` objects in `namespace`.");
        let all_doc = format!("`{kind_name}` objects in every namespace: list and watch.");
        quote! {
            #[doc = #trait_doc]
            #vis trait #ext {
                #[doc = #doc]
                fn #method(&self, namespace: &str) -> #client;
                #[doc = #all_doc]
                fn #all(&self) -> ::kubegen::client::AllNamespacesClient<#kind>;
            }

            impl #ext for #kube_client {
                #[inline]
                fn #method(&self, namespace: &str) -> #client {
                    ::kubegen::client::ResourceClient::namespaced(::core::clone::Clone::clone(self), namespace)
                }
                #[inline]
                fn #all(&self) -> ::kubegen::client::AllNamespacesClient<#kind> {
                    ::kubegen::client::AllNamespacesClient::new(::core::clone::Clone::clone(self))
                }
            }
        }
    }
}

/// What the kind's subresources make of it, for the clients' status and scale methods: facts
/// about the type, so they are there with or without the runtime.
pub fn subresources(r: &ResourceArgs) -> TokenStream {
    let kind = format_ident!("{}", r.kind.as_str());
    let status = r
        .status
        .as_ref()
        .map(|_| quote!(impl ::kubegen::__private::HasStatusSubresource for #kind {}));
    let scale = r
        .scale
        .as_ref()
        .map(|_| quote!(impl ::kubegen::__private::HasScaleSubresource for #kind {}));
    quote! {
        #status
        #scale
    }
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake_case_names() {
        for (camel, snake) in [
            ("CronJob", "cron_job"),
            ("HTTPRoute", "http_route"),
            ("Widget", "widget"),
            ("IPAddressPool", "ip_address_pool"),
            ("V2Thing", "v2_thing"),
        ] {
            assert_eq!(snake_case(camel), snake);
        }
    }
}
