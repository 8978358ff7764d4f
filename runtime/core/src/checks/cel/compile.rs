//! Rules compiled once per CRD version, in a tree that parallels the structural schema (the
//! apiserver's `cel.Validator`): each node holds the programs of its own
//! `x-kubernetes-validations` and the nodes below it that hold any.

use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, operators,
};
use kube_cel::cel::parser::Parser;
use serde_json::Value;

use super::super::schema::{Additional, Schema};
use super::fieldpath;
use super::library::{
    ALL, AND, EQUALS, EXISTS, GREATER, GREATER_EQUALS, LESS, LESS_EQUALS, NEGATE, NOT_EQUALS,
    OPTIONAL_SELECT, OR,
};
use super::values::has_cel_type;
use kubegen_go::cel::escape;

/// One entry of `x-kubernetes-validations`, as written in the CRD.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidationRule {
    /// The CEL expression that must hold (`rule`).
    pub rule: String,
    /// The message when it does not (`message`).
    pub message: String,
    /// A CEL expression building the message (`messageExpression`).
    pub message_expression: String,
    /// The cause type of the error (`reason`: `FieldValueInvalid`, ...).
    pub reason: Option<String>,
    /// Where below the rule's node the error is reported (`fieldPath`).
    pub field_path: String,
    /// Whether `oldSelf` is an optional, so the rule also runs without an old value.
    pub optional_old_self: bool,
}

impl ValidationRule {
    /// The rules of an `x-kubernetes-validations` array (anything else has none).
    pub fn list(validations: Option<&Value>) -> Vec<ValidationRule> {
        let Some(Value::Array(rules)) = validations else {
            return Vec::new();
        };
        rules
            .iter()
            .map(|r| {
                let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                ValidationRule {
                    rule: text("rule"),
                    message: text("message"),
                    message_expression: text("messageExpression"),
                    reason: r.get("reason").and_then(Value::as_str).map(str::to_owned),
                    field_path: text("fieldPath"),
                    optional_old_self: r.get("optionalOldSelf") == Some(&Value::Bool(true)),
                }
            })
            .collect()
    }

    /// `ruleErrorString`: the message when there is one, else the rule, trimmed.
    pub(super) fn error_string(&self) -> &str {
        match self.message.is_empty() {
            true => self.rule.trim(),
            false => self.message.trim(),
        }
    }

    /// `ruleMessageOrDefault`: the message when there is one (trimmed), else
    /// `failed rule: <rule>`.
    pub(super) fn message_or_default(&self) -> String {
        match self.message.is_empty() {
            true => format!("failed rule: {}", self.error_string()),
            false => self.message.trim().to_owned(),
        }
    }
}

/// A rule's program: nothing to run (an empty rule), or a compile error, or the expression.
pub(super) enum Program {
    Empty,
    Error(String),
    Ready(IdedExpr),
}

/// A rule ready to run.
pub(super) struct Compiled {
    pub(super) rule: ValidationRule,
    pub(super) program: Program,
    /// Whether the rule refers to `oldSelf` (a transition rule).
    pub(super) uses_old_self: bool,
    /// The message expression, when it compiles (otherwise the message is used).
    pub(super) message_expression: Option<IdedExpr>,
    /// The normalized `fieldPath`, when it names a field of the schema.
    pub(super) field_path: Option<String>,
}

/// A node of the validator tree. Built by [`Node::build`].
pub(super) struct Node {
    pub(super) rules: Vec<Compiled>,
    /// Whether any rule of this node refers to `oldSelf` (only then is `oldSelf` bound).
    pub(super) binds_old_self: bool,
    /// A node with rules but no CEL type for its values (`rule compiler initialization
    /// error`).
    pub(super) init_error: Option<String>,
    /// The root of a resource: type and object meta are added to `self`.
    pub(super) resource_root: bool,
    pub(super) items: Option<Box<Node>>,
    pub(super) properties: Vec<(String, Node)>,
    pub(super) additional: Option<Box<Node>>,
    pub(super) all_of: Vec<Node>,
}

impl Node {
    /// The validator for the rules of `validation` (a schema node or one of its `allOf`
    /// branches) on values of `node`; `typed` says whether the values have a CEL type.
    /// `None` when there are no rules at or below the node.
    pub(super) fn build(
        validation: &Schema,
        node: &Schema,
        resource_root: bool,
        typed: bool,
    ) -> Option<Node> {
        let (rules, init_error) = match (validation.rules.is_empty(), typed) {
            (true, _) => (Vec::new(), None),
            (false, true) => (
                validation.rules.iter().map(|r| compile(r, node)).collect(),
                None,
            ),
            (false, false) => (
                Vec::new(),
                Some("failed to convert to declType for CEL validation rules".to_owned()),
            ),
        };
        let items = match (&validation.items, &node.items) {
            (Some(v), Some(n)) => Node::build(v, n, n.embedded_resource, typed && has_cel_type(n)),
            _ => None,
        };
        let properties = validation
            .properties
            .iter()
            .filter_map(|(name, v)| {
                let n = node.property(name)?;
                // Properties without a CEL type (or unnamed in CEL with none) are skipped.
                let typed = has_cel_type(n) && (typed || escape(name).is_none());
                if !typed {
                    return None;
                }
                Node::build(v, n, n.embedded_resource, true).map(|p| (name.clone(), p))
            })
            .collect::<Vec<_>>();
        let additional = match (&validation.additional, &node.additional) {
            (Additional::Schema(v), Additional::Schema(n)) => {
                Node::build(v, n, n.embedded_resource, typed && has_cel_type(n))
            }
            _ => None,
        };
        let all_of = validation
            .all_of
            .iter()
            .filter_map(|branch| Node::build(branch, node, resource_root, typed))
            .collect::<Vec<_>>();
        let empty = rules.is_empty()
            && init_error.is_none()
            && items.is_none()
            && properties.is_empty()
            && additional.is_none()
            && all_of.is_empty();
        (!empty).then(|| Node {
            binds_old_self: rules.iter().any(|r: &Compiled| r.uses_old_self),
            rules,
            init_error,
            resource_root,
            items: items.map(Box::new),
            properties,
            additional: additional.map(Box::new),
            all_of,
        })
    }
}

/// Compiles one rule of a node of `schema`.
fn compile(rule: &ValidationRule, schema: &Schema) -> Compiled {
    let mut compiled = Compiled {
        rule: rule.clone(),
        program: Program::Empty,
        uses_old_self: false,
        message_expression: None,
        field_path: None,
    };
    if rule.rule.trim().is_empty() {
        return compiled;
    }
    match parse(&rule.rule) {
        Err(e) => compiled.program = Program::Error(format!("compilation failed: {e}")),
        Ok(expr) => {
            compiled.uses_old_self = expr.references().has_variable("oldSelf");
            compiled.program = Program::Ready(expr);
        }
    }
    if !rule.message_expression.is_empty() {
        compiled.message_expression = parse(&rule.message_expression).ok();
    }
    if !rule.field_path.is_empty() {
        compiled.field_path = fieldpath::normalize(&rule.field_path, schema);
    }
    compiled
}

/// Parses an expression (optional syntax on, as the apiserver's environment has it) and
/// prepares it for the interpreter.
pub(super) fn parse(source: &str) -> Result<IdedExpr, String> {
    let mut expr = Parser::new()
        .enable_optional_syntax(true)
        .parse(source)
        .map_err(|e| e.to_string())?;
    prepare(&mut expr)?;
    Ok(expr)
}

/// The operators kubegen evaluates itself (see `library`): the cel crate's interpreter
/// gets `x.?f` on a missing field, heterogeneous equality, NaN ordering, integer negation
/// overflow and the error of `&&`/`||` when both sides fail wrong.
fn routed(operator: &str, arity: usize) -> Option<&'static str> {
    Some(match (operator, arity) {
        (operators::OPT_SELECT, 2) => OPTIONAL_SELECT,
        (operators::EQUALS, 2) => EQUALS,
        (operators::NOT_EQUALS, 2) => NOT_EQUALS,
        (operators::LESS, 2) => LESS,
        (operators::LESS_EQUALS, 2) => LESS_EQUALS,
        (operators::GREATER, 2) => GREATER,
        (operators::GREATER_EQUALS, 2) => GREATER_EQUALS,
        (operators::NEGATE, 1) => NEGATE,
        (operators::LOGICAL_AND, 2) => AND,
        (operators::LOGICAL_OR, 2) => OR,
        _ => return None,
    })
}

/// Routes the operators the interpreter gets wrong to kubegen's functions ([`routed`]) and
/// refuses what it cannot run: message literals (`T{f: v}`), which no CRD rule can declare
/// a type for, are refused rather than left to the interpreter, which panics on them.
fn prepare(expr: &mut IdedExpr) -> Result<(), String> {
    match &mut expr.expr {
        Expr::Unspecified | Expr::Struct(_) => {
            return Err("message construction is not supported".to_owned());
        }
        Expr::Call(call) => {
            if call.target.is_none()
                && let Some(kubegen) = routed(&call.func_name, call.args.len())
            {
                call.func_name = kubegen.to_owned();
            }
            if let Some(target) = &mut call.target {
                prepare(target)?;
            }
            for arg in &mut call.args {
                prepare(arg)?;
            }
        }
        Expr::Comprehension(c) => {
            if let Some(call) = quantifier(c) {
                expr.expr = call;
                return prepare(expr);
            }
            for e in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                prepare(e)?;
            }
        }
        Expr::List(list) => {
            for e in &mut list.elements {
                prepare(e)?;
            }
        }
        Expr::Map(map) => {
            for entry in &mut map.entries {
                match &mut entry.expr {
                    EntryExpr::MapEntry(e) => {
                        prepare(&mut e.key)?;
                        prepare(&mut e.value)?;
                    }
                    EntryExpr::StructField(_) => {
                        return Err("message construction is not supported".to_owned());
                    }
                }
            }
        }
        Expr::Select(select) => prepare(&mut select.operand)?,
        Expr::Ident(_) | Expr::Literal(_) => {}
    }
    Ok(())
}

/// The one-variable `all` and `exists` macros (a comprehension whose step is
/// `@result && p` or `@result || p`) as calls of kubegen's functions, which absorb an
/// element's error as cel-go does when another element decides the result.
fn quantifier(c: &mut ComprehensionExpr) -> Option<Expr> {
    let Expr::Call(step) = &mut c.loop_step.expr else {
        return None;
    };
    let function = match step.func_name.as_str() {
        operators::LOGICAL_AND => ALL,
        operators::LOGICAL_OR => EXISTS,
        _ => return None,
    };
    let accumulates = matches!(step.args.first(), Some(IdedExpr { expr: Expr::Ident(a), .. }) if *a == c.accu_var);
    if c.iter_var2.is_some() || step.args.len() != 2 || !accumulates {
        return None;
    }
    let predicate = step.args.pop()?;
    let target = std::mem::replace(
        &mut c.iter_range,
        IdedExpr {
            id: 0,
            expr: Expr::Unspecified,
        },
    );
    let var = IdedExpr {
        id: 0,
        expr: Expr::Ident(c.iter_var.clone()),
    };
    Some(Expr::Call(CallExpr {
        func_name: function.to_owned(),
        target: Some(Box::new(target)),
        args: vec![var, predicate],
    }))
}
