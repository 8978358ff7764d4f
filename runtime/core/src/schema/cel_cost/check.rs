//! Types every sub-expression of a rule and resolves each call to the overloads it may take,
//! as cel-go's checker does for the estimator (see [`super::types`]).

use std::sync::Arc;

use super::decl::DeclKind;
use super::expr::{Ast, Comprehension, Expr, Id, Kind, Lit};
use super::types::{Bindings, Ty, overloads};

/// The types and overloads of one expression.
#[derive(Debug)]
pub(crate) struct Checked {
    /// Each sub-expression's type, by id.
    pub types: Vec<Ty>,
    /// The overload ids each call may resolve to, by id (empty for other expressions).
    pub overloads: Vec<Vec<&'static str>>,
    /// What the apiserver would refuse to compile (an unknown function or field).
    pub problems: Vec<String>,
    /// Where the estimator had to guess a type or an overload (its estimate is then an upper
    /// bound of what it can tell rather than cel-go's figure).
    pub guesses: Vec<String>,
}

/// The variables a rule sees.
pub(crate) struct Variables {
    pub self_ty: Ty,
    pub old_self_ty: Ty,
}

/// Checks `ast` with `self` and `oldSelf` of the given types.
pub(crate) fn check(ast: &Ast, vars: &Variables) -> Checked {
    let mut checker = Checker {
        vars,
        scopes: Vec::new(),
        out: Checked {
            types: vec![Ty::Unknown; ast.ids],
            overloads: vec![Vec::new(); ast.ids],
            problems: Vec::new(),
            guesses: Vec::new(),
        },
    };
    checker.expr(&ast.root);
    checker.out
}

struct Checker<'a> {
    vars: &'a Variables,
    scopes: Vec<(String, Ty)>,
    out: Checked,
}

impl Checker<'_> {
    fn set(&mut self, id: Id, ty: Ty) -> Ty {
        self.out.types[id] = ty.clone();
        ty
    }

    fn expr(&mut self, e: &Expr) -> Ty {
        let ty = match &e.kind {
            Kind::Lit(l) => match l {
                Lit::Bool(_) => Ty::Bool,
                Lit::Int(_) => Ty::Int,
                Lit::Uint(_) => Ty::Uint,
                Lit::Double(_) => Ty::Double,
                Lit::String(_) => Ty::String,
                Lit::Bytes(_) => Ty::Bytes,
                Lit::Null => Ty::Null,
            },
            Kind::Ident(name) => self.ident(name),
            Kind::Select {
                operand,
                field,
                test,
            } => {
                let operand = self.expr(operand);
                if *test {
                    Ty::Bool
                } else {
                    self.select(&operand, field)
                }
            }
            Kind::Call { func, target, args } => self.call(e.id, func, target.as_deref(), args),
            Kind::List(items) => {
                let mut elem = Ty::Free;
                for item in items {
                    let t = self.expr(item);
                    elem = elem.join(&t).unwrap_or(Ty::Dyn);
                }
                Ty::List(Arc::new(elem))
            }
            Kind::Map(entries) => {
                let (mut k, mut v) = (Ty::Free, Ty::Free);
                for (key, value) in entries {
                    let kt = self.expr(key);
                    let vt = self.expr(value);
                    k = k.join(&kt).unwrap_or(Ty::Dyn);
                    v = v.join(&vt).unwrap_or(Ty::Dyn);
                }
                Ty::Map(Arc::new(k), Arc::new(v))
            }
            Kind::Struct(values) => {
                for v in values {
                    self.expr(v);
                }
                self.out
                    .problems
                    .push("message construction is not available to CRD rules".into());
                Ty::Unknown
            }
            Kind::Comprehension(c) => self.comprehension(c),
        };
        self.set(e.id, ty)
    }

    fn ident(&mut self, name: &str) -> Ty {
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return t.clone();
        }
        let type_of = |t: Ty| Ty::Type(Arc::new(t));
        match name {
            "self" => self.vars.self_ty.clone(),
            "oldSelf" => self.vars.old_self_ty.clone(),
            "int" => type_of(Ty::Int),
            "uint" => type_of(Ty::Uint),
            "double" => type_of(Ty::Double),
            "bool" => type_of(Ty::Bool),
            "string" => type_of(Ty::String),
            "bytes" => type_of(Ty::Bytes),
            "null_type" => type_of(Ty::Null),
            "list" => type_of(Ty::List(Arc::new(Ty::Dyn))),
            "map" => type_of(Ty::Map(Arc::new(Ty::Dyn), Arc::new(Ty::Dyn))),
            "type" | "dyn" => type_of(Ty::Dyn),
            "google.protobuf.Duration" => type_of(Ty::Duration),
            "google.protobuf.Timestamp" => type_of(Ty::Timestamp),
            _ => {
                self.out
                    .problems
                    .push(format!("undeclared reference to '{name}'"));
                Ty::Unknown
            }
        }
    }

    fn select(&mut self, operand: &Ty, field: &str) -> Ty {
        match operand {
            Ty::Object(decl) => match &decl.kind {
                DeclKind::Object(fields) => match fields.get(field) {
                    Some(d) => Ty::of_decl(d),
                    None => {
                        self.out.problems.push(format!("undefined field '{field}'"));
                        Ty::Unknown
                    }
                },
                _ => Ty::Unknown,
            },
            Ty::Map(_, v) => (**v).clone(),
            Ty::Dyn | Ty::Free => Ty::Dyn,
            Ty::Unknown => Ty::Unknown,
            other => {
                self.out
                    .problems
                    .push(format!("type '{other:?}' does not support field selection"));
                Ty::Unknown
            }
        }
    }

    fn call(&mut self, id: Id, func: &str, target: Option<&Expr>, args: &[Expr]) -> Ty {
        let mut arg_types = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            arg_types.push(self.expr(t));
        }
        for a in args {
            arg_types.push(self.expr(a));
        }
        if func == "_?._" {
            // Optional field selection: `a.?b` is `_?._(a, "b")`.
            self.out.overloads[id] = vec!["select_optional_field"];
            let field = match args.get(1).map(|a| &a.kind) {
                Some(Kind::Lit(Lit::String(s))) => s.clone(),
                _ => return Ty::Unknown,
            };
            let operand = match &arg_types[0] {
                Ty::Optional(t) => (**t).clone(),
                t => t.clone(),
            };
            let selected = self.select(&operand, &field);
            return Ty::Optional(Arc::new(selected));
        }
        let member = target.is_some();
        let mut candidates = overloads()
            .iter()
            .filter(|o| o.function == func && o.member == member)
            .peekable();
        if candidates.peek().is_none() {
            self.out
                .problems
                .push(format!("undeclared reference to '{func}'"));
            return Ty::Unknown;
        }
        let fitting: Vec<_> = candidates
            .filter(|o| o.params.len() == arg_types.len())
            .collect();
        let mut matched = Vec::new();
        let mut result: Option<Ty> = None;
        let mut ambiguous = false;
        for o in &fitting {
            let mut bindings = Bindings::default();
            let fits = o
                .params
                .iter()
                .zip(&arg_types)
                .all(|(p, a)| bindings.assign(p, a));
            if !fits {
                continue;
            }
            matched.push(o.id.as_str());
            let r = bindings.substitute(&o.result);
            match &result {
                None => result = Some(r),
                Some(prev) if matches!(prev, Ty::Dyn) || prev.same(&r) => {}
                Some(_) => ambiguous = true,
            }
        }
        if matched.is_empty() {
            if fitting.is_empty() {
                self.out.problems.push(format!(
                    "found no matching overload for '{func}' with {} argument(s)",
                    arg_types.len()
                ));
                return Ty::Unknown;
            }
            // The apiserver would likely refuse the call; if it does not, it took one of these.
            self.out.guesses.push(format!(
                "no overload of '{func}' fits the argument types the estimator worked out"
            ));
            self.out.overloads[id] = fitting.iter().map(|o| o.id.as_str()).collect();
            return Ty::Unknown;
        }
        self.out.overloads[id] = matched;
        if ambiguous {
            if arg_types.iter().any(Ty::is_dynamic) {
                Ty::Dyn
            } else {
                Ty::Unknown
            }
        } else {
            result.unwrap_or(Ty::Unknown)
        }
    }

    fn comprehension(&mut self, c: &Comprehension) -> Ty {
        let range = self.expr(&c.range);
        let init = self.expr(&c.accu_init);
        let (first, second) = match (&range, c.iter_var2.is_some()) {
            (Ty::List(t), false) => ((**t).clone(), None),
            (Ty::List(t), true) => (Ty::Int, Some((**t).clone())),
            (Ty::Map(k, _), false) => ((**k).clone(), None),
            (Ty::Map(k, v), true) => ((**k).clone(), Some((**v).clone())),
            (Ty::Dyn | Ty::Free, two) => (Ty::Dyn, two.then_some(Ty::Dyn)),
            (Ty::Unknown, two) => (Ty::Unknown, two.then_some(Ty::Unknown)),
            (other, two) => {
                self.out.problems.push(format!(
                    "expression of type '{other:?}' cannot be the range of a comprehension"
                ));
                (Ty::Unknown, two.then_some(Ty::Unknown))
            }
        };
        let mut accu = init.clone();
        for pass in 0..2 {
            self.scopes.push((c.accu_var.clone(), accu.clone()));
            self.scopes.push((c.iter_var.clone(), first.clone()));
            if let (Some(name), Some(t)) = (&c.iter_var2, &second) {
                self.scopes.push((name.clone(), t.clone()));
            }
            self.expr(&c.cond);
            let step = self.expr(&c.step);
            self.scopes
                .truncate(self.scopes.len() - 2 - usize::from(second.is_some()));
            let joined = accu.join(&step).unwrap_or(Ty::Dyn);
            if pass == 1 || joined.same(&accu) {
                break;
            }
            accu = joined;
        }
        self.scopes.push((c.accu_var.clone(), accu));
        let result = self.expr(&c.result);
        self.scopes.pop();
        result
    }
}
