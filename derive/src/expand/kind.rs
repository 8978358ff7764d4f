//! The kind struct, its list, `kube`/`k8s-openapi` trait impls, its `ResourceInfo` and its
//! registration (register-gen).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::opt_str;
use crate::check::plural;
use crate::parse::{Model, ResourceArgs};

pub fn expand(model: &Model, r: &ResourceArgs) -> TokenStream {
    let spec = &model.input.ident;
    let vis = &model.input.vis;
    let kind_name = r.kind.as_str();
    let kind = format_ident!("{}", kind_name, span = r.kind.span());
    let list = format_ident!("{}List", kind_name);
    let group = r.group.as_str();
    let version = r.version.as_str();
    let api_version = format!("{group}/{version}");
    let singular = r
        .singular
        .as_ref()
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|| kind_name.to_lowercase());
    let plural = r
        .plural
        .as_ref()
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|| plural(&kind_name.to_lowercase()));
    let cluster = r.scope.as_ref().is_some_and(|s| s.as_str() == "Cluster");
    let (scope, scope_type) = if cluster {
        (
            quote!(::kubegen::Scope::Cluster),
            quote!(::kubegen::__private::k8s_openapi::ClusterResourceScope),
        )
    } else {
        (
            quote!(::kubegen::Scope::Namespaced),
            quote!(::kubegen::__private::k8s_openapi::NamespaceResourceScope),
        )
    };
    let meta =
        quote!(::kubegen::__private::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let s = quote!(::kubegen::__private::schema);
    let doc = opt_str(&model.docs);
    let extra_derives = r.derive.iter().map(|d| &d.0);
    let kind_doc = format!(
        "`{kind_name}` ({api_version}): the object kubegen generated around [`{spec}`]. \
         Create one with [`{kind_name}::new`]."
    );

    let status_ty = r.status.as_ref().map(|s| &s.0);
    let status_field = status_ty.map(|t| {
        quote! {
            /// Observed state, written by controllers through the status subresource.
            pub status: ::core::option::Option<#t>,
        }
    });
    let status_init = status_ty.map(|_| quote!(status: ::core::option::Option::None,));
    let status_ser = match status_ty {
        Some(_) => quote!(self.status.as_ref()),
        None => quote!(::core::option::Option::None::<&()>),
    };
    let status_read = status_ty.map(|_| quote!(status: _status,));
    let status_assoc = match status_ty {
        Some(t) => quote!(#t),
        None => quote!(()),
    };
    let status_schema = match status_ty {
        Some(t) => quote!(::core::option::Option::Some(#s::field::<#t>(__gen))),
        None => quote!(::core::option::Option::None),
    };
    let status_copy =
        status_ty.map(|_| quote!(status: ::kubegen::DeepCopy::deep_copy(&self.status),));
    let status_copy_into = status_ty
        .map(|_| quote!(::kubegen::DeepCopy::deep_copy_into(&self.status, &mut out.status);));
    let status_defaults =
        status_ty.map(|_| quote!(::kubegen::Defaults::set_defaults(&mut self.status);));
    let has_status_impl = status_ty.map(|t| {
        quote! {
            impl ::kubegen::__private::kube_core::object::HasStatus for #kind {
                type Status = #t;
                #[inline]
                fn status(&self) -> ::core::option::Option<&#t> {
                    self.status.as_ref()
                }
                #[inline]
                fn status_mut(&mut self) -> &mut ::core::option::Option<#t> {
                    &mut self.status
                }
            }
        }
    });

    let strs = |v: &[darling::util::SpannedValue<String>]| {
        let items = v.iter().map(|s| s.as_str());
        quote!(&[#(#items),*])
    };
    let short_names = strs(&r.shortnames);
    let categories = strs(&r.categories);
    let selectable = strs(&r.selectable);
    let pairs = |v: &[darling::util::SpannedValue<crate::parse::values::KeyValue>]| {
        let items = v.iter().map(|kv| {
            let (k, val) = (&kv.key, &kv.value);
            quote!((#k, #val))
        });
        quote!(&[#(#items),*])
    };
    let labels = pairs(&r.labels);
    let annotations = pairs(&r.annotations);
    let columns = r.printcolumns.iter().map(|c| {
        let name = c.name.as_str();
        let path = c.json_path.as_str();
        let ty = c.type_.as_str();
        let description = opt_str(&c.description);
        let format = opt_str(&c.format.as_ref().map(|f| f.as_str().to_owned()));
        let priority = match &c.priority {
            Some(p) => {
                let p = **p;
                quote!(::core::option::Option::Some(#p))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(::kubegen::PrinterColumn { name: #name, json_path: #path, type_: #ty, description: #description, format: #format, priority: #priority })
    });
    let scale = match &r.scale {
        Some(sc) => {
            let spec_path = sc.spec_replicas_path.as_str();
            let status_path = sc.status_replicas_path.as_str();
            let selector = opt_str(
                &sc.label_selector_path
                    .as_ref()
                    .map(|p| p.as_str().to_owned()),
            );
            quote!(::core::option::Option::Some(::kubegen::ScaleInfo {
                spec_replicas_path: #spec_path,
                status_replicas_path: #status_path,
                label_selector_path: #selector,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let served = r.served.unwrap_or(true);
    let storage = r.storage.unwrap_or(true);
    let registration = r.register.unwrap_or(true).then(|| {
        quote! {
            ::kubegen::__private::inventory::submit! {
                ::kubegen::__private::Registration(<#kind as ::kubegen::CustomResource>::INFO)
            }
        }
    });
    let has_status = status_ty.is_some();
    let deprecated = match &r.deprecated {
        Some(d) => {
            let warning = opt_str(&d.warning);
            quote!(::core::option::Option::Some(#warning))
        }
        None => quote!(::core::option::Option::None),
    };

    quote! {
        #[doc = #kind_doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug #(, #extra_derives)*)]
        #vis struct #kind {
            /// Standard object metadata: name, namespace, labels, resourceVersion, ...
            pub metadata: #meta,
            /// Desired state.
            pub spec: #spec,
            #status_field
        }

        #[doc = ::core::concat!("A list of [`", #kind_name, "`] objects, as the apiserver returns it.")]
        #vis type #list = ::kubegen::List<#kind>;

        impl #kind {
            /// A new object with the given name and spec, and no status.
            #[inline]
            pub fn new(name: &str, spec: #spec) -> Self {
                Self {
                    metadata: #meta {
                        name: ::core::option::Option::Some(::std::string::ToString::to_string(name)),
                        ..::core::default::Default::default()
                    },
                    spec,
                    #status_init
                }
            }
        }

        impl<'de> ::kubegen::__private::serde::Deserialize<'de> for #kind {
            fn deserialize<D: ::kubegen::__private::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                let (metadata, spec, _status) = ::kubegen::__private::deserialize_object::<D, #spec, #status_assoc>(deserializer, #kind_name, #has_status)?;
                ::core::result::Result::Ok(Self { metadata, spec, #status_read })
            }
        }

        impl ::kubegen::__private::serde::Serialize for #kind {
            #[inline]
            fn serialize<S: ::kubegen::__private::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                ::kubegen::__private::serialize_object::<Self, _, _, S>(&self.metadata, &self.spec, #status_ser, serializer)
            }
        }

        impl ::kubegen::__private::k8s_openapi::Resource for #kind {
            const API_VERSION: &'static str = #api_version;
            const GROUP: &'static str = #group;
            const KIND: &'static str = #kind_name;
            const VERSION: &'static str = #version;
            const URL_PATH_SEGMENT: &'static str = #plural;
            type Scope = #scope_type;
        }

        impl ::kubegen::__private::k8s_openapi::ListableResource for #kind {
            const LIST_KIND: &'static str = ::core::concat!(#kind_name, "List");
        }

        impl ::kubegen::__private::k8s_openapi::Metadata for #kind {
            type Ty = #meta;
            #[inline]
            fn metadata(&self) -> &#meta {
                &self.metadata
            }
            #[inline]
            fn metadata_mut(&mut self) -> &mut #meta {
                &mut self.metadata
            }
        }

        impl ::kubegen::__private::kube_core::object::HasSpec for #kind {
            type Spec = #spec;
            #[inline]
            fn spec(&self) -> &#spec {
                &self.spec
            }
            #[inline]
            fn spec_mut(&mut self) -> &mut #spec {
                &mut self.spec
            }
        }

        #has_status_impl

        impl ::kubegen::CustomResource for #kind {
            type Spec = #spec;
            type Status = #status_assoc;
            const INFO: &'static ::kubegen::ResourceInfo = &::kubegen::ResourceInfo {
                group: #group,
                version: #version,
                kind: #kind_name,
                plural: #plural,
                singular: #singular,
                short_names: #short_names,
                categories: #categories,
                scope: #scope,
                status: #has_status,
                scale: #scale,
                printer_columns: &[#(#columns),*],
                selectable_fields: #selectable,
                served: #served,
                storage: #storage,
                deprecated: #deprecated,
                labels: #labels,
                annotations: #annotations,
                rust_type: ::core::concat!(::core::module_path!(), "::", #kind_name),
                schema: #s::schema_for::<#kind>,
            };

            #[inline]
            fn new(name: &str, spec: #spec) -> Self {
                #kind::new(name, spec)
            }
        }

        impl ::kubegen::__private::schemars::JsonSchema for #kind {
            #[inline]
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#kind_name)
            }

            #[inline]
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #kind_name))
            }

            fn json_schema(
                __gen: &mut ::kubegen::__private::schemars::SchemaGenerator,
            ) -> ::kubegen::__private::schemars::Schema {
                #s::kind_schema(#doc, #s::field::<#spec>(__gen), #status_schema)
            }
        }

        impl ::kubegen::DeepCopy for #kind {
            #[inline]
            fn deep_copy(&self) -> Self {
                Self {
                    metadata: ::kubegen::DeepCopy::deep_copy(&self.metadata),
                    spec: ::kubegen::DeepCopy::deep_copy(&self.spec),
                    #status_copy
                }
            }

            #[inline]
            fn deep_copy_into(&self, out: &mut Self) {
                ::kubegen::DeepCopy::deep_copy_into(&self.metadata, &mut out.metadata);
                ::kubegen::DeepCopy::deep_copy_into(&self.spec, &mut out.spec);
                #status_copy_into
            }
        }

        impl ::kubegen::Defaults for #kind {
            #[inline]
            fn set_defaults(&mut self) {
                ::kubegen::Defaults::set_defaults(&mut self.spec);
                #status_defaults
            }
        }

        #registration
    }
}
