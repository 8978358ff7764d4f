//! openapi-gen / controller-gen: a `schemars::JsonSchema` impl that calls kubegen's
//! schema builders, so every marker lands at its node.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{default_value, opt_str, required};
use crate::parse::values::{Number, Scalar};
use crate::parse::{Field, MarkerKind, Markers, Model, Repr, Shape, Variant, option_inner};

fn s() -> TokenStream {
    quote!(::kubegen::__private::schema)
}

fn num(n: Number) -> TokenStream {
    let s = s();
    match n {
        Number::Int(i) => quote!(#s::Num::Int(#i)),
        Number::Float(f) => quote!(#s::Num::Float(#f)),
    }
}

fn opt<T: quote::ToTokens>(v: Option<T>) -> TokenStream {
    match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// `&[Marker::..., ...]`.
pub fn markers(m: &Markers) -> TokenStream {
    let s = s();
    let items = m.list.iter().map(|marker| match &marker.kind {
        MarkerKind::Minimum(n) => {
            let n = num(*n);
            quote!(#s::Marker::Minimum(#n))
        }
        MarkerKind::Maximum(n) => {
            let n = num(*n);
            quote!(#s::Marker::Maximum(#n))
        }
        MarkerKind::ExclusiveMinimum => quote!(#s::Marker::ExclusiveMinimum),
        MarkerKind::ExclusiveMaximum => quote!(#s::Marker::ExclusiveMaximum),
        MarkerKind::MultipleOf(n) => {
            let n = num(*n);
            quote!(#s::Marker::MultipleOf(#n))
        }
        MarkerKind::MinLength(n) => quote!(#s::Marker::MinLength(#n)),
        MarkerKind::MaxLength(n) => quote!(#s::Marker::MaxLength(#n)),
        MarkerKind::Pattern(p) => quote!(#s::Marker::Pattern(#p)),
        MarkerKind::Format(f) => quote!(#s::Marker::Format(#f)),
        MarkerKind::MinItems(n) => quote!(#s::Marker::MinItems(#n)),
        MarkerKind::MaxItems(n) => quote!(#s::Marker::MaxItems(#n)),
        MarkerKind::UniqueItems => quote!(#s::Marker::UniqueItems),
        MarkerKind::MinProperties(n) => quote!(#s::Marker::MinProperties(#n)),
        MarkerKind::MaxProperties(n) => quote!(#s::Marker::MaxProperties(#n)),
        MarkerKind::ListType(t) => quote!(#s::Marker::ListType(#t)),
        MarkerKind::ListMapKeys(keys) => quote!(#s::Marker::ListMapKeys(&[#(#keys),*])),
        MarkerKind::MapType(t) => quote!(#s::Marker::MapType(#t)),
        MarkerKind::PreserveUnknownFields => quote!(#s::Marker::PreserveUnknownFields),
        MarkerKind::EmbeddedResource => quote!(#s::Marker::EmbeddedResource),
        MarkerKind::IntOrString => quote!(#s::Marker::IntOrString),
        MarkerKind::Nullable(b) => quote!(#s::Marker::Nullable(#b)),
        MarkerKind::Title(t) => quote!(#s::Marker::Title(#t)),
        MarkerKind::Example(e) => {
            let lit = match e {
                Scalar::Number(Number::Int(i)) => quote!(#s::Lit::Int(#i)),
                Scalar::Number(Number::Float(f)) => quote!(#s::Lit::Float(#f)),
                Scalar::Str(v) => quote!(#s::Lit::Str(#v)),
                Scalar::Bool(b) => quote!(#s::Lit::Bool(#b)),
            };
            quote!(#s::Marker::Example(#lit))
        }
        MarkerKind::Rule(r) => {
            let rule = &r.rule.source;
            let a = &r.args;
            let message = opt(a.message.as_ref().map(|m| m.as_str()));
            let message_expression = opt(a.message_expression.as_ref().map(|m| m.as_str()));
            let reason = opt(a.reason.as_ref().map(|m| m.as_str()));
            let field_path = opt(a.field_path.as_ref().map(|m| m.as_str()));
            let optional_old_self = opt(a.optional_old_self.as_ref().map(|b| **b));
            quote!(#s::Marker::Rule(#s::Rule {
                rule: #rule,
                message: #message,
                message_expression: #message_expression,
                reason: #reason,
                field_path: #field_path,
                optional_old_self: #optional_old_self,
            }))
        }
    });
    quote!(&[#(#items),*])
}

/// Adds one field to the `__o` object builder.
fn property(f: &Field) -> TokenStream {
    let s = s();
    let ty = f.schema_type();
    if f.flatten {
        let optional = f.is_option() || f.serde_default;
        return quote!(__o.flatten(#s::field::<#ty>(__gen), #optional););
    }
    let name = &f.name;
    let required = required(f);
    let doc = opt_str(&f.docs);
    // A defaulted field is never nullable: the apiserver keeps an explicit null on a nullable
    // field instead of defaulting it, while `set_defaults` fills `None`. Not nullable, the
    // apiserver prunes the null and applies the default, and the two agree.
    let nullable = f.is_option() && !f.skip_serializing_if && f.markers.default.is_none();
    let markers = markers(&f.markers);
    let node = quote!(#s::decorate(#s::field::<#ty>(__gen), #doc, #nullable, #markers));
    let default = f.markers.default.as_ref().map(|expr| {
        let inner = option_inner(f.ty).unwrap_or(f.ty);
        let value = default_value(expr, inner);
        let value =
            quote_spanned!(expr.span()=> ::kubegen::__private::serde_json::to_value(#value));
        quote!(#s::set_default(&mut __p, #value);)
    });
    // What the apiserver stores from a default (and what an example shows) must be what the
    // field's type reads; with custom (de)serialization the node describes another type.
    let decodes = (f.custom_serde.is_none() && (default.is_some() || f.markers.has("example")))
        .then(|| {
            let read = option_inner(f.ty).unwrap_or(f.ty);
            quote! {{
                #[allow(unused_imports)]
                use #s::{NoDeserialize as _, ViaDeserialize as _};
                (&&#s::DecodeProbe::<#read>::new()).probe_check_decodes(&mut __p);
            }}
        });
    if default.is_none() && decodes.is_none() {
        return quote!(__o.property(#name, #required, #node););
    }
    quote! {
        __o.property(#name, #required, {
            let mut __p = #node;
            #default
            #decodes
            __p
        });
    }
}

/// `closed`: the type refuses unknown fields (`#[serde(deny_unknown_fields)]`).
fn object(fields: &[Field], doc: TokenStream, markers: TokenStream, closed: bool) -> TokenStream {
    let s = s();
    let props = fields.iter().filter(|f| !f.skipped).map(property);
    let closed = closed.then(|| quote!(__o.deny_unknown_fields();));
    quote! {{
        let mut __o = #s::ObjectBuilder::new();
        #closed
        #(#props)*
        __o.build(#doc, #markers)
    }}
}

/// `closed`: the enum refuses unknown fields, which serde applies to its struct variants.
fn variant_content(v: &Variant, closed: bool) -> TokenStream {
    let s = s();
    let doc = opt_str(&v.docs);
    match (v.style, v.fields.as_slice()) {
        (serde_derive_internals::ast::Style::Unit, _) => quote!(::core::option::Option::None),
        (serde_derive_internals::ast::Style::Newtype, [f]) => {
            let ty = f.schema_type();
            let markers = markers(&f.markers);
            quote!(::core::option::Option::Some(#s::decorate(#s::field::<#ty>(__gen), #doc, false, #markers)))
        }
        _ => {
            let body = object(&v.fields, doc, quote!(&[]), closed);
            quote!(::core::option::Option::Some(#body))
        }
    }
}

fn enumeration(
    model: &Model,
    variants: &[Variant],
    doc: TokenStream,
    markers: TokenStream,
) -> TokenStream {
    let s = s();
    let live: Vec<&Variant> = variants.iter().filter(|v| !v.skipped).collect();
    let open = live.iter().any(|v| v.other);
    let known: Vec<&Variant> = live.iter().copied().filter(|v| !v.other).collect();
    let all_unit = live
        .iter()
        .all(|v| matches!(v.style, serde_derive_internals::ast::Style::Unit));
    if model.repr == Repr::External && all_unit {
        // Every name serde reads a variant under; none when `#[serde(other)]` takes any.
        let names: Vec<&str> = if open {
            Vec::new()
        } else {
            known
                .iter()
                .flat_map(|v| std::iter::once(&v.name).chain(&v.aliases))
                .map(String::as_str)
                .collect()
        };
        return quote!(#s::string_enum(#doc, &[#(#names),*], #markers));
    }
    let repr = match &model.repr {
        Repr::External => quote!(#s::EnumRepr::External),
        Repr::Internal { tag } => quote!(#s::EnumRepr::Internal { tag: #tag }),
        Repr::Adjacent { tag, content } => {
            quote!(#s::EnumRepr::Adjacent { tag: #tag, content: #content })
        }
        Repr::Untagged => quote!(#s::EnumRepr::Untagged),
    };
    let closed = model.deny_unknown_fields.is_some();
    let adds = known.iter().map(|v| {
        let name = &v.name;
        let aliases = &v.aliases;
        let content = variant_content(v, closed);
        quote!(__e.variant(#name, #content); #(__e.alias(#aliases);)*)
    });
    let open = open.then(|| quote!(__e.open();));
    quote! {{
        let mut __e = #s::EnumBuilder::new(#repr);
        #(#adds)*
        #open
        __e.build(#doc, #markers)
    }}
}

/// Compile-time checks that `list_map_keys` name required fields of the item type.
fn list_map_key_checks(fields: &[&Field]) -> TokenStream {
    let checks = fields.iter().flat_map(|f| {
        f.markers.list.iter().filter_map(move |m| match &m.kind {
            MarkerKind::ListMapKeys(keys) => Some((f, m.span, keys)),
            _ => None,
        })
    });
    let consts = checks.flat_map(|(f, span, keys)| {
        let ty = f.ty;
        keys.iter().map(move |key| {
            let missing = format!("list_map_keys: `{key}` is not a field of the list's item type");
            let optional = format!(
                "list_map_keys: `{key}` is optional in the list's item type; a list map key must be required or have a #[default]"
            );
            quote_spanned! {span=>
                const _: () = ::kubegen::__private::check_list_map_key::<
                    <#ty as ::kubegen::__private::ListOf>::Item,
                >(#key, #missing, #optional);
            }
        })
    });
    quote!(#(#consts)*)
}

pub fn expand(model: &Model) -> TokenStream {
    let s = s();
    let ident = &model.input.ident;
    let name = ident.to_string();
    let doc = opt_str(&model.docs);
    let type_markers = markers(&model.markers);
    let (body, fields): (TokenStream, Vec<&Field>) = match &model.shape {
        Shape::Struct(fields) => (
            object(
                fields,
                doc,
                type_markers,
                model.deny_unknown_fields.is_some(),
            ),
            fields.iter().collect(),
        ),
        Shape::Newtype(f) => {
            let ty = f.schema_type();
            let mut all = f.markers.clone();
            all.list.extend(model.markers.list.iter().cloned());
            let markers = markers(&all);
            let doc = opt_str(&model.docs.clone().or_else(|| f.docs.clone()));
            (
                quote!(#s::decorate(#s::field::<#ty>(__gen), #doc, false, #markers)),
                vec![f],
            )
        }
        Shape::Enum(variants) => (
            enumeration(model, variants, doc, type_markers),
            variants.iter().flat_map(|v| &v.fields).collect(),
        ),
        _ => return TokenStream::new(),
    };
    let checks = list_map_key_checks(&fields);
    quote! {
        impl ::kubegen::__private::schemars::JsonSchema for #ident {
            #[inline]
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }

            #[inline]
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
            }

            fn json_schema(
                __gen: &mut ::kubegen::__private::schemars::SchemaGenerator,
            ) -> ::kubegen::__private::schemars::Schema {
                #body
            }
        }

        #checks
    }
}
