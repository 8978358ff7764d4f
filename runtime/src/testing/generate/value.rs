//! The walk over a structural schema that produces one value the apiserver accepts.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Number, Value, json};

use super::GenerateError;
use super::formats;
use super::pattern::Pattern;
use crate::schema::validate::validate;

/// How many schema nodes one object may fill before only required fields are added.
const NODE_BUDGET: usize = 1500;
/// How often a retry may start over on a node whose `oneOf`/`anyOf`/`not` did not hold.
const JUNCTOR_TRIES: u32 = 12;
/// How often a string is drawn before the generator gives up on its constraints.
const STRING_TRIES: u32 = 60;

/// Compiled patterns, shared by every object one generator makes.
#[derive(Default)]
pub(super) struct Patterns(HashMap<String, Result<Pattern, String>>);

impl Patterns {
    fn get(&mut self, pattern: &str) -> Result<&Pattern, String> {
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

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn err(path: &str, reason: impl Into<String>) -> GenerateError {
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

/// Is this the `anyOf: [{type: integer}, {type: string}]` that marks int-or-string?
fn is_int_or_string_any_of(branches: &[Value]) -> bool {
    branches == [json!({"type": "integer"}), json!({"type": "string"})]
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
            let errors = validate(&Value::Object(junctors), &value, path, false);
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
            .filter(|v| validate(&schema, v, path, false).is_empty())
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
        let mut out = Map::new();
        if embedded {
            self.embedded_identity(&mut out);
        }
        for name in sorted_keys(properties) {
            if embedded && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
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

    fn string(&mut self, node: &Map<String, Value>, path: &str) -> Result<Value, GenerateError> {
        let min = node.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = node.get("maxLength").and_then(Value::as_u64);
        let format = node.get("format").and_then(Value::as_str);
        let mut patterns: Vec<&str> = Vec::new();
        if let Some(p) = node.get("pattern").and_then(Value::as_str) {
            patterns.push(p);
        }
        if let Some(Value::Array(more)) = node.get(EXTRA_PATTERNS) {
            patterns.extend(more.iter().filter_map(Value::as_str));
        }
        let mut last = String::from("no candidate");
        for attempt in 0..STRING_TRIES {
            let from_format = format.and_then(|f| formats::generate(f, &mut self.rng));
            let candidate = match (from_format, patterns.first()) {
                (Some(s), _) => s,
                (None, Some(p)) => {
                    let filler = self.free_string(0, 3);
                    let pattern = self.patterns.get(p).map_err(|e| err(path, e))?;
                    pattern.candidate(&mut self.rng, min, &filler)
                }
                (None, None) => {
                    let upper = max.unwrap_or(min + if attempt % 4 == 0 { 64 } else { 12 });
                    self.free_string(min, upper)
                }
            };
            let len = candidate.chars().count() as u64;
            if len < min || max.is_some_and(|m| len > m) {
                last = format!("{candidate:?} has {len} characters, not {min}..{max:?}");
                continue;
            }
            let mut matches = true;
            for p in &patterns {
                let pattern = self.patterns.get(p).map_err(|e| err(path, e))?;
                if !pattern.is_match(&candidate) {
                    last = format!("{candidate:?} does not match {p:?}");
                    matches = false;
                    break;
                }
            }
            if matches {
                return Ok(Value::String(candidate));
            }
        }
        Err(err(
            path,
            format!("no string satisfied the format, pattern and length: {last}"),
        ))
    }

    /// A string of `min..=max` characters from a mix of scripts, whitespace and escapes.
    fn free_string(&mut self, min: u64, max: u64) -> String {
        const SPECIAL: &[char] = &[
            ' ',
            '"',
            '\\',
            '/',
            '\n',
            '\t',
            '\u{1}',
            '\u{7f}',
            'é',
            'ß',
            '中',
            'ж',
            '€',
            '\u{a0}',
            '\u{200b}',
            '😀',
            '𝄞',
            '\u{10ffff}',
            '<',
            '&',
            '\'',
            '%',
            '$',
            '{',
            '}',
        ];
        let len = if min == max {
            min
        } else if self.rng.random_bool(0.15) {
            if self.rng.random_bool(0.5) { min } else { max }
        } else {
            min + self.rng.random_range(0..=(max - min).min(24))
        };
        let style = self.rng.random_range(0..4u32);
        (0..len)
            .map(|_| match style {
                0 => char::from(b'a' + self.rng.random_range(0..26u8)),
                1 => char::from(self.rng.random_range(0x20..0x7fu8)),
                _ if self.rng.random_bool(0.3) => *SPECIAL.choose(&mut self.rng).unwrap_or(&'x'),
                _ => char::from(self.rng.random_range(0x21..0x7fu8)),
            })
            .collect()
    }

    fn integer(&mut self, node: &Map<String, Value>, path: &str) -> Result<Value, GenerateError> {
        let (mut lo, mut hi) = match node.get("format").and_then(Value::as_str) {
            Some("int32") => (i128::from(i32::MIN), i128::from(i32::MAX)),
            _ => (i128::from(i64::MIN), i128::from(i64::MAX)),
        };
        if let Some(min) = node.get("minimum").and_then(Value::as_f64) {
            let mut m = min.ceil() as i128;
            if flag(node, "exclusiveMinimum") && m as f64 == min {
                m += 1;
            }
            lo = lo.max(m);
        }
        if let Some(max) = node.get("maximum").and_then(Value::as_f64) {
            let mut m = max.floor() as i128;
            if flag(node, "exclusiveMaximum") && m as f64 == max {
                m -= 1;
            }
            hi = hi.min(m);
        }
        let step = node.get("multipleOf").and_then(Value::as_f64);
        let (lo, hi, scale) = match step {
            Some(s) if s.fract() == 0.0 && s >= 1.0 => {
                let s = s as i128;
                (
                    lo.div_euclid(s) + i128::from(lo.rem_euclid(s) != 0),
                    hi.div_euclid(s),
                    s,
                )
            }
            _ => (lo, hi, 1),
        };
        if lo > hi {
            return Err(err(path, "no integer within the bounds"));
        }
        let mut n = self.pick_int(lo, hi) * scale;
        if let Some(s) = step.filter(|_| scale == 1) {
            // A fractional step: keep to multiples the apiserver's float check confirms.
            match (0..20)
                .map(|_| self.pick_int(lo.max(-(1 << 40)), hi.min(1 << 40)))
                .find(|&v| is_multiple(v as f64, s))
            {
                Some(v) => n = v,
                None => return Err(err(path, format!("cannot generate multiples of {s}"))),
            }
        }
        Ok(i64::try_from(n)
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(n as u64)))
    }

    /// An integer in `lo..=hi`: a boundary or a small value often, any magnitude otherwise.
    fn pick_int(&mut self, lo: i128, hi: i128) -> i128 {
        let specials = [lo, hi, lo + 1, hi - 1, 0, 1, -1, 2];
        if self.rng.random_bool(0.35) {
            let candidates: Vec<i128> = specials
                .into_iter()
                .filter(|v| (lo..=hi).contains(v))
                .collect();
            if let Some(v) = candidates.choose(&mut self.rng) {
                return *v;
            }
        }
        let bits = self.rng.random_range(0..64u32);
        let magnitude = i128::from(self.rng.random::<u64>() >> (63 - bits) >> 1);
        let span = hi - lo + 1;
        let sign = if self.rng.random_bool(0.5) { 1 } else { -1 };
        let v = sign * magnitude;
        if (lo..=hi).contains(&v) {
            v
        } else {
            lo + magnitude.rem_euclid(span)
        }
    }

    fn number(&mut self, node: &Map<String, Value>, path: &str) -> Result<Value, GenerateError> {
        let limit = match node.get("format").and_then(Value::as_str) {
            Some("float") => f64::from(f32::MAX),
            _ => f64::MAX,
        };
        let (mut lo, mut hi) = (-limit, limit);
        if let Some(min) = node.get("minimum").and_then(Value::as_f64) {
            lo = lo.max(if flag(node, "exclusiveMinimum") {
                min.next_up()
            } else {
                min
            });
        }
        if let Some(max) = node.get("maximum").and_then(Value::as_f64) {
            hi = hi.min(if flag(node, "exclusiveMaximum") {
                max.next_down()
            } else {
                max
            });
        }
        if lo > hi {
            return Err(err(path, "no number within the bounds"));
        }
        if let Some(step) = node.get("multipleOf").and_then(Value::as_f64) {
            let (klo, khi) = ((lo / step).ceil(), (hi / step).floor());
            let (klo, khi) = (klo.max(-1e12) as i128, khi.min(1e12) as i128);
            for _ in 0..20 {
                if klo > khi {
                    break;
                }
                let v = self.pick_int(klo, khi) as f64 * step;
                if is_multiple(v, step) && v >= lo && v <= hi {
                    return Ok(json!(v));
                }
            }
            return Err(err(path, format!("cannot generate multiples of {step}")));
        }
        let specials = [
            lo,
            hi,
            0.0,
            -0.5,
            1.0,
            0.1,
            1e-300,
            f64::from(f32::MIN_POSITIVE),
            1e300,
            -1e300,
            123456.789,
        ];
        let v = if self.rng.random_bool(0.4) {
            let candidates: Vec<f64> = specials
                .into_iter()
                .filter(|v| *v >= lo && *v <= hi)
                .collect();
            *candidates.choose(&mut self.rng).unwrap_or(&lo)
        } else {
            let exponent = self.rng.random_range(-20..20i32);
            let v = (self.rng.random::<f64>() - 0.5) * 10f64.powi(exponent);
            if v >= lo && v <= hi {
                v
            } else if hi - lo < f64::MAX && (hi - lo).is_finite() {
                lo + self.rng.random::<f64>() * (hi - lo)
            } else {
                lo.max(0.0).min(hi)
            }
        };
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| err(path, "the bounds allow no finite number"))
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

/// kube-openapi's `MultipleOf` for floats: the quotient (computed as it computes it) must
/// be an integer a JSON number holds exactly.
fn is_multiple(v: f64, factor: f64) -> bool {
    let quotient = if factor < 1.0 {
        1.0 / factor * v
    } else {
        v / factor
    };
    quotient.fract() == 0.0 && quotient.abs() <= 9_007_199_254_740_992.0
}

/// Where [`merge`] keeps patterns beyond the node's own (a branch adding a second one).
const EXTRA_PATTERNS: &str = "x-kubegen-generate-patterns";

/// The node's junctors alone, to check a value against them.
fn junctors_only(node: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ["allOf", "anyOf", "oneOf", "not"] {
        if let Some(v) = node.get(key) {
            if key == "anyOf" && matches!(v, Value::Array(b) if is_int_or_string_any_of(b)) {
                continue;
            }
            out.insert(key.into(), v.clone());
        }
    }
    out
}

/// Folds a junctor branch's value validations into `into`, keeping the tighter bound.
fn merge(into: &mut Map<String, Value>, branch: &Map<String, Value>) {
    for (key, value) in branch {
        match key.as_str() {
            "required" => {
                let mut required: Vec<Value> = match into.remove("required") {
                    Some(Value::Array(r)) => r,
                    _ => Vec::new(),
                };
                if let Value::Array(more) = value {
                    for r in more {
                        if !required.contains(r) {
                            required.push(r.clone());
                        }
                    }
                }
                into.insert("required".into(), Value::Array(required));
            }
            "properties" => {
                let Value::Object(props) = value else {
                    continue;
                };
                let target = into
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(target) = target {
                    for (name, sub) in props {
                        let slot = target
                            .entry(name.clone())
                            .or_insert_with(|| Value::Object(Map::new()));
                        if let (Value::Object(slot), Value::Object(sub)) = (slot, sub) {
                            merge(slot, sub);
                        }
                    }
                }
            }
            "items" | "additionalProperties" => {
                if let (Some(Value::Object(slot)), Value::Object(sub)) = (into.get_mut(key), value)
                {
                    merge(slot, sub);
                }
            }
            "enum" => {
                let merged = match (into.get("enum"), value) {
                    (Some(Value::Array(a)), Value::Array(b)) => {
                        Value::Array(a.iter().filter(|v| b.contains(v)).cloned().collect())
                    }
                    _ => value.clone(),
                };
                into.insert("enum".into(), merged);
            }
            "minimum" | "minLength" | "minItems" | "minProperties" => {
                let tighter = match (into.get(key).and_then(Value::as_f64), value.as_f64()) {
                    (Some(a), Some(b)) if a >= b => continue,
                    _ => value.clone(),
                };
                into.insert(key.clone(), tighter);
            }
            "maximum" | "maxLength" | "maxItems" | "maxProperties" => {
                let tighter = match (into.get(key).and_then(Value::as_f64), value.as_f64()) {
                    (Some(a), Some(b)) if a <= b => continue,
                    _ => value.clone(),
                };
                into.insert(key.clone(), tighter);
            }
            "pattern" if into.contains_key("pattern") && into.get("pattern") != Some(value) => {
                let extra = into
                    .entry(EXTRA_PATTERNS)
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(extra) = extra {
                    extra.push(value.clone());
                }
            }
            _ => {
                if !into.contains_key(key) {
                    into.insert(key.clone(), value.clone());
                }
            }
        }
    }
}

/// The node as a map, or an empty one for a node that is not an object.
pub(super) fn as_node(value: &Value) -> Cow<'_, Map<String, Value>> {
    match value {
        Value::Object(m) => Cow::Borrowed(m),
        _ => Cow::Owned(Map::new()),
    }
}
