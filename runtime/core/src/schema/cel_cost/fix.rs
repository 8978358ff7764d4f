//! The bound that brings a rule under its budget: which unbounded list, map or string
//! dominates its cost, and the largest `maxItems`, `maxProperties` or `maxLength` that fits.

use std::fmt;

use serde_json::{Map, Value};

use super::decl::{MAX_REQUEST_SIZE_BYTES, is_embedded, schema_decl};
use super::{Place, RuleCost, rule_costs};

/// A bound to declare in the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// The JSON path of the node to bound, as `.spec.tags` or `.spec.tags[*]` (its items).
    pub path: String,
    /// The schema keyword: `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
    /// How many items, entries or characters the apiserver assumes without the bound.
    pub assumed: u64,
    /// The largest bound that brings the cost under budget, where this bound alone does.
    pub suggested: Option<u64>,
    /// Other unbounded nodes that add to the cost, when this bound alone is not enough.
    pub also: Vec<(String, &'static str)>,
}

fn marker(keyword: &str) -> &'static str {
    match keyword {
        "maxItems" => "max_items",
        "maxProperties" => "max_properties",
        _ => "max_length",
    }
}

fn noun(keyword: &str) -> &'static str {
    match keyword {
        "maxItems" => "list",
        "maxProperties" => "map",
        _ => "string",
    }
}

fn elements(keyword: &str) -> &'static str {
    match keyword {
        "maxItems" => "items",
        "maxProperties" => "entries",
        _ => "characters",
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self
            .suggested
            .map_or_else(|| "N".to_owned(), |n| n.to_string());
        let path = if self.path.is_empty() {
            "<root>"
        } else {
            &self.path
        };
        let assumed = format!(
            "an unbounded {} of {} {} as the apiserver estimates it",
            noun(self.keyword),
            thousands(self.assumed),
            elements(self.keyword)
        );
        if let Some(owner) = self.path.strip_suffix("[*]") {
            // Items and map values have no field of their own to put a marker on.
            write!(
                f,
                "give the items of `{}` a `{}: {n}` ({assumed}; their type needs `#[validate({} = {n})]`)",
                if owner.is_empty() { "<root>" } else { owner },
                self.keyword,
                marker(self.keyword)
            )?;
        } else {
            write!(
                f,
                "add `#[validate({} = {n})]` to `{path}` ({assumed})",
                marker(self.keyword)
            )?;
        }
        if self.suggested.is_some() {
            write!(f, "; {n} or less brings it under budget")?;
        } else if !self.also.is_empty() {
            let others: Vec<String> = self
                .also
                .iter()
                .map(|(p, k)| format!("`{k}` on `{}`", if p.is_empty() { "<root>" } else { p }))
                .collect();
            write!(
                f,
                "; no single bound is enough: bound these too: {}",
                others.join(", ")
            )?;
        }
        Ok(())
    }
}

/// A node that could take a bound.
struct Candidate {
    pointer: Vec<String>,
    path: String,
    keyword: &'static str,
}

fn node_at<'v>(schema: &'v Value, pointer: &[String]) -> Option<&'v Map<String, Value>> {
    let mut node = schema;
    for key in pointer {
        node = node.get(key)?;
    }
    node.as_object()
}

fn node_at_mut<'v>(
    schema: &'v mut Value,
    pointer: &[String],
) -> Option<&'v mut Map<String, Value>> {
    let mut node = schema;
    for key in pointer {
        node = node.get_mut(key)?;
    }
    node.as_object_mut()
}

/// The keyword that would bound this node, if it lacks one.
fn unbounded(node: &Map<String, Value>) -> Option<&'static str> {
    let ty = node.get("type").and_then(Value::as_str);
    let has = |k: &str| node.contains_key(k);
    if node.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return (!has("maxLength")).then_some("maxLength");
    }
    match ty {
        Some("array") => (!has("maxItems")).then_some("maxItems"),
        Some("object") if matches!(node.get("additionalProperties"), Some(Value::Object(_))) => {
            (!has("maxProperties")).then_some("maxProperties")
        }
        Some("string") => {
            let format = node.get("format").and_then(Value::as_str).unwrap_or("");
            let fixed = matches!(format, "duration" | "date" | "date-time")
                || node
                    .get("enum")
                    .and_then(Value::as_array)
                    .is_some_and(|e| !e.is_empty());
            (!fixed && !has("maxLength")).then_some("maxLength")
        }
        _ => None,
    }
}

const MAX_CANDIDATES: usize = 200;

fn subtree(
    node: &Map<String, Value>,
    pointer: Vec<String>,
    path: String,
    out: &mut Vec<Candidate>,
) {
    if out.len() >= MAX_CANDIDATES {
        return;
    }
    if let Some(keyword) = unbounded(node) {
        out.push(Candidate {
            pointer: pointer.clone(),
            path: path.clone(),
            keyword,
        });
    }
    let child = |key: &[&str]| {
        let mut p = pointer.clone();
        p.extend(key.iter().map(|k| (*k).to_owned()));
        p
    };
    if let Some(Value::Object(items)) = node.get("items") {
        subtree(items, child(&["items"]), format!("{path}[*]"), out);
    }
    if let Some(Value::Object(values)) = node.get("additionalProperties") {
        subtree(
            values,
            child(&["additionalProperties"]),
            format!("{path}[*]"),
            out,
        );
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        for (name, prop) in properties {
            if let Some(prop) = prop.as_object() {
                subtree(
                    prop,
                    child(&["properties", name]),
                    format!("{path}.{name}"),
                    out,
                );
            }
        }
    }
}

/// The unbounded nodes that can change a rule's cost: its ancestors (how often it runs) and
/// its own subtree (how much it reads).
fn candidates(schema: &Value, rule: &RuleCost) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut node = schema;
    let mut path = String::new();
    let mut pointer: Vec<String> = Vec::new();
    let mut keys = rule.pointer.iter().peekable();
    while let Some(key) = keys.next() {
        if let Some(obj) = node.as_object()
            && matches!(
                key.as_str(),
                "items" | "additionalProperties" | "properties"
            )
            && let Some(keyword) = unbounded(obj)
            && keyword != "maxLength"
        {
            out.push(Candidate {
                pointer: pointer.clone(),
                path: path.clone(),
                keyword,
            });
        }
        pointer.push(key.clone());
        let Some(next) = node.get(key) else {
            return out;
        };
        node = next;
        match key.as_str() {
            "items" | "additionalProperties" => path.push_str("[*]"),
            "properties" => {
                if let Some(name) = keys.next() {
                    pointer.push(name.clone());
                    path.push('.');
                    path.push_str(name);
                    let Some(next) = node.get(name) else {
                        return out;
                    };
                    node = next;
                }
            }
            _ => {}
        }
    }
    if let Some(obj) = node.as_object() {
        subtree(obj, pointer, path, &mut out);
    }
    out
}

/// The cost of `rule` in `schema` (which may have been given extra bounds).
fn cost_in(schema: &Value, rule: &RuleCost) -> u64 {
    let Some(root) = schema.as_object() else {
        return u64::MAX;
    };
    let mut place = Place::root();
    let mut node = root;
    let mut keys = rule.pointer.iter();
    while let Some(key) = keys.next() {
        let factor = super::max_elements(node);
        let (next, child) = match key.as_str() {
            "properties" => {
                let Some(name) = keys.next() else {
                    return u64::MAX;
                };
                (
                    node.get("properties")
                        .and_then(|p| p.get(name))
                        .and_then(Value::as_object),
                    place.child(&["properties", name], factor),
                )
            }
            other => (
                node.get(other).and_then(Value::as_object),
                place.child(&[other], factor),
            ),
        };
        let Some(next) = next else {
            return u64::MAX;
        };
        place = child;
        node = next;
    }
    let Some(decl) = schema_decl(node, place.root || is_embedded(node)) else {
        return u64::MAX;
    };
    let Some(entry) = node
        .get("x-kubernetes-validations")
        .and_then(|r| r.get(rule.index))
    else {
        return u64::MAX;
    };
    rule_costs(&decl, &place, rule.index, entry)
        .into_iter()
        .find(|c| c.expression == rule.expression)
        .and_then(|c| c.cost)
        .unwrap_or(u64::MAX)
}

fn bounded(schema: &Value, c: &Candidate, n: u64) -> Value {
    let mut copy = schema.clone();
    if let Some(node) = node_at_mut(&mut copy, &c.pointer) {
        node.insert(c.keyword.into(), Value::from(n));
    }
    copy
}

/// What the apiserver assumes for an unbounded node, in items, entries or characters.
fn assumed(schema: &Value, c: &Candidate) -> u64 {
    node_at(schema, &c.pointer)
        .and_then(|n| schema_decl(n, is_embedded(n)))
        .map_or(0, |d| d.max_elements.max(0) as u64)
}

/// The bound that brings `rule` to at most `budget`.
fn find(schema: &Value, rule: &RuleCost, budget: u64) -> Option<Fix> {
    let all = candidates(schema, rule);
    let current = rule.cost.unwrap_or(u64::MAX);
    let mut scored: Vec<(u64, &Candidate)> = all
        .iter()
        .map(|c| (cost_in(&bounded(schema, c, 1), rule), c))
        .filter(|(cost, _)| *cost < current)
        .collect();
    scored.sort_by_key(|(cost, _)| *cost);
    let (best_cost, best) = *scored.first()?;
    let assumed = assumed(schema, best);
    let suggested = if best_cost <= budget {
        // The largest bound that fits: costs only grow with the bound.
        let upper = match best.keyword {
            "maxLength" => (MAX_REQUEST_SIZE_BYTES as u64) / 4,
            _ => assumed.max(1),
        };
        let (mut lo, mut hi) = (1u64, upper);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if cost_in(&bounded(schema, best, mid), rule) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    } else {
        None
    };
    let also = if suggested.is_none() {
        scored
            .iter()
            .skip(1)
            .map(|(_, c)| (c.path.clone(), c.keyword))
            .collect()
    } else {
        Vec::new()
    };
    Some(Fix {
        path: best.path.clone(),
        keyword: best.keyword,
        assumed,
        suggested,
        also,
    })
}

/// The bound that brings `rule` under its own limit.
pub(crate) fn suggest(schema: &Value, rule: &RuleCost) -> Option<Fix> {
    find(schema, rule, rule.limit)
}

/// The bound on the most expensive rule that brings the schema's total under its limit.
pub(crate) fn suggest_total(schema: &Value, rule: &RuleCost, total: u64) -> Option<Fix> {
    let others = total.saturating_sub(rule.cost.unwrap_or(0));
    let budget = super::SCHEMA_COST_LIMIT.checked_sub(others)?;
    find(schema, rule, budget.min(rule.limit))
}
