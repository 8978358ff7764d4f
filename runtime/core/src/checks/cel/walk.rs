//! Evaluation: the validator tree walked over an object as the apiserver walks it (rules of
//! a node, then its `allOf` branches, then its properties, map values or list items), with
//! `oldSelf` bound where the old value correlates, and errors of rules on unchanged values
//! turned into warnings (ratcheting).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use kube_cel::cel::objects::OptionalValue;
use kube_cel::cel::{Context, ExecutionError, Value as Cel};
use serde_json::Value;

use super::super::field::{self, BadValue, FieldError, NIL_PATH};
use super::super::maplist::{MapList, correlated_equal};
use super::super::schema::{Additional, Schema};
use super::compile::{Compiled, Node, Program};
use super::errors::{NO_SUCH_OVERLOAD, describe};
use super::library::ROOT;
use super::values::{to_cel, type_name};

/// The longest message a `messageExpression` may produce (bytes, after trimming).
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// A correlated pair of new and old values and their schema (`CorrelatedObject`).
#[derive(Clone, Copy)]
struct Correlated<'a> {
    new: &'a Value,
    old: &'a Value,
    schema: &'a Schema,
}

impl<'a> Correlated<'a> {
    /// The pair for member `field` of two objects that both have it.
    fn key(self, field: &str) -> Option<Correlated<'a>> {
        Some(Correlated {
            new: self.new.as_object()?.get(field)?,
            old: self.old.as_object()?.get(field)?,
            schema: self.schema.member(field)?,
        })
    }

    /// The pair for item `i` of a `map` list and the old item with its keys (`old_items`,
    /// this pair's old list indexed).
    fn index(self, i: usize, old_items: Option<&MapList<'a>>) -> Option<Correlated<'a>> {
        let new = self.new.as_array()?.get(i)?;
        Some(Correlated {
            new,
            old: old_items?.get(new)?,
            schema: self.schema.items.as_deref()?,
        })
    }

    fn unchanged(self) -> bool {
        correlated_equal(self.schema, self.new, self.old)
    }
}

/// Where a node stands for ratcheting: its own correlated pair, if it has one, else the
/// nearest ancestor's.
#[derive(Clone, Copy, Default)]
pub(super) struct Ratchet<'a> {
    current: Option<Correlated<'a>>,
    parent: Option<Correlated<'a>>,
}

impl<'a> Ratchet<'a> {
    /// An update of `old` to `new`, at the root.
    pub(super) fn root(new: &'a Value, old: &'a Value, schema: &'a Schema) -> Self {
        Ratchet {
            current: Some(Correlated { new, old, schema }),
            parent: None,
        }
    }

    fn key(self, field: &str) -> Self {
        let Some(current) = self.current else {
            return self;
        };
        // The root's type meta is not compared: both sides were converted to one version.
        if self.parent.is_none() && matches!(field, "apiVersion" | "kind") {
            return Ratchet::default();
        }
        Ratchet {
            current: current.key(field),
            parent: Some(current),
        }
    }

    /// The ratchets of a list's items, its old list indexed once.
    fn items(self) -> RatchetItems<'a> {
        let old_items = self.current.and_then(|c| MapList::new(c.schema, c.old));
        RatchetItems {
            list: self,
            old_items,
        }
    }

    /// Whether errors here are ratcheted: this value, or the nearest correlated ancestor,
    /// did not change.
    fn unchanged(self) -> bool {
        match (self.current, self.parent) {
            (Some(c), _) => c.unchanged(),
            (None, Some(p)) => p.unchanged(),
            (None, None) => false,
        }
    }
}

/// Where the items of a list stand for ratcheting.
struct RatchetItems<'a> {
    list: Ratchet<'a>,
    old_items: Option<MapList<'a>>,
}

impl<'a> RatchetItems<'a> {
    /// Item `i`'s ratchet.
    fn index(&self, i: usize) -> Ratchet<'a> {
        let Some(current) = self.list.current else {
            return self.list;
        };
        Ratchet {
            current: current.index(i, self.old_items.as_ref()),
            parent: Some(current),
        }
    }
}

/// The errors and warnings of one walk.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) errors: Vec<FieldError>,
    pub(super) warnings: Vec<String>,
}

impl Walk {
    /// Validates `value` (and `old`, when it correlates) at `path` against `node`'s rules
    /// and those below it.
    pub(super) fn node(
        &mut self,
        node: &Node,
        schema: &Schema,
        path: &str,
        value: &Value,
        old: Option<&Value>,
        ratchet: Ratchet<'_>,
    ) {
        if value.is_null() {
            return;
        }
        let old = old.filter(|o| !o.is_null());
        self.rules(node, schema, path, value, old, ratchet);
        for branch in &node.all_of {
            // allOf branches do not ratchet on their own, as the schema's do not.
            let detached = Ratchet {
                current: None,
                parent: ratchet.parent,
            };
            self.node(branch, schema, path, value, old, detached);
        }
        match value {
            Value::Array(items) => {
                let (Some(item_node), Some(item_schema)) = (&node.items, &schema.items) else {
                    return;
                };
                let old_items = old.and_then(|o| MapList::new(schema, o));
                let ratchets = ratchet.items();
                for (i, item) in items.iter().enumerate() {
                    let old_item = old_items.as_ref().and_then(|o| o.get(item));
                    let p = field::index(path, i);
                    self.node(
                        item_node,
                        item_schema,
                        &p,
                        item,
                        old_item,
                        ratchets.index(i),
                    );
                }
            }
            Value::Object(members) => {
                // Maps of an unknown `x-kubernetes-map-type` are not correlated.
                let correlates = matches!(
                    schema.map_type.as_deref(),
                    None | Some("granular" | "atomic")
                );
                let old_member = |k: &str| old.filter(|_| correlates).and_then(|o| o.get(k));
                if let (Some(values_node), Additional::Schema(values)) =
                    (&node.additional, &schema.additional)
                {
                    for (k, v) in members {
                        let p = field::key(path, k);
                        self.node(values_node, values, &p, v, old_member(k), ratchet.key(k));
                    }
                }
                for (k, v) in members {
                    let (Some(child), Some(child_schema)) = (property(node, k), schema.property(k))
                    else {
                        continue;
                    };
                    let p = field::child(path, k);
                    self.node(child, child_schema, &p, v, old_member(k), ratchet.key(k));
                }
            }
            _ => {}
        }
    }

    /// The node's own rules (`validateExpressions`).
    fn rules(
        &mut self,
        node: &Node,
        schema: &Schema,
        path: &str,
        value: &Value,
        old: Option<&Value>,
        ratchet: Ratchet<'_>,
    ) {
        let at = if path.is_empty() { NIL_PATH } else { path };
        let ty = type_name(schema);
        if let Some(e) = &node.init_error {
            let detail = format!("rule compiler initialization error: {e}");
            self.errors
                .push(FieldError::invalid(at, BadValue::str(ty), detail));
            return;
        }
        if node.rules.is_empty() {
            return;
        }
        let this = to_cel(value, schema, node.resource_root);
        let before = old
            .filter(|_| node.binds_old_self)
            .map(|o| to_cel(o, schema, node.resource_root));
        // The interpreter copies a variable into its own representation when it is bound, so
        // a node's rules share their scopes: `self` with `oldSelf` as it is, and (for
        // `optionalOldSelf` rules) with `oldSelf` as an optional.
        let plain = scope(&this, before.clone());
        let mut with_optional = None;
        for rule in &node.rules {
            let expr = match &rule.program {
                Program::Empty => continue,
                Program::Error(e) => {
                    let detail = format!("rule compile error: {e}");
                    self.errors
                        .push(FieldError::invalid(at, BadValue::str(ty), detail));
                    continue;
                }
                Program::Ready(expr) => expr,
            };
            // Transition rules run only against an old value, unless it is optional.
            if rule.uses_old_self && old.is_none() && !rule.rule.optional_old_self {
                continue;
            }
            let ctx = match rule.rule.optional_old_self && node.binds_old_self {
                true => with_optional
                    .get_or_insert_with(|| scope(&this, Some(optional(before.clone())))),
                false => &plain,
            };
            match evaluate(expr, ctx) {
                Err(e) => {
                    let text = describe(&e);
                    let detail = if text.starts_with(NO_SUCH_OVERLOAD) {
                        format!(
                            "'{text}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                            rule.rule.error_string()
                        )
                    } else {
                        format!("{text} evaluating rule: {}", rule.rule.error_string())
                    };
                    self.errors
                        .push(FieldError::invalid(at, BadValue::str(ty), detail));
                    continue;
                }
                Ok(Cel::Bool(true)) => continue,
                Ok(_) => {}
            }
            let field = match &rule.field_path {
                Some(p) => field::child(path, p),
                None => at.to_owned(),
            };
            let detail = message(rule, &plain).unwrap_or_else(|| rule.rule.message_or_default());
            let bad = match ty {
                "object" | "array" => BadValue::Omitted,
                _ => BadValue::of(value),
            };
            let error = match rule.rule.reason.as_deref() {
                Some("FieldValueForbidden") => FieldError::forbidden(&field, detail),
                Some("FieldValueRequired") => FieldError::required(&field, detail),
                Some("FieldValueDuplicate") => FieldError::duplicate(&field, bad),
                _ => FieldError::invalid(&field, bad, detail),
            };
            if !rule.uses_old_self && ratchet.unchanged() {
                self.warnings.push(error.to_string());
            } else {
                self.errors.push(error);
            }
        }
    }
}

/// The child validator of property `k`.
fn property<'n>(node: &'n Node, k: &str) -> Option<&'n Node> {
    node.properties
        .iter()
        .find(|(name, _)| name == k)
        .map(|(_, n)| n)
}

fn optional(value: Option<Cel>) -> Cel {
    Cel::Opaque(Arc::new(match value {
        Some(v) => OptionalValue::of(v),
        None => OptionalValue::none(),
    }))
}

/// A scope of the library's context with `self` and, when bound, `oldSelf`.
fn scope(this: &Cel, old_self: Option<Cel>) -> Context<'static> {
    let mut ctx = ROOT.new_inner_scope();
    ctx.add_variable_from_value("self", this.clone());
    if let Some(old) = old_self {
        ctx.add_variable_from_value("oldSelf", old);
    }
    ctx
}

/// Runs an expression in a scope made by [`scope`]. A panic inside the interpreter is an
/// error of the rule, never of the caller.
fn evaluate(
    expr: &kube_cel::cel::common::ast::IdedExpr,
    ctx: &Context<'static>,
) -> Result<Cel, ExecutionError> {
    catch_unwind(AssertUnwindSafe(|| Cel::resolve(expr, ctx))).unwrap_or_else(|_| {
        Err(ExecutionError::function_error(
            "kubegen",
            "the CEL interpreter failed on this rule",
        ))
    })
}

/// The message a `messageExpression` makes, when it makes a usable one (a non-empty
/// single line of at most 5 KiB, trimmed); `None` falls back to the rule's message. It sees
/// `oldSelf` as the rule's node binds it, never as an optional.
fn message(rule: &Compiled, ctx: &Context<'static>) -> Option<String> {
    let expr = rule.message_expression.as_ref()?;
    let Ok(Cel::String(s)) = evaluate(expr, ctx) else {
        return None;
    };
    let trimmed = s.trim();
    (!trimmed.is_empty() && trimmed.len() <= MAX_MESSAGE_BYTES && !trimmed.contains('\n'))
        .then(|| trimmed.to_owned())
}
