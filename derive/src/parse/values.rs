//! Small `FromMeta` value types shared by the attribute models.

use darling::FromMeta;
use darling::ast::NestedMeta;
use syn::{Expr, ExprLit, ExprUnary, Lit, UnOp};

/// A number literal, possibly negative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

fn lit_number(lit: &Lit, negate: bool) -> darling::Result<Number> {
    let sign = if negate { -1 } else { 1 };
    match lit {
        Lit::Int(i) => i
            .base10_parse::<i64>()
            .map(|v| Number::Int(sign * v))
            .map_err(|e| darling::Error::custom(e).with_span(lit)),
        Lit::Float(f) => f
            .base10_parse::<f64>()
            .map(|v| Number::Float(sign as f64 * v))
            .map_err(|e| darling::Error::custom(e).with_span(lit)),
        _ => Err(darling::Error::custom("expected a number, e.g. `0` or `0.5`").with_span(lit)),
    }
}

impl FromMeta for Number {
    fn from_value(value: &Lit) -> darling::Result<Self> {
        lit_number(value, false)
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(ExprLit { lit, .. }) => lit_number(lit, false),
            Expr::Unary(ExprUnary {
                op: UnOp::Neg(_),
                expr,
                ..
            }) => match &**expr {
                Expr::Lit(ExprLit { lit, .. }) => lit_number(lit, true),
                other => Err(darling::Error::custom("expected a number").with_span(other)),
            },
            Expr::Group(g) => Self::from_expr(&g.expr),
            other => {
                Err(darling::Error::custom("expected a number, e.g. `0` or `0.5`").with_span(other))
            }
        }
    }
}

/// A literal of any JSON scalar kind (`example = ...`).
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Number(Number),
    Str(String),
    Bool(bool),
}

impl FromMeta for Scalar {
    fn from_value(value: &Lit) -> darling::Result<Self> {
        match value {
            Lit::Str(s) => Ok(Scalar::Str(s.value())),
            Lit::Bool(b) => Ok(Scalar::Bool(b.value)),
            other => lit_number(other, false).map(Scalar::Number),
        }
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(ExprLit { lit, .. }) => Self::from_value(lit),
            other => Number::from_expr(other).map(Scalar::Number),
        }
    }
}

/// An expression taken as written (darling would parse a string literal as code).
#[derive(Clone, Debug)]
pub struct RawExpr(pub Expr);

impl FromMeta for RawExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(RawExpr(expr.clone()))
    }

    fn from_value(value: &Lit) -> darling::Result<Self> {
        Ok(RawExpr(Expr::Lit(ExprLit {
            attrs: Vec::new(),
            lit: value.clone(),
        })))
    }
}

/// A list of strings: `["a", "b"]`, `("a", "b")` or a single `"a"`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StrList(pub Vec<String>);

impl FromMeta for StrList {
    fn from_value(value: &Lit) -> darling::Result<Self> {
        String::from_value(value).map(|s| StrList(vec![s]))
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Array(array) => {
                let mut out = Vec::new();
                let mut errors = darling::Error::accumulator();
                for e in &array.elems {
                    if let Some(s) = errors.handle(String::from_expr(e)) {
                        out.push(s);
                    }
                }
                errors.finish_with(StrList(out))
            }
            Expr::Lit(ExprLit { lit, .. }) => Self::from_value(lit),
            other => Err(
                darling::Error::custom("expected a list of strings, e.g. `[\"name\"]`")
                    .with_span(other),
            ),
        }
    }

    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        items
            .iter()
            .map(|item| match item {
                NestedMeta::Lit(lit) => String::from_value(lit),
                other => Err(darling::Error::custom("expected a string").with_span(other)),
            })
            .collect::<darling::Result<Vec<_>>>()
            .map(StrList)
    }
}

/// A type, written as a path (`status = CronJobStatus`) or a string (`status = "CronJobStatus"`),
/// keeping the span of what the user wrote so "cannot find type" errors point at it.
#[derive(Clone, Debug)]
pub struct TypeRef(pub syn::Type);

impl FromMeta for TypeRef {
    fn from_value(value: &Lit) -> darling::Result<Self> {
        match value {
            Lit::Str(s) => s
                .parse::<syn::Type>()
                .map(TypeRef)
                .map_err(|e| darling::Error::from(e).with_span(s)),
            other => Err(
                darling::Error::custom("expected a type, e.g. `CronJobStatus`").with_span(other),
            ),
        }
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Path(p) => syn::parse2::<syn::Type>(quote::ToTokens::to_token_stream(p))
                .map(TypeRef)
                .map_err(|e| darling::Error::from(e).with_span(p)),
            Expr::Lit(ExprLit { lit, .. }) => Self::from_value(lit),
            other => Err(
                darling::Error::custom("expected a type, e.g. `CronJobStatus`").with_span(other),
            ),
        }
    }
}

/// `deprecated`, `deprecated = "warning"` or `deprecated(warning = "...")`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Deprecated {
    pub warning: Option<String>,
}

impl FromMeta for Deprecated {
    fn from_word() -> darling::Result<Self> {
        Ok(Deprecated::default())
    }

    fn from_string(value: &str) -> darling::Result<Self> {
        Ok(Deprecated {
            warning: Some(value.to_owned()),
        })
    }

    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        #[derive(FromMeta)]
        struct Inner {
            warning: Option<String>,
        }
        Inner::from_list(items).map(|i| Deprecated { warning: i.warning })
    }
}

/// `label("key", "value")`: two strings, for keys that are not Rust paths.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyValue {
    pub key: String,
    pub value: String,
}

impl FromMeta for KeyValue {
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let strings = StrList::from_list(items)?.0;
        match <[String; 2]>::try_from(strings) {
            Ok([key, value]) => Ok(KeyValue { key, value }),
            Err(_) => Err(darling::Error::custom(
                "expected two strings: (\"key\", \"value\")",
            )),
        }
    }
}
