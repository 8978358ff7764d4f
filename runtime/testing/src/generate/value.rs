//! The walk over a structural schema that produces one value the apiserver accepts.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

use super::GenerateError;
use super::formats;
use super::junctors::{is_int_or_string_any_of, junctors_only, merge};
use super::pattern::Pattern;
use kubegen_runtime::validation::{FieldError, Schema, openapi};

/// How many schema nodes one object may fill before only required fields are added.
const NODE_BUDGET: usize = 1500;
/// How often a retry may start over on a node whose `oneOf`/`anyOf`/`not` did not hold.
const JUNCTOR_TRIES: u32 = 12;

/// Compiled patterns, shared by every object one generator makes.
#[derive(Default)]
pub(super) struct Patterns(HashMap<String, Result<Pattern, String>>);

impl Patterns {
    pub(super) fn get(&mut self, pattern: &str) -> Result<&Pattern, String> {
        self.0
            .entry(pattern.to_owned())
            .or_insert_with(|| Pattern::compile(pattern))
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The state of one object's generation.
pub(super) struct Walk<'a> {
    pub rng: ChaCha8Rng,
    pub patterns: &'a mut Patterns,
    /// The chance an optional field is present at the top level; it shrinks with depth.
    pub presence: f64,
    /// Nodes filled so far.
    pub nodes: usize,
}

pub(super) fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

pub(super) fn err(path: &str, reason: impl Into<String>) -> GenerateError {
    GenerateError {
        path: if path.is_empty() {
            "<root>".into()
        } else {
            path.to_owned()
        },
        reason: reason.into(),
    }
}

fn sorted_keys(map: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys
}

impl Walk<'_> {
    fn present(&mut self, depth: u32) -> bool {
        if self.nodes > NODE_BUDGET {
            return false;
        }
        let p = self.presence * 0.8f64.powi(depth as i32);
        p > 0.0 && self.rng.random_bool(p.min(1.0))
    }

    /// How many optional list items or map entries to add beyond the minimum.
    fn extra_len(&mut self, depth: u32) -> u64 {
        if self.nodes > NODE_BUDGET || self.presence == 0.0 {
            return 0;
        }
        let max: u32 = if depth < 4 { 4 } else { 2 };
        u64::from(self.rng.random_range(0..=max))
    }

    /// A value valid under `node` at `path`.
    pub(super) fn node(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
        depth: u32,
    ) -> Result<Value, GenerateError> {
        self.nodes += 1;
        if flag(node, "nullable") && self.rng.random_bool(0.15) {
            return Ok(Value::Null);
        }
        let has_junctors = ["allOf", "oneOf", "not"]
            .iter()
            .any(|k| node.contains_key(*k))
            || matches!(node.get("anyOf"), Some(Value::Array(b)) if !is_int_or_string_any_of(b));
        if !has_junctors {
            return self.plain(node, path, depth);
        }
        // Choose a branch of every oneOf/anyOf, fold its constraints into the node, and check
        // the junctors hold for what comes out; fewer optional fields on each retry.
        let presence = self.presence;
        let mut last = String::new();
        for attempt in 0..JUNCTOR_TRIES {
            let effective = self.choose_branches(node);
            let value = self.plain(&effective, path, depth);
            self.presence = presence;
            let value = value?;
            let junctors = junctors_only(node);
            let errors = schema_errors(&Value::Object(junctors), &value);
            if errors.is_empty() {
                return Ok(value);
            }
            last = errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            self.presence = presence * 0.5f64.powi(attempt as i32 + 1);
            if attempt + 2 >= JUNCTOR_TRIES {
                self.presence = 0.0;
            }
        }
        self.presence = presence;
        Err(err(
            path,
            format!("no value satisfied allOf/anyOf/oneOf/not: {last}"),
        ))
    }

    /// The node with one branch of each `oneOf`/`anyOf` (and every `allOf` member) merged in.
    fn choose_branches(&mut self, node: &Map<String, Value>) -> Map<String, Value> {
        let mut effective = node.clone();
        let mut pending: Vec<Value> = Vec::new();
        for key in ["allOf", "anyOf", "oneOf", "not"] {
            if let Some(v) = effective.remove(key) {
                if key == "anyOf" && matches!(&v, Value::Array(b) if is_int_or_string_any_of(b)) {
                    effective.insert(key.into(), v);
                    continue;
                }
                if key != "not" {
                    pending.push(json!({ key: v }));
                }
            }
        }
        while let Some(Value::Object(mut junctor)) = pending.pop() {
            if let Some(Value::Array(all)) = junctor.remove("allOf") {
                for member in all {
                    if let Value::Object(mut m) = member {
                        for key in ["allOf", "anyOf", "oneOf"] {
                            if let Some(v) = m.remove(key) {
                                pending.push(json!({ key: v }));
                            }
                        }
                        merge(&mut effective, &m);
                    }
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = junctor.remove(key)
                    && let Some(Value::Object(branch)) = branches.choose(&mut self.rng)
                {
                    let mut branch = branch.clone();
                    for inner in ["allOf", "anyOf", "oneOf"] {
                        if let Some(v) = branch.remove(inner) {
                            pending.push(json!({ inner: v }));
                        }
                    }
                    merge(&mut effective, &branch);
                }
            }
        }
        effective
    }

    /// A value for a node whose junctors (if any) were already folded in.
    fn plain(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
        depth: u32,
    ) -> Result<Value, GenerateError> {
        if let Some(Value::Array(values)) = node.get("enum") {
            return self.enumeration(node, values, path);
        }
        if flag(node, "x-kubernetes-int-or-string") {
            return if self.rng.random_bool(0.5) {
                self.integer(node, path)
            } else {
                self.string(node, path)
            };
        }
        match node.get("type").and_then(Value::as_str) {
            Some("object") => self.object(node, path, depth),
            Some("array") => self.array(node, path, depth),
            Some("string") => self.string(node, path),
            Some("integer") => self.integer(node, path),
            Some("number") => self.number(node, path),
            Some("boolean") => Ok(Value::Bool(self.rng.random_bool(0.5))),
            Some(other) => Err(err(path, format!("unknown type {other:?}"))),
            None => Ok(self.any(depth)),
        }
    }

    fn enumeration(
        &mut self,
        node: &Map<String, Value>,
        values: &[Value],
        path: &str,
    ) -> Result<Value, GenerateError> {
        let schema = Value::Object(node.clone());
        let valid: Vec<&Value> = values
            .iter()
            .filter(|v| schema_errors(&schema, v).is_empty())
            .collect();
        valid
            .choose(&mut self.rng)
            .map(|v| (*v).clone())
            .ok_or_else(|| err(path, "no enum value satisfies the node's other constraints"))
    }

    fn object(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
        depth: u32,
    ) -> Result<Value, GenerateError> {
        let empty = Map::new();
        let properties = match node.get("properties") {
            Some(Value::Object(p)) => p,
            _ => &empty,
        };
        let required: BTreeSet<&str> = match node.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => BTreeSet::new(),
        };
        let embedded = flag(node, "x-kubernetes-embedded-resource");
        let forbidden = forbidden_properties(node);
        let mut out = Map::new();
        if embedded {
            self.embedded_identity(&mut out);
        }
        for name in sorted_keys(properties) {
            if embedded && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            if forbidden.contains(name.as_str()) && !required.contains(name.as_str()) {
                continue;
            }
            if required.contains(name.as_str()) || self.present(depth) {
                let Value::Object(child) = &properties[name] else {
                    continue;
                };
                let value = self.node(child, &format!("{path}.{name}"), depth + 1)?;
                out.insert(name.clone(), value);
            }
        }
        for name in &required {
            if !out.contains_key(*name) && !properties.contains_key(*name) {
                // Required but not described: only preserve-unknown-fields nodes allow it.
                out.insert((*name).to_owned(), self.any(depth + 1));
            }
        }
        let min = node
            .get("minProperties")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let max = node.get("maxProperties").and_then(Value::as_u64);
        let additional = match node.get("additionalProperties") {
            Some(Value::Object(a)) => Some(a),
            _ => None,
        };
        let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
        if additional.is_some() || preserve {
            let mut target = out.len() as u64 + self.extra_len(depth);
            if additional.is_none() && self.rng.random_bool(0.7) {
                target = out.len() as u64;
            }
            let target = target.max(min).min(max.unwrap_or(u64::MAX));
            let mut tries = 0;
            while (out.len() as u64) < target && tries < 4 * target + 8 {
                tries += 1;
                let key = self.key();
                if out.contains_key(&key) || properties.contains_key(&key) {
                    continue;
                }
                let value = match additional {
                    Some(a) => self.node(a, &format!("{path}.{key}"), depth + 1)?,
                    None => self.any(depth + 1),
                };
                out.insert(key, value);
            }
        }
        // Bring the field count within minProperties..maxProperties with optional fields.
        for name in sorted_keys(properties) {
            if (out.len() as u64) >= min {
                break;
            }
            if !out.contains_key(name)
                && !forbidden.contains(name.as_str())
                && let Value::Object(child) = &properties[name]
            {
                let value = self.node(child, &format!("{path}.{name}"), depth + 1)?;
                out.insert(name.clone(), value);
            }
        }
        if let Some(max) = max {
            let optional: Vec<String> = out
                .keys()
                .filter(|k| !required.contains(k.as_str()))
                .cloned()
                .collect();
            for key in optional {
                if (out.len() as u64) <= max {
                    break;
                }
                out.remove(&key);
            }
        }
        let count = out.len() as u64;
        if count < min || max.is_some_and(|m| count > m) {
            return Err(err(
                path,
                format!("cannot give the object between {min} and {max:?} fields"),
            ));
        }
        Ok(Value::Object(out))
    }

    /// `apiVersion`, `kind` and `metadata` of an embedded resource, as the apiserver checks
    /// them: a group/version, a kind that is a DNS-1035 label in any case, valid metadata.
    fn embedded_identity(&mut self, out: &mut Map<String, Value>) {
        let version = *["v1", "v1beta1", "v2alpha3"]
            .choose(&mut self.rng)
            .unwrap_or(&"v1");
        let api_version = if self.rng.random_bool(0.3) {
            version.to_owned()
        } else {
            format!("{}/{version}", formats::long_name(&mut self.rng))
        };
        let kind = *["ConfigMap", "Pod", "Widget", "x", "My-Kind2"]
            .choose(&mut self.rng)
            .unwrap_or(&"Pod");
        out.insert("apiVersion".into(), json!(api_version));
        out.insert("kind".into(), json!(kind));
        if self.rng.random_bool(0.6) {
            let metadata = self.metadata(false);
            out.insert("metadata".into(), metadata);
        }
    }

    /// Object metadata the apiserver accepts: a DNS-1123 subdomain name, sometimes labels and
    /// annotations with valid keys.
    pub(super) fn metadata(&mut self, name_required: bool) -> Value {
        let mut meta = Map::new();
        if name_required || self.rng.random_bool(0.8) {
            meta.insert("name".into(), json!(formats::long_name(&mut self.rng)));
        }
        if self.rng.random_bool(0.3) {
            let mut labels = Map::new();
            for _ in 0..self.rng.random_range(1..=3u32) {
                let key = self.qualified_name();
                let value = formats::short_name(&mut self.rng, 63);
                labels.insert(key, json!(value));
            }
            meta.insert("labels".into(), Value::Object(labels));
        }
        if self.rng.random_bool(0.3) {
            let mut annotations = Map::new();
            for _ in 0..self.rng.random_range(1..=3u32) {
                let key = self.qualified_name();
                let value = self.free_string(0, 40);
                annotations.insert(key, json!(value));
            }
            meta.insert("annotations".into(), Value::Object(annotations));
        }
        Value::Object(meta)
    }

    /// A label or annotation key: an optional DNS subdomain prefix, then a name.
    fn qualified_name(&mut self) -> String {
        let name = formats::short_name(&mut self.rng, 63);
        if self.rng.random_bool(0.4) {
            format!("{}/{name}", formats::long_name(&mut self.rng))
        } else {
            name
        }
    }

    /// A map key: any string is one.
    fn key(&mut self) -> String {
        match self.rng.random_range(0..8u32) {
            0 => String::new(),
            1 => self.free_string(1, 12),
            2 => "with.dots/and-slash".into(),
            _ => formats::short_name(&mut self.rng, 20),
        }
    }

    fn array(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
        depth: u32,
    ) -> Result<Value, GenerateError> {
        let Some(Value::Object(items)) = node.get("items") else {
            return Err(err(path, "an array without items"));
        };
        let min = node.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = node.get("maxItems").and_then(Value::as_u64);
        let mut len = min + self.extra_len(depth);
        if let Some(max) = max {
            if self.rng.random_bool(0.1) && self.presence > 0.0 {
                len = max;
            }
            len = len.min(max);
        }
        let list_type = node.get("x-kubernetes-list-type").and_then(Value::as_str);
        let keys: Vec<&str> = match node.get("x-kubernetes-list-map-keys") {
            Some(Value::Array(k)) => k.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let identity = |item: &Value| -> Value {
            match list_type {
                Some("set") => item.clone(),
                Some("map") => Value::Array(
                    keys.iter()
                        .map(|k| {
                            item.get(*k).cloned().unwrap_or_else(|| {
                                items
                                    .get("properties")
                                    .and_then(|p| p.get(*k))
                                    .and_then(|p| p.get("default"))
                                    .cloned()
                                    .unwrap_or(Value::Null)
                            })
                        })
                        .collect(),
                ),
                _ => Value::Null,
            }
        };
        let unique = matches!(list_type, Some("set" | "map"));
        let mut out: Vec<Value> = Vec::new();
        let mut seen: Vec<Value> = Vec::new();
        let mut tries = 0;
        while (out.len() as u64) < len && tries < 8 * len + 8 {
            tries += 1;
            let at = format!("{path}[{}]", out.len());
            let item = if !unique && !out.is_empty() && self.rng.random_bool(0.1) {
                // Atomic lists may repeat items.
                out[self.rng.random_range(0..out.len() as u32) as usize].clone()
            } else {
                self.node(items, &at, depth + 1)?
            };
            if unique {
                let id = identity(&item);
                if seen.contains(&id) {
                    continue;
                }
                seen.push(id);
            }
            out.push(item);
        }
        if (out.len() as u64) < min {
            return Err(err(path, format!("could not make {min} distinct items")));
        }
        Ok(Value::Array(out))
    }

    /// Any JSON value, for preserve-unknown-fields nodes.
    pub(super) fn any(&mut self, depth: u32) -> Value {
        let leaf = depth > 6 || self.nodes > NODE_BUDGET;
        self.nodes += 1;
        match self.rng.random_range(0..if leaf { 6 } else { 8 }) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.random_bool(0.5)),
            2 => json!(self.pick_int(i128::from(i64::MIN), i128::from(i64::MAX)) as i64),
            3 => json!(self.rng.random_range(-1e6..1e6f64)),
            4 | 5 => Value::String(self.free_string(0, 10)),
            6 => Value::Array(
                (0..self.rng.random_range(0..4u32))
                    .map(|_| self.any(depth + 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..self.rng.random_range(0..4u32))
                    .map(|_| (self.key(), self.any(depth + 1)))
                    .collect(),
            ),
        }
    }
}

/// The properties a node's `not` forbids outright: `not: {required: [a]}` or
/// `not: {anyOf: [{required: [a]}, ...]}`, the form a variant that refuses unknown fields
/// gets (so objects leave them out, rather than being retried until they do).
fn forbidden_properties(node: &Map<String, Value>) -> BTreeSet<&str> {
    fn required_one(v: &Value) -> Option<&str> {
        match v.get("required")?.as_array()?.as_slice() {
            [only] if v.as_object()?.len() == 1 => only.as_str(),
            _ => None,
        }
    }
    let Some(not) = node.get("not") else {
        return BTreeSet::new();
    };
    if let Some(one) = required_one(not) {
        return BTreeSet::from([one]);
    }
    match not.get("anyOf").and_then(Value::as_array) {
        Some(branches) if not.as_object().is_some_and(|o| o.len() == 1) => {
            let names: Option<BTreeSet<&str>> = branches.iter().map(required_one).collect();
            names.unwrap_or_default()
        }
        _ => BTreeSet::new(),
    }
}

/// The node as a map, or an empty one for a node that is not an object.
pub(super) fn as_node(value: &Value) -> Cow<'_, Map<String, Value>> {
    match value {
        Value::Object(m) => Cow::Borrowed(m),
        _ => Cow::Owned(Map::new()),
    }
}

/// What the apiserver's schema validation says of `value` under `schema`.
pub(super) fn schema_errors(schema: &Value, value: &Value) -> Vec<FieldError> {
    openapi::validate(&Schema::new(schema), value, None, None)
}
