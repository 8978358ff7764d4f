//! CEL rule costs: `crd()` refuses the rules kube-apiserver refuses as too expensive, and
//! nothing else it can help.
//!
//! A corpus of rules (cheap and expensive; lists, nested lists, maps, strings and string
//! functions, quantities, nested comprehensions; bounded and unbounded variants; pairs on both
//! sides of the limit) is estimated with `kubegen::schema::cel_cost`, the check `crd()` runs,
//! and each schema is sent to kube-apiserver as a dry-run CRD create. Every rule is also
//! measured on its own: placed under a list of `maxItems` K, where K is the most our estimate
//! allows, and K + 1, where the apiserver must refuse it with the factor we compute. So a
//! rule's cost agrees to within a few units, not only its verdict.
//!
//! No CRD `crd()` accepts may be refused (a false negative fails the test); CRDs `crd()`
//! refuses that the apiserver accepts (false alarms) are counted and printed.
//!
//! The apiserver's answers are recorded in `tests/cel_cost/apiserver.json`, so a machine
//! without one still checks our verdicts against them; with a real apiserver
//! (`KUBEGEN_TEST_KUBECONFIG`, or `KUBEBUILDER_ASSETS` with the `envtest` feature) they are
//! asked live and must match the recording; `KUBEGEN_CEL_COST_RECORD=1` rewrites it.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::CrdError;
use kubegen::prelude::*;
use kubegen::schema::cel_cost::{self, CostViolation, Expression};
use serde_json::{Value, json};

use crate::fixtures::crd_recording::{self, Causes};

const RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cel_cost/apiserver.json");
const RECORD_VARIABLE: &str = "KUBEGEN_CEL_COST_RECORD";
/// Where the apiserver reports the schema of a single-version CRD.
const SCHEMA_FIELD: &str = "spec.validation.openAPIV3Schema";

// ---------------------------------------------------------------------------------------
// Schemas

fn string() -> Value {
    json!({"type": "string"})
}

fn string_max(n: u64) -> Value {
    json!({"type": "string", "maxLength": n})
}

fn int() -> Value {
    json!({"type": "integer", "format": "int64"})
}

fn list(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

fn list_max(items: Value, n: u64) -> Value {
    json!({"type": "array", "items": items, "maxItems": n})
}

fn map(values: Value) -> Value {
    json!({"type": "object", "additionalProperties": values})
}

fn map_max(values: Value, n: u64) -> Value {
    json!({"type": "object", "additionalProperties": values, "maxProperties": n})
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// `node` with one more `x-kubernetes-validations` rule.
fn rule(node: Value, expression: &str) -> Value {
    with_rule(node, json!({"rule": expression}))
}

fn with_rule(mut node: Value, entry: Value) -> Value {
    let rules = node
        .as_object_mut()
        .expect("a schema node is an object")
        .entry("x-kubernetes-validations")
        .or_insert_with(|| json!([]));
    rules.as_array_mut().expect("rules are a list").push(entry);
    node
}

/// A kind's root schema with this `spec`.
fn root(spec: Value) -> Value {
    json!({"type": "object", "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": spec,
    }})
}

/// A root schema whose `spec` has these properties.
fn spec(properties: Value) -> Value {
    root(object(properties))
}

struct Case {
    name: String,
    schema: Value,
}

fn case(name: &str, schema: Value) -> Case {
    Case {
        name: name.into(),
        schema,
    }
}

fn accepted(schema: &Value) -> bool {
    cel_cost::check_schema(schema).is_empty()
}

/// The largest `n` for which `crd()`'s check accepts `build(n)`, and the two cases either
/// side of it.
fn near_limit(name: &str, build: impl Fn(u64) -> Value) -> [Case; 2] {
    let (mut lo, mut hi) = (1u64, 1u64 << 24);
    assert!(accepted(&build(lo)), "{name}: refused even at 1");
    assert!(!accepted(&build(hi)), "{name}: accepted even at {hi}");
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if accepted(&build(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    [
        case(&format!("{name} at {lo}"), build(lo)),
        case(&format!("{name} at {hi}"), build(hi)),
    ]
}

/// The corpus: one schema per case, most with one rule.
fn corpus() -> Vec<Case> {
    let pairwise = "self.all(a, self.all(b, a != b))";
    let mut cases = vec![
        // Lists of strings, pairwise: the apiserver's own example.
        case("pairwise, unbounded", spec(json!({"tags": rule(list(string()), pairwise)}))),
        case(
            "pairwise, bounded list of unbounded strings",
            spec(json!({"tags": rule(list_max(string(), 10), pairwise)})),
        ),
        case(
            "pairwise, bounded",
            spec(json!({"tags": rule(list_max(string_max(63), 10), pairwise)})),
        ),
        case(
            "unique by exists_one",
            spec(json!({"tags": rule(list_max(string_max(16), 100), "self.all(a, self.exists_one(b, a == b))")})),
        ),
        // Strings and string functions.
        case(
            "matches, unbounded string",
            spec(json!({"name": rule(string(), "self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')")})),
        ),
        case(
            "matches on every item of an unbounded list",
            spec(json!({"names": list(rule(string(), "self.matches('^[a-z]+$')"))})),
        ),
        case(
            "matches on every item of a bounded list",
            spec(json!({"names": list_max(rule(string_max(63), "self.matches('^[a-z]+$')"), 100)})),
        ),
        case(
            "matches, the global form",
            spec(json!({"names": list(rule(string(), "matches(self, '^[a-z]+$')"))})),
        ),
        case(
            "a regex from the object",
            spec(json!({"value": string(), "pattern": string()}))
                .pipe(|s| with_spec_rule(s, "self.value.matches(self.pattern)")),
        ),
        case(
            "contains, unbounded",
            spec(json!({"a": string(), "b": string()}))
                .pipe(|s| with_spec_rule(s, "self.a.contains(self.b)")),
        ),
        case(
            "startsWith and endsWith",
            spec(json!({"names": list(rule(string(), "self.startsWith('a') && self.endsWith('z')"))})),
        ),
        case(
            "split",
            spec(json!({"csv": rule(string(), "self.split(',').all(x, x.size() < 10)")})),
        ),
        case(
            "split, bounded",
            spec(json!({"csv": rule(string_max(256), "self.split(',').all(x, x.size() < 10)")})),
        ),
        case(
            "join",
            spec(json!({"parts": rule(list(string()), "self.join(',').size() < 100")})),
        ),
        case(
            "join, bounded",
            spec(json!({"parts": rule(list_max(string_max(10), 10), "self.join('-').size() < 100")})),
        ),
        case(
            "format",
            spec(json!({"name": string_max(64), "n": int()}))
                .pipe(|s| with_spec_rule(s, "'%s-%d'.format([self.name, self.n]).size() < 70")),
        ),
        case(
            "lowerAscii, trim, replace",
            spec(json!({"names": list(rule(string(), "self.lowerAscii().trim().replace('-', '_') != ''"))})),
        ),
        case(
            "substring, charAt, indexOf",
            spec(json!({"name": rule(string_max(100), "self.substring(1).charAt(0) != 'x' && self.indexOf('a') < 5 && self.lastIndexOf('b') > 1")})),
        ),
        case(
            "findAll",
            spec(json!({"text": rule(string(), "self.findAll('[0-9]+').size() < 3")})),
        ),
        case(
            "string concatenation",
            spec(json!({"a": string(), "b": string()}))
                .pipe(|s| with_spec_rule(s, "self.a + self.b != 'ab'")),
        ),
        case(
            "enum strings",
            spec(json!({"modes": list(rule(json!({"type": "string", "enum": ["Always", "Never", "IfNotPresent"]}), "self == 'Always' || self.startsWith('If')"))})),
        ),
        case(
            "url",
            spec(json!({"endpoints": list(rule(string(), "isURL(self) && url(self).getScheme() == 'https'"))})),
        ),
        case(
            "ip and cidr",
            spec(json!({"cidrs": list_max(rule(string_max(64), "isCIDR(self) && cidr(self).containsIP('10.0.0.1')"), 100)})),
        ),
        // Maps.
        case(
            "map values, unbounded",
            spec(json!({"labels": rule(map(string()), "self.all(k, self[k].size() < 64)")})),
        ),
        case(
            "map values, bounded",
            spec(json!({"labels": rule(map_max(string_max(63), 64), "self.all(k, self[k].size() < 64)")})),
        ),
        case(
            "map keys against each other",
            spec(json!({"labels": rule(map(string()), "self.all(a, self.all(b, a == b || !a.startsWith(b)))")})),
        ),
        case(
            "two-variable all over a map",
            spec(json!({"labels": rule(map(string_max(10)), "self.all(k, v, k.size() + v.size() < 64)")})),
        ),
        case(
            "rule on every map value",
            spec(json!({"labels": map(rule(string(), "self.size() > 0"))})),
        ),
        // Nested lists and objects.
        case(
            "nested lists",
            spec(json!({"matrix": rule(list(list(string())), "self.all(row, row.all(c, c != ''))")})),
        ),
        case(
            "nested lists, bounded",
            spec(json!({"matrix": rule(list_max(list_max(string_max(8), 10), 10), "self.all(row, row.all(c, c != ''))")})),
        ),
        case(
            "rule on items of items",
            spec(json!({"matrix": list(list(rule(string(), "self != 'x'")))})),
        ),
        case(
            "objects in a list, by field",
            spec(json!({"items": rule(list(object(json!({"name": string(), "port": int()}))), "self.all(x, x.port > 0 && x.name != '')")})),
        ),
        case(
            "map over items, then all",
            spec(json!({"items": rule(list_max(object(json!({"name": string_max(20)})), 20), "self.map(x, x.name).all(n, n.size() < 10)")})),
        ),
        case(
            "filter and size",
            spec(json!({"items": rule(list(object(json!({"on": {"type": "boolean"}}))), "self.filter(x, x.on).size() <= 1")})),
        ),
        case(
            "has",
            spec(json!({"a": object(json!({"b": object(json!({"c": string()}))}))}))
                .pipe(|s| with_spec_rule(s, "has(self.a) && has(self.a.b) && has(self.a.b.c)")),
        ),
        case(
            "conditional",
            spec(json!({"on": {"type": "boolean"}, "x": string_max(10), "y": string()}))
                .pipe(|s| with_spec_rule(s, "(self.on ? self.x : self.y) != ''")),
        ),
        case(
            "in a list",
            spec(json!({"allowed": list(string()), "values": list(string())}))
                .pipe(|s| with_spec_rule(s, "self.values.all(v, v in self.allowed)")),
        ),
        case(
            "sortBy and transformList",
            spec(json!({"items": list_max(object(json!({"name": string_max(10), "n": int()})), 100)}))
                .pipe(|s| with_spec_rule(s, "self.items.sortBy(x, x.n).transformList(i, x, x.name).size() == size(self.items)")),
        ),
        case(
            "two-variable exists over a list",
            spec(json!({"items": rule(list(string_max(10)), "self.exists(i, v, i > 2 && v == 'x')")})),
        ),
        case(
            "optional field selection",
            spec(json!({"a": object(json!({"b": string()}))}))
                .pipe(|s| with_spec_rule(s, "self.?a.?b.orValue('') != 'x'")),
        ),
        // Kubernetes list functions and extensions.
        case(
            "indexOf, isSorted, sum, max on lists",
            spec(json!({"ns": list(int()), "names": list_max(string_max(10), 10)}))
                .pipe(|s| with_spec_rule(s, "self.ns.isSorted() && self.ns.sum() < 100 && self.ns.max() < 10 && self.names.indexOf('a') < 3")),
        ),
        case(
            "sets.contains",
            spec(json!({"a": list(string()), "b": list_max(string(), 5)}))
                .pipe(|s| with_spec_rule(s, "sets.contains(self.a, self.b)")),
        ),
        case(
            "sort and distinct",
            spec(json!({"a": list_max(string_max(10), 50)}))
                .pipe(|s| with_spec_rule(s, "self.a.sort() == self.a.distinct()")),
        ),
        // Quantities and other formats.
        case(
            "quantity comparison",
            spec(json!({"limit": string()}))
                .pipe(|s| with_spec_rule(s, "quantity(self.limit).isLessThan(quantity('10Gi'))")),
        ),
        case(
            "quantities in an unbounded map",
            spec(json!({"resources": rule(map(json!({"x-kubernetes-int-or-string": true})), "self.all(k, isQuantity(string(self[k])) && quantity(string(self[k])).isGreaterThan(quantity('0')))")})),
        ),
        case(
            "int-or-string with maxLength",
            spec(json!({"port": rule(json!({"x-kubernetes-int-or-string": true, "maxLength": 8}), "type(self) == int ? self > 0 : self.matches('^[a-z]+$')")})),
        ),
        case(
            "timestamps",
            spec(json!({"times": list(rule(json!({"type": "string", "format": "date-time"}), "self > timestamp('2020-01-01T00:00:00Z')"))})),
        ),
        case(
            "durations",
            spec(json!({"d": json!({"type": "string", "format": "duration"})}))
                .pipe(|s| with_spec_rule(s, "self.d < duration('1h')")),
        ),
        case(
            "bytes",
            spec(json!({"data": rule(json!({"type": "string", "format": "byte"}), "self.size() < 1024 && string(self) != ''")})),
        ),
        // Transition rules and message expressions.
        case(
            "transition rule on an unbounded string",
            spec(json!({"names": map(rule(string(), "self == oldSelf"))})),
        ),
        case(
            "optional oldSelf",
            spec(json!({"name": with_rule(string(), json!({"rule": "oldSelf.hasValue() ? oldSelf.value() == self : true", "optionalOldSelf": true}))})),
        ),
        case(
            "expensive messageExpression",
            spec(json!({"parts": with_rule(list(string()), json!({"rule": "self.size() < 10", "messageExpression": "'got: ' + self.map(p, p + p).join(', ')"}))})),
        ),
        case(
            "cheap messageExpression",
            spec(json!({"parts": with_rule(list_max(string_max(10), 10), json!({"rule": "self.size() < 10", "messageExpression": "'got ' + string(self.size())"}))})),
        ),
        // Embedded resources and the root.
        case(
            "embedded resource metadata",
            spec(json!({"template": rule(json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}), "self.metadata.name.size() < 64 && self.kind != ''")})),
        ),
        case(
            "at the root",
            rule(spec(json!({"a": string()})), "self.metadata.name.startsWith(self.spec.a)"),
        ),
        // The typer's corners: dyn values, conversions, indexing, literals, library types.
        case(
            "int-or-string fields selected through dyn",
            spec(json!({"ports": rule(list(object(json!({"port": {"x-kubernetes-int-or-string": true}, "name": string()}))), "self.all(p, type(p.port) == string ? p.port.startsWith('http') : p.port > 0)")})),
        ),
        case(
            "indexing lists and maps",
            spec(json!({"l": list(string()), "m": map(string())}))
                .pipe(|s| with_spec_rule(s, "size(self.l) > 0 && self.l[0] == self.m['first']")),
        ),
        case(
            "in a map, in a list literal",
            spec(json!({"m": map(string()), "k": string_max(20)}))
                .pipe(|s| with_spec_rule(s, "self.k in self.m && self.k in ['a', 'b', 'c']")),
        ),
        case(
            "map literal lookup",
            spec(json!({"k": string_max(5)}))
                .pipe(|s| with_spec_rule(s, "{'a': 1, 'b': 2}[self.k] > 0")),
        ),
        case(
            "dyn and conversions",
            spec(json!({"n": int(), "s": string(), "d": {"type": "number"}}))
                .pipe(|s| with_spec_rule(s, "dyn(self.n) == 1 || string(self.n) == self.s || int(self.d) > 2 || double(self.n) < self.d || uint(self.n) > 1u")),
        ),
        case(
            "bytes and string conversions",
            spec(json!({"s": string_max(100)}))
                .pipe(|s| with_spec_rule(s, "bytes(self.s).size() < 400 && string(bytes(self.s)) == self.s")),
        ),
        case(
            "quantity equality and arithmetic",
            spec(json!({"a": string_max(20), "b": string_max(20)}))
                .pipe(|s| with_spec_rule(s, "quantity(self.a) == quantity(self.b) || quantity(self.a).add(quantity(self.b)).compareTo(quantity('1')) > 0 || quantity(self.a).sub(1).asInteger() > 0 || sign(quantity(self.b)) < 0")),
        ),
        case(
            "url accessors and equality",
            spec(json!({"u": string()}))
                .pipe(|s| with_spec_rule(s, "url(self.u).getHost() == 'x' && url(self.u).getQuery().size() < 3 && url(self.u) == url('https://a')")),
        ),
        case(
            "ip family and equality",
            spec(json!({"ips": list(rule(string(), "isIP(self) && ip(self).family() == 4 && ip(self) == ip('10.0.0.1') && ip.isCanonical(self)"))})),
        ),
        case(
            "cidr members",
            spec(json!({"c": string_max(50)}))
                .pipe(|s| with_spec_rule(s, "cidr(self.c).containsCIDR('10.0.0.0/8') && cidr(self.c).ip().isLoopback() && cidr(self.c).prefixLength() < 24 && cidr(self.c).masked() == cidr(self.c)")),
        ),
        case(
            "named formats",
            spec(json!({"names": list(rule(string(), "!format.dns1123Label().validate(self).hasValue() && format.named('dns1123Subdomain').value().validate(self).orValue([]).size() == 0"))})),
        ),
        case(
            "semver",
            spec(json!({"v": string_max(30)}))
                .pipe(|s| with_spec_rule(s, "isSemver(self.v) && semver(self.v).isGreaterThan(semver('1.0.0')) && semver(self.v).major() == 1")),
        ),
        case(
            "list extensions",
            spec(json!({"l": list(int()), "ll": list_max(list_max(int(), 10), 10)}))
                .pipe(|s| with_spec_rule(s, "self.l.slice(0, 2).size() == 2 && self.ll.flatten().reverse().size() > 0 && lists.range(5).all(i, i < 5) && self.l.min() >= 0 && self.l.lastIndexOf(1) < 3")),
        ),
        case(
            "sets.intersects and sets.equivalent",
            spec(json!({"a": list_max(string_max(10), 20), "b": list_max(string_max(10), 20)}))
                .pipe(|s| with_spec_rule(s, "sets.intersects(self.a, self.b) || sets.equivalent(self.a, ['x'])")),
        ),
        case(
            "transformMap and transformMapEntry",
            spec(json!({"m": map_max(string_max(10), 10)}))
                .pipe(|s| with_spec_rule(s, "self.m.transformMap(k, v, v + k).size() == self.m.transformMapEntry(k, v, {v: k}).size()")),
        ),
        case(
            "strings.quote and charAt",
            spec(json!({"s": string()}))
                .pipe(|s| with_spec_rule(s, "strings.quote(self.s).charAt(0) == '\"'")),
        ),
        case(
            "optionals",
            spec(json!({"m": map(string())}))
                .pipe(|s| with_spec_rule(s, "self.m[?'a'].orValue('') == optional.of('x').value() || optional.none().hasValue() || self.m.?b.optMap(v, v.size()).orValue(0) > 2")),
        ),
        case(
            "embedded resource apiVersion",
            spec(json!({"objects": list(rule(json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}), "self.apiVersion == 'v1' && self.metadata.generateName == ''"))})),
        ),
        case(
            "root metadata",
            rule(spec(json!({"replicas": int()})), "self.metadata.name.size() < 64 && self.spec.replicas >= 0 && self.kind == 'Probe'"),
        ),
        case(
            "timestamps and durations arithmetic",
            spec(json!({"start": json!({"type": "string", "format": "date-time"}), "end": json!({"type": "string", "format": "date-time"}), "d": json!({"type": "string", "format": "duration"})}))
                .pipe(|s| with_spec_rule(s, "self.end - self.start <= self.d && self.start + self.d >= self.end && self.start.getFullYear() > 2000")),
        ),
        case(
            "date strings",
            spec(json!({"days": list(rule(json!({"type": "string", "format": "date"}), "self < timestamp('2030-01-01T00:00:00Z')"))})),
        ),
        case(
            "string comparisons",
            spec(json!({"a": string(), "b": string_max(10)}))
                .pipe(|s| with_spec_rule(s, "self.a < self.b || self.a >= 'm'")),
        ),
        case(
            "messageExpression over its own limit",
            spec(json!({"parts": with_rule(list(string()), json!({"rule": "true", "messageExpression": "self.map(a, self.map(b, a + b).join(',')).join(';')"}))})),
        ),
        case(
            "size in both forms",
            spec(json!({"a": list(string()), "m": map(int()), "s": string()}))
                .pipe(|s| with_spec_rule(s, "self.a.all(x, x.size() < 10) && size(self.m) < 5 && self.s.size() == size(self.s)")),
        ),
    ];
    // Many rules that are cheap alone but not together: the schema's total.
    let mut many = serde_json::Map::new();
    for i in 0..12 {
        many.insert(
            format!("f{i}"),
            rule(
                list_max(string_max(256), 1000),
                "self.all(x, x.size() < 300 && x != 'x')",
            ),
        );
    }
    cases.push(case(
        "twelve rules over the total",
        spec(Value::Object(many)),
    ));
    cases.extend(near_limit("pairwise over maxItems", |n| {
        spec(json!({"tags": rule(list_max(string_max(63), n), pairwise)}))
    }));
    cases.extend(near_limit("pairwise over maxLength", |n| {
        spec(json!({"tags": rule(list_max(string_max(n), 64), pairwise)}))
    }));
    cases.extend(near_limit("matches under a list of maxItems", |n| {
        spec(json!({"names": list_max(rule(string(), "self.matches('^[a-z]+$')"), n)}))
    }));
    cases.extend(near_limit("map all over maxProperties", |n| {
        spec(json!({"labels": rule(map_max(string_max(63), n), "self.all(a, self.all(b, a == b || self[a] != self[b]))")}))
    }));
    cases.extend(near_limit("split over maxLength", |n| {
        spec(json!({"csv": list_max(rule(string_max(n), "self.split(',').all(x, x.size() < 10)"), 100)}))
    }));
    cases.extend(near_limit("total over the schema", |n| {
        let mut props = serde_json::Map::new();
        for i in 0..11 {
            props.insert(
                format!("f{i}"),
                rule(list_max(string_max(64), n), "self.all(x, x.size() < 65)"),
            );
        }
        spec(Value::Object(props))
    }));
    cases
}

trait Pipe: Sized {
    fn pipe(self, f: impl FnOnce(Self) -> Self) -> Self {
        f(self)
    }
}

impl Pipe for Value {}

/// `schema` with a rule on its `spec`.
fn with_spec_rule(mut schema: Value, expression: &str) -> Value {
    let spec = schema["properties"]["spec"].take();
    schema["properties"]["spec"] = rule(spec, expression);
    schema
}

// ---------------------------------------------------------------------------------------
// Probes: each rule on its own, under a list of K and K + 1 items.

/// The schema node at a JSON path such as `.spec.tags[*]` (`[*]`: items or map values).
fn node_at<'v>(schema: &'v Value, path: &str) -> Option<&'v Value> {
    let mut node = schema;
    for part in path.split('.').skip(1) {
        let name = part.trim_end_matches("[*]");
        node = node.get("properties")?.get(name)?;
        for _ in 0..(part.len() - name.len()) / 3 {
            node = node
                .get("items")
                .or_else(|| node.get("additionalProperties"))?;
        }
    }
    Some(node)
}

struct Probe {
    key: String,
    schema: Value,
}

/// For each rule of `case` with a known cost C: the rule alone under a map of at most
/// K = 10,000,000 / C entries (our estimate accepts it) and of K + 1 (it refuses it). A map,
/// not a list: transition rules are allowed under maps.
fn probes(case: &Case) -> Vec<Probe> {
    let costs = cel_cost::estimate_schema(&case.schema);
    let mut out = Vec::new();
    for rule in &costs.rules {
        let (Expression::Rule, Some(c)) = (rule.expression, rule.per_evaluation) else {
            continue;
        };
        if c == 0 || rule.path.is_empty() {
            continue;
        }
        let Some(node) = node_at(&case.schema, &rule.path) else {
            panic!("{}: no node at {}", case.name, rule.path);
        };
        let mut node = node.clone();
        let entry = node["x-kubernetes-validations"][rule.index].clone();
        let mut alone = json!({"rule": entry["rule"]});
        if let Some(optional) = entry.get("optionalOldSelf") {
            alone["optionalOldSelf"] = optional.clone();
        }
        node["x-kubernetes-validations"] = json!([alone]);
        // Keep only this rule: the others below the node would add to its cost.
        strip_rules_below(&mut node);
        let k = cel_cost::RULE_COST_LIMIT / c;
        for n in [k, k + 1] {
            out.push(Probe {
                key: format!("{} / probe {} {} x{n}", case.name, rule.path, rule.index),
                schema: spec(json!({"p": map_max(node.clone(), n)})),
            });
        }
    }
    out
}

fn strip_rules_below(node: &mut Value) {
    for key in ["items", "additionalProperties"] {
        if let Some(child) = node.get_mut(key).filter(|c| c.is_object()) {
            strip(child);
        }
    }
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        props.values_mut().for_each(strip);
    }
}

fn strip(node: &mut Value) {
    if let Some(o) = node.as_object_mut() {
        o.remove("x-kubernetes-validations");
    }
    strip_rules_below(node);
}

// ---------------------------------------------------------------------------------------
// Verdicts

fn crd_for(schema: &Value) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "probes.celcost.example.com"},
        "spec": {
            "group": "celcost.example.com",
            "scope": "Namespaced",
            "names": {"kind": "Probe", "plural": "probes", "singular": "probe", "listKind": "ProbeList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}],
        },
    }))
    .expect("a CRD")
}

/// `crd()`'s verdict, as the causes the apiserver would give.
fn ours(schema: &Value) -> Causes {
    let mut causes: Causes = cel_cost::check_schema(schema)
        .iter()
        .flat_map(CostViolation::apiserver_causes)
        .map(|(field, message)| {
            let field = if field.is_empty() {
                SCHEMA_FIELD.to_owned()
            } else {
                format!("{SCHEMA_FIELD}.{field}")
            };
            (field, message)
        })
        .collect();
    causes.dedup();
    normalize(&mut causes);
    causes
}

async fn apiserver(client: &kube::Client, schema: &Value) -> Causes {
    let mut causes = crd_recording::dry_run_create(client, &crd_for(schema)).await;
    normalize(&mut causes);
    causes
}

/// The apiserver names the (at most four) most expensive rules of a schema over its total; among
/// rules of equal cost which it names depends on Go's map order. Those causes are compared by
/// number.
fn normalize(causes: &mut Causes) {
    for (field, message) in causes.iter_mut() {
        if message == cel_cost::CONTRIBUTED_MESSAGE {
            *field = "(one of the most expensive rules)".into();
        }
    }
    causes.sort();
}

fn is_cost_cause((_, message): &(String, String)) -> bool {
    message.contains("estimated rule cost")
        || message.contains("estimated messageExpression cost")
        || message == cel_cost::CONTRIBUTED_MESSAGE
}

#[derive(Default)]
struct Tally {
    schemas: usize,
    rules: usize,
    agree: usize,
    exact: usize,
    false_alarms: Vec<String>,
    false_negatives: Vec<String>,
    differences: Vec<String>,
}

impl Tally {
    fn compare(&mut self, key: &str, ours: &Causes, theirs: &Causes) {
        self.schemas += 1;
        let (ours_refuses, theirs_refuses) = (!ours.is_empty(), theirs.iter().any(is_cost_cause));
        if ours_refuses == theirs_refuses {
            self.agree += 1;
        } else if ours_refuses {
            self.false_alarms
                .push(format!("{key}: we refuse, the apiserver accepts: {ours:?}"));
        } else {
            self.false_negatives.push(format!(
                "{key}: we accept, the apiserver refuses: {theirs:?}"
            ));
        }
        if ours == theirs {
            self.exact += 1;
        } else {
            self.differences.push(format!(
                "{key}:\n    ours:      {ours:?}\n    apiserver: {theirs:?}"
            ));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crd_refuses_what_the_apiserver_refuses_for_cost() {
    let cases = corpus();
    let mut schemas: Vec<(String, Value)> = Vec::new();
    let mut rules = 0;
    let mut unestimated = Vec::new();
    for c in &cases {
        let costs = cel_cost::estimate_schema(&c.schema);
        rules += costs.rules.len();
        for r in &costs.rules {
            if let Some(note) = &r.note {
                unestimated.push(format!("{}: `{}`: {note}", c.name, r.source));
            }
        }
        schemas.push((c.name.clone(), c.schema.clone()));
        for p in probes(c) {
            // A probe is built to be accepted at K and refused at K + 1 by our estimate.
            schemas.push((p.key, p.schema));
        }
    }
    let mut keys: Vec<&String> = schemas.iter().map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), schemas.len(), "keys are unique");

    let recorded = crd_recording::read(RECORDING);
    let record = std::env::var_os(RECORD_VARIABLE).is_some();
    let real = crd_recording::real_client().await;
    assert!(
        !record || real.is_some(),
        "{RECORD_VARIABLE} needs a real apiserver (KUBEGEN_TEST_KUBECONFIG, or KUBEBUILDER_ASSETS with the envtest feature)"
    );

    let mut answers = BTreeMap::new();
    let mut stale = Vec::new();
    let mut unrecorded = Vec::new();
    for (key, schema) in &schemas {
        let answer = match &real {
            Some((client, _)) => {
                let live = apiserver(client, schema).await;
                if !record && recorded.get(key) != Some(&live) {
                    stale.push(key.clone());
                }
                Some(live)
            }
            None => recorded.get(key).cloned(),
        };
        match answer {
            Some(a) => {
                answers.insert(key.clone(), a);
            }
            None => unrecorded.push(key.clone()),
        }
    }
    if record {
        crd_recording::write(RECORDING, &answers);
    }

    let mut tally = Tally {
        rules,
        ..Tally::default()
    };
    let mut other_errors = Vec::new();
    for (key, schema) in &schemas {
        let Some(theirs) = answers.get(key) else {
            continue;
        };
        if let Some(other) = theirs.iter().find(|c| !is_cost_cause(c)) {
            other_errors.push(format!("{key}: {other:?}"));
        }
        tally.compare(key, &ours(schema), theirs);
    }
    println!(
        "cel cost corpus: {} cases with {} rules, {} schemas sent with the probes; \
         verdicts agree on {}/{}, causes identical on {}; false alarms {}, false negatives {}; \
         {} rules not estimated exactly",
        cases.len(),
        tally.rules,
        tally.schemas,
        tally.agree,
        tally.schemas,
        tally.exact,
        tally.false_alarms.len(),
        tally.false_negatives.len(),
        unestimated.len()
    );
    for line in unestimated
        .iter()
        .chain(&tally.false_alarms)
        .chain(&tally.differences)
    {
        println!("  {line}");
    }
    assert!(
        other_errors.is_empty(),
        "the apiserver refuses corpus CRDs for other reasons: {other_errors:#?}"
    );
    assert!(
        unrecorded.is_empty(),
        "without a recording (record with {RECORD_VARIABLE}=1 and a real apiserver): {unrecorded:#?}"
    );
    assert!(
        stale.is_empty(),
        "the apiserver now answers differently from {RECORDING}: {stale:#?}"
    );
    assert!(
        tally.false_negatives.is_empty(),
        "crd() accepts CRDs the apiserver refuses: {:#?}",
        tally.false_negatives
    );
}

// ---------------------------------------------------------------------------------------
// crd() itself, on derived kinds.

/// Tags compared pairwise: the apiserver refuses this for any list it cannot bound.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "celcost.example.com",
    version = "v1",
    kind = "Pairwise",
    register = false
)]
pub struct PairwiseSpec {
    /// Unique tags.
    #[rule("self.all(a, self.all(b, a != b))", message = "tags must be unique")]
    pub tags: Vec<String>,
}

/// A tag of at most 63 characters.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[validate(max_length = 63)]
pub struct Tag(pub String);

/// The same rule over a bounded list of bounded strings.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "celcost.example.com",
    version = "v1",
    kind = "BoundedPairwise"
)]
pub struct BoundedPairwiseSpec {
    /// Unique tags.
    #[rule("self.all(a, self.all(b, a != b))", message = "tags must be unique")]
    #[validate(max_items = 32)]
    pub tags: Vec<Tag>,
}

#[test]
fn crd_refuses_a_rule_the_apiserver_estimates_too_expensive() {
    let error = Pairwise::crd().expect_err("the apiserver refuses this rule");
    let CrdError::CelCost {
        schema_field,
        violations,
        ..
    } = &error
    else {
        panic!("not a cost error: {error}");
    };
    assert_eq!(schema_field, "spec.validation.openAPIV3Schema");
    assert_eq!(violations.len(), 2, "{error}");
    let rule = violations[0].rule.as_ref().expect("the rule");
    assert_eq!(rule.path, ".spec.tags");
    assert_eq!(
        violations[0].field,
        "properties[spec].properties[tags].x-kubernetes-validations[0].rule"
    );
    let text = error.to_string();
    assert!(
        text.contains("estimated rule cost exceeds budget by factor of more than 100x"),
        "{text}"
    );
    assert!(text.contains("self.all(a, self.all(b, a != b))"), "{text}");
    let fix = violations[0].fix.as_ref().expect("a fix");
    // The dominant bound is the list's length: comparing pairs is quadratic in it.
    assert_eq!(fix.path, ".spec.tags", "{text}");
    assert_eq!(fix.keyword, "maxItems");
    println!("{text}");
    // The total is over its limit too: the apiserver names the rule and the schema.
    assert!(violations[1].rule.is_none());
    assert!(
        text.contains("estimated rule cost total for entire OpenAPIv3 schema"),
        "{text}"
    );
}

#[test]
fn crd_accepts_the_bounded_rule_and_explains_its_cost() {
    let crd = BoundedPairwise::crd().expect("bounded tags are cheap enough");
    let report = cel_cost::estimate(&crd);
    let (version, costs) = &report.versions[0];
    assert_eq!(version, "v1");
    let rule = &costs.rules[0];
    assert_eq!(rule.source, "self.all(a, self.all(b, a != b))");
    let cost = rule.cost.expect("estimated");
    assert!(cost <= rule.limit, "{rule:?}");
    // 32 × 32 comparisons of strings of at most 63 × 4 bytes, and the loops around them.
    assert!(cost > 32 * 32 * 26, "{rule:?}");
    assert!(rule.cardinality_bounded && rule.cardinality == 1);
}
