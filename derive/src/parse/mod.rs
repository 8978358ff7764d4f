//! Parse: the derive input as a small typed model.
//!
//! serde's own attribute parser (`serde_derive_internals`) supplies the serialized names,
//! skips, defaults and enum representation, so the schema describes exactly what serde reads
//! and writes; darling parses kubegen's attributes.

pub mod apply;
pub mod convert;
pub mod markers;
pub mod resource;
pub mod rule;
pub mod serde_spans;
pub mod values;

use proc_macro2::Span;
use serde_derive_internals::{Ctxt, Derive, ast, attr};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, Type};

pub use markers::{Marker, MarkerKind, Markers};
pub use resource::ResourceArgs;

/// An error at a span.
pub fn error_at(span: Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::from(syn::Error::new(span, message.to_string()))
}

/// Which derive is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    CustomResource,
    ApiType,
}

/// The derive input as kubegen sees it.
pub struct Model<'a> {
    pub input: &'a DeriveInput,
    pub which: Which,
    pub docs: Option<String>,
    pub markers: Markers,
    pub shape: Shape<'a>,
    pub repr: Repr,
    /// `#[serde(from/into/try_from/remote)]`, which change the wire format.
    pub wire_override: Option<(&'static str, Span)>,
    /// `#[serde(deny_unknown_fields)]`, where it is written.
    pub deny_unknown_fields: Option<Span>,
    pub resource: Option<ResourceArgs>,
    /// `#[convert(hub = ...)]`: this type is a spoke of that hub type.
    pub convert: Option<convert::ConvertArgs>,
    /// `#[apply]` on the type: generate its apply configuration (and, on a kind's spec, the
    /// kind's).
    pub apply: bool,
}

/// Struct or enum.
pub enum Shape<'a> {
    /// Named fields.
    Struct(Vec<Field<'a>>),
    /// One unnamed field, or `#[serde(transparent)]`: serialized as the field alone.
    Newtype(Box<Field<'a>>),
    /// Several unnamed fields.
    Tuple(Span),
    /// No fields.
    Unit(Span),
    Enum(Vec<Variant<'a>>),
    Union(Span),
}

/// How serde writes an enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repr {
    External,
    Internal { tag: String },
    Adjacent { tag: String, content: String },
    Untagged,
}

/// A field, with what serde and kubegen say about it.
pub struct Field<'a> {
    pub member: syn::Member,
    pub vis: &'a syn::Visibility,
    pub ty: &'a Type,
    pub span: Span,
    /// Serialized name.
    pub name: String,
    /// The name serde reads it under, when that differs from `name`.
    pub de_name: Option<String>,
    /// `#[serde(skip)]` (skipped both ways): not in the schema.
    pub skipped: bool,
    /// `#[serde(skip_serializing)]` alone: serde reads it but never writes it.
    pub write_skipped: bool,
    /// `#[serde(skip_deserializing)]` alone: serde writes it but never reads it.
    pub read_skipped: bool,
    pub flatten: bool,
    /// serde fills the field when it is missing.
    pub serde_default: bool,
    pub skip_serializing_if: bool,
    /// `serialize_with` / `deserialize_with` / `with`.
    pub custom_serde: Option<Span>,
    pub docs: Option<String>,
    pub markers: Markers,
    /// The field's `#[serde(...)]` attributes, to point errors at their keys.
    pub serde_attrs: &'a [syn::Attribute],
    /// `#[convert(manual)]` / `#[convert(clone)]`.
    pub convert: convert::FieldConvert,
    /// `#[apply(whole)]`.
    pub apply: apply::FieldApply,
}

/// An enum variant.
pub struct Variant<'a> {
    pub ident: &'a Ident,
    pub span: Span,
    pub name: String,
    /// The name serde reads it under, when that differs from `name`.
    pub de_name: Option<String>,
    /// `#[serde(alias)]`: more names serde reads it under.
    pub aliases: Vec<String>,
    pub style: ast::Style,
    pub fields: Vec<Field<'a>>,
    /// `#[serde(skip)]` or `#[serde(skip_deserializing)]`: serde never reads it, so it is not
    /// in the schema.
    pub skipped: bool,
    /// `serialize_with` / `deserialize_with` / `with` on the variant.
    pub custom_serde: Option<Span>,
    /// The variant's attributes, to point errors at their keys.
    pub serde_attrs: &'a [syn::Attribute],
    /// `#[serde(other)]`.
    pub other: bool,
    /// `#[serde(untagged)]` on the variant.
    pub untagged: Option<Span>,
    pub docs: Option<String>,
}

impl Field<'_> {
    pub fn is_option(&self) -> bool {
        option_inner(self.ty).is_some()
    }

    /// The type whose schema describes the field: `T` of `Option<T>`, or `#[schema(with)]`.
    pub fn schema_type(&self) -> &Type {
        if let Some(with) = &self.markers.schema_with {
            return with;
        }
        option_inner(self.ty).unwrap_or(self.ty)
    }
}

/// `T` when `ty` is `Option<T>` (written as `Option`, `std::option::Option` or `core::option::Option`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    generic_arg(ty, "Option")
}

/// The single generic argument of `Name<T>`.
pub fn generic_arg<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn field<'a>(
    f: &ast::Field<'a>,
    container_default: bool,
    errors: &mut darling::error::Accumulator,
) -> Field<'a> {
    let a = &f.attrs;
    let name = a.name().serialize_name().value.clone();
    let de_name = &a.name().deserialize_name().value;
    Field {
        member: f.member.clone(),
        vis: &f.original.vis,
        ty: f.ty,
        span: field_span(f.original),
        de_name: (*de_name != name).then(|| de_name.clone()),
        name,
        skipped: a.skip_serializing() && a.skip_deserializing(),
        write_skipped: a.skip_serializing() && !a.skip_deserializing(),
        read_skipped: a.skip_deserializing() && !a.skip_serializing(),
        flatten: a.flatten(),
        serde_default: !a.default().is_none() || container_default,
        skip_serializing_if: a.skip_serializing_if().is_some(),
        custom_serde: (a.serialize_with().is_some() || a.deserialize_with().is_some())
            .then(|| field_span(f.original)),
        docs: markers::docs(&f.original.attrs),
        markers: markers::parse(&f.original.attrs, errors),
        serde_attrs: &f.original.attrs,
        convert: convert::parse_field(&f.original.attrs, errors),
        apply: apply::parse_field(&f.original.attrs, errors),
    }
}

/// Parses the input. serde's attribute errors are left to serde's own derive to report.
pub fn parse<'a>(
    input: &'a DeriveInput,
    which: Which,
    errors: &mut darling::error::Accumulator,
) -> Option<Model<'a>> {
    let ctxt = Ctxt::new();
    let container = ast::Container::from_ast(
        &ctxt,
        input,
        Derive::Deserialize,
        &Ident::new("__private", Span::call_site()),
    );
    // serde reports its own attribute errors; reporting them twice would only add noise.
    let _ = ctxt.check();
    let markers = markers::parse(&input.attrs, errors);
    let docs = markers::docs(&input.attrs);
    let convert = convert::parse_type(&input.attrs, errors);
    let apply = apply::parse_type(&input.attrs, errors);
    let resource = match which {
        Which::CustomResource => parse_resource(input, errors),
        Which::ApiType => {
            if let Some(attr) = input.attrs.iter().find(|a| a.path().is_ident("resource")) {
                errors.push(error_at(
                    attr.path().span(),
                    "#[resource] belongs on a `#[derive(CustomResource)]` spec; this type derives ApiType",
                ));
            }
            None
        }
    };
    let Some(container) = container else {
        return Some(Model {
            input,
            which,
            docs,
            markers,
            shape: Shape::Union(input.ident.span()),
            repr: Repr::External,
            wire_override: None,
            deny_unknown_fields: None,
            resource,
            convert,
            apply,
        });
    };
    let cattrs = &container.attrs;
    let container_default = !cattrs.default().is_none();
    let wire_override = if cattrs.type_from().is_some() {
        Some(("from", input.ident.span()))
    } else if cattrs.type_try_from().is_some() {
        Some(("try_from", input.ident.span()))
    } else if cattrs.type_into().is_some() {
        Some(("into", input.ident.span()))
    } else if cattrs.remote().is_some() {
        Some(("remote", input.ident.span()))
    } else {
        None
    };
    let repr = match cattrs.tag() {
        attr::TagType::External => Repr::External,
        attr::TagType::Internal { tag } => Repr::Internal { tag: tag.clone() },
        attr::TagType::Adjacent { tag, content } => Repr::Adjacent {
            tag: tag.clone(),
            content: content.clone(),
        },
        attr::TagType::None => Repr::Untagged,
    };
    let transparent = cattrs.transparent();
    // Fields keep only references into `input`, so the model outlives serde's container.
    let shape = match container.data {
        ast::Data::Struct(style, fields) => {
            let fields: Vec<Field<'a>> = fields
                .iter()
                .map(|f| field(f, container_default, errors))
                .collect();
            struct_shape(style, fields, transparent, input)
        }
        ast::Data::Enum(variants) => {
            Shape::Enum(variants.iter().map(|v| variant(v, errors)).collect())
        }
    };
    if !apply && let Shape::Struct(fields) = &shape {
        for f in fields.iter().filter(|f| f.apply.whole.is_present()) {
            errors.push(error_at(
                f.apply.whole.span(),
                format!(
                    "`#[apply(whole)]` does nothing here: `{}` has no apply configuration; add `#[apply]` to the type to generate one",
                    input.ident
                ),
            ));
        }
    }
    let deny_unknown_fields = cattrs.deny_unknown_fields().then(|| {
        serde_spans::find(&input.attrs, "deny_unknown_fields").unwrap_or(input.ident.span())
    });
    Some(Model {
        input,
        which,
        docs,
        markers,
        shape,
        repr,
        wire_override,
        deny_unknown_fields,
        resource,
        convert,
        apply,
    })
}

fn variant<'a>(v: &ast::Variant<'a>, errors: &mut darling::error::Accumulator) -> Variant<'a> {
    let a = &v.attrs;
    let name = a.name().serialize_name().value.clone();
    let de_name = a.name().deserialize_name().value.clone();
    let aliases = a
        .aliases()
        .iter()
        .map(|n| n.value.clone())
        .filter(|n| *n != de_name && *n != name)
        .collect();
    let custom_serde =
        (a.serialize_with().is_some() || a.deserialize_with().is_some()).then(|| {
            ["with", "deserialize_with", "serialize_with"]
                .iter()
                .find_map(|key| serde_spans::find(&v.original.attrs, key))
                .unwrap_or(v.original.ident.span())
        });
    Variant {
        ident: &v.original.ident,
        span: v.original.span(),
        de_name: (de_name != name).then_some(de_name),
        name,
        aliases,
        style: v.style,
        fields: v.fields.iter().map(|f| field(f, false, errors)).collect(),
        skipped: a.skip_deserializing(),
        custom_serde,
        serde_attrs: &v.original.attrs,
        other: a.other(),
        untagged: a.untagged().then(|| v.original.span()),
        docs: markers::docs(&v.original.attrs),
    }
}

fn struct_shape<'a>(
    style: ast::Style,
    mut fields: Vec<Field<'a>>,
    transparent: bool,
    input: &DeriveInput,
) -> Shape<'a> {
    if transparent {
        // serde checked that exactly one field is not skipped.
        if let Some(i) = fields.iter().position(|f| !f.skipped) {
            return Shape::Newtype(Box::new(fields.swap_remove(i)));
        }
    }
    match style {
        ast::Style::Struct => Shape::Struct(fields),
        ast::Style::Newtype => match fields.pop() {
            Some(f) => Shape::Newtype(Box::new(f)),
            None => Shape::Unit(input.ident.span()),
        },
        ast::Style::Tuple => Shape::Tuple(input.ident.span()),
        ast::Style::Unit => Shape::Unit(input.ident.span()),
    }
}

fn parse_resource(
    input: &DeriveInput,
    errors: &mut darling::error::Accumulator,
) -> Option<ResourceArgs> {
    use darling::FromMeta;
    let attrs: Vec<_> = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("resource"))
        .collect();
    match attrs.as_slice() {
        [] => {
            errors.push(error_at(
                input.ident.span(),
                "#[derive(CustomResource)] needs #[resource(group = \"...\", version = \"...\", kind = \"...\")]",
            ));
            None
        }
        [attr, rest @ ..] => {
            for extra in rest {
                errors.push(error_at(
                    extra.span(),
                    "write all resource keys in one #[resource(...)] attribute",
                ));
            }
            errors.handle(ResourceArgs::from_meta(&attr.meta))
        }
    }
}

/// Where errors about a field point: its name, or its type for tuple fields.
fn field_span(f: &syn::Field) -> Span {
    f.ident.as_ref().map_or_else(|| f.ty.span(), |i| i.span())
}
