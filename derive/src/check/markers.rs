//! Markers: which apply to which types, their values, and consistent bounds; field rules.

use super::*;
use crate::parse::values::Number;
use kubegen_go::formats;

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
    pub(super) fn describe(self) -> &'static str {
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

pub(super) fn marker_fits(kind: &MarkerKind, class: TyClass) -> Result<(), &'static str> {
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

pub(super) fn markers(m: &Markers, class: TyClass, errors: &mut Accumulator) {
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
    if let Some(Marker {
        kind: MarkerKind::ListMapKeys(keys),
        span,
    }) = m.find("list_map_keys")
        && let Some(twice) = keys
            .iter()
            .enumerate()
            .find(|(i, k)| keys[..*i].contains(k))
    {
        errors.push(error_at(
            *span,
            format!(
                "`list_map_keys` names `{}` twice; the apiserver refuses repeated keys",
                twice.1
            ),
        ));
    }
    if m.has("int_or_string") {
        for (key, why) in [
            (
                "preserve_unknown_fields",
                "an int-or-string holds a number or a string, with no unknown fields to keep",
            ),
            (
                "embedded_resource",
                "an int-or-string is not a Kubernetes object",
            ),
        ] {
            if let Some(marker) = m.find(key) {
                errors.push(error_at(
                    marker.span,
                    format!("`{key}` cannot go with `int_or_string`, as the apiserver refuses the pair: {why}"),
                ));
            }
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
            if let Some(why) = super::pattern::refused(p) {
                errors.push(error_at(
                    span,
                    format!("`pattern` is not a regular expression the apiserver accepts: {why}"),
                ));
            }
        }
        MarkerKind::Format(f) if !formats::is_known(f) => errors.push(error_at(
            span,
            format!(
                "unknown format `{f}`; the apiserver validates: {}",
                formats::names().collect::<Vec<_>>().join(", ")
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

pub(super) fn field(f: &Field, errors: &mut Accumulator) {
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
    if class == TyClass::Map
        && let Some(marker) = m.find("embedded_resource")
    {
        errors.push(error_at(
            marker.span,
            "`embedded_resource` cannot apply to a map: the apiserver refuses an embedded resource with \
             additionalProperties; use a struct with the object's fields, or a serde_json::Value with \
             `preserve_unknown_fields`",
        ));
    }
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
