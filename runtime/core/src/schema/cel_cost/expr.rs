//! CEL expressions in the shape cel-go's checker sees them.
//!
//! Rules are parsed by the `cel` crate (through `kube_cel`), which expands the standard macros
//! (`has`, `all`, `exists`, `exists_one`, `map`, `filter`) exactly as cel-go does. This module
//! copies its tree into one the estimator owns, with ids of its own, and expands what the `cel`
//! crate leaves as plain calls but the apiserver's environment treats as macros or qualified
//! names: the two-variable comprehensions (`all(k, v, ...)`, `transformList`, ...), `sortBy`,
//! `optMap`/`optFlatMap`, and namespaced functions (`optional.of`, `sets.contains`,
//! `strings.quote`, `lists.range`, `format.named`, `format.dns1123Label`, ...). `cel.bind` is
//! not expanded: the apiserver's CRD environment does not include cel-go's bindings extension.

use kube_cel::cel::common::ast::{self as cel_ast, EntryExpr, LiteralValue};

/// An expression id, unique within one [`Ast`].
pub(crate) type Id = usize;

/// A literal value, with what the estimator needs of it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lit {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    /// A string and its length in code points.
    String(String),
    /// The length of a bytes literal.
    Bytes(usize),
    Null,
}

/// One expression node.
#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub id: Id,
    pub kind: Kind,
}

/// The kinds of expression cel-go's AST has.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Lit(Lit),
    Ident(String),
    Select {
        operand: Box<Expr>,
        field: String,
        test: bool,
    },
    Call {
        func: String,
        target: Option<Box<Expr>>,
        args: Vec<Expr>,
    },
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    Struct(Vec<Expr>),
    Comprehension(Box<Comprehension>),
}

/// A fold, as macros expand to.
#[derive(Clone, Debug)]
pub(crate) struct Comprehension {
    pub range: Expr,
    pub iter_var: String,
    pub iter_var2: Option<String>,
    pub accu_var: String,
    pub accu_init: Expr,
    pub cond: Expr,
    pub step: Expr,
    pub result: Expr,
}

/// The accumulator name of the standard macros (cel-go's hidden accumulator).
pub(crate) const ACCUMULATOR: &str = "@result";
/// cel-go's older accumulator name; `cel.bind` is recognised by its accumulator not being it.
pub(crate) const LEGACY_ACCUMULATOR: &str = "__result__";

/// Namespaces whose `ns.fn(...)` calls are functions, not member calls on a variable.
const NAMESPACES: &[&str] = &[
    "cel", "optional", "strings", "sets", "lists", "format", "ip",
];

/// A parsed expression and the number of ids it uses.
#[derive(Debug)]
pub(crate) struct Ast {
    pub root: Expr,
    pub ids: usize,
}

/// Why an expression could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseFailure(pub String);

/// Parses `source` with the `cel` crate and converts it.
pub(crate) fn parse(source: &str) -> Result<Ast, ParseFailure> {
    let parsed = kube_cel::cel::parser::Parser::new()
        .enable_optional_syntax(true)
        .parse(source)
        .map_err(|e| ParseFailure(e.to_string()))?;
    let mut builder = Builder { next: 0 };
    let root = builder.convert(&parsed)?;
    Ok(Ast {
        root,
        ids: builder.next,
    })
}

struct Builder {
    next: Id,
}

impl Builder {
    fn node(&mut self, kind: Kind) -> Expr {
        let id = self.next;
        self.next += 1;
        Expr { id, kind }
    }

    fn ident(&mut self, name: &str) -> Expr {
        self.node(Kind::Ident(name.into()))
    }

    fn lit(&mut self, lit: Lit) -> Expr {
        self.node(Kind::Lit(lit))
    }

    fn call(&mut self, func: &str, target: Option<Expr>, args: Vec<Expr>) -> Expr {
        self.node(Kind::Call {
            func: func.into(),
            target: target.map(Box::new),
            args,
        })
    }

    /// A deep copy with fresh ids, as cel-go's `MacroExprFactory.Copy`.
    fn copy(&mut self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            Kind::Lit(l) => Kind::Lit(l.clone()),
            Kind::Ident(n) => Kind::Ident(n.clone()),
            Kind::Select {
                operand,
                field,
                test,
            } => Kind::Select {
                operand: Box::new(self.copy(operand)),
                field: field.clone(),
                test: *test,
            },
            Kind::Call { func, target, args } => Kind::Call {
                func: func.clone(),
                target: target.as_ref().map(|t| Box::new(self.copy(t))),
                args: args.iter().map(|a| self.copy(a)).collect(),
            },
            Kind::List(items) => Kind::List(items.iter().map(|a| self.copy(a)).collect()),
            Kind::Map(entries) => Kind::Map(
                entries
                    .iter()
                    .map(|(k, v)| (self.copy(k), self.copy(v)))
                    .collect(),
            ),
            Kind::Struct(values) => Kind::Struct(values.iter().map(|a| self.copy(a)).collect()),
            Kind::Comprehension(c) => Kind::Comprehension(Box::new(Comprehension {
                range: self.copy(&c.range),
                iter_var: c.iter_var.clone(),
                iter_var2: c.iter_var2.clone(),
                accu_var: c.accu_var.clone(),
                accu_init: self.copy(&c.accu_init),
                cond: self.copy(&c.cond),
                step: self.copy(&c.step),
                result: self.copy(&c.result),
            })),
        };
        self.node(kind)
    }

    fn convert(&mut self, e: &cel_ast::IdedExpr) -> Result<Expr, ParseFailure> {
        use cel_ast::Expr as E;
        Ok(match &e.expr {
            E::Unspecified => return Err(ParseFailure("an empty expression".into())),
            E::Literal(l) => self.lit(match l {
                LiteralValue::Boolean(b) => Lit::Bool(*b.inner()),
                LiteralValue::Int(i) => Lit::Int(*i.inner()),
                LiteralValue::UInt(u) => Lit::Uint(*u.inner()),
                LiteralValue::Double(d) => Lit::Double(*d.inner()),
                LiteralValue::String(s) => Lit::String(s.inner().to_owned()),
                LiteralValue::Bytes(b) => Lit::Bytes(b.inner().len()),
                LiteralValue::Null => Lit::Null,
            }),
            E::Ident(name) => self.ident(name),
            E::Select(s) => {
                let operand = self.convert(&s.operand)?;
                self.node(Kind::Select {
                    operand: Box::new(operand),
                    field: s.field.clone(),
                    test: s.test,
                })
            }
            E::List(l) => {
                let items = l
                    .elements
                    .iter()
                    .map(|i| self.convert(i))
                    .collect::<Result<_, _>>()?;
                self.node(Kind::List(items))
            }
            E::Map(m) => {
                let mut entries = Vec::new();
                for entry in &m.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(me) => {
                            entries.push((self.convert(&me.key)?, self.convert(&me.value)?))
                        }
                        EntryExpr::StructField(_) => {
                            return Err(ParseFailure("a struct field in a map".into()));
                        }
                    }
                }
                self.node(Kind::Map(entries))
            }
            E::Struct(s) => {
                let mut values = Vec::new();
                for entry in &s.entries {
                    match &entry.expr {
                        EntryExpr::StructField(f) => values.push(self.convert(&f.value)?),
                        EntryExpr::MapEntry(me) => values.push(self.convert(&me.value)?),
                    }
                }
                self.node(Kind::Struct(values))
            }
            E::Comprehension(c) => {
                let range = self.convert(&c.iter_range)?;
                let accu_init = self.convert(&c.accu_init)?;
                let cond = self.convert(&c.loop_cond)?;
                let step = self.convert(&c.loop_step)?;
                let result = self.convert(&c.result)?;
                self.node(Kind::Comprehension(Box::new(Comprehension {
                    range,
                    iter_var: c.iter_var.clone(),
                    iter_var2: c.iter_var2.clone(),
                    accu_var: c.accu_var.clone(),
                    accu_init,
                    cond,
                    step,
                    result,
                })))
            }
            E::Call(call) => self.convert_call(call)?,
        })
    }

    fn convert_call(&mut self, call: &cel_ast::CallExpr) -> Result<Expr, ParseFailure> {
        let name = call.func_name.as_str();
        let ident_arg = |i: usize| match call.args.get(i).map(|a| &a.expr) {
            Some(cel_ast::Expr::Ident(n)) => Some(n.clone()),
            _ => None,
        };
        if let Some(target) = &call.target {
            // `ns.fn(...)`: a namespaced function.
            if let cel_ast::Expr::Ident(ns) = &target.expr
                && NAMESPACES.contains(&ns.as_str())
            {
                // `cel.bind` is not among them: the apiserver's environment has no bindings
                // extension, so it stays an unknown function.
                let qualified = format!("{ns}.{name}");
                let args = self.convert_all(&call.args)?;
                return Ok(self.call(&qualified, None, args));
            }
            let two_vars = matches!(
                name,
                "all"
                    | "exists"
                    | "existsOne"
                    | "exists_one"
                    | "transformList"
                    | "transformMap"
                    | "transformMapEntry"
            );
            let arity_fits = match name {
                "transformList" | "transformMap" | "transformMapEntry" => {
                    call.args.len() == 3 || call.args.len() == 4
                }
                _ => call.args.len() == 3,
            };
            if two_vars && arity_fits {
                let (Some(k), Some(v)) = (ident_arg(0), ident_arg(1)) else {
                    return Err(ParseFailure(format!(
                        "{name}() variable names must be simple identifiers"
                    )));
                };
                let range = self.convert(target)?;
                let rest = self.convert_all(&call.args[2..])?;
                return Ok(self.two_var(name, range, k, v, rest));
            }
            if (name == "optMap" || name == "optFlatMap") && call.args.len() == 2 {
                let var = ident_arg(0).ok_or_else(|| {
                    ParseFailure(format!(
                        "{name}() variable name must be a simple identifier"
                    ))
                })?;
                let target = self.convert(target)?;
                let body = self.convert(&call.args[1])?;
                return Ok(self.opt_map(name == "optMap", target, &var, body));
            }
            if name == "sortBy" && call.args.len() == 2 {
                let var = ident_arg(0).ok_or_else(|| {
                    ParseFailure("sortBy() variable name must be a simple identifier".into())
                })?;
                let target = self.convert(target)?;
                let key = self.convert(&call.args[1])?;
                return Ok(self.sort_by(target, &var, key));
            }
            let target = self.convert(target)?;
            let args = self.convert_all(&call.args)?;
            return Ok(self.call(name, Some(target), args));
        }
        let args = self.convert_all(&call.args)?;
        Ok(self.call(name, None, args))
    }

    fn convert_all(&mut self, args: &[cel_ast::IdedExpr]) -> Result<Vec<Expr>, ParseFailure> {
        args.iter().map(|a| self.convert(a)).collect()
    }

    /// cel-go's bind: a fold over an empty list whose accumulator is the variable.
    fn bind(&mut self, var: &str, init: Expr, body: Expr) -> Expr {
        let range = self.node(Kind::List(Vec::new()));
        let cond = self.lit(Lit::Bool(false));
        let step = self.ident(var);
        self.node(Kind::Comprehension(Box::new(Comprehension {
            range,
            iter_var: "#unused".into(),
            iter_var2: None,
            accu_var: var.into(),
            accu_init: init,
            cond,
            step,
            result: body,
        })))
    }

    fn two_var(
        &mut self,
        name: &str,
        range: Expr,
        k: String,
        v: String,
        mut rest: Vec<Expr>,
    ) -> Expr {
        let accu = |b: &mut Self| b.ident(ACCUMULATOR);
        let (init, cond, step, result) = match name {
            "all" | "exists" => {
                let all = name == "all";
                let init = self.lit(Lit::Bool(all));
                let a = accu(self);
                let cond_arg = if all {
                    a
                } else {
                    self.call("!_", None, vec![a])
                };
                let cond = self.call("@not_strictly_false", None, vec![cond_arg]);
                let a = accu(self);
                let pred = rest.remove(0);
                let step = self.call(if all { "_&&_" } else { "_||_" }, None, vec![a, pred]);
                (init, cond, step, accu(self))
            }
            "existsOne" | "exists_one" => {
                let init = self.lit(Lit::Int(0));
                let cond = self.lit(Lit::Bool(true));
                let pred = rest.remove(0);
                let a = accu(self);
                let one = self.lit(Lit::Int(1));
                let plus = self.call("_+_", None, vec![a, one]);
                let a = accu(self);
                let step = self.call("_?_:_", None, vec![pred, plus, a]);
                let a = accu(self);
                let one = self.lit(Lit::Int(1));
                let result = self.call("_==_", None, vec![a, one]);
                (init, cond, step, result)
            }
            _ => {
                let (filter, transform) = if rest.len() == 2 {
                    let transform = rest.pop();
                    (rest.pop(), transform)
                } else {
                    (None, rest.pop())
                };
                let transform = transform.unwrap_or_else(|| self.lit(Lit::Null));
                let list = name == "transformList";
                let init = if list {
                    self.node(Kind::List(Vec::new()))
                } else {
                    self.node(Kind::Map(Vec::new()))
                };
                let cond = self.lit(Lit::Bool(true));
                let a = accu(self);
                let mut step = match name {
                    "transformList" => {
                        let l = self.node(Kind::List(vec![transform]));
                        self.call("_+_", None, vec![a, l])
                    }
                    "transformMap" => {
                        let key = self.ident(&k);
                        self.call("cel.@mapInsert", None, vec![a, key, transform])
                    }
                    _ => self.call("cel.@mapInsert", None, vec![a, transform]),
                };
                if let Some(filter) = filter {
                    let a = accu(self);
                    step = self.call("_?_:_", None, vec![filter, step, a]);
                }
                (init, cond, step, accu(self))
            }
        };
        self.node(Kind::Comprehension(Box::new(Comprehension {
            range,
            iter_var: k,
            iter_var2: Some(v),
            accu_var: ACCUMULATOR.into(),
            accu_init: init,
            cond,
            step,
            result,
        })))
    }

    fn opt_map(&mut self, wrap: bool, target: Expr, var: &str, body: Expr) -> Expr {
        let copy = self.copy(&target);
        let has = self.call("hasValue", Some(target), Vec::new());
        let value = self.call("value", Some(copy), Vec::new());
        let mut mapped = self.bind(var, value, body);
        if wrap {
            mapped = self.call("optional.of", None, vec![mapped]);
        }
        let none = self.call("optional.none", None, Vec::new());
        self.call("_?_:_", None, vec![has, mapped, none])
    }

    /// ext.Lists' `sortBy`: bind the list, map it to keys, sort by them.
    fn sort_by(&mut self, target: Expr, var: &str, key: Expr) -> Expr {
        const INPUT: &str = "@__sortBy_input__";
        // The key list is `input.map(var, key)`, expanded as the standard macro.
        let range = self.ident(INPUT);
        let init = self.node(Kind::List(Vec::new()));
        let cond = self.lit(Lit::Bool(true));
        let a = self.ident(ACCUMULATOR);
        let l = self.node(Kind::List(vec![key]));
        let step = self.call("_+_", None, vec![a, l]);
        let result = self.ident(ACCUMULATOR);
        let keys = self.node(Kind::Comprehension(Box::new(Comprehension {
            range,
            iter_var: var.into(),
            iter_var2: None,
            accu_var: ACCUMULATOR.into(),
            accu_init: init,
            cond,
            step,
            result,
        })));
        let input = self.ident(INPUT);
        let sorted = self.call("@sortByAssociatedKeys", Some(input), vec![keys]);
        self.bind(INPUT, target, sorted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opt_map_and_two_variable_macros_expand() {
        let ast = parse("self.a.optMap(x, x + 1)").unwrap();
        let Kind::Call { func, args, .. } = &ast.root.kind else {
            panic!("not a call: {:?}", ast.root)
        };
        assert_eq!(func, "_?_:_");
        let Kind::Call { args: of, .. } = &args[1].kind else {
            panic!("not optional.of")
        };
        let Kind::Comprehension(c) = &of[0].kind else {
            panic!("not a bind")
        };
        assert_eq!(c.accu_var, "x");
        assert!(matches!(c.cond.kind, Kind::Lit(Lit::Bool(false))));

        let ast = parse("self.m.all(k, v, k != v)").unwrap();
        let Kind::Comprehension(c) = &ast.root.kind else {
            panic!("not a comprehension")
        };
        assert_eq!(c.iter_var2.as_deref(), Some("v"));

        let ast = parse("sets.contains(self.a, ['x'])").unwrap();
        assert!(
            matches!(&ast.root.kind, Kind::Call { func, target: None, .. } if func == "sets.contains")
        );
    }
}
