//! CEL types, and the overloads of every function the apiserver's CRD environment declares.
//!
//! The estimator needs a sub-expression's type where cel-go's does: whether a field selection
//! costs (on objects and maps), whether a value is a fixed-size scalar, a list's element type,
//! and which overloads a call may resolve to (the cost of `+` on strings and on integers
//! differs). The table lists the standard library, the extensions Kubernetes enables
//! (strings v2, sets, lists v3, two-variable comprehensions, optionals) and Kubernetes' own
//! libraries (lists, regex, URLs, quantities, IPs, CIDRs, formats, semver), with cel-go's
//! overload ids where the estimator reads them.

use std::sync::Arc;
use std::sync::OnceLock;

use super::decl::{Decl, DeclKind};

/// A CEL type as cel-go's checker records it for a sub-expression.
#[derive(Clone, Debug)]
pub(crate) enum Ty {
    /// `dyn`: known only at run time (int-or-string, `dyn()`, ambiguous overloads).
    Dyn,
    /// The element type of an empty literal, not yet bound (a type variable): `dyn` unless a
    /// later use binds it.
    Free,
    /// A type the estimator could not work out; treated as cautiously as possible.
    Unknown,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Arc<Ty>),
    Map(Arc<Ty>, Arc<Ty>),
    /// A schema object.
    Object(Arc<Decl>),
    /// An object type of a Kubernetes library (`kubernetes.Quantity`, ...).
    Named(&'static str),
    /// An opaque type (`net.IP`, `net.CIDR`).
    Opaque(&'static str),
    Optional(Arc<Ty>),
    Type(Arc<Ty>),
    /// A type parameter in an overload signature.
    Param(u8),
}

pub(crate) const QUANTITY: &str = "kubernetes.Quantity";
pub(crate) const URL: &str = "kubernetes.URL";
pub(crate) const SEMVER: &str = "kubernetes.Semver";
pub(crate) const FORMAT: &str = "kubernetes.NamedFormat";
pub(crate) const IP: &str = "net.IP";
pub(crate) const CIDR: &str = "net.CIDR";

impl Ty {
    pub(super) fn of_decl(decl: &Arc<Decl>) -> Ty {
        match &decl.kind {
            DeclKind::Bool => Ty::Bool,
            DeclKind::Int => Ty::Int,
            DeclKind::Double => Ty::Double,
            DeclKind::String => Ty::String,
            DeclKind::Bytes => Ty::Bytes,
            DeclKind::Duration => Ty::Duration,
            DeclKind::Timestamp => Ty::Timestamp,
            DeclKind::Dyn => Ty::Dyn,
            DeclKind::List(item) => Ty::List(Arc::new(Ty::of_decl(item))),
            DeclKind::Map(value) => Ty::Map(Arc::new(Ty::String), Arc::new(Ty::of_decl(value))),
            DeclKind::Object(_) => Ty::Object(decl.clone()),
        }
    }

    /// Whether cel-go charges a field selection on this type (maps, objects, type params).
    pub(super) fn select_costs(&self) -> bool {
        matches!(
            self,
            Ty::Map(..) | Ty::Object(_) | Ty::Named(_) | Ty::Unknown
        )
    }

    /// cel-go's `isScalar`: a type of fixed size.
    pub(super) fn is_scalar(&self) -> bool {
        match self {
            Ty::Bool | Ty::Double | Ty::Duration | Ty::Int | Ty::Timestamp | Ty::Uint => true,
            Ty::Optional(t) => t.is_scalar(),
            _ => false,
        }
    }

    /// Whether values of this type are dyn at run time (no static type).
    pub(super) fn is_dynamic(&self) -> bool {
        matches!(self, Ty::Dyn | Ty::Free | Ty::Unknown)
    }

    /// The type parameters (a list's element type, a map's key and value types).
    pub(super) fn params(&self) -> Vec<Ty> {
        match self {
            Ty::List(t) | Ty::Optional(t) | Ty::Type(t) => vec![(**t).clone()],
            Ty::Map(k, v) => vec![(**k).clone(), (**v).clone()],
            _ => Vec::new(),
        }
    }

    /// cel-go's exact type equality, as the Kubernetes estimator asks it of `==`'s operands.
    pub(super) fn same(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::List(a), Ty::List(b)) | (Ty::Optional(a), Ty::Optional(b)) => a.same(b),
            (Ty::Type(a), Ty::Type(b)) => a.same(b),
            (Ty::Map(a, b), Ty::Map(c, d)) => a.same(c) && b.same(d),
            (Ty::Object(a), Ty::Object(b)) => Arc::ptr_eq(a, b),
            (Ty::Named(a), Ty::Named(b)) | (Ty::Opaque(a), Ty::Opaque(b)) => a == b,
            (Ty::Param(a), Ty::Param(b)) => a == b,
            (Ty::Dyn | Ty::Free, Ty::Dyn | Ty::Free) => true,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }

    /// The more specific of two types a value may have (for list literals, the two branches
    /// of `?:`, and a fold's accumulator), or `None` when they cannot be reconciled.
    pub(super) fn join(&self, other: &Ty) -> Option<Ty> {
        Some(match (self, other) {
            (Ty::Free, t) | (t, Ty::Free) => t.clone(),
            (Ty::Null, t) | (t, Ty::Null) => t.clone(),
            (Ty::Unknown, _) | (_, Ty::Unknown) => Ty::Unknown,
            (Ty::Dyn, _) | (_, Ty::Dyn) => Ty::Dyn,
            (Ty::List(a), Ty::List(b)) => Ty::List(Arc::new(a.join(b)?)),
            (Ty::Optional(a), Ty::Optional(b)) => Ty::Optional(Arc::new(a.join(b)?)),
            (Ty::Type(a), Ty::Type(b)) => Ty::Type(Arc::new(a.join(b)?)),
            (Ty::Map(a, b), Ty::Map(c, d)) => Ty::Map(Arc::new(a.join(c)?), Arc::new(b.join(d)?)),
            (a, b) if a.same(b) => a.clone(),
            (Ty::Object(_), Ty::Object(_)) => Ty::Unknown,
            _ => return None,
        })
    }
}

/// One overload of a function.
#[derive(Debug)]
pub(crate) struct Overload {
    pub function: String,
    pub id: String,
    pub member: bool,
    pub params: Vec<Ty>,
    pub result: Ty,
}

const A: Ty = Ty::Param(0);
const B: Ty = Ty::Param(1);

fn list(t: Ty) -> Ty {
    Ty::List(Arc::new(t))
}

fn map(k: Ty, v: Ty) -> Ty {
    Ty::Map(Arc::new(k), Arc::new(v))
}

fn opt(t: Ty) -> Ty {
    Ty::Optional(Arc::new(t))
}

struct Table(Vec<Overload>);

impl Table {
    fn global(&mut self, function: &str, id: &str, params: Vec<Ty>, result: Ty) {
        self.0.push(Overload {
            function: function.into(),
            id: id.into(),
            member: false,
            params,
            result,
        });
    }

    fn member(&mut self, function: &str, id: &str, params: Vec<Ty>, result: Ty) {
        self.0.push(Overload {
            function: function.into(),
            id: id.into(),
            member: true,
            params,
            result,
        });
    }
}

/// `(cel-go name, type)` of the types cel-go's comparison-based library functions cover.
fn comparable() -> Vec<(&'static str, Ty)> {
    vec![
        ("int", Ty::Int),
        ("uint", Ty::Uint),
        ("double", Ty::Double),
        ("bool", Ty::Bool),
        ("duration", Ty::Duration),
        ("timestamp", Ty::Timestamp),
        ("string", Ty::String),
        ("bytes", Ty::Bytes),
    ]
}

fn standard(t: &mut Table) {
    use Ty::*;
    t.global("_?_:_", "conditional", vec![Bool, A, A], A);
    t.global("_&&_", "logical_and", vec![Bool, Bool], Bool);
    t.global("_||_", "logical_or", vec![Bool, Bool], Bool);
    t.global("!_", "logical_not", vec![Bool], Bool);
    t.global(
        "@not_strictly_false",
        "not_strictly_false",
        vec![Bool],
        Bool,
    );
    t.global("_==_", "equals", vec![A, A], Bool);
    t.global("_!=_", "not_equals", vec![A, A], Bool);
    t.global("_+_", "add_bytes", vec![Bytes, Bytes], Bytes);
    t.global("_+_", "add_double", vec![Double, Double], Double);
    t.global(
        "_+_",
        "add_duration_duration",
        vec![Duration, Duration],
        Duration,
    );
    t.global(
        "_+_",
        "add_duration_timestamp",
        vec![Duration, Timestamp],
        Timestamp,
    );
    t.global(
        "_+_",
        "add_timestamp_duration",
        vec![Timestamp, Duration],
        Timestamp,
    );
    t.global("_+_", "add_int64", vec![Int, Int], Int);
    t.global("_+_", "add_list", vec![list(A), list(A)], list(A));
    t.global("_+_", "add_string", vec![String, String], String);
    t.global("_+_", "add_uint64", vec![Uint, Uint], Uint);
    for (op, id) in [("_/_", "divide"), ("_*_", "multiply")] {
        t.global(op, &format!("{id}_double"), vec![Double, Double], Double);
        t.global(op, &format!("{id}_int64"), vec![Int, Int], Int);
        t.global(op, &format!("{id}_uint64"), vec![Uint, Uint], Uint);
    }
    t.global("_%_", "modulo_int64", vec![Int, Int], Int);
    t.global("_%_", "modulo_uint64", vec![Uint, Uint], Uint);
    t.global("-_", "negate_double", vec![Double], Double);
    t.global("-_", "negate_int64", vec![Int], Int);
    t.global("_-_", "subtract_double", vec![Double, Double], Double);
    t.global(
        "_-_",
        "subtract_duration_duration",
        vec![Duration, Duration],
        Duration,
    );
    t.global("_-_", "subtract_int64", vec![Int, Int], Int);
    t.global(
        "_-_",
        "subtract_timestamp_duration",
        vec![Timestamp, Duration],
        Timestamp,
    );
    t.global(
        "_-_",
        "subtract_timestamp_timestamp",
        vec![Timestamp, Timestamp],
        Duration,
    );
    t.global("_-_", "subtract_uint64", vec![Uint, Uint], Uint);
    for (op, id) in [
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ] {
        let pairs: [(&str, Ty, Ty); 14] = [
            ("bool", Bool, Bool),
            ("int64", Int, Int),
            ("int64_double", Int, Double),
            ("int64_uint64", Int, Uint),
            ("uint64", Uint, Uint),
            ("uint64_double", Uint, Double),
            ("uint64_int64", Uint, Int),
            ("double", Double, Double),
            ("double_int64", Double, Int),
            ("double_uint64", Double, Uint),
            ("string", String, String),
            ("bytes", Bytes, Bytes),
            ("timestamp", Timestamp, Timestamp),
            ("duration", Duration, Duration),
        ];
        for (suffix, l, r) in pairs {
            t.global(op, &format!("{id}_{suffix}"), vec![l, r], Bool);
        }
    }
    t.global("_[_]", "index_list", vec![list(A), Int], A);
    t.global("_[_]", "index_map", vec![map(A, B), A], B);
    t.global("@in", "in_list", vec![A, list(A)], Bool);
    t.global("@in", "in_map", vec![A, map(A, B)], Bool);
    t.global("size", "size_bytes", vec![Bytes], Int);
    t.member("size", "bytes_size", vec![Bytes], Int);
    t.global("size", "size_list", vec![list(A)], Int);
    t.member("size", "list_size", vec![list(A)], Int);
    t.global("size", "size_map", vec![map(A, B)], Int);
    t.member("size", "map_size", vec![map(A, B)], Int);
    t.global("size", "size_string", vec![String], Int);
    t.member("size", "string_size", vec![String], Int);
    t.global("type", "type", vec![A], Type(Arc::new(A)));
    t.global("bool", "bool_to_bool", vec![Bool], Bool);
    t.global("bool", "string_to_bool", vec![String], Bool);
    t.global("bytes", "bytes_to_bytes", vec![Bytes], Bytes);
    t.global("bytes", "string_to_bytes", vec![String], Bytes);
    t.global("double", "double_to_double", vec![Double], Double);
    t.global("double", "int64_to_double", vec![Int], Double);
    t.global("double", "string_to_double", vec![String], Double);
    t.global("double", "uint64_to_double", vec![Uint], Double);
    t.global("duration", "duration_to_duration", vec![Duration], Duration);
    t.global("duration", "int64_to_duration", vec![Int], Duration);
    t.global("duration", "string_to_duration", vec![String], Duration);
    t.global("dyn", "to_dyn", vec![A], Dyn);
    t.global("int", "int64_to_int64", vec![Int], Int);
    t.global("int", "double_to_int64", vec![Double], Int);
    t.global("int", "duration_to_int64", vec![Duration], Int);
    t.global("int", "string_to_int64", vec![String], Int);
    t.global("int", "timestamp_to_int64", vec![Timestamp], Int);
    t.global("int", "uint64_to_int64", vec![Uint], Int);
    t.global("string", "string_to_string", vec![String], String);
    t.global("string", "bool_to_string", vec![Bool], String);
    t.global("string", "bytes_to_string", vec![Bytes], String);
    t.global("string", "double_to_string", vec![Double], String);
    t.global("string", "duration_to_string", vec![Duration], String);
    t.global("string", "int64_to_string", vec![Int], String);
    t.global("string", "timestamp_to_string", vec![Timestamp], String);
    t.global("string", "uint64_to_string", vec![Uint], String);
    t.global(
        "timestamp",
        "timestamp_to_timestamp",
        vec![Timestamp],
        Timestamp,
    );
    t.global("timestamp", "int64_to_timestamp", vec![Int], Timestamp);
    t.global("timestamp", "string_to_timestamp", vec![String], Timestamp);
    t.global("uint", "uint64_to_uint64", vec![Uint], Uint);
    t.global("uint", "double_to_uint64", vec![Double], Uint);
    t.global("uint", "int64_to_uint64", vec![Int], Uint);
    t.global("uint", "string_to_uint64", vec![String], Uint);
    t.member("contains", "contains_string", vec![String, String], Bool);
    t.member("endsWith", "ends_with_string", vec![String, String], Bool);
    t.member(
        "startsWith",
        "starts_with_string",
        vec![String, String],
        Bool,
    );
    t.global("matches", "matches", vec![String, String], Bool);
    t.member("matches", "matches_string", vec![String, String], Bool);
    for f in [
        "getDate",
        "getDayOfMonth",
        "getDayOfWeek",
        "getDayOfYear",
        "getFullYear",
        "getMonth",
    ] {
        t.member(f, &format!("timestamp_{f}"), vec![Timestamp], Int);
        t.member(
            f,
            &format!("timestamp_{f}_with_tz"),
            vec![Timestamp, String],
            Int,
        );
    }
    for f in ["getHours", "getMilliseconds", "getMinutes", "getSeconds"] {
        t.member(f, &format!("timestamp_{f}"), vec![Timestamp], Int);
        t.member(
            f,
            &format!("timestamp_{f}_with_tz"),
            vec![Timestamp, String],
            Int,
        );
        t.member(f, &format!("duration_{f}"), vec![Duration], Int);
    }
    // Optional types.
    t.global("optional.of", "optional_of", vec![A], opt(A));
    t.global(
        "optional.ofNonZeroValue",
        "optional_ofNonZeroValue",
        vec![A],
        opt(A),
    );
    t.global("optional.none", "optional_none", vec![], opt(Dyn));
    t.member("value", "optional_value", vec![opt(A)], A);
    t.member("hasValue", "optional_hasValue", vec![opt(A)], Bool);
    t.member("or", "optional_or_optional", vec![opt(A), opt(A)], opt(A));
    t.member("orValue", "optional_orValue_value", vec![opt(A), A], A);
    t.global(
        "_[?_]",
        "list_optindex_optional_int",
        vec![list(A), Int],
        opt(A),
    );
    t.global(
        "_[?_]",
        "map_optindex_optional_value",
        vec![map(A, B), A],
        opt(B),
    );
    t.global(
        "_[?_]",
        "optional_list_optindex_optional_int",
        vec![opt(list(A)), Int],
        opt(A),
    );
    t.global(
        "_[?_]",
        "optional_map_optindex_optional_value",
        vec![opt(map(A, B)), A],
        opt(B),
    );
    t.global(
        "_[_]",
        "optional_list_index_int",
        vec![opt(list(A)), Int],
        opt(A),
    );
    t.global(
        "_[_]",
        "optional_map_index_value",
        vec![opt(map(A, B)), A],
        opt(B),
    );
}

fn extensions(t: &mut Table) {
    use Ty::*;
    // Strings, version 2.
    t.member("charAt", "string_char_at_int", vec![String, Int], String);
    t.member(
        "indexOf",
        "string_index_of_string",
        vec![String, String],
        Int,
    );
    t.member(
        "indexOf",
        "string_index_of_string_int",
        vec![String, String, Int],
        Int,
    );
    t.member(
        "lastIndexOf",
        "string_last_index_of_string",
        vec![String, String],
        Int,
    );
    t.member(
        "lastIndexOf",
        "string_last_index_of_string_int",
        vec![String, String, Int],
        Int,
    );
    t.member("lowerAscii", "string_lower_ascii", vec![String], String);
    t.member(
        "replace",
        "string_replace_string_string",
        vec![String, String, String],
        String,
    );
    t.member(
        "replace",
        "string_replace_string_string_int",
        vec![String, String, String, Int],
        String,
    );
    t.member(
        "split",
        "string_split_string",
        vec![String, String],
        list(String),
    );
    t.member(
        "split",
        "string_split_string_int",
        vec![String, String, Int],
        list(String),
    );
    t.member(
        "substring",
        "string_substring_int",
        vec![String, Int],
        String,
    );
    t.member(
        "substring",
        "string_substring_int_int",
        vec![String, Int, Int],
        String,
    );
    t.member("trim", "string_trim", vec![String], String);
    t.member("upperAscii", "string_upper_ascii", vec![String], String);
    t.member("format", "string_format", vec![String, list(Dyn)], String);
    t.global("strings.quote", "strings_quote", vec![String], String);
    t.member("join", "list_join", vec![list(String)], String);
    t.member(
        "join",
        "list_join_string",
        vec![list(String), String],
        String,
    );
    // Sets.
    for f in ["contains", "equivalent", "intersects"] {
        t.global(
            &format!("sets.{f}"),
            &format!("list_sets_{f}_list"),
            vec![list(A), list(A)],
            Bool,
        );
    }
    // Lists, version 3.
    t.member("slice", "list_slice", vec![list(A), Int, Int], list(A));
    t.member("flatten", "list_flatten", vec![list(list(A))], list(A));
    t.member(
        "flatten",
        "list_flatten_int",
        vec![list(Dyn), Int],
        list(Dyn),
    );
    for (name, ty) in comparable() {
        t.member(
            "sort",
            &format!("list_{name}_sort"),
            vec![list(ty.clone())],
            list(ty.clone()),
        );
        t.member(
            "@sortByAssociatedKeys",
            &format!("list_{name}_sortByAssociatedKeys"),
            vec![list(A), list(ty)],
            list(A),
        );
    }
    t.global("lists.range", "lists_range", vec![Int], list(Int));
    t.member("reverse", "list_reverse", vec![list(A)], list(A));
    t.member("distinct", "list_distinct", vec![list(A)], list(A));
    // Two-variable comprehensions.
    t.global(
        "cel.@mapInsert",
        "@mapInsert_map_key_value",
        vec![map(A, B), A, B],
        map(A, B),
    );
    t.global(
        "cel.@mapInsert",
        "@mapInsert_map_map",
        vec![map(A, B), map(A, B)],
        map(A, B),
    );
}

fn kubernetes(t: &mut Table) {
    use Ty::*;
    let quantity = Named(QUANTITY);
    let url = Named(URL);
    let semver = Named(SEMVER);
    let format = Named(FORMAT);
    let ip = Opaque(IP);
    let cidr = Opaque(CIDR);
    // Lists.
    for (name, ty) in comparable() {
        t.member(
            "isSorted",
            &format!("list_{name}_is_sorted_bool"),
            vec![list(ty.clone())],
            Bool,
        );
    }
    for (name, ty) in comparable()
        .into_iter()
        .take(3)
        .chain([("duration", Duration)])
    {
        t.member(
            "sum",
            &format!("list_{name}_sum_{name}"),
            vec![list(ty.clone())],
            ty,
        );
    }
    for f in ["max", "min"] {
        for (name, ty) in comparable() {
            t.member(
                f,
                &format!("list_{name}_{f}_{name}"),
                vec![list(ty.clone())],
                ty,
            );
        }
    }
    t.member("indexOf", "list_a_index_of_int", vec![list(A), A], Int);
    t.member(
        "lastIndexOf",
        "list_a_last_index_of_int",
        vec![list(A), A],
        Int,
    );
    // Regex.
    t.member("find", "string_find_string", vec![String, String], String);
    t.member(
        "findAll",
        "string_find_all_string",
        vec![String, String],
        list(String),
    );
    t.member(
        "findAll",
        "string_find_all_string_int",
        vec![String, String, Int],
        list(String),
    );
    // URLs.
    t.global("url", "string_to_url", vec![String], url.clone());
    for (f, id) in [
        ("getScheme", "url_get_scheme"),
        ("getHost", "url_get_host"),
        ("getHostname", "url_get_hostname"),
        ("getPort", "url_get_port"),
        ("getEscapedPath", "url_get_escaped_path"),
    ] {
        t.member(f, id, vec![url.clone()], String);
    }
    t.member(
        "getQuery",
        "url_get_query",
        vec![url.clone()],
        map(String, list(String)),
    );
    t.global("isURL", "is_url_string", vec![String], Bool);
    // Quantities.
    t.global(
        "quantity",
        "string_to_quantity",
        vec![String],
        quantity.clone(),
    );
    t.global("isQuantity", "is_quantity_string", vec![String], Bool);
    t.global("sign", "quantity_sign", vec![quantity.clone()], Int);
    let q2 = || vec![quantity.clone(), quantity.clone()];
    t.member("isGreaterThan", "quantity_is_greater_than", q2(), Bool);
    t.member("isLessThan", "quantity_is_less_than", q2(), Bool);
    t.member("compareTo", "quantity_compare_to", q2(), Int);
    t.member(
        "asApproximateFloat",
        "quantity_get_float",
        vec![quantity.clone()],
        Double,
    );
    t.member("asInteger", "quantity_get_int", vec![quantity.clone()], Int);
    t.member(
        "isInteger",
        "quantity_is_integer",
        vec![quantity.clone()],
        Bool,
    );
    t.member("add", "quantity_add", q2(), quantity.clone());
    t.member(
        "add",
        "quantity_add_int",
        vec![quantity.clone(), Int],
        quantity.clone(),
    );
    t.member("sub", "quantity_sub", q2(), quantity.clone());
    t.member(
        "sub",
        "quantity_sub_int",
        vec![quantity.clone(), Int],
        quantity.clone(),
    );
    // IPs and CIDRs.
    t.global("ip", "string_to_ip", vec![String], ip.clone());
    t.member("family", "ip_family", vec![ip.clone()], Int);
    t.global("ip.isCanonical", "ip_is_canonical", vec![String], Bool);
    for (f, id) in [
        ("isUnspecified", "ip_is_unspecified"),
        ("isLoopback", "ip_is_loopback"),
        ("isLinkLocalMulticast", "ip_is_link_local_multicast"),
        ("isLinkLocalUnicast", "ip_is_link_local_unicast"),
        ("isGlobalUnicast", "ip_is_global_unicast"),
    ] {
        t.member(f, id, vec![ip.clone()], Bool);
    }
    t.global("isIP", "is_ip", vec![String], Bool);
    t.global("string", "ip_to_string", vec![ip.clone()], String);
    t.global("cidr", "string_to_cidr", vec![String], cidr.clone());
    t.member(
        "containsIP",
        "cidr_contains_ip_string",
        vec![cidr.clone(), String],
        Bool,
    );
    t.member(
        "containsIP",
        "cidr_contains_ip_ip",
        vec![cidr.clone(), ip.clone()],
        Bool,
    );
    t.member(
        "containsCIDR",
        "cidr_contains_cidr_string",
        vec![cidr.clone(), String],
        Bool,
    );
    t.member(
        "containsCIDR",
        "cidr_contains_cidr",
        vec![cidr.clone(), cidr.clone()],
        Bool,
    );
    t.member("ip", "cidr_ip", vec![cidr.clone()], ip);
    t.member(
        "prefixLength",
        "cidr_prefix_length",
        vec![cidr.clone()],
        Int,
    );
    t.member("masked", "cidr_masked", vec![cidr.clone()], cidr.clone());
    t.global("isCIDR", "is_cidr", vec![String], Bool);
    t.global("string", "cidr_to_string", vec![cidr], String);
    // Formats.
    t.member(
        "validate",
        "format-validate",
        vec![format.clone(), String],
        opt(list(String)),
    );
    t.global(
        "format.named",
        "format-named",
        vec![String],
        opt(format.clone()),
    );
    for name in [
        "dns1123Label",
        "dns1123Subdomain",
        "dns1035Label",
        "qualifiedName",
        "dns1123LabelPrefix",
        "dns1123SubdomainPrefix",
        "dns1035LabelPrefix",
        "labelValue",
        "uri",
        "uuid",
        "byte",
        "date",
        "datetime",
    ] {
        let f = format!("format.{name}");
        t.global(&f, &f, vec![], format.clone());
    }
    // Semver.
    t.global("semver", "string_to_semver", vec![String], semver.clone());
    t.global(
        "semver",
        "string_bool_to_semver",
        vec![String, Bool],
        semver.clone(),
    );
    t.global("isSemver", "is_semver_string", vec![String], Bool);
    t.global(
        "isSemver",
        "is_semver_string_bool",
        vec![String, Bool],
        Bool,
    );
    let s2 = || vec![semver.clone(), semver.clone()];
    t.member("isGreaterThan", "semver_is_greater_than", s2(), Bool);
    t.member("isLessThan", "semver_is_less_than", s2(), Bool);
    t.member("compareTo", "semver_compare_to", s2(), Int);
    t.member("major", "semver_major", vec![semver.clone()], Int);
    t.member("minor", "semver_minor", vec![semver.clone()], Int);
    t.member("patch", "semver_patch", vec![semver], Int);
}

/// Every overload of the CRD validation environment.
pub(crate) fn overloads() -> &'static [Overload] {
    static TABLE: OnceLock<Vec<Overload>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Table(Vec::new());
        standard(&mut t);
        extensions(&mut t);
        kubernetes(&mut t);
        t.0
    })
}

/// Type-parameter bindings while matching one overload.
#[derive(Default)]
pub(crate) struct Bindings([Option<Ty>; 2]);

impl Bindings {
    /// Whether a value of type `arg` may be passed where `param` is declared.
    pub(super) fn assign(&mut self, param: &Ty, arg: &Ty) -> bool {
        if let Ty::Param(i) = param {
            let slot = &mut self.0[usize::from(*i)];
            return match slot.take() {
                None => {
                    *slot = Some(arg.clone());
                    true
                }
                Some(bound) => match bound.join(arg) {
                    Some(joined) => {
                        *slot = Some(joined);
                        true
                    }
                    None => {
                        *slot = Some(bound);
                        false
                    }
                },
            };
        }
        match (param, arg) {
            (Ty::Dyn, _) => true,
            (_, Ty::Dyn | Ty::Free | Ty::Unknown) => {
                // A dynamic argument fits any parameter; it binds nothing.
                true
            }
            (Ty::List(p), Ty::List(a)) => self.assign(p, a),
            (Ty::Optional(p), Ty::Optional(a)) => self.assign(p, a),
            (Ty::Type(p), Ty::Type(a)) => self.assign(p, a),
            (Ty::Map(pk, pv), Ty::Map(ak, av)) => self.assign(pk, ak) && self.assign(pv, av),
            (Ty::Named(p), Ty::Named(a)) | (Ty::Opaque(p), Ty::Opaque(a)) => p == a,
            (_, Ty::Null) => !param.is_scalar() && !matches!(param, Ty::String | Ty::Bytes),
            (p, a) => std::mem::discriminant(p) == std::mem::discriminant(a),
        }
    }

    /// `t` with the bound parameters substituted (unbound ones become `dyn`).
    pub(super) fn substitute(&self, t: &Ty) -> Ty {
        match t {
            Ty::Param(i) => match &self.0[usize::from(*i)] {
                Some(Ty::Free) | None => Ty::Dyn,
                Some(b) => b.clone(),
            },
            Ty::List(e) => Ty::List(Arc::new(self.substitute(e))),
            Ty::Optional(e) => Ty::Optional(Arc::new(self.substitute(e))),
            Ty::Type(e) => Ty::Type(Arc::new(self.substitute(e))),
            Ty::Map(k, v) => Ty::Map(Arc::new(self.substitute(k)), Arc::new(self.substitute(v))),
            other => other.clone(),
        }
    }
}
