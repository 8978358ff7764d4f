//! The apiserver's static cost estimate of CEL rules, so `crd()` refuses what
//! `kubectl apply` would.
//!
//! When a CRD is created, the apiserver estimates the worst-case cost of every
//! `x-kubernetes-validations` rule from the schema alone: each list, map and string is as long
//! as its `maxItems`, `maxProperties` or `maxLength` allows, or, without one, as long as fits in
//! a 3 MiB request. A rule costing more than [`RULE_COST_LIMIT`] (multiplied by how many times
//! it can run: the product of the `maxItems`/`maxProperties` above it), or rules adding up to
//! more than [`SCHEMA_COST_LIMIT`] per version, make the CRD invalid:
//! `Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying
//! the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings
//! are declared)`.
//!
//! This module computes the same estimate (cel-go v0.26's estimator with the apiserver's
//! v1.36 size estimator and function costs) so the refusal comes from `crd()`, with the bound
//! to add. [`estimate`] returns every rule's cost for inspection.
//!
//! ```
//! use kubegen_core::schema::cel_cost;
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
//!     "tags": {"type": "array", "items": {"type": "string"},
//!              "x-kubernetes-validations": [{"rule": "self.all(a, self.all(b, a != b))"}]}}}}});
//! let costs = cel_cost::estimate_schema(&schema);
//! assert!(costs.rules[0].cost.unwrap() > cel_cost::RULE_COST_LIMIT);
//! ```

mod check;
mod decl;
mod estimate;
mod expr;
mod fix;
mod types;

use std::fmt;
use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Map, Value};

pub use fix::Fix;

use decl::{Decl, is_embedded, schema_decl};
use types::Ty;

/// The apiserver's `StaticEstimatedCostLimit`: the most one rule (times the number of times it
/// can run) or one message expression may cost.
pub const RULE_COST_LIMIT: u64 = 10_000_000;
/// The apiserver's `StaticEstimatedCRDCostLimit`: the most all rules of one version's schema
/// may cost together.
pub const SCHEMA_COST_LIMIT: u64 = 100_000_000;

/// Which expression of a rule an estimate is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expression {
    /// The `rule`.
    Rule,
    /// The `messageExpression`.
    MessageExpression,
}

impl Expression {
    fn cost_name(self) -> &'static str {
        match self {
            Expression::Rule => "estimated rule cost",
            Expression::MessageExpression => "estimated messageExpression cost",
        }
    }
}

/// The estimated cost of one rule or message expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCost {
    /// The JSON path of the schema node the rule is on, as `.spec.tags[*]` (`""` for the root).
    pub path: String,
    /// The apiserver's field path of the expression, below the version's `openAPIV3Schema`:
    /// `properties[spec].properties[tags].x-kubernetes-validations[0].rule`.
    pub field: String,
    /// The index of the rule in the node's `x-kubernetes-validations`.
    pub index: usize,
    /// The rule or the message expression.
    pub expression: Expression,
    /// The CEL source.
    pub source: String,
    /// The worst-case cost of one evaluation, `None` where there is nothing to estimate (an
    /// empty rule) or the apiserver would not compile the expression (see `note`).
    pub per_evaluation: Option<u64>,
    /// How many times the rule may run per object: the product of the `maxItems` and
    /// `maxProperties` above it, or, where one is missing, how many of the node's smallest value
    /// fit into a request. Message expressions count once.
    pub cardinality: u64,
    /// Whether `cardinality` comes from declared bounds.
    pub cardinality_bounded: bool,
    /// What the apiserver compares with [`RULE_COST_LIMIT`]: `per_evaluation × cardinality`.
    pub cost: Option<u64>,
    /// The limit, [`RULE_COST_LIMIT`].
    pub limit: u64,
    /// Why no cost was estimated, or where the estimate had to guess (then it errs high).
    pub note: Option<String>,
    /// The keys leading from the schema's root to the rule's node.
    pub(crate) pointer: Vec<String>,
}

impl RuleCost {
    /// Whether the apiserver refuses this expression for its cost.
    pub fn over_limit(&self) -> bool {
        self.cost.is_some_and(|c| c > self.limit)
    }
}

/// The rules of one version's schema and their total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaCost {
    /// Every rule and message expression, in schema order.
    pub rules: Vec<RuleCost>,
    /// The sum of their costs.
    pub total: u64,
    /// The limit, [`SCHEMA_COST_LIMIT`].
    pub limit: u64,
}

/// The estimate of every version of a CRD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostReport {
    /// `(version name, its schema's costs)`, in the CRD's order.
    pub versions: Vec<(String, SchemaCost)>,
}

/// Estimates every rule of every version of `crd`, as the apiserver does on create.
pub fn estimate(crd: &CustomResourceDefinition) -> CostReport {
    let versions = crd
        .spec
        .versions
        .iter()
        .map(|v| {
            let schema = v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
                .and_then(|s| serde_json::to_value(s).ok())
                .unwrap_or(Value::Null);
            (v.name.clone(), estimate_schema(&schema))
        })
        .collect();
    CostReport { versions }
}

/// Estimates every rule of one version's `openAPIV3Schema`.
pub fn estimate_schema(schema: &Value) -> SchemaCost {
    let mut rules = Vec::new();
    if let Some(root) = schema.as_object() {
        walk(root, &Place::root(), &mut rules);
    }
    let total = rules
        .iter()
        .filter_map(|r| r.cost)
        .fold(0u64, u64::saturating_add);
    SchemaCost {
        rules,
        total,
        limit: SCHEMA_COST_LIMIT,
    }
}

/// Where a schema node is.
#[derive(Clone)]
pub(crate) struct Place {
    path: String,
    field: String,
    pointer: Vec<String>,
    /// `None`: unbounded.
    cardinality: Option<u64>,
    root: bool,
}

impl Place {
    fn root() -> Place {
        Place {
            path: String::new(),
            field: String::new(),
            pointer: Vec::new(),
            cardinality: Some(1),
            root: true,
        }
    }

    /// The place of a child reached through `keys` (`["items"]`, `["properties", name]`),
    /// whose parent multiplies how often it occurs by `factor`.
    fn child(&self, keys: &[&str], factor: Option<u64>) -> Place {
        let cardinality = match (self.cardinality, factor) {
            (Some(c), Some(f)) => Some(multiply_guarded(c, f)),
            _ => None,
        };
        let (path, field) = match keys {
            ["properties", name] => (
                format!("{}.{name}", self.path),
                format!("{}properties[{name}]", self.field_prefix()),
            ),
            [key] => (
                format!("{}[*]", self.path),
                format!("{}{key}", self.field_prefix()),
            ),
            _ => (self.path.clone(), self.field.clone()),
        };
        let mut pointer = self.pointer.clone();
        pointer.extend(keys.iter().map(|k| (*k).to_owned()));
        Place {
            path,
            field,
            pointer,
            cardinality,
            root: false,
        }
    }

    fn field_prefix(&self) -> String {
        if self.field.is_empty() {
            String::new()
        } else {
            format!("{}.", self.field)
        }
    }
}

/// The apiserver's `multiplyWithOverflowGuard`.
fn multiply_guarded(base: u64, by: u64) -> u64 {
    if base == 0 {
        0
    } else {
        base.saturating_mul(by)
    }
}

/// How many times more data a node's children may occur than the node (`None`: unbounded).
fn max_elements(node: &Map<String, Value>) -> Option<u64> {
    let bound = |key: &str| {
        node.get(key)
            .and_then(Value::as_i64)
            .map(|n| n.max(0) as u64)
    };
    match node.get("type").and_then(Value::as_str) {
        Some("object") if node.contains_key("additionalProperties") => bound("maxProperties"),
        Some("array") => bound("maxItems"),
        _ => Some(1),
    }
}

fn walk(node: &Map<String, Value>, at: &Place, out: &mut Vec<RuleCost>) {
    if let Some(Value::Array(rules)) = node.get("x-kubernetes-validations")
        && let Some(decl) = schema_decl(node, at.root || is_embedded(node))
    {
        for (index, rule) in rules.iter().enumerate() {
            out.extend(rule_costs(&decl, at, index, rule));
        }
    }
    let factor = max_elements(node);
    if let Some(Value::Object(values)) = node.get("additionalProperties") {
        walk(values, &at.child(&["additionalProperties"], factor), out);
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        for (name, prop) in properties {
            if let Some(prop) = prop.as_object() {
                walk(prop, &at.child(&["properties", name], factor), out);
            }
        }
    }
    if let Some(Value::Object(items)) = node.get("items") {
        walk(items, &at.child(&["items"], factor), out);
    }
}

/// The apiserver's `maxCardinality`: how many values of at least `min_size` bytes fit into a
/// request, each followed by a comma.
fn max_cardinality(min_size: i64) -> u64 {
    (decl::MAX_REQUEST_SIZE_BYTES / (min_size + 1)) as u64
}

fn rule_costs(decl: &Arc<Decl>, at: &Place, index: usize, rule: &Value) -> Vec<RuleCost> {
    let source = rule.get("rule").and_then(Value::as_str).unwrap_or("");
    let optional_old_self = rule.get("optionalOldSelf") == Some(&Value::Bool(true));
    let (cardinality, bounded) = match at.cardinality {
        Some(c) => (c, true),
        None => (max_cardinality(decl.min_serialized_size), false),
    };
    let base = RuleCost {
        path: at.path.clone(),
        field: format!(
            "{}x-kubernetes-validations[{index}].rule",
            at.field_prefix()
        ),
        index,
        expression: Expression::Rule,
        source: source.to_owned(),
        per_evaluation: None,
        cardinality,
        cardinality_bounded: bounded,
        cost: None,
        limit: RULE_COST_LIMIT,
        note: None,
        pointer: at.pointer.clone(),
    };
    if source.trim().is_empty() {
        return vec![RuleCost {
            note: Some("an empty rule is not compiled".into()),
            ..base
        }];
    }
    let self_ty = Ty::of_decl(decl);
    let old_self_ty = if optional_old_self {
        Ty::Optional(Arc::new(self_ty.clone()))
    } else {
        self_ty.clone()
    };
    let vars = check::Variables {
        self_ty,
        old_self_ty,
    };
    let rule_estimate = match cost_of(source, &vars, decl, Some(Ty::Bool)) {
        Ok(e) => e,
        Err(note) => {
            return vec![RuleCost {
                note: Some(note),
                ..base
            }];
        }
    };
    let mut out = vec![RuleCost {
        per_evaluation: Some(rule_estimate.max),
        cost: Some(multiply_guarded(rule_estimate.max, cardinality)),
        note: rule_estimate.note,
        ..base.clone()
    }];
    if let Some(message) = rule.get("messageExpression").and_then(Value::as_str)
        && !message.is_empty()
    {
        let field = format!(
            "{}x-kubernetes-validations[{index}].messageExpression",
            at.field_prefix()
        );
        let cost = match cost_of(message, &vars, decl, Some(Ty::String)) {
            Ok(e) => RuleCost {
                field,
                expression: Expression::MessageExpression,
                source: message.into(),
                per_evaluation: Some(e.max),
                cardinality: 1,
                cardinality_bounded: true,
                cost: Some(e.max),
                note: e.note,
                ..base
            },
            Err(note) => RuleCost {
                field,
                expression: Expression::MessageExpression,
                source: message.into(),
                cardinality: 1,
                cardinality_bounded: true,
                note: Some(note),
                ..base
            },
        };
        out.push(cost);
    }
    out
}

struct Estimate {
    max: u64,
    note: Option<String>,
}

/// The worst-case cost of one evaluation of `source`, or why the apiserver would not compile it.
fn cost_of(
    source: &str,
    vars: &check::Variables,
    decl: &Arc<Decl>,
    output: Option<Ty>,
) -> Result<Estimate, String> {
    let ast = expr::parse(source).map_err(|e| format!("does not parse: {}", e.0))?;
    let checked = check::check(&ast, vars);
    if let Some(problem) = checked.problems.first() {
        return Err(format!("the apiserver would not compile it: {problem}"));
    }
    let out_ty = &checked.types[ast.root.id];
    if let Some(want) = output
        && !out_ty.is_dynamic()
        && !out_ty.same(&want)
    {
        return Err(format!(
            "the apiserver would not compile it: it must evaluate to a {}",
            if matches!(want, Ty::Bool) {
                "bool"
            } else {
                "string"
            }
        ));
    }
    let range = estimate::estimate(&ast.root, &checked, decl);
    let note = (!checked.guesses.is_empty()).then(|| {
        format!(
            "estimated cautiously (it may be higher than the apiserver's): {}",
            checked.guesses.join("; ")
        )
    });
    Ok(Estimate {
        max: range.max,
        note,
    })
}

/// The factor over budget, worded as the apiserver words it (`2.5x`, `1.000002x`,
/// `more than 100x`).
pub fn factor(cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    if factor > 100.0 {
        "more than 100x".into()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    }
}

/// The apiserver's message for an expression or a schema over its budget.
pub fn budget_message(cost_name: &str, cost: u64, limit: u64) -> String {
    format!(
        "{cost_name} exceeds budget by factor of {} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        factor(cost, limit)
    )
}

/// A CRD version the apiserver would refuse for the cost of its rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostViolation {
    /// The rule over its limit, or `None` for the schema's total.
    pub rule: Option<RuleCost>,
    /// The schema's total, for a total over its limit.
    pub total: u64,
    /// The apiserver's field path, below `spec.versions[i].schema.openAPIV3Schema`.
    pub field: String,
    /// The apiserver's message.
    pub message: String,
    /// The bound to add, where one was found.
    pub fix: Option<Fix>,
    /// For a total over its limit: the rules that contributed most (the apiserver names them).
    pub contributors: Vec<RuleCost>,
}

/// The apiserver's message for a rule among the most expensive of a schema over its total.
pub const CONTRIBUTED_MESSAGE: &str = "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";

impl CostViolation {
    /// The causes the apiserver reports for this violation, as `(field below the schema, message)`:
    /// one for a rule; for a total, one per most expensive rule and one for the schema (field
    /// `""`).
    pub fn apiserver_causes(&self) -> Vec<(String, String)> {
        let mut causes: Vec<(String, String)> = self
            .contributors
            .iter()
            .map(|r| (r.field.clone(), CONTRIBUTED_MESSAGE.to_owned()))
            .collect();
        causes.push((self.field.clone(), self.message.clone()));
        causes
    }
}

impl fmt::Display for CostViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rule {
            Some(rule) => {
                let path = if rule.path.is_empty() {
                    "<root>"
                } else {
                    &rule.path
                };
                let what = match rule.expression {
                    Expression::Rule => "rule",
                    Expression::MessageExpression => "messageExpression",
                };
                write!(f, "{path}: {what} `{}`: {}", rule.source, self.message)?;
            }
            None => {
                write!(f, "{}", self.message)?;
                let names: Vec<String> = self
                    .contributors
                    .iter()
                    .map(|r| {
                        format!(
                            "`{}` at {} ({})",
                            r.source,
                            display_path(&r.path),
                            r.cost.unwrap_or(0)
                        )
                    })
                    .collect();
                if !names.is_empty() {
                    write!(f, "; the most expensive: {}", names.join(", "))?;
                }
            }
        }
        match &self.fix {
            Some(fix) => write!(f, "; fix: {fix}"),
            None => Ok(()),
        }
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

/// Every reason the apiserver would refuse `schema` (one version's `openAPIV3Schema`) for its
/// rules' cost, each with the bound that fixes it where one does.
pub fn check_schema(schema: &Value) -> Vec<CostViolation> {
    let costs = estimate_schema(schema);
    let mut out = Vec::new();
    for rule in &costs.rules {
        if !rule.over_limit() {
            continue;
        }
        let cost = rule.cost.unwrap_or(u64::MAX);
        out.push(CostViolation {
            message: format!(
                "Forbidden: {}",
                budget_message(rule.expression.cost_name(), cost, rule.limit)
            ),
            field: rule.field.clone(),
            fix: fix::suggest(schema, rule),
            rule: Some(rule.clone()),
            total: costs.total,
            contributors: Vec::new(),
        });
    }
    if costs.total > costs.limit {
        let mut contributors: Vec<RuleCost> = costs
            .rules
            .iter()
            .filter(|r| r.cost.is_some_and(|c| c >= SCHEMA_COST_LIMIT / 100))
            .cloned()
            .collect();
        contributors.sort_by_key(|r| std::cmp::Reverse(r.cost));
        contributors.truncate(4);
        out.push(CostViolation {
            rule: None,
            total: costs.total,
            field: String::new(),
            message: format!(
                "Forbidden: {}",
                budget_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    costs.total,
                    costs.limit
                )
            ),
            fix: contributors
                .first()
                .and_then(|r| fix::suggest_total(schema, r, costs.total)),
            contributors,
        });
    }
    out
}

#[cfg(test)]
mod tests;
