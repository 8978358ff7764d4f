//! conversion-gen: `ConvertInto` between a spoke struct and its hub, the checks that every
//! field has a conversion, and for kinds `Parts`, `SpecOf`, `Convertible` and the
//! registration [`kubegen::convert::convert`] finds them by.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::fields::type_name;
use crate::parse::{Model, ResourceArgs, Shape};

/// Every type converts into itself; a struct with `#[convert(hub = ...)]` to and from its hub.
pub fn expand(model: &Model) -> TokenStream {
    let ident = &model.input.ident;
    let c = quote!(::kubegen::convert);
    let mut out = quote! {
        impl #c::ConvertInto<#ident> for #ident {
            #[inline]
            fn convert_into(&self) -> ::core::result::Result<#ident, #c::ConvertError> {
                ::kubegen::__private::convert_identity(self)
            }
        }
    };
    let (Some(args), Shape::Struct(fields)) = (&model.convert, &model.shape) else {
        return out;
    };
    let hub = &args.hub.0;
    let fields: Vec<_> = fields.iter().filter(|f| !f.skipped).collect();
    let convert_field = |from: TokenStream, f: &crate::parse::Field| {
        let member = &f.member;
        if f.convert.clone.is_present() {
            quote_spanned!(f.span=> ::core::clone::Clone::clone(&#from.#member))
        } else {
            quote_spanned!(f.span=> #c::ConvertInto::convert_into(&#from.#member)?)
        }
    };
    let auto: Vec<_> = fields
        .iter()
        .filter(|f| !f.convert.manual.is_present())
        .collect();
    let to_hub = auto.iter().map(|f| {
        let (member, value) = (&f.member, convert_field(quote!(self), f));
        quote_spanned!(f.span=> __hub.#member = #value;)
    });
    let from_hub = auto.iter().map(|f| {
        let (member, value) = (&f.member, convert_field(quote!(self), f));
        quote_spanned!(f.span=> __spoke.#member = #value;)
    });
    let manual = fields.iter().any(|f| f.convert.manual.is_present()) || !args.filled.0.is_empty();
    let (manual_to, manual_from) = if manual {
        (
            quote!(<#ident as #c::ManualConvert>::fill_hub(self, &mut __hub)?;),
            quote!(<#ident as #c::ManualConvert>::fill_from_hub(&mut __spoke, self)?;),
        )
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let restored = &args.restored.0;
    let filled = &args.filled.0;
    let (spoke_name, hub_name) = (ident.to_string(), type_name(hub));
    // A flattened field has no name of its own in `ApiFields::FIELDS`.
    let spoke_checks = auto.iter().filter(|f| !f.flatten).map(|f| {
        let name = &f.name;
        quote_spanned! {f.span=>
            ::kubegen::__private::check_spoke_field(
                <#hub as ::kubegen::ApiFields>::FIELDS, #name, #spoke_name, #hub_name,
            );
        }
    });
    let manual_names = fields
        .iter()
        .filter(|f| f.convert.manual.is_present())
        .map(|f| &f.name);
    let hub_span = args.hub.span();
    let hub_check = quote_spanned! {hub_span=>
        ::kubegen::__private::check_hub_fields(
            <#hub as ::kubegen::ApiFields>::FIELDS,
            <#ident as ::kubegen::ApiFields>::FIELDS,
            &[#(#manual_names),*],
            &[#(#filled),*],
            &[#(#restored),*],
            #spoke_name,
            #hub_name,
        );
    };
    out.extend(quote! {
        impl #c::Spoke for #ident {
            type Hub = #hub;
            const RESTORED: &'static [&'static str] = &[#(#restored),*];
        }

        impl #c::ConvertInto<#hub> for #ident {
            fn convert_into(&self) -> ::core::result::Result<#hub, #c::ConvertError> {
                let mut __hub: #hub = ::core::default::Default::default();
                #(#to_hub)*
                #manual_to
                ::core::result::Result::Ok(__hub)
            }
        }

        impl #c::ConvertInto<#ident> for #hub {
            fn convert_into(&self) -> ::core::result::Result<#ident, #c::ConvertError> {
                let mut __spoke: #ident = ::core::default::Default::default();
                #(#from_hub)*
                #manual_from
                ::core::result::Result::Ok(__spoke)
            }
        }

        const _: () = {
            #(#spoke_checks)*
            #hub_check
        };
    });
    out
}

/// For every kind: `Parts` and `SpecOf`; for a spoke kind also `Convertible`, the check
/// that its hub is the storage version of the same kind, and its registration.
pub fn expand_kind(model: &Model, r: &ResourceArgs) -> TokenStream {
    let spec = &model.input.ident;
    let kind = quote::format_ident!("{}", r.kind.as_str(), span = r.kind.span());
    let c = quote!(::kubegen::convert);
    let meta =
        quote!(::kubegen::__private::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let (status_ref, status_set) = if r.status.is_some() {
        (quote!(self.status.as_ref()), quote!(status,))
    } else {
        (
            quote!(::core::option::Option::None),
            quote!(/* no status subresource */),
        )
    };
    let drop_status = r.status.is_none().then(|| quote!(let _ = status;));
    let mut out = quote! {
        impl #c::Parts for #kind {
            #[inline]
            fn parts(&self) -> (&#meta, &#spec, ::core::option::Option<&<Self as ::kubegen::CustomResource>::Status>) {
                (&self.metadata, &self.spec, #status_ref)
            }
            #[inline]
            fn from_parts(metadata: #meta, spec: #spec, status: ::core::option::Option<<Self as ::kubegen::CustomResource>::Status>) -> Self {
                #drop_status
                #kind { metadata, spec, #status_set }
            }
        }

        impl #c::SpecOf for #spec {
            type Kind = #kind;
        }
    };
    let Some(args) = &model.convert else {
        return out;
    };
    let hub_spec = &args.hub.0;
    let hub = quote!(<#hub_spec as #c::SpecOf>::Kind);
    let (group, version, kind_name) = (r.group.as_str(), r.version.as_str(), r.kind.as_str());
    let check = quote_spanned! {args.hub.span()=>
        const _: () = ::kubegen::__private::check_hub_kind(
            <#kind as ::kubegen::CustomResource>::INFO,
            <#hub as ::kubegen::CustomResource>::INFO,
        );
    };
    out.extend(quote! {
        impl #c::Convertible for #kind {
            type Hub = #hub;
            fn to_hub(&self) -> ::core::result::Result<Self::Hub, #c::ConvertError> {
                ::kubegen::__private::to_hub::<Self, Self::Hub>(self)
            }
            fn from_hub(hub: &Self::Hub) -> ::core::result::Result<Self, #c::ConvertError> {
                ::kubegen::__private::from_hub::<Self, Self::Hub>(hub)
            }
        }

        #check

        ::kubegen::__private::inventory::submit! {
            #c::Registration {
                group: #group,
                kind: #kind_name,
                version: #version,
                hub_version: <#hub as ::kubegen::CustomResource>::INFO.version,
                to_hub: ::kubegen::__private::value_to_hub::<#kind>,
                from_hub: ::kubegen::__private::value_from_hub::<#kind>,
            }
        }
    });
    out
}
