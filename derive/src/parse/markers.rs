//! `#[validate]`, `#[schema]`, `#[rule]`, `#[default]`, `#[required]`, `#[optional]`.
//!
//! Each attribute is parsed into a list of [`Marker`]s, each with the span of the tokens
//! that wrote it, so a check can point at the exact key that is wrong.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::{Flag, SpannedValue};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, Meta};

use super::rule::Rule;
use super::values::{Number, RawExpr, Scalar, StrList, TypeRef};

/// One marker, as written.
#[derive(Clone, Debug)]
pub enum MarkerKind {
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum,
    ExclusiveMaximum,
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(String),
    Format(String),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinProperties(u64),
    MaxProperties(u64),
    ListType(String),
    ListMapKeys(Vec<String>),
    MapType(String),
    PreserveUnknownFields,
    EmbeddedResource,
    IntOrString,
    Nullable(bool),
    Title(String),
    Example(Scalar),
    Rule(Box<Rule>),
}

impl MarkerKind {
    /// The key as the user writes it.
    pub fn key(&self) -> &'static str {
        match self {
            MarkerKind::Minimum(_) => "minimum",
            MarkerKind::Maximum(_) => "maximum",
            MarkerKind::ExclusiveMinimum => "exclusive_minimum",
            MarkerKind::ExclusiveMaximum => "exclusive_maximum",
            MarkerKind::MultipleOf(_) => "multiple_of",
            MarkerKind::MinLength(_) => "min_length",
            MarkerKind::MaxLength(_) => "max_length",
            MarkerKind::Pattern(_) => "pattern",
            MarkerKind::Format(_) => "format",
            MarkerKind::MinItems(_) => "min_items",
            MarkerKind::MaxItems(_) => "max_items",
            MarkerKind::UniqueItems => "unique_items",
            MarkerKind::MinProperties(_) => "min_properties",
            MarkerKind::MaxProperties(_) => "max_properties",
            MarkerKind::ListType(_) => "list_type",
            MarkerKind::ListMapKeys(_) => "list_map_keys",
            MarkerKind::MapType(_) => "map_type",
            MarkerKind::PreserveUnknownFields => "preserve_unknown_fields",
            MarkerKind::EmbeddedResource => "embedded_resource",
            MarkerKind::IntOrString => "int_or_string",
            MarkerKind::Nullable(_) => "nullable",
            MarkerKind::Title(_) => "title",
            MarkerKind::Example(_) => "example",
            MarkerKind::Rule(_) => "rule",
        }
    }
}

/// A marker and where it was written.
#[derive(Clone, Debug)]
pub struct Marker {
    pub kind: MarkerKind,
    pub span: Span,
}

/// `#[rule("cel", message = "...", ...)]`: the keys as written. The expression itself (first,
/// or `rule = "..."`) moves into [`Rule::rule`] once parsed.
#[derive(Clone, Debug, Default, FromMeta)]
pub struct RuleArgs {
    #[darling(default)]
    pub rule: Option<SpannedValue<String>>,
    pub message: Option<SpannedValue<String>>,
    pub message_expression: Option<SpannedValue<String>>,
    pub reason: Option<SpannedValue<String>>,
    pub field_path: Option<SpannedValue<String>>,
    pub optional_old_self: Option<SpannedValue<bool>>,
}

#[derive(Default, FromMeta)]
struct ValidateArgs {
    minimum: Option<SpannedValue<Number>>,
    maximum: Option<SpannedValue<Number>>,
    exclusive_minimum: Flag,
    exclusive_maximum: Flag,
    multiple_of: Option<SpannedValue<Number>>,
    min_length: Option<SpannedValue<u64>>,
    max_length: Option<SpannedValue<u64>>,
    pattern: Option<SpannedValue<String>>,
    format: Option<SpannedValue<String>>,
    min_items: Option<SpannedValue<u64>>,
    max_items: Option<SpannedValue<u64>>,
    unique_items: Flag,
    min_properties: Option<SpannedValue<u64>>,
    max_properties: Option<SpannedValue<u64>>,
}

#[derive(Default, FromMeta)]
struct SchemaArgs {
    list_type: Option<SpannedValue<String>>,
    list_map_keys: Option<SpannedValue<StrList>>,
    map_type: Option<SpannedValue<String>>,
    struct_type: Option<SpannedValue<String>>,
    preserve_unknown_fields: Flag,
    embedded_resource: Flag,
    int_or_string: Flag,
    nullable: Option<SpannedValue<bool>>,
    title: Option<SpannedValue<String>>,
    example: Option<SpannedValue<Scalar>>,
    format: Option<SpannedValue<String>>,
    with: Option<SpannedValue<TypeRef>>,
    /// `#[schema(default = expr)]`, for types that derive `Default`: std's derive claims
    /// `#[default]` on their fields.
    default: Option<SpannedValue<RawExpr>>,
}

/// Every marker on one field or type.
#[derive(Clone, Debug, Default)]
pub struct Markers {
    pub list: Vec<Marker>,
    /// `#[default(expr)]`.
    pub default: Option<Expr>,
    pub default_span: Option<Span>,
    /// `#[required]`.
    pub required: Option<Span>,
    /// `#[optional]`.
    pub optional: Option<Span>,
    /// `#[schema(with = Type)]`: describe the field with another type's schema.
    pub schema_with: Option<syn::Type>,
}

impl Markers {
    pub fn has(&self, key: &str) -> bool {
        self.list.iter().any(|m| m.kind.key() == key)
    }

    pub fn find(&self, key: &str) -> Option<&Marker> {
        self.list.iter().find(|m| m.kind.key() == key)
    }
}

fn push<T>(
    list: &mut Vec<Marker>,
    value: Option<SpannedValue<T>>,
    make: impl FnOnce(T) -> MarkerKind,
) {
    if let Some(v) = value {
        let span = v.span();
        list.push(Marker {
            kind: make(v.into_inner()),
            span,
        });
    }
}

fn push_flag(list: &mut Vec<Marker>, flag: Flag, kind: MarkerKind) {
    if flag.is_present() {
        list.push(Marker {
            kind,
            span: flag.span(),
        });
    }
}

/// Parses every kubegen marker attribute in `attrs`, collecting errors.
pub fn parse(attrs: &[Attribute], errors: &mut darling::error::Accumulator) -> Markers {
    let mut m = Markers::default();
    for attr in attrs {
        let Some(ident) = attr.path().get_ident() else {
            continue;
        };
        match ident.to_string().as_str() {
            "validate" => {
                if let Some(v) = errors.handle(ValidateArgs::from_meta(&attr.meta)) {
                    validate_markers(v, &mut m.list);
                }
            }
            "schema" => {
                if let Some(s) = errors.handle(SchemaArgs::from_meta(&attr.meta)) {
                    schema_markers(s, &mut m);
                }
            }
            "rule" => {
                if let Some(rule) = errors.handle(parse_rule(attr)) {
                    m.list.push(Marker {
                        kind: MarkerKind::Rule(Box::new(rule)),
                        span: attr.path().span(),
                    });
                }
            }
            "default" => match &attr.meta {
                Meta::List(list) => match syn::parse2::<Expr>(list.tokens.clone()) {
                    Ok(expr) => {
                        m.default = Some(expr);
                        m.default_span = Some(attr.path().span());
                    }
                    Err(e) => errors.push(darling::Error::from(e)),
                },
                _ => errors.push(
                    darling::Error::custom(
                        "write the default value in parentheses: `#[default(3)]`",
                    )
                    .with_span(attr),
                ),
            },
            "required" => m.required = Some(attr.path().span()),
            "optional" => m.optional = Some(attr.path().span()),
            _ => {}
        }
    }
    m
}

fn validate_markers(v: ValidateArgs, list: &mut Vec<Marker>) {
    push(list, v.minimum, MarkerKind::Minimum);
    push(list, v.maximum, MarkerKind::Maximum);
    push_flag(list, v.exclusive_minimum, MarkerKind::ExclusiveMinimum);
    push_flag(list, v.exclusive_maximum, MarkerKind::ExclusiveMaximum);
    push(list, v.multiple_of, MarkerKind::MultipleOf);
    push(list, v.min_length, MarkerKind::MinLength);
    push(list, v.max_length, MarkerKind::MaxLength);
    push(list, v.pattern, MarkerKind::Pattern);
    push(list, v.format, MarkerKind::Format);
    push(list, v.min_items, MarkerKind::MinItems);
    push(list, v.max_items, MarkerKind::MaxItems);
    push_flag(list, v.unique_items, MarkerKind::UniqueItems);
    push(list, v.min_properties, MarkerKind::MinProperties);
    push(list, v.max_properties, MarkerKind::MaxProperties);
}

fn schema_markers(s: SchemaArgs, m: &mut Markers) {
    // int_or_string replaces the node, so it goes first and the rest decorate it.
    push_flag(&mut m.list, s.int_or_string, MarkerKind::IntOrString);
    push(&mut m.list, s.list_type, MarkerKind::ListType);
    push(&mut m.list, s.list_map_keys, |k| {
        MarkerKind::ListMapKeys(k.0)
    });
    push(&mut m.list, s.map_type, MarkerKind::MapType);
    push(&mut m.list, s.struct_type, MarkerKind::MapType);
    push_flag(
        &mut m.list,
        s.preserve_unknown_fields,
        MarkerKind::PreserveUnknownFields,
    );
    push_flag(
        &mut m.list,
        s.embedded_resource,
        MarkerKind::EmbeddedResource,
    );
    push(&mut m.list, s.nullable, MarkerKind::Nullable);
    push(&mut m.list, s.title, MarkerKind::Title);
    push(&mut m.list, s.example, MarkerKind::Example);
    push(&mut m.list, s.format, MarkerKind::Format);
    if let Some(with) = s.with {
        m.schema_with = Some(with.into_inner().0);
    }
    if let Some(default) = s.default {
        m.default_span = Some(default.span());
        m.default = Some(default.into_inner().0);
    }
}

/// `#[rule("expr", ...)]` or `#[rule(rule = "expr", ...)]`, its CEL parsed.
fn parse_rule(attr: &Attribute) -> darling::Result<Rule> {
    let Meta::List(list) = &attr.meta else {
        return Err(darling::Error::custom(
            "write the CEL rule in parentheses: `#[rule(\"self.x > 0\", message = \"...\")]`",
        )
        .with_span(attr));
    };
    let mut items = NestedMeta::parse_meta_list(list.tokens.clone())?;
    let mut positional = None;
    if let Some(NestedMeta::Lit(Lit::Str(s))) = items.first() {
        positional = Some(SpannedValue::new(s.value(), s.span()));
        items.remove(0);
    }
    let mut args = RuleArgs::from_list(&items).map_err(|e| e.with_span(attr.path()))?;
    let rule = match (positional, args.rule.take()) {
        (Some(_), Some(r)) => {
            return Err(super::error_at(r.span(), "the rule is given twice"));
        }
        (Some(rule), None) | (None, Some(rule)) => rule,
        (None, None) => {
            return Err(darling::Error::custom(
                "a rule needs a CEL expression first: `#[rule(\"self.replicas >= 0\", message = \"...\")]`",
            )
            .with_span(attr.path()));
        }
    };
    let parsed = Rule::new(args, &rule);
    Ok(parsed)
}

/// Reads the `#[doc]` comments of an item as one string, the way rustdoc joins them.
pub fn docs(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    let trimmed: Vec<&str> = lines
        .iter()
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end())
        .collect();
    let text = trimmed.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
