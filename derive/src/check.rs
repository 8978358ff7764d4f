//! Check: every rule the model must obey, each error at the tokens that broke it.
//!
//! Nothing here emits code. Rules that need types the derive cannot see (a marker on a
//! field whose type is a user type or alias) are checked again at run time by the schema
//! builders and reported by `crd()`.

use darling::error::Accumulator;
use proc_macro2::Span;
use syn::Type;
use syn::spanned::Spanned;

use crate::parse::values::Number;
use crate::parse::{
    Field, Marker, MarkerKind, Markers, Model, Repr, ResourceArgs, Shape, Which, error_at,
    generic_arg,
};

/// What the derive can tell about a type from its spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TyClass {
    String,
    Integer,
    Number,
    Bool,
    List,
    Map,
    IntOrString,
    /// `serde_json::Value`: anything.
    Any,
    /// A user or foreign type: checked at run time.
    Unknown,
}

impl TyClass {
    fn describe(self) -> &'static str {
        match self {
            TyClass::String => "a string",
            TyClass::Integer => "an integer",
            TyClass::Number => "a number",
            TyClass::Bool => "a boolean",
            TyClass::List => "a list",
            TyClass::Map => "a map",
            TyClass::IntOrString => "an int-or-string",
            TyClass::Any => "any JSON value",
            TyClass::Unknown => "a type kubegen checks at run time",
        }
    }
}

/// Classifies a type by its last path segment, looking through `Option` and `Box`.
pub fn classify(ty: &Type) -> TyClass {
    match ty {
        Type::Reference(r) => return classify(&r.elem),
        Type::Group(g) => return classify(&g.elem),
        Type::Paren(p) => return classify(&p.elem),
        Type::Array(_) | Type::Slice(_) => return TyClass::List,
        _ => {}
    }
    if let Some(inner) = generic_arg(ty, "Option").or_else(|| generic_arg(ty, "Box")) {
        return classify(inner);
    }
    let Type::Path(p) = ty else {
        return TyClass::Unknown;
    };
    let Some(last) = p.path.segments.last() else {
        return TyClass::Unknown;
    };
    match last.ident.to_string().as_str() {
        "String" | "str" | "Time" | "MicroTime" | "Cow" => TyClass::String,
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => TyClass::Integer,
        "f32" | "f64" => TyClass::Number,
        "bool" => TyClass::Bool,
        "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => TyClass::List,
        "BTreeMap" | "HashMap" => TyClass::Map,
        "IntOrString" | "Quantity" => TyClass::IntOrString,
        "Value" => TyClass::Any,
        _ => TyClass::Unknown,
    }
}

fn marker_fits(kind: &MarkerKind, class: TyClass) -> Result<(), &'static str> {
    use TyClass::*;
    let ok = |cond: bool, hint: &'static str| if cond { Ok(()) } else { Err(hint) };
    match kind {
        MarkerKind::Minimum(_)
        | MarkerKind::Maximum(_)
        | MarkerKind::ExclusiveMinimum
        | MarkerKind::ExclusiveMaximum
        | MarkerKind::MultipleOf(_) => ok(
            matches!(class, Integer | Number | IntOrString | Unknown),
            "numeric bounds apply to integers and floats; for strings use `min_length`, `max_length` or `pattern`, for lists `min_items` / `max_items`",
        ),
        MarkerKind::MinLength(_) | MarkerKind::MaxLength(_) | MarkerKind::Pattern(_) => ok(
            matches!(class, String | IntOrString | Unknown),
            "string rules apply to strings; for numbers use `minimum` / `maximum`, for lists `min_items` / `max_items`",
        ),
        MarkerKind::MinItems(_)
        | MarkerKind::MaxItems(_)
        | MarkerKind::UniqueItems
        | MarkerKind::ListType(_)
        | MarkerKind::ListMapKeys(_) => ok(
            matches!(class, List | Unknown),
            "list rules apply to `Vec<T>` and other sequences",
        ),
        MarkerKind::MinProperties(_) | MarkerKind::MaxProperties(_) | MarkerKind::MapType(_) => ok(
            matches!(class, Map | Unknown),
            "object rules apply to maps and structs",
        ),
        MarkerKind::EmbeddedResource => ok(
            matches!(class, Map | Any | Unknown),
            "`embedded_resource` describes a field holding a whole Kubernetes object (a struct or serde_json::Value)",
        ),
        MarkerKind::IntOrString => ok(
            matches!(class, Integer | String | IntOrString | Any | Unknown),
            "`int_or_string` describes a field that holds an integer or a string",
        ),
        MarkerKind::PreserveUnknownFields => ok(
            matches!(class, Map | Any | Unknown),
            "`preserve_unknown_fields` applies to objects (structs, maps, serde_json::Value)",
        ),
        MarkerKind::Format(_)
        | MarkerKind::Nullable(_)
        | MarkerKind::Title(_)
        | MarkerKind::Example(_)
        | MarkerKind::Rule(_) => Ok(()),
    }
}

/// The formats the apiserver validates (others are accepted and ignored, which hides typos).
const FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "date-time",
    "int32",
    "int64",
    "float",
    "double",
];

const RULE_REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

/// Checks the whole model.
pub fn check(model: &Model, errors: &mut Accumulator) {
    shape(model, errors);
    if !model.input.generics.params.is_empty() {
        errors.push(error_at(
            model.input.generics.span(),
            "kubegen types cannot be generic: a CRD schema describes one concrete type; define a concrete struct instead",
        ));
    }
    if let Some((what, span)) = model.wire_override {
        errors.push(error_at(
            span,
            format!(
                "#[serde({what} = ...)] changes what serde reads and writes, so kubegen cannot describe it; \
                 derive kubegen on the wire type instead"
            ),
        ));
    }
    type_markers(model, errors);
    match &model.shape {
        Shape::Struct(fields) => fields.iter().for_each(|f| field(f, errors)),
        Shape::Newtype(f) => field(f, errors),
        Shape::Enum(_) => enumeration(model, errors),
        _ => {}
    }
    if let Some(resource) = &model.resource {
        self::resource(model, resource, errors);
    }
}

fn shape(model: &Model, errors: &mut Accumulator) {
    let derive = match model.which {
        Which::CustomResource => "CustomResource",
        Which::ApiType => "ApiType",
    };
    match (&model.shape, model.which) {
        (Shape::Union(span), _) => errors.push(error_at(*span, format!("#[derive({derive})] does not support unions: serde cannot serialize them"))),
        (Shape::Struct(_), _) | (Shape::Newtype(_) | Shape::Enum(_), Which::ApiType) => {}
        (Shape::Tuple(span), _) => errors.push(error_at(
            *span,
            format!("#[derive({derive})] does not support tuple structs: they serialize as JSON arrays of mixed types, which Kubernetes cannot describe; use named fields"),
        )),
        (Shape::Unit(span), _) => errors.push(error_at(*span, format!("#[derive({derive})] does not support unit structs: they serialize as null"))),
        (Shape::Newtype(_) | Shape::Enum(_), Which::CustomResource) => errors.push(error_at(
            model.input.ident.span(),
            "#[derive(CustomResource)] goes on the spec struct, which needs named fields; derive ApiType for enums and newtypes used inside it",
        )),
    }
}

fn type_markers(model: &Model, errors: &mut Accumulator) {
    let m = &model.markers;
    for span in [m.default_span, m.required, m.optional]
        .into_iter()
        .flatten()
    {
        errors.push(error_at(
            span,
            "#[default], #[required] and #[optional] go on fields, not on types",
        ));
    }
    if m.schema_with.is_some() {
        errors.push(error_at(
            model.input.ident.span(),
            "#[schema(with = ...)] goes on fields",
        ));
    }
    let class = match &model.shape {
        Shape::Struct(_) => TyClass::Map,
        Shape::Newtype(f) => classify(f.schema_type()),
        Shape::Enum(variants)
            if model.repr == Repr::External && variants.iter().all(|v| v.fields.is_empty()) =>
        {
            TyClass::String
        }
        Shape::Enum(_) => TyClass::Unknown,
        _ => return,
    };
    markers(m, class, errors);
}

fn markers(m: &Markers, class: TyClass, errors: &mut Accumulator) {
    for marker in &m.list {
        if let Err(hint) = marker_fits(&marker.kind, class) {
            errors.push(error_at(
                marker.span,
                format!(
                    "`{}` cannot apply here: this is {}; {hint}",
                    marker.kind.key(),
                    class.describe()
                ),
            ));
        }
        marker_value(marker, errors);
    }
    bounds(m, errors);
    if let Some(keys) = m.find("list_map_keys") {
        match m.find("list_type").map(|t| &t.kind) {
            Some(MarkerKind::ListType(t)) if t == "map" => {}
            _ => errors.push(error_at(
                keys.span,
                "`list_map_keys` needs `list_type = \"map\"` beside it",
            )),
        }
    }
    if let (Some(MarkerKind::ListType(t)), Some(unique)) =
        (m.find("list_type").map(|t| &t.kind), m.find("unique_items"))
        && t != "set"
    {
        errors.push(error_at(
            unique.span,
            format!(
                "`unique_items` makes the list a set, but `list_type = \"{t}\"` says otherwise"
            ),
        ));
    }
}

fn marker_value(marker: &Marker, errors: &mut Accumulator) {
    let span = marker.span;
    match &marker.kind {
        MarkerKind::Pattern(p) => {
            if let Err(e) = regex::Regex::new(p) {
                let first = e
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or("invalid")
                    .trim()
                    .to_owned();
                errors.push(error_at(
                    span,
                    format!("`pattern` is not a valid regular expression: {first}"),
                ));
            }
        }
        MarkerKind::Format(f) if !FORMATS.contains(&f.as_str()) => errors.push(error_at(
            span,
            format!(
                "unknown format `{f}`; the apiserver validates: {}",
                FORMATS.join(", ")
            ),
        )),
        MarkerKind::ListType(t) if !matches!(t.as_str(), "atomic" | "set" | "map") => {
            errors.push(error_at(
                span,
                format!("`list_type` is `atomic`, `set` or `map`, not `{t}`"),
            ))
        }
        MarkerKind::MapType(t) if !matches!(t.as_str(), "atomic" | "granular") => {
            errors.push(error_at(
                span,
                format!("`map_type` / `struct_type` is `atomic` or `granular`, not `{t}`"),
            ))
        }
        MarkerKind::ListMapKeys(keys) if keys.is_empty() => {
            errors.push(error_at(span, "`list_map_keys` needs at least one key"))
        }
        MarkerKind::MultipleOf(n) if n.as_f64() <= 0.0 => {
            errors.push(error_at(span, "`multiple_of` must be greater than 0"))
        }
        MarkerKind::Rule(rule) => {
            if let Some(r) = &rule.rule
                && r.trim().is_empty()
            {
                errors.push(error_at(r.span(), "the CEL rule is empty"));
            }
            if let Some(reason) = &rule.reason
                && !RULE_REASONS.contains(&reason.as_str())
            {
                errors.push(error_at(
                    reason.span(),
                    format!("`reason` must be one of {}", RULE_REASONS.join(", ")),
                ));
            }
            if let Some(message) = &rule.message
                && message.contains('\n')
            {
                errors.push(error_at(message.span(), "a rule message must be one line"));
            }
            if let Some(path) = &rule.field_path
                && !path.starts_with('.')
            {
                errors.push(error_at(
                    path.span(),
                    "`field_path` is a JSON path relative to this node, starting with `.`",
                ));
            }
        }
        _ => {}
    }
}

fn number(m: &Markers, key: &str) -> Option<(Number, Span)> {
    m.find(key).and_then(|marker| match marker.kind {
        MarkerKind::Minimum(n) | MarkerKind::Maximum(n) => Some((n, marker.span)),
        MarkerKind::MinLength(n)
        | MarkerKind::MaxLength(n)
        | MarkerKind::MinItems(n)
        | MarkerKind::MaxItems(n)
        | MarkerKind::MinProperties(n)
        | MarkerKind::MaxProperties(n) => Some((Number::Int(n as i64), marker.span)),
        _ => None,
    })
}

fn bounds(m: &Markers, errors: &mut Accumulator) {
    for (lo, hi) in [
        ("minimum", "maximum"),
        ("min_length", "max_length"),
        ("min_items", "max_items"),
        ("min_properties", "max_properties"),
    ] {
        if let (Some((a, _)), Some((b, span))) = (number(m, lo), number(m, hi))
            && a.as_f64() > b.as_f64()
        {
            errors.push(error_at(
                span,
                format!("`{hi}` is below `{lo}`: no value could pass"),
            ));
        }
    }
    for (flag, bound) in [
        ("exclusive_minimum", "minimum"),
        ("exclusive_maximum", "maximum"),
    ] {
        if let Some(marker) = m.find(flag)
            && !m.has(bound)
        {
            errors.push(error_at(
                marker.span,
                format!("`{flag}` makes `{bound}` exclusive, but there is no `{bound}`"),
            ));
        }
    }
}

fn field(f: &Field, errors: &mut Accumulator) {
    let m = &f.markers;
    if f.skipped {
        let any = !m.list.is_empty()
            || m.default.is_some()
            || m.required.is_some()
            || m.optional.is_some();
        if any {
            errors.push(error_at(f.span, "this field is skipped by serde, so it is not in the schema: its kubegen markers would do nothing"));
        }
        return;
    }
    if f.flatten && (!m.list.is_empty() || m.default.is_some()) {
        errors.push(error_at(f.span, "markers on a #[serde(flatten)] field have no node to apply to; put them on the flattened type's fields"));
    }
    if let Some(span) = f.custom_serde
        && m.schema_with.is_none()
    {
        errors.push(error_at(
            span,
            "#[serde(with / serialize_with / deserialize_with)] changes this field's wire format; \
                 tell kubegen what it looks like with #[schema(with = WireType)]",
        ));
    }
    let class = if m.schema_with.is_some() {
        TyClass::Unknown
    } else {
        classify(f.schema_type())
    };
    markers(m, class, errors);
    if let (Some(r), Some(_)) = (m.required, m.optional) {
        errors.push(error_at(
            r,
            "a field cannot be both #[required] and #[optional]",
        ));
    }
    if let Some(span) = m.optional
        && !f.is_option()
        && !f.serde_default
    {
        errors.push(error_at(
            span,
            "#[optional] on a field serde requires: objects without it would fail to deserialize; \
                 make it `Option<T>` or add #[serde(default)]",
        ));
    }
    if let Some(span) = m.default_span {
        if !f.is_option() && !f.serde_default {
            errors.push(error_at(
                span,
                "#[default] on a field serde requires: the apiserver would fill it, but serde still rejects objects \
                 without it; make the field `Option<T>` or add #[serde(default)]",
            ));
        }
        if m.required.is_some() {
            errors.push(error_at(
                span,
                "a field with a default is never required; drop #[required]",
            ));
        }
    }
}

fn enumeration(model: &Model, errors: &mut Accumulator) {
    let Shape::Enum(variants) = &model.shape else {
        return;
    };
    let live: Vec<_> = variants.iter().filter(|v| !v.skipped).collect();
    if live.is_empty() {
        errors.push(error_at(
            model.input.ident.span(),
            "an enum needs at least one variant serde can read",
        ));
        return;
    }
    for v in &live {
        if let Some(span) = v.untagged {
            errors.push(error_at(span, "#[serde(untagged)] on single variants is not supported; make the whole enum untagged or tagged"));
        }
        if matches!(v.style, serde_derive_internals::ast::Style::Tuple) {
            errors.push(error_at(
                v.span,
                "tuple variants serialize as JSON arrays of mixed types, which Kubernetes cannot describe; use a struct variant",
            ));
        }
        v.fields.iter().for_each(|f| field(f, errors));
    }
    let unit = |v: &&&crate::parse::Variant| {
        v.fields.is_empty() && !matches!(v.style, serde_derive_internals::ast::Style::Newtype)
    };
    match &model.repr {
        Repr::External => {
            let units = live.iter().filter(unit).count();
            if units > 0 && units < live.len() {
                let first_unit = live
                    .iter()
                    .find(unit)
                    .map(|v| v.span)
                    .unwrap_or_else(Span::call_site);
                errors.push(error_at(
                    first_unit,
                    "this enum mixes unit variants (written as strings) with data variants (written as objects), \
                     and a Kubernetes schema node has one type; add #[serde(tag = \"type\")] or give every variant data",
                ));
            }
        }
        Repr::Internal { .. } => {
            for v in &live {
                if let [f] = v.fields.as_slice()
                    && matches!(v.style, serde_derive_internals::ast::Style::Newtype)
                    && !matches!(classify(f.schema_type()), TyClass::Unknown | TyClass::Map)
                {
                    errors.push(error_at(v.span, "a variant of an internally tagged enum must hold a struct or a map: serde writes the tag into it"));
                }
            }
        }
        Repr::Adjacent { .. } => {}
        Repr::Untagged => untagged(&live, errors),
    }
}

fn untagged(live: &[&crate::parse::Variant], errors: &mut Accumulator) {
    let mut seen: Vec<(TyClass, Span)> = Vec::new();
    for v in live {
        let class = match (v.style, v.fields.as_slice()) {
            (serde_derive_internals::ast::Style::Unit, _) => {
                errors.push(error_at(v.span, "a unit variant of an untagged enum serializes as null, which a Kubernetes schema cannot mix with other types"));
                continue;
            }
            (serde_derive_internals::ast::Style::Newtype, [f]) => classify(f.schema_type()),
            (serde_derive_internals::ast::Style::Struct, _) => TyClass::Map,
            _ => continue,
        };
        let class = match class {
            TyClass::Integer | TyClass::Number => TyClass::Number,
            TyClass::Unknown | TyClass::Any => continue,
            c => c,
        };
        if !seen.iter().any(|(c, _)| *c == class) {
            seen.push((class, v.span));
        }
    }
    let classes: Vec<TyClass> = seen.iter().map(|(c, _)| *c).collect();
    let int_or_string = classes.len() == 2
        && classes.contains(&TyClass::Number)
        && classes.contains(&TyClass::String);
    if classes.len() > 1 && !int_or_string {
        let described: Vec<&str> = classes.iter().map(|c| c.describe()).collect();
        errors.push(error_at(
            seen[1].1,
            format!(
                "this untagged enum's variants serialize as {}, and a Kubernetes schema node has one type \
                 (integer-or-string aside); use #[serde(tag = \"...\")] or one shape for every variant",
                described.join(" and ")
            ),
        ));
    }
}

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn resource(model: &Model, r: &ResourceArgs, errors: &mut Accumulator) {
    let group = r.group.as_str();
    if !group.contains('.') || !group.split('.').all(is_dns_label) {
        errors.push(error_at(
            r.group.span(),
            format!("group `{group}` is not a lower-case domain with at least one dot, as CRD groups must be (e.g. `batch.example.com`)"),
        ));
    }
    let version = r.version.as_str();
    if !is_dns_label(version) || !version.starts_with(|c: char| c.is_ascii_lowercase()) {
        errors.push(error_at(
            r.version.span(),
            format!("version `{version}` is not a DNS label starting with a letter (e.g. `v1`, `v1beta2`)"),
        ));
    }
    let kind = r.kind.as_str();
    let camel = kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !camel {
        errors.push(error_at(
            r.kind.span(),
            format!(
                "kind `{kind}` must be UpperCamelCase ASCII letters and digits (e.g. `CronJob`)"
            ),
        ));
    } else if model.input.ident == kind {
        errors.push(error_at(
            r.kind.span(),
            format!("kind `{kind}` is the name of the spec struct; the derive generates the `{kind}` struct, so name the spec `{kind}Spec`"),
        ));
    }
    for (what, value) in [("plural", &r.plural), ("singular", &r.singular)] {
        if let Some(v) = value
            && !is_dns_label(v)
        {
            errors.push(error_at(
                v.span(),
                format!("{what} `{}` must be a lower-case DNS label", v.as_str()),
            ));
        }
    }
    for (what, list) in [("shortname", &r.shortnames), ("category", &r.categories)] {
        for (i, v) in list.iter().enumerate() {
            if !is_dns_label(v) {
                errors.push(error_at(
                    v.span(),
                    format!("{what} `{}` must be a lower-case DNS label", v.as_str()),
                ));
            }
            if list[..i].iter().any(|o| o.as_str() == v.as_str()) {
                errors.push(error_at(
                    v.span(),
                    format!("{what} `{}` is given twice", v.as_str()),
                ));
            }
        }
    }
    if let Some(scope) = &r.scope
        && !matches!(scope.as_str(), "Namespaced" | "Cluster")
    {
        errors.push(error_at(
            scope.span(),
            format!(
                "scope is `Namespaced` (the default) or `Cluster`, not `{}`",
                scope.as_str()
            ),
        ));
    }
    if let Some(scale) = &r.scale {
        let path = |v: &darling::util::SpannedValue<String>,
                    prefixes: &[&str],
                    errors: &mut Accumulator| {
            if !prefixes.iter().any(|p| v.starts_with(p)) {
                errors.push(error_at(
                    v.span(),
                    format!("this path must start with {}", prefixes.join(" or ")),
                ));
            }
        };
        path(&scale.spec_replicas_path, &[".spec."], errors);
        path(&scale.status_replicas_path, &[".status."], errors);
        if let Some(selector) = &scale.label_selector_path {
            path(selector, &[".spec.", ".status."], errors);
        }
    }
    for (i, column) in r.printcolumns.iter().enumerate() {
        if column.name.is_empty() {
            errors.push(error_at(column.name.span(), "a printcolumn needs a name"));
        }
        if r.printcolumns[..i]
            .iter()
            .any(|c| c.name.as_str() == column.name.as_str())
        {
            errors.push(error_at(
                column.name.span(),
                format!(
                    "printcolumn `{}` is given twice; column names must be unique",
                    column.name.as_str()
                ),
            ));
        }
        if !column.json_path.starts_with('.') {
            errors.push(error_at(
                column.json_path.span(),
                "`json_path` must start with `.`, e.g. `.spec.schedule`",
            ));
        }
        if !matches!(
            column.type_.as_str(),
            "integer" | "number" | "string" | "boolean" | "date"
        ) {
            errors.push(error_at(
                column.type_.span(),
                format!(
                    "printcolumn type is one of integer, number, string, boolean, date, not `{}`",
                    column.type_.as_str()
                ),
            ));
        }
        if let Some(format) = &column.format
            && !matches!(
                format.as_str(),
                "int32" | "int64" | "float" | "double" | "byte" | "date" | "date-time" | "password"
            )
        {
            errors.push(error_at(format.span(), "printcolumn format is one of int32, int64, float, double, byte, date, date-time, password"));
        }
        if let Some(priority) = &column.priority
            && **priority < 0
        {
            errors.push(error_at(
                priority.span(),
                "printcolumn priority must be 0 or more",
            ));
        }
    }
    if r.selectable.len() > 8 {
        errors.push(error_at(
            r.selectable[8].span(),
            "a version may declare at most 8 selectable fields",
        ));
    }
    for (i, s) in r.selectable.iter().enumerate() {
        if !s.starts_with('.') {
            errors.push(error_at(
                s.span(),
                "a selectable field is a JSON path starting with `.`, e.g. `.spec.color`",
            ));
        }
        if r.selectable[..i].iter().any(|o| o.as_str() == s.as_str()) {
            errors.push(error_at(s.span(), "this selectable field is given twice"));
        }
    }
    for (what, list) in [("label", &r.labels), ("annotation", &r.annotations)] {
        for (i, kv) in list.iter().enumerate() {
            if kv.key.is_empty() {
                errors.push(error_at(kv.span(), format!("a {what} needs a key")));
            }
            if list[..i].iter().any(|o| o.key == kv.key) {
                errors.push(error_at(
                    kv.span(),
                    format!("{what} `{}` is given twice", kv.key),
                ));
            }
        }
    }
}

/// Kubernetes' plural for a lower-cased kind, the way kubebuilder and kube-rs guess it,
/// with English rules rather than Go's bare `s`/`y` ones (`Ingress` → `ingresses`,
/// `Gateway` → `gateways`, `Policy` → `policies`).
pub fn plural(singular: &str) -> String {
    let irregular = [
        ("endpoints", "endpoints"),
        ("person", "people"),
        ("child", "children"),
        ("index", "indices"),
    ];
    if let Some((_, p)) = irregular.iter().find(|(s, _)| *s == singular) {
        return (*p).to_owned();
    }
    let vowel = |c: char| "aeiou".contains(c);
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| singular.ends_with(e))
    {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        if stem.ends_with(vowel) {
            format!("{singular}s")
        } else {
            format!("{stem}ies")
        }
    } else {
        format!("{singular}s")
    }
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn plurals() {
        for (s, p) in [
            ("cronjob", "cronjobs"),
            ("ingress", "ingresses"),
            ("policy", "policies"),
            ("gateway", "gateways"),
            ("box", "boxes"),
            ("batch", "batches"),
            ("mesh", "meshes"),
            ("endpoints", "endpoints"),
        ] {
            assert_eq!(plural(s), p);
        }
    }
}
