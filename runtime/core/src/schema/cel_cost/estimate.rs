//! cel-go's static cost estimator (`checker/cost.go`, v0.26) with the apiserver's size
//! estimator and function costs (k8s.io/apiserver `pkg/cel/library/cost.go`) and the cost
//! estimators of the extensions Kubernetes enables (lists, sets).
//!
//! The walk, the order sub-expressions are visited in, the memoised sizes and the field paths
//! follow cel-go step by step, because the estimate depends on them: a path such as
//! `self.spec.items.@items.name` is how a string's `maxLength` reaches the cost of comparing it.
//! Even Go's slice sharing is kept (see [`Path`]): cel-go builds paths with `append`, and two
//! paths extended from one with spare capacity share the last element.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::check::Checked;
use super::decl::{Decl, DeclKind};
use super::expr::{ACCUMULATOR, Comprehension, Expr, Id, Kind, LEGACY_ACCUMULATOR, Lit};
use super::types::{CIDR, FORMAT, IP, QUANTITY, SEMVER, Ty, URL};

const SELECT_AND_IDENT_COST: u64 = 1;
const CONST_COST: u64 = 0;
const LIST_CREATE_BASE_COST: u64 = 10;
const MAP_CREATE_BASE_COST: u64 = 30;
const STRUCT_CREATE_BASE_COST: u64 = 40;
const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;
/// The apiserver's `MaxFormatSize` and `MaxNameFormatRegexSize`.
const MAX_FORMAT_SIZE: u64 = 64;
const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;

/// A range of sizes (string length, list or map entries) or of costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    pub min: u64,
    pub max: u64,
}

const UNKNOWN: Range = Range {
    min: 0,
    max: u64::MAX,
};

fn fixed(n: u64) -> Range {
    Range { min: n, max: n }
}

fn mul_by_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && y > 0.0 && xf > (u64::MAX as f64) / y {
        return u64::MAX;
    }
    let ceil = (xf * y).ceil();
    if ceil >= 18_446_744_073_709_551_616.0 {
        return u64::MAX;
    }
    ceil as u64
}

impl Range {
    fn add(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    fn multiply(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    fn factor(self, f: f64) -> Range {
        Range {
            min: mul_by_factor(self.min, f),
            max: mul_by_factor(self.max, f),
        }
    }

    fn union(self, o: Range) -> Range {
        Range {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// A field path as cel-go builds it: a Go slice, appended to in place while it has room.
#[derive(Clone, Debug)]
struct Path {
    buf: Rc<RefCell<Vec<String>>>,
    len: usize,
    cap: usize,
}

impl Path {
    fn of(name: &str) -> Path {
        Path {
            buf: Rc::new(RefCell::new(vec![name.to_owned()])),
            len: 1,
            cap: 1,
        }
    }

    /// Go's `append(path, element)`, for a path that may be nil.
    fn append(path: Option<&Path>, element: &str) -> Path {
        match path {
            Some(p) if p.len < p.cap => {
                let mut buf = p.buf.borrow_mut();
                if buf.len() > p.len {
                    buf[p.len] = element.to_owned();
                } else {
                    buf.push(element.to_owned());
                }
                drop(buf);
                Path {
                    buf: p.buf.clone(),
                    len: p.len + 1,
                    cap: p.cap,
                }
            }
            Some(p) => {
                // growslice: double the capacity (every doubling of 16-byte strings is a Go
                // size class, so no rounding up).
                let cap = if p.cap == 0 { 1 } else { p.cap * 2 };
                let mut buf: Vec<String> = p.buf.borrow()[..p.len].to_vec();
                buf.push(element.to_owned());
                Path {
                    buf: Rc::new(RefCell::new(buf)),
                    len: p.len + 1,
                    cap,
                }
            }
            None => Path::of(element),
        }
    }

    fn elements(&self) -> Vec<String> {
        self.buf.borrow()[..self.len].to_vec()
    }
}

/// cel-go's `AstNode`: what a size or call estimator sees of a sub-expression.
struct Node<'e> {
    path: Option<Vec<String>>,
    ty: Ty,
    expr: Option<&'e Expr>,
    computed: Option<Range>,
}

#[derive(Clone, Copy, Debug)]
enum Container {
    List,
    Map,
}

/// Which variable of a comprehension [`Coster::push_iter`] declares.
#[derive(Clone, Copy)]
enum IterVar {
    /// The first of two: an index or a key.
    Key,
    /// The second of two: an item or a value.
    Value,
    /// The only one: a list's item, a map's key.
    Only,
}

#[derive(Clone, Copy, Debug)]
struct EntrySize {
    container: Container,
    key: Range,
    val: Range,
}

fn union_entries(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize {
        container: a.container,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    })
}

struct LocalVar {
    path: Option<Path>,
    size: Option<Range>,
    entry: Option<EntrySize>,
}

/// The estimate of one expression: cel-go's `CostEstimate`.
pub(crate) fn estimate(root: &Expr, checked: &Checked, decl: &Arc<Decl>) -> Range {
    let mut c = Coster {
        checked,
        root: decl.clone(),
        paths: HashMap::new(),
        locals: HashMap::new(),
        sizes: HashMap::new(),
        entries: HashMap::new(),
    };
    c.cost(root)
}

struct Coster<'a> {
    checked: &'a Checked,
    root: Arc<Decl>,
    paths: HashMap<Id, Path>,
    locals: HashMap<String, Vec<LocalVar>>,
    sizes: HashMap<Id, Range>,
    entries: HashMap<Id, EntrySize>,
}

fn literal_bool(e: &Expr) -> Option<bool> {
    match &e.kind {
        Kind::Lit(Lit::Bool(b)) => Some(*b),
        _ => None,
    }
}

impl<'a> Coster<'a> {
    fn ty(&self, e: &Expr) -> Ty {
        self.checked.types.get(e.id).cloned().unwrap_or(Ty::Unknown)
    }

    fn peek(&self, name: &str) -> Option<&LocalVar> {
        self.locals.get(name).and_then(|s| s.last())
    }

    fn push(&mut self, name: &str, var: LocalVar) {
        self.locals.entry(name.to_owned()).or_default().push(var);
    }

    fn pop(&mut self, name: &str) {
        if let Some(stack) = self.locals.get_mut(name) {
            stack.pop();
        }
    }

    fn get_path(&self, e: &Expr) -> Option<Path> {
        if let Kind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.path.clone();
        }
        self.paths.get(&e.id).cloned()
    }

    fn add_path(&mut self, e: &Expr, path: Option<Path>) {
        match path {
            Some(p) => {
                self.paths.insert(e.id, p);
            }
            None => {
                self.paths.remove(&e.id);
            }
        }
    }

    fn cost(&mut self, e: &Expr) -> Range {
        match &e.kind {
            Kind::Lit(_) => fixed(CONST_COST),
            Kind::Ident(name) => {
                let path = match self.peek(name) {
                    Some(v) => v.path.clone(),
                    None => Some(Path::of(name)),
                };
                self.add_path(e, path);
                fixed(SELECT_AND_IDENT_COST)
            }
            Kind::Select {
                operand,
                field,
                test,
            } => {
                if *test {
                    // The apiserver sets PresenceTestHasCost(false).
                    return self.cost(operand);
                }
                let mut sum = self.cost(operand);
                if self.ty(operand).select_costs() {
                    sum = sum.add(fixed(SELECT_AND_IDENT_COST));
                }
                let path = Path::append(self.get_path(operand).as_ref(), field);
                self.add_path(e, Some(path));
                sum
            }
            Kind::Call { func, target, args } => self.cost_call(e, func, target.as_deref(), args),
            Kind::List(items) => {
                let mut sum = fixed(0);
                let mut item_size = Range {
                    min: u64::MAX,
                    max: 0,
                };
                if items.is_empty() {
                    item_size.min = 0;
                }
                for item in items {
                    sum = sum.add(self.cost(item));
                    let s = self.size_or_unknown(item);
                    item_size = item_size.union(s);
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        container: Container::List,
                        key: fixed(1),
                        val: item_size,
                    },
                );
                sum.add(fixed(LIST_CREATE_BASE_COST))
            }
            Kind::Map(pairs) => {
                let mut sum = fixed(0);
                let mut key = Range {
                    min: u64::MAX,
                    max: 0,
                };
                let mut val = key;
                if pairs.is_empty() {
                    key.min = 0;
                    val.min = 0;
                }
                for (k, v) in pairs {
                    sum = sum.add(self.cost(k));
                    sum = sum.add(self.cost(v));
                    key = key.union(self.size_or_unknown(k));
                    val = val.union(self.size_or_unknown(v));
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        container: Container::Map,
                        key,
                        val,
                    },
                );
                sum.add(fixed(MAP_CREATE_BASE_COST))
            }
            Kind::Struct(values) => {
                let mut sum = fixed(0);
                for v in values {
                    sum = sum.add(self.cost(v));
                }
                sum.add(fixed(STRUCT_CREATE_BASE_COST))
            }
            Kind::Comprehension(c) => {
                let is_bind = matches!(&c.range.kind, Kind::List(items) if items.is_empty())
                    && literal_bool(&c.cond) == Some(false)
                    && c.accu_var != LEGACY_ACCUMULATOR;
                if is_bind {
                    self.cost_bind(e, c)
                } else {
                    self.cost_comprehension(e, c)
                }
            }
        }
    }

    fn push_local(&mut self, name: &str, e: &Expr) {
        let path = self.get_path(e);
        let entry = self.compute_entry_size(e);
        let size = self.compute_size(e);
        self.push(name, LocalVar { path, size, entry });
    }

    fn range_container(&self, range: &Expr, entry: Option<EntrySize>) -> Option<Container> {
        match entry {
            Some(e) => Some(e.container),
            None => match self.ty(range) {
                Ty::List(_) => Some(Container::List),
                Ty::Map(..) => Some(Container::Map),
                _ => None,
            },
        }
    }

    /// Declares a comprehension variable over `range`, sized and named (for the size
    /// estimator's paths) as cel-go does: an index or key, an item or value, or the only
    /// variable (a list's item, a map's key).
    fn push_iter(&mut self, name: &str, range: &Expr, var: IterVar) {
        let entry = self.compute_entry_size(range);
        let list = matches!(self.range_container(range, entry), Some(Container::List));
        let (value, sub) = match (var, list) {
            (IterVar::Key, true) => (false, "@indices"),
            (IterVar::Key, false) | (IterVar::Only, false) => (false, "@keys"),
            (IterVar::Value, true) | (IterVar::Only, true) => (true, "@items"),
            (IterVar::Value, false) => (true, "@values"),
        };
        let size = entry.map(|e| if value { e.val } else { e.key });
        let path = self.get_path(range);
        let path = Some(Path::append(path.as_ref(), sub));
        self.push(
            name,
            LocalVar {
                path,
                size,
                entry: None,
            },
        );
    }

    fn cost_comprehension(&mut self, e: &Expr, c: &Comprehension) -> Range {
        let mut sum = self.cost(&c.range);
        sum = sum.add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        if let Some(v2) = &c.iter_var2 {
            self.push_iter(&c.iter_var, &c.range, IterVar::Key);
            self.push_iter(v2, &c.range, IterVar::Value);
        } else {
            self.push_iter(&c.iter_var, &c.range, IterVar::Only);
        }
        let loop_cost = self.cost(&c.cond);
        let step_cost = self.cost(&c.step);
        self.pop(&c.iter_var);
        if let Some(v2) = &c.iter_var2 {
            self.pop(v2);
        }
        sum = sum.add(self.cost(&c.result));
        self.pop(&c.accu_var);

        let range_count = self.size_or_unknown(&c.range);
        let per_item = step_cost.add(loop_cost);
        sum = sum.add(range_count.multiply(per_item));

        match &c.accu_init.kind {
            Kind::Lit(_) => {
                if let Some(s) = self.compute_size(&c.accu_init) {
                    self.sizes.insert(e.id, s);
                }
            }
            Kind::List(_) | Kind::Map(_) => {
                self.sizes.insert(e.id, range_count);
                if let Some(step_entry) = self.compute_entry_size(&c.step) {
                    self.entries.insert(e.id, step_entry);
                }
            }
            _ => {}
        }
        sum
    }

    fn cost_bind(&mut self, e: &Expr, c: &Comprehension) -> Range {
        let mut sum = self.cost(&c.range);
        sum = sum.add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        sum = sum.add(self.cost(&c.result));
        self.pop(&c.accu_var);
        self.copy_sizes(e, &c.result);
        sum
    }

    fn copy_sizes(&mut self, dst: &Expr, src: &Expr) {
        if let Some(s) = self.compute_size(src) {
            self.sizes.insert(dst.id, s);
        }
        if let Some(s) = self.compute_entry_size(src) {
            self.entries.insert(dst.id, s);
        }
    }

    fn node<'e>(&mut self, e: &'e Expr) -> Node<'e> {
        let mut path = self.get_path(e).map(|p| p.elements());
        if let Some(p) = &path
            && p.first()
                .is_some_and(|first| first == ACCUMULATOR || first == LEGACY_ACCUMULATOR)
        {
            path = None;
        }
        let computed = self.compute_size(e);
        Node {
            path,
            ty: self.ty(e),
            expr: Some(e),
            computed,
        }
    }

    fn cost_call(&mut self, e: &Expr, func: &str, target: Option<&Expr>, args: &[Expr]) -> Range {
        if func == "dyn"
            && let Some(arg) = args.first()
        {
            let arg_cost = self.cost(arg);
            self.copy_sizes(e, arg);
            return fixed(1).add(arg_cost);
        }
        let mut arg_costs = Vec::with_capacity(args.len());
        let mut arg_nodes = Vec::with_capacity(args.len());
        for arg in args {
            arg_costs.push(self.cost(arg));
            arg_nodes.push(self.node(arg));
        }
        let overloads = self
            .checked
            .overloads
            .get(e.id)
            .cloned()
            .unwrap_or_default();
        if overloads.is_empty() {
            return fixed(0);
        }
        let mut sum = fixed(0);
        let mut target_node = None;
        if let Some(t) = target {
            sum = sum.add(self.cost(t));
            target_node = Some(self.node(t));
        }
        let mut fn_cost = Range {
            min: u64::MAX,
            max: 0,
        };
        let mut result_size: Option<Range> = None;
        for overload in &overloads {
            let (cost, size) = self.function_cost(
                e,
                func,
                overload,
                target_node.as_ref(),
                &arg_nodes,
                &arg_costs,
            );
            fn_cost = fn_cost.union(cost);
            if let Some(s) = size {
                result_size = Some(match result_size {
                    None => s,
                    Some(r) => r.union(s),
                });
            }
            if let ("index_list" | "index_map", Some(first)) = (*overload, args.first()) {
                result_size = self.compute_entry_size(first).map(|s| s.val);
                let sub = if *overload == "index_list" {
                    "@items"
                } else {
                    "@values"
                };
                let path = Path::append(self.get_path(first).as_ref(), sub);
                self.add_path(e, Some(path));
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        if let Some(s) = result_size {
            self.sizes.insert(e.id, s);
        }
        sum.add(fn_cost)
    }

    fn size_or_unknown(&mut self, e: &Expr) -> Range {
        self.compute_size(e).unwrap_or(UNKNOWN)
    }

    fn compute_size(&mut self, e: &Expr) -> Option<Range> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        let literal = match &e.kind {
            Kind::Lit(l) => Some(match l {
                Lit::String(s) => s.chars().count() as u64,
                Lit::Bytes(n) => *n as u64,
                _ => 1,
            }),
            Kind::List(items) => Some(items.len() as u64),
            Kind::Map(pairs) => Some(pairs.len() as u64),
            _ => None,
        };
        if let Some(n) = literal {
            return Some(fixed(n));
        }
        let path = self.get_path(e).map(|p| p.elements());
        if let Some(s) = self.estimate_size(path.as_deref()) {
            self.sizes.insert(e.id, s);
            return Some(s);
        }
        if self.ty(e).is_scalar() {
            return Some(fixed(1));
        }
        if let Kind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
            && let Some(s) = v.size
        {
            return Some(s);
        }
        None
    }

    fn compute_entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if let Some(s) = self.entries.get(&e.id) {
            return Some(*s);
        }
        if let Kind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.entry;
        }
        None
    }

    /// The apiserver's size estimator: the bound of the schema node a path leads to.
    fn estimate_size(&self, path: Option<&[String]>) -> Option<Range> {
        let path = path?;
        if path.is_empty() {
            return None;
        }
        let mut node = self.root.clone();
        for name in &path[1..] {
            let next = match (name.as_str(), &node.kind) {
                ("@items" | "@values", DeclKind::List(e) | DeclKind::Map(e)) => e.clone(),
                ("@items" | "@values", _) => return None,
                ("@keys", DeclKind::Map(_)) => Decl::map_key(),
                ("@keys", _) => return None,
                (field, DeclKind::Object(fields)) => fields.get(field)?.clone(),
                _ => return None,
            };
            node = next;
        }
        Some(Range {
            min: 0,
            max: node.max_elements.max(0) as u64,
        })
    }

    fn node_size(&self, n: &Node<'_>) -> Range {
        n.computed
            .or_else(|| self.estimate_size(n.path.as_deref()))
            .unwrap_or(UNKNOWN)
    }

    /// The Kubernetes estimator's `listElementNode`.
    fn list_element<'e>(&self, list: &Node<'e>) -> Option<Node<'e>> {
        let elem = list.ty.params().into_iter().next()?;
        let path = list.path.as_ref().map(|p| {
            let mut p = p.clone();
            p.push("@items".into());
            p
        });
        Some(Node {
            path,
            ty: elem,
            expr: None,
            computed: None,
        })
    }

    fn function_cost(
        &mut self,
        e: &Expr,
        func: &str,
        overload: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
        arg_costs: &[Range],
    ) -> (Range, Option<Range>) {
        let arg_sum = arg_costs.iter().fold(fixed(0), |s, c| s.add(*c));
        if let Some((cost, size)) = self.extension_cost(overload, target, args) {
            return (cost.add(arg_sum), size);
        }
        if let Some((cost, size)) = self.kubernetes_cost(func, overload, target, args) {
            return (cost.add(arg_sum), size);
        }
        let size_of = |n: &Node<'_>| n.computed.unwrap_or(UNKNOWN);
        match overload {
            "string_format" if target.is_some() => {
                let t = target.map(size_of).unwrap_or(UNKNOWN);
                return (t.factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum), None);
            }
            "string_to_bytes" if args.len() == 1 => {
                let sz = size_of(&args[0]);
                let size = Range {
                    min: sz.min,
                    max: sz.max.saturating_mul(4),
                };
                return (
                    sz.factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum),
                    Some(size),
                );
            }
            "bytes_to_string" if args.len() == 1 => {
                let sz = size_of(&args[0]);
                let size = Range {
                    min: sz.min / 4,
                    max: sz.max,
                };
                return (
                    sz.factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum),
                    Some(size),
                );
            }
            "strings_quote" if args.len() == 1 => {
                let sz = size_of(&args[0]);
                let size = Range {
                    min: sz.min.saturating_add(2),
                    max: sz.max.saturating_mul(2).saturating_add(2),
                };
                return (
                    sz.factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum),
                    Some(size),
                );
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                let sz = size_of(&args[0]);
                return (sz.factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum), None);
            }
            "in_list" if args.len() == 2 => {
                return (size_of(&args[1]).factor(1.0).add(arg_sum), None);
            }
            "matches_string" if target.is_some() && args.len() == 1 => {
                let t = target.map(size_of).unwrap_or(UNKNOWN);
                let str_cost = t.add(fixed(1)).factor(STRING_TRAVERSAL_COST_FACTOR);
                let regex_cost = size_of(&args[0]).factor(REGEX_STRING_LENGTH_COST_FACTOR);
                return (str_cost.multiply(regex_cost).add(arg_sum), None);
            }
            "contains_string" if target.is_some() && args.len() == 1 => {
                let t = target.map(size_of).unwrap_or(UNKNOWN);
                let str_cost = t.factor(STRING_TRAVERSAL_COST_FACTOR);
                let sub_cost = size_of(&args[0]).factor(STRING_TRAVERSAL_COST_FACTOR);
                return (str_cost.multiply(sub_cost).add(arg_sum), None);
            }
            "logical_or" | "logical_and" => {
                let lhs = arg_costs.first().copied().unwrap_or(fixed(0));
                let rhs = arg_costs.get(1).copied().unwrap_or(fixed(0));
                return (
                    Range {
                        min: lhs.min,
                        max: lhs.add(rhs).max,
                    },
                    None,
                );
            }
            "conditional" if args.len() == 3 => {
                let size = size_of(&args[1]).union(size_of(&args[2]));
                let entry = union_entries(
                    args[1].expr.and_then(|x| self.compute_entry_size(x)),
                    args[2].expr.and_then(|x| self.compute_entry_size(x)),
                );
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                let cost = arg_costs[0].add(arg_costs[1].union(arg_costs[2]));
                return (cost, Some(size));
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let size = size_of(&args[0]).add(size_of(&args[1]));
                let entry = union_entries(
                    args[0].expr.and_then(|x| self.compute_entry_size(x)),
                    args[1].expr.and_then(|x| self.compute_entry_size(x)),
                );
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                if overload == "add_list" {
                    return (fixed(1).add(arg_sum), Some(size));
                }
                return (
                    size.factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum),
                    Some(size),
                );
            }
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals"
                if args.len() == 2 =>
            {
                let lhs = size_of(&args[0]);
                let rhs = size_of(&args[1]);
                let smallest = lhs.max.min(rhs.max);
                let min = u64::from(smallest > 0);
                return (
                    Range { min, max: smallest }
                        .factor(STRING_TRAVERSAL_COST_FACTOR)
                        .add(arg_sum),
                    None,
                );
            }
            _ => {}
        }
        (fixed(1).add(arg_sum), None)
    }

    /// The estimators ext.Lists (v3) and ext.Sets register per overload.
    fn extension_cost(
        &self,
        overload: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
    ) -> Option<(Range, Option<Range>)> {
        let allocating = |factor: f64, size: Range| {
            let cost = size
                .factor(factor)
                .add(fixed(1))
                .add(fixed(LIST_CREATE_BASE_COST));
            Some((cost, Some(size)))
        };
        let int_literal = |n: &Node<'_>, default: u64| match n.expr.map(|e| &e.kind) {
            Some(Kind::Lit(Lit::Int(i))) => (*i).max(0) as u64,
            _ => default,
        };
        match overload {
            "list_slice" => {
                let t = target?;
                if args.len() != 2 {
                    return None;
                }
                let sz = self.node_size(t);
                let start = int_literal(&args[0], 0);
                let end = int_literal(&args[1], sz.max);
                allocating(1.0, fixed(end.wrapping_sub(start)))
            }
            "lists_range" => {
                if target.is_some() || args.len() != 1 {
                    return None;
                }
                allocating(1.0, fixed(int_literal(&args[0], u64::MAX)))
            }
            "list_reverse" => {
                let t = target?;
                if !args.is_empty() {
                    return None;
                }
                allocating(1.0, self.node_size(t))
            }
            "list_flatten" | "list_flatten_int" => {
                let t = target?;
                if args.len() > 1 {
                    return None;
                }
                let depth = args.first().map_or(1, |a| int_literal(a, u64::MAX));
                allocating(depth as f64, self.node_size(t))
            }
            "list_distinct" => {
                let t = target?;
                if !args.is_empty() {
                    return None;
                }
                let sz = self.node_size(t);
                allocating(2.0, sz.multiply(sz))
            }
            "list_sets_contains_list"
            | "list_sets_intersects_list"
            | "list_sets_equivalent_list" => {
                if args.len() != 2 {
                    return None;
                }
                let factor = if overload == "list_sets_equivalent_list" {
                    2.0
                } else {
                    1.0
                };
                let cost = self
                    .node_size(&args[0])
                    .multiply(self.node_size(&args[1]))
                    .factor(factor)
                    .add(fixed(1));
                Some((cost, None))
            }
            _ => {
                let sort = overload.strip_suffix("_sort");
                let sort_by = overload.strip_suffix("_sortByAssociatedKeys");
                let (elem, node) = match (sort, sort_by) {
                    (Some(name), _) if name.starts_with("list_") => {
                        let t = target?;
                        if !args.is_empty() {
                            return None;
                        }
                        (&name[5..], t)
                    }
                    (_, Some(name)) if name.starts_with("list_") => {
                        if target.is_none() || args.len() != 1 {
                            return None;
                        }
                        (&name[5..], &args[0])
                    }
                    _ => return None,
                };
                let sz = self.node_size(node);
                let mut factor = 2.0;
                if elem == "string" || elem == "bytes" {
                    factor += STRING_TRAVERSAL_COST_FACTOR;
                }
                allocating(factor, sz.multiply(sz))
            }
        }
    }

    /// The apiserver's `CostEstimator.EstimateCallCost`, by function name.
    fn kubernetes_cost(
        &self,
        func: &str,
        overload: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
    ) -> Option<(Range, Option<Range>)> {
        let one = || Some((fixed(1), None));
        let traversal = |n: &Node<'_>| self.node_size(n).factor(STRING_TRAVERSAL_COST_FACTOR);
        match func {
            "check" => Some((fixed(350_000), None)),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace"
            | "name" | "allowed" | "reason" | "error" | "errored" => one(),
            "fieldSelector" | "labelSelector" if args.len() == 1 => {
                let len = self.node_size(&args[0]);
                let parse = len.factor(STRING_TRAVERSAL_COST_FACTOR);
                let requirements = len.factor(0.5);
                let requirement_cost =
                    requirements.factor((LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST) as f64);
                Some((
                    fixed(LIST_CREATE_BASE_COST)
                        .add(parse)
                        .add(requirement_cost),
                    None,
                ))
            }
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
                let t = target?;
                match self.list_element(t) {
                    Some(elem) => {
                        let mut el_cost = fixed(1);
                        if matches!(elem.ty, Ty::String | Ty::Bytes) {
                            el_cost = el_cost.add(traversal(&elem));
                        }
                        Some((self.node_size(t).multiply(el_cost), None))
                    }
                    None => Some((traversal(t), None)),
                }
            }
            "url" | "jsonpatch.escapeKey" if args.len() == 1 => {
                let sz = self.node_size(&args[0]);
                Some((sz.factor(STRING_TRAVERSAL_COST_FACTOR), Some(sz)))
            }
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let sz = self.node_size(target?);
                Some((sz.factor(STRING_TRAVERSAL_COST_FACTOR), Some(sz)))
            }
            "replace" => {
                let t = target?;
                if args.len() < 2 {
                    return None;
                }
                let sz = self.node_size(t);
                let to_replace = self.node_size(&args[0]);
                let with = self.node_size(&args[1]);
                let mut count = Range { min: 0, max: 0 };
                let mut retained = Range { min: 0, max: 0 };
                if to_replace.min == 0 {
                    count.max = if sz.max < u64::MAX {
                        sz.max + 1
                    } else {
                        sz.max
                    };
                    retained.max = sz.max;
                } else if with.max <= to_replace.min {
                    count.max = 0;
                    retained.max = sz.max;
                } else {
                    count.max = (sz.max as f64 / to_replace.min as f64).ceil() as u64;
                }
                if to_replace.max == 0 {
                    count.min = if sz.min < u64::MAX {
                        sz.min + 1
                    } else {
                        sz.min
                    };
                    retained.min = sz.min;
                } else if to_replace.max <= with.min {
                    count.min = 0;
                    retained.min = sz.min;
                } else {
                    count.min = (sz.min as f64 / to_replace.max as f64).ceil() as u64;
                }
                let size = count.multiply(with).add(retained);
                Some((sz.factor(2.0 * STRING_TRAVERSAL_COST_FACTOR), Some(size)))
            }
            "split" => {
                let sz = self.node_size(target?);
                let mut max = sz.max;
                if let Some(limit) = args.get(1)
                    && let Some(Kind::Lit(Lit::Int(i))) = limit.expr.map(|e| &e.kind)
                {
                    max = *i as u64;
                }
                Some((
                    sz.factor(2.0 * STRING_TRAVERSAL_COST_FACTOR),
                    Some(Range { min: 0, max }),
                ))
            }
            "join" => {
                let t = target?;
                let list_size = self.node_size(t);
                let mut sz = fixed(0);
                if let Some(elem) = self.list_element(t) {
                    sz = list_size.multiply(self.node_size(&elem));
                }
                if let Some(sep) = args.first() {
                    let sep_size = self.node_size(sep);
                    let separators = Range {
                        min: list_size.min.saturating_sub(1),
                        max: list_size.max.saturating_sub(1),
                    };
                    sz = sz.add(sep_size.multiply(separators));
                }
                Some((sz.factor(STRING_TRAVERSAL_COST_FACTOR), Some(sz)))
            }
            "find" | "findAll" => {
                let t = target?;
                let regex = args.first()?;
                let sz = self.node_size(t);
                let str_cost = sz.add(fixed(1)).factor(STRING_TRAVERSAL_COST_FACTOR);
                let regex_cost = self
                    .node_size(regex)
                    .factor(REGEX_STRING_LENGTH_COST_FACTOR);
                Some((
                    str_cost.multiply(regex_cost),
                    Some(Range {
                        min: 0,
                        max: sz.max,
                    }),
                ))
            }
            "cidr" | "isIP" | "isCIDR" => Some((traversal(args.first()?), None)),
            "ip" => {
                if overload == "cidr_ip" {
                    return one();
                }
                Some((traversal(args.first()?), None))
            }
            "ip.isCanonical" => {
                let sz = self.node_size(args.first()?);
                Some((sz.factor(2.0 * STRING_TRAVERSAL_COST_FACTOR), None))
            }
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast" => one(),
            "containsIP" | "containsCIDR" => {
                let other = args.first()?;
                let sz = Range { min: 4, max: 16 };
                let mut cost = sz.add(sz).factor(STRING_TRAVERSAL_COST_FACTOR);
                if func == "containsCIDR" {
                    cost = cost
                        .add(sz.factor(STRING_TRAVERSAL_COST_FACTOR))
                        .add(fixed(1));
                }
                if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string"
                {
                    cost = cost.add(traversal(other));
                }
                Some((cost, None))
            }
            "quantity" | "isQuantity" | "semver" | "isSemver" => {
                Some((traversal(args.first()?), None))
            }
            "validate" => {
                let sz = self.node_size(args.first()?);
                Some((
                    sz.factor(STRING_TRAVERSAL_COST_FACTOR)
                        .factor(MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR),
                    None,
                ))
            }
            "format.named" => one(),
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => one(),
            "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
                one()
            }
            "_==_" if args.len() == 2 => {
                let (lhs, rhs) = (&args[0], &args[1]);
                if !lhs.ty.same(&rhs.ty) {
                    return None;
                }
                match &lhs.ty {
                    Ty::Opaque(IP | CIDR) => one(),
                    Ty::Named(QUANTITY | SEMVER) => one(),
                    Ty::Named(FORMAT) => Some((
                        Range {
                            min: 1,
                            max: MAX_FORMAT_SIZE,
                        }
                        .factor(STRING_TRAVERSAL_COST_FACTOR),
                        None,
                    )),
                    Ty::Named(URL) => {
                        // As the apiserver: both sizes are the right-hand side's.
                        let size = match rhs.computed {
                            Some(r) => r.union(r),
                            None => fixed(1),
                        };
                        Some((
                            Range {
                                min: 1,
                                max: size.max,
                            }
                            .factor(STRING_TRAVERSAL_COST_FACTOR),
                            None,
                        ))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
