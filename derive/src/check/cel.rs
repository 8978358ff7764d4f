//! What a CEL rule reads, followed through the types the derive can see.
//!
//! A rule's `self` is the value the rule sits on. [`View`] is what the derive knows about a
//! value: the fields of the struct being derived, a list's items, a map's values, a scalar's
//! kind, or just a type's name (another kubegen type, whose fields a constant checks). [`Walk`]
//! goes over a parsed expression keeping track of the variables macros bind, and reports what
//! cel-go's type checker would refuse when the apiserver compiles the rule: undeclared
//! variables, undefined fields, field selection on lists and scalars, iteration over scalars
//! and objects.

use cel::common::ast::{ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue};
use kubegen_go::cel::{escape, is_reserved, unescape};
use syn::Type;

use super::markers::{TyClass, classify};
use crate::parse::{Field, Model, Repr, Shape, generic_arg, option_inner};

/// What the derive knows about a value a rule reads.
#[derive(Clone, Debug)]
pub enum View<'a> {
    /// An object whose fields the derive sees: the struct a type-level rule is on.
    Object(Object<'a>),
    /// A value of another type, known by name: its fields are checked by a constant
    /// (`kubegen::ApiFields`), when it has them.
    Named {
        ty: &'a Type,
        embedded: bool,
    },
    List(Box<View<'a>>),
    Map(Box<View<'a>>),
    /// A scalar, described: "a string", "an integer", ...
    Scalar(&'static str),
    /// Anything: int-or-string, what the derive cannot follow.
    Dyn,
    /// A value CEL cannot read at all: `serde_json::Value` (a node without a type), and lists
    /// and maps of it. The apiserver leaves such fields out of the rule's types.
    Hidden,
}

/// The fields of the struct being derived, as CEL sees them.
#[derive(Clone, Debug)]
pub struct Object<'a> {
    pub type_name: String,
    pub fields: Vec<Member<'a>>,
    /// Some fields come from a flattened type or map the derive cannot see.
    pub open: bool,
    /// An embedded resource: `apiVersion`, `kind` and `metadata` are always readable.
    pub embedded: bool,
}

/// One field of an [`Object`].
#[derive(Clone, Debug)]
pub struct Member<'a> {
    /// The serialized name.
    pub name: String,
    /// The Rust name, when it differs (for "did you mean").
    pub rust_name: Option<String>,
    pub view: View<'a>,
}

impl View<'_> {
    /// "a list", "a string", ... for messages.
    pub(super) fn describe(&self) -> &'static str {
        match self {
            View::Object(_) | View::Named { .. } => "an object",
            View::List(_) => "a list",
            View::Map(_) => "a map",
            View::Scalar(what) => what,
            View::Dyn => "a value",
            View::Hidden => "any JSON without a schema type",
        }
    }
}

/// The value of a type-level rule's `self`.
pub fn of_model<'a>(model: &'a Model) -> View<'a> {
    let m = &model.markers;
    if m.has("int_or_string") {
        return View::Dyn;
    }
    match &model.shape {
        Shape::Struct(fields) => View::Object(Object {
            type_name: model.input.ident.to_string(),
            fields: fields
                .iter()
                .filter(|f| !f.skipped && !f.flatten)
                .map(|f| Member {
                    name: f.name.clone(),
                    rust_name: match &f.member {
                        syn::Member::Named(ident) => Some(ident.to_string()),
                        syn::Member::Unnamed(_) => None,
                    },
                    view: of_field(f),
                })
                .collect(),
            open: fields.iter().any(|f| !f.skipped && f.flatten),
            embedded: m.has("embedded_resource"),
        }),
        Shape::Newtype(f) => of_field(f),
        Shape::Enum(variants)
            if model.repr == Repr::External && variants.iter().all(|v| v.fields.is_empty()) =>
        {
            View::Scalar("a string")
        }
        _ => View::Dyn,
    }
}

/// The value of a field-level rule's `self`.
pub fn of_field<'a>(f: &'a Field) -> View<'a> {
    let m = &f.markers;
    if m.has("int_or_string") {
        return View::Dyn;
    }
    of_type(f.schema_type(), m.has("embedded_resource"))
}

fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => strip(&r.elem),
        Type::Group(g) => strip(&g.elem),
        Type::Paren(p) => strip(&p.elem),
        _ => match option_inner(ty).or_else(|| generic_arg(ty, "Box")) {
            Some(inner) => strip(inner),
            None => ty,
        },
    }
}

fn last_ident(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The item type of a list type (`Vec<T>`, `[T; N]`, ...), as written.
pub fn list_item(ty: &Type) -> Option<&Type> {
    let ty = strip(ty);
    match ty {
        Type::Array(a) => Some(&a.elem),
        Type::Slice(s) => Some(&s.elem),
        _ => {
            let name = last_ident(ty)?.ident.to_string();
            generic_arg(ty, &name)
        }
    }
}

/// The value type of a map type (`BTreeMap<String, T>`).
fn map_value(ty: &Type) -> Option<&Type> {
    let segment = last_ident(strip(ty))?;
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => match args.args.iter().nth(1) {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// What a field of type `ty` holds, as CEL sees it.
pub fn of_type(ty: &Type, embedded: bool) -> View<'_> {
    let ty = strip(ty);
    match classify(ty) {
        TyClass::String => match last_ident(ty).map(|s| s.ident.to_string()).as_deref() {
            Some("Time" | "MicroTime") => View::Scalar("a timestamp"),
            _ => View::Scalar("a string"),
        },
        TyClass::Integer => View::Scalar("an integer"),
        TyClass::Number => View::Scalar("a number"),
        TyClass::Bool => View::Scalar("a bool"),
        TyClass::List => match list_item(ty).map_or(View::Dyn, |item| of_type(item, false)) {
            View::Hidden => View::Hidden,
            item => View::List(Box::new(item)),
        },
        TyClass::Map => match map_value(ty).map_or(View::Dyn, |value| of_type(value, false)) {
            View::Hidden => View::Hidden,
            value => View::Map(Box::new(value)),
        },
        TyClass::IntOrString => View::Dyn,
        // An embedded resource kept as written: CEL sees its type and name only.
        TyClass::Any if embedded => View::Object(embedded_object()),
        TyClass::Any => View::Hidden,
        TyClass::Unknown => match ty {
            Type::Path(p) if p.qself.is_none() => View::Named { ty, embedded },
            _ => View::Dyn,
        },
    }
}

/// What CEL sees of an embedded resource without a schema: `apiVersion`, `kind` and
/// `metadata.name` / `metadata.generateName` (the apiserver's `WithTypeAndObjectMeta`).
fn embedded_object<'a>() -> Object<'a> {
    let string = |name: &str| Member {
        name: name.to_owned(),
        rust_name: None,
        view: View::Scalar("a string"),
    };
    Object {
        type_name: "an embedded resource".into(),
        fields: vec![
            string("apiVersion"),
            string("kind"),
            Member {
                name: "metadata".into(),
                rust_name: None,
                view: View::Object(Object {
                    type_name: "the metadata of an embedded resource".into(),
                    fields: vec![string("name"), string("generateName")],
                    open: false,
                    embedded: false,
                }),
            },
        ],
        open: false,
        embedded: false,
    }
}

/// A field of another type a rule names: checked by a constant where that type is known.
#[derive(Debug)]
pub struct Foreign<'a> {
    pub ty: &'a Type,
    /// The serialized name (CEL's escaping undone).
    pub name: String,
    /// The expression that names it, for the message.
    pub text: String,
}

/// Type names CEL expressions may use as values (`type(self.x) == string`).
const TYPE_NAMES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
    "dyn",
    "optional_type",
];

/// Namespaces of functions in Kubernetes' CEL environment (`optional.of`, `strings.quote`,
/// `sets.contains`, `lists.range`, `format.named`, `ip.isCanonical`) and of type names
/// (`net.IP`, `kubernetes.Quantity`, `google.protobuf.*`). Kubernetes v1.36 has no `math`,
/// `cel` (`cel.bind`), `base64`, `jsonpatch` or `regex` in CRD rules.
const NAMESPACES: &[&str] = &[
    "optional",
    "strings",
    "sets",
    "lists",
    "format",
    "ip",
    "net",
    "kubernetes",
    "google",
];

/// Macros of two variables (cel-go's `ext.TwoVarComprehensions`), `sortBy`, `optMap` and
/// `optFlatMap`: the `cel` parser reads them as calls, so the walk binds their variables itself.
const TWO_VAR_MACROS: &[&str] = &[
    "all",
    "exists",
    "existsOne",
    "exists_one",
    "transformList",
    "transformMap",
    "transformMapEntry",
];

/// How far a suggestion may be from a name (as `kubegen::__private::check_rule_field`).
fn suggestion_limit(len: usize) -> usize {
    match len {
        0..4 => 1,
        4..12 => 2,
        _ => 3,
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `name`: the same name in another case, or one within a few edits.
pub fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let limit = suggestion_limit(name.len());
    candidates
        .into_iter()
        .map(|c| {
            let d = if c.eq_ignore_ascii_case(name) {
                0
            } else {
                edit_distance(c, name)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The source form of a select chain (`self.spec.ports`), for messages.
fn text(e: &IdedExpr) -> String {
    match &e.expr {
        Expr::Ident(name) => name.clone(),
        Expr::Select(s) if s.test => format!("has({}.{})", text(&s.operand), s.field),
        Expr::Select(s) => format!("{}.{}", text(&s.operand), s.field),
        Expr::Call(c) if c.func_name == "_?._" && c.args.len() == 2 => {
            format!(
                "{}.?{}",
                text(&c.args[0]),
                literal_string(&c.args[1]).unwrap_or("…")
            )
        }
        Expr::Call(c) if c.func_name == "_[_]" && c.args.len() == 2 => {
            format!("{}[…]", text(&c.args[0]))
        }
        Expr::Call(c) => match &c.target {
            Some(t) => format!("{}.{}(…)", text(t), c.func_name),
            None => format!("{}(…)", c.func_name),
        },
        _ => "…".into(),
    }
}

fn literal_string(e: &IdedExpr) -> Option<&str> {
    match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.inner()),
        _ => None,
    }
}

/// A constant pattern of `matches`, `find` or `findAll` that Go cannot parse: the apiserver
/// compiles these when it compiles the rule, and refuses the CRD.
fn constant_pattern(call: &cel::common::ast::CallExpr) -> Option<String> {
    let pattern = match (call.func_name.as_str(), &call.target) {
        ("matches" | "find" | "findAll", Some(_)) => call.args.first(),
        ("matches", None) => call.args.get(1),
        _ => None,
    }?;
    let why = super::pattern::refused(literal_string(pattern)?)?;
    Some(match call.func_name.as_str() {
        "matches" => format!(
            "the apiserver refuses this `matches` pattern (\"invalid matches argument\"): {why}"
        ),
        function => format!(
            "the apiserver refuses this `{function}` pattern (\"program instantiation failed\"): {why}"
        ),
    })
}

/// One walk over one expression: the problems found and the facts left for constants.
pub struct Walk<'v, 'a> {
    self_view: &'v View<'a>,
    scopes: Vec<(String, View<'a>)>,
    /// The expression reads `oldSelf` (a transition rule).
    pub uses_old_self: bool,
    /// What cel-go's checker would refuse, as messages.
    pub problems: Vec<String>,
    /// Fields of other types the expression names.
    pub foreign: Vec<Foreign<'a>>,
}

impl<'v, 'a> Walk<'v, 'a> {
    /// Walks `expr` with `self` (and `oldSelf`) holding `self_view`.
    pub fn run(expr: &IdedExpr, self_view: &'v View<'a>) -> Self {
        let mut walk = Walk {
            self_view,
            scopes: Vec::new(),
            uses_old_self: false,
            problems: Vec::new(),
            foreign: Vec::new(),
        };
        walk.expr(expr);
        walk
    }

    fn expr(&mut self, e: &IdedExpr) -> View<'a> {
        match &e.expr {
            Expr::Ident(name) => self.ident(name),
            Expr::Select(s) => {
                let operand = self.expr(&s.operand);
                let view = self.select(&operand, &s.field, e, &s.operand);
                if s.test { View::Scalar("a bool") } else { view }
            }
            Expr::Call(call) => self.call(e, call),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::List(list) => {
                for element in &list.elements {
                    self.expr(element);
                }
                View::Dyn
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(m) => {
                            self.expr(&m.key);
                            self.expr(&m.value);
                        }
                        EntryExpr::StructField(f) => {
                            self.expr(&f.value);
                        }
                    }
                }
                View::Dyn
            }
            Expr::Struct(s) => {
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        self.expr(&f.value);
                    }
                }
                View::Dyn
            }
            Expr::Literal(_) | Expr::Unspecified => View::Dyn,
        }
    }

    fn ident(&mut self, name: &str) -> View<'a> {
        let name = name.strip_prefix('.').unwrap_or(name);
        if let Some((_, view)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return view.clone();
        }
        match name {
            "self" => self.self_view.clone(),
            "oldSelf" => {
                self.uses_old_self = true;
                self.self_view.clone()
            }
            _ if TYPE_NAMES.contains(&name) || NAMESPACES.contains(&name) => View::Dyn,
            _ if is_reserved(name) => {
                self.problems.push(format!(
                    "`{name}` is reserved in CEL and cannot be a variable"
                ));
                View::Dyn
            }
            _ => {
                let bound: Vec<&str> = self.scopes.iter().map(|(n, _)| n.as_str()).collect();
                let candidates = ["self", "oldSelf"].into_iter().chain(bound);
                let hint = match closest(name, candidates) {
                    Some(c) => format!("; did you mean `{c}`?"),
                    None => String::new(),
                };
                self.problems.push(format!(
                    "unknown variable `{name}`: a CRD validation rule sees `self` (the value it is on) and `oldSelf` \
                     (that value before an update){hint}"
                ));
                View::Dyn
            }
        }
    }

    /// `operand.field`: `e` is the whole selection, `operand_expr` the operand.
    fn select(
        &mut self,
        operand: &View<'a>,
        field: &str,
        e: &IdedExpr,
        operand_expr: &IdedExpr,
    ) -> View<'a> {
        match operand {
            View::Object(object) => self.object_field(object, field, e),
            View::Named { ty, embedded } => {
                if !(*embedded && matches!(field, "apiVersion" | "kind" | "metadata")) {
                    self.foreign.push(Foreign {
                        ty,
                        name: unescape(field),
                        text: text(e),
                    });
                }
                View::Dyn
            }
            View::Map(value) => (**value).clone(),
            View::List(_) => {
                let list = text(operand_expr);
                self.problems.push(format!(
                    "`{}`: `{list}` is a list, which has no fields; read its items with a macro \
                     (`{list}.all(x, x.{field} ...)`) or an index (`{list}[0].{field}`)",
                    text(e)
                ));
                View::Dyn
            }
            View::Scalar(what) => {
                self.problems.push(format!(
                    "`{}`: `{}` is {what}, which has no fields",
                    text(e),
                    text(operand_expr)
                ));
                View::Dyn
            }
            View::Dyn | View::Hidden => View::Dyn,
        }
    }

    fn object_field(&mut self, object: &Object<'a>, field: &str, e: &IdedExpr) -> View<'a> {
        let cel_names: Vec<Option<String>> =
            object.fields.iter().map(|m| escape(&m.name)).collect();
        // A reserved word reads its escaped field too (the apiserver's
        // recognizeKeywordAsFieldName).
        let found = cel_names
            .iter()
            .position(|n| n.as_deref() == Some(field))
            .or_else(|| {
                is_reserved(field)
                    .then(|| object.fields.iter().position(|m| m.name == field))
                    .flatten()
            });
        let written = text(e);
        if let Some(i) = found {
            let member = &object.fields[i];
            if let View::Hidden = member.view {
                self.problems.push(format!(
                    "`{written}`: CEL cannot read `{}`, which holds any JSON (a `serde_json::Value` has no schema \
                     type, so the apiserver leaves it out of the rule's types); give the field a type",
                    member.name
                ));
                return View::Dyn;
            }
            return member.view.clone();
        }
        let embedded_meta = object.embedded && matches!(field, "apiVersion" | "kind" | "metadata");
        if object.open || embedded_meta {
            return View::Dyn;
        }
        // The serialized name, written where CEL wants its escaped form.
        if let Some((member, Some(escaped))) = object
            .fields
            .iter()
            .zip(&cel_names)
            .find(|(m, _)| m.name == field)
        {
            self.problems.push(format!(
                "`{written}`: in CEL the field `{}` is called `{escaped}` (Kubernetes escapes `__`, `.`, `-` \
                 and `/` in field names); write `{escaped}`",
                member.name
            ));
            return member.view.clone();
        }
        let by_rust_name = object
            .fields
            .iter()
            .zip(&cel_names)
            .find(|(m, _)| m.rust_name.as_deref() == Some(field));
        let names: Vec<&str> = cel_names.iter().flatten().map(String::as_str).collect();
        let hint = match (by_rust_name, closest(field, names.iter().copied())) {
            (Some((_, Some(escaped))), _) => {
                format!("; did you mean `{escaped}` (serde's name for `{field}`)?")
            }
            (_, Some(c)) => format!("; did you mean `{c}`?"),
            _ if names.is_empty() => {
                format!("; `{}` has no fields a rule can read", object.type_name)
            }
            _ => format!("; its fields are {}", names.join(", ")),
        };
        self.problems.push(format!(
            "`{written}`: `{}` has no field `{field}` (rules name fields by their serde names){hint}",
            object.type_name
        ));
        View::Dyn
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> View<'a> {
        if let Some(problem) = constant_pattern(call) {
            self.problems.push(problem);
        }
        let args = &call.args;
        match (call.func_name.as_str(), &call.target, args.as_slice()) {
            ("_?._", None, [operand_expr, field]) => {
                let operand = self.expr(operand_expr);
                if let Some(field) = literal_string(field) {
                    self.select(&operand, field, e, operand_expr);
                }
                View::Dyn
            }
            (op @ ("_[_]" | "_[?_]"), None, [target_expr, index]) => {
                let target = self.expr(target_expr);
                self.expr(index);
                match target {
                    View::List(item) | View::Map(item) if op == "_[_]" => *item,
                    View::Object(_) => {
                        self.problems.push(format!(
                            "`{}`: an object's fields are read as `.field`, not by index",
                            text(e)
                        ));
                        View::Dyn
                    }
                    _ => View::Dyn,
                }
            }
            (name, Some(target), _) if self.unknown_namespace(target) => {
                let Expr::Ident(namespace) = &target.expr else {
                    return View::Dyn;
                };
                self.problems.push(format!(
                    "unknown function `{namespace}.{name}`: Kubernetes' CEL environment for CRD rules has no \
                     `{namespace}` library"
                ));
                View::Dyn
            }
            (name, Some(range), [first, second, rest @ ..])
                if TWO_VAR_MACROS.contains(&name) && !rest.is_empty() =>
            {
                let (Expr::Ident(key), Expr::Ident(value)) = (&first.expr, &second.expr) else {
                    return self.walk_all(call);
                };
                let range_view = self.expr(range);
                let (key_view, value_view) = self.pair(&range_view, range);
                self.scopes.push((key.clone(), key_view));
                self.scopes.push((value.clone(), value_view));
                for arg in rest {
                    self.expr(arg);
                }
                self.scopes.truncate(self.scopes.len() - 2);
                View::Dyn
            }
            ("optMap" | "optFlatMap", Some(optional), [var, body]) => {
                // cel-go's optional macros: `var` holds the optional's value in `body`.
                let Expr::Ident(var) = &var.expr else {
                    return self.walk_all(call);
                };
                self.expr(optional);
                self.scopes.push((var.clone(), View::Dyn));
                self.expr(body);
                self.scopes.pop();
                View::Dyn
            }
            ("sortBy", Some(range), [var, key]) => {
                let Expr::Ident(var) = &var.expr else {
                    return self.walk_all(call);
                };
                let range_view = self.expr(range);
                let item = self.element(&range_view, range);
                self.scopes.push((var.clone(), item));
                self.expr(key);
                self.scopes.pop();
                range_view
            }
            _ => self.walk_all(call),
        }
    }

    /// A call target that is a free name but no variable or known namespace (`math.abs`,
    /// `cel.bind`): reported once as a missing library, not as variables.
    fn unknown_namespace(&self, target: &IdedExpr) -> bool {
        match &target.expr {
            Expr::Ident(name) => {
                let name = name.strip_prefix('.').unwrap_or(name);
                !matches!(name, "self" | "oldSelf")
                    && !self.scopes.iter().any(|(n, _)| n == name)
                    && !TYPE_NAMES.contains(&name)
                    && !NAMESPACES.contains(&name)
                    && !is_reserved(name)
            }
            _ => false,
        }
    }

    fn walk_all(&mut self, call: &cel::common::ast::CallExpr) -> View<'a> {
        if let Some(target) = &call.target {
            self.expr(target);
        }
        for arg in &call.args {
            self.expr(arg);
        }
        View::Dyn
    }

    /// What a one-variable macro's variable holds ranging over `range`: a list's items, a
    /// map's keys.
    fn element(&mut self, range: &View<'a>, range_expr: &IdedExpr) -> View<'a> {
        match range {
            View::List(item) => (**item).clone(),
            View::Map(_) => View::Scalar("a string"),
            _ => {
                self.check_iterable(range, range_expr);
                View::Dyn
            }
        }
    }

    /// What a two-variable macro's variables hold: a list's indexes and items, a map's keys
    /// and values.
    fn pair(&mut self, range: &View<'a>, range_expr: &IdedExpr) -> (View<'a>, View<'a>) {
        match range {
            View::List(item) => (View::Scalar("an integer"), (**item).clone()),
            View::Map(value) => (View::Scalar("a string"), (**value).clone()),
            _ => {
                self.check_iterable(range, range_expr);
                (View::Dyn, View::Dyn)
            }
        }
    }

    fn check_iterable(&mut self, range: &View<'a>, range_expr: &IdedExpr) {
        if matches!(range, View::Object(_) | View::Scalar(_)) {
            self.problems.push(format!(
                "`{}` is {}: macros such as `all`, `exists`, `map` and `filter` range over lists and maps",
                text(range_expr),
                range.describe()
            ));
        }
    }

    /// `all`, `exists`, `exists_one`, `map` and `filter` as the parser expands them.
    fn comprehension(&mut self, c: &ComprehensionExpr) -> View<'a> {
        let range = self.expr(&c.iter_range);
        let first = self.element(&range, &c.iter_range);
        self.expr(&c.accu_init);
        let depth = self.scopes.len();
        self.scopes.push((c.iter_var.clone(), first));
        if let Some(second) = &c.iter_var2 {
            self.scopes.push((second.clone(), View::Dyn));
        }
        self.scopes.push((c.accu_var.clone(), View::Dyn));
        self.expr(&c.loop_cond);
        self.expr(&c.loop_step);
        self.expr(&c.result);
        self.scopes.truncate(depth);
        View::Dyn
    }
}

/// How many calls of `name` the parsed expression keeps (macros the parser expanded are gone).
pub fn calls_named(e: &IdedExpr, name: &str) -> usize {
    let here = usize::from(matches!(&e.expr, Expr::Call(c) if c.func_name == name));
    let nested: usize = match &e.expr {
        Expr::Call(c) => {
            c.target.iter().map(|t| calls_named(t, name)).sum::<usize>()
                + c.args.iter().map(|a| calls_named(a, name)).sum::<usize>()
        }
        Expr::Select(s) => calls_named(&s.operand, name),
        Expr::Comprehension(c) => [
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ]
        .into_iter()
        .map(|x| calls_named(x, name))
        .sum(),
        Expr::List(l) => l.elements.iter().map(|x| calls_named(x, name)).sum(),
        Expr::Map(m) => m
            .entries
            .iter()
            .map(|entry| match &entry.expr {
                EntryExpr::MapEntry(m) => calls_named(&m.key, name) + calls_named(&m.value, name),
                EntryExpr::StructField(f) => calls_named(&f.value, name),
            })
            .sum(),
        Expr::Struct(st) => st
            .entries
            .iter()
            .map(|entry| match &entry.expr {
                EntryExpr::MapEntry(m) => calls_named(&m.key, name) + calls_named(&m.value, name),
                EntryExpr::StructField(f) => calls_named(&f.value, name),
            })
            .sum(),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => 0,
    };
    here + nested
}

/// What an expression certainly evaluates to ("an int", "a string", ...), when the derive can
/// tell without types: literals, operators, and the macros and functions of fixed result.
pub fn result_kind(e: &IdedExpr) -> Option<&'static str> {
    match &e.expr {
        Expr::Literal(l) => Some(match l {
            LiteralValue::Boolean(_) => "a bool",
            LiteralValue::Bytes(_) => "bytes",
            LiteralValue::Double(_) => "a double",
            LiteralValue::Int(_) => "an int",
            LiteralValue::Null => "null",
            LiteralValue::String(_) => "a string",
            LiteralValue::UInt(_) => "a uint",
        }),
        Expr::List(_) => Some("a list"),
        Expr::Map(_) => Some("a map"),
        Expr::Select(s) if s.test => Some("a bool"),
        Expr::Comprehension(c) => match &c.result.expr {
            Expr::Ident(name) if *name == c.accu_var => result_kind(&c.accu_init),
            _ => result_kind(&c.result),
        },
        Expr::Call(call) => match call.func_name.as_str() {
            "_==_"
            | "_!=_"
            | "_<_"
            | "_<=_"
            | "_>_"
            | "_>=_"
            | "_&&_"
            | "_||_"
            | "!_"
            | "@in"
            | "@not_strictly_false" => Some("a bool"),
            "_*_" | "_/_" | "_%_" | "-_" => Some("a number"),
            "_?_:_" if call.args.len() == 3 => {
                let (a, b) = (result_kind(&call.args[1]), result_kind(&call.args[2]));
                if a == b { a } else { None }
            }
            "size" => Some("an int"),
            "startsWith" | "endsWith" | "matches" | "isSorted" => Some("a bool"),
            "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "join"
                if call.target.is_some() =>
            {
                Some("a string")
            }
            "string" if call.target.is_none() => Some("a string"),
            "int" if call.target.is_none() => Some("an int"),
            "double" if call.target.is_none() => Some("a double"),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names() {
        let fields = ["replicas", "minAvailable", "color"];
        assert_eq!(closest("replica", fields), Some("replicas"));
        assert_eq!(closest("minavailable", fields), Some("minAvailable"));
        assert_eq!(closest("colour", fields), Some("color"));
        assert_eq!(closest("size", fields), None);
    }
}
