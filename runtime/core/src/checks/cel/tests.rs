//! Rules evaluated on objects, checked against the causes kube-apiserver v1.36.2 gives for
//! the same rule and object (the conformance suite compares many more through the in-memory
//! server; these pin the evaluator's own behaviour).

use serde_json::{Value, json};

use super::super::schema::Schema;
use super::{Outcome, Validator};

/// A resource whose `spec` has `spec_schema`.
fn root(spec_schema: Value) -> Schema {
    Schema::new(&json!({"type": "object", "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": spec_schema,
    }}))
}

fn object(spec: Value) -> Value {
    json!({"apiVersion": "v.example.com/v1", "kind": "Probe", "metadata": {"name": "p"}, "spec": spec})
}

/// The outcome of `spec` against `spec_schema`, an update of `old` when given.
fn run(spec_schema: Value, spec: Value, old: Option<Value>) -> Outcome {
    let schema = root(spec_schema);
    let validator = Validator::new(&schema);
    let old = old.map(object);
    validator.validate(&schema, &object(spec), old.as_ref())
}

/// The errors of a create, as the apiserver prints them.
fn errors(spec_schema: Value, spec: Value) -> Vec<String> {
    let outcome = run(spec_schema, spec, None);
    assert!(outcome.warnings.is_empty(), "a create has no warnings");
    outcome.errors.iter().map(ToString::to_string).collect()
}

/// An object schema with `properties` and `rules` on it.
fn obj(properties: Value, rules: Value) -> Value {
    json!({"type": "object", "properties": properties, "x-kubernetes-validations": rules})
}

fn string_list() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

#[test]
fn a_failing_rule_reports_its_message_at_its_node() {
    let tags = json!({"type": "array", "items": {"type": "string"},
        "x-kubernetes-validations": [{"rule": "self.size() <= 3", "message": "at most three tags"}]});
    let schema = obj(json!({"tags": tags}), json!([]));
    assert_eq!(
        errors(schema.clone(), json!({"tags": ["a", "b", "c", "d"]})),
        ["spec.tags: Invalid value: at most three tags"],
        "lists and objects omit their value"
    );
    assert!(errors(schema, json!({"tags": ["a"]})).is_empty());
}

#[test]
fn without_a_message_the_rule_is_quoted_with_the_value() {
    let schema = obj(
        json!({"n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 0"}]}}),
        json!([]),
    );
    assert_eq!(
        errors(schema, json!({"n": 0})),
        ["spec.n: Invalid value: 0: failed rule: self > 0"]
    );
}

#[test]
fn type_level_rules_compare_fields() {
    let schema = obj(
        json!({"min": {"type": "integer"}, "max": {"type": "integer"}}),
        json!([{"rule": "self.min <= self.max", "message": "min must not exceed max"}]),
    );
    assert_eq!(
        errors(schema.clone(), json!({"min": 3, "max": 2})),
        ["spec: Invalid value: min must not exceed max"]
    );
    assert!(errors(schema, json!({"min": 2, "max": 2})).is_empty());
}

#[test]
fn reasons_set_the_cause_type_and_field_path_the_field() {
    let rule = |reason: &str| {
        obj(
            json!({"a": {"type": "string"}}),
            json!([{"rule": "self.a != 'x'", "message": "no x", "reason": reason, "fieldPath": ".a"}]),
        )
    };
    let cause = |reason: &str| {
        let outcome = run(rule(reason), json!({"a": "x"}), None);
        assert_eq!(outcome.errors.len(), 1);
        outcome.errors[0].cause()
    };
    assert_eq!(
        cause("FieldValueForbidden"),
        json!({"field": "spec.a", "reason": "FieldValueForbidden", "message": "Forbidden: no x"})
    );
    assert_eq!(
        cause("FieldValueRequired"),
        json!({"field": "spec.a", "reason": "FieldValueRequired", "message": "Required value: no x"})
    );
    assert_eq!(
        cause("FieldValueDuplicate"),
        json!({"field": "spec.a", "reason": "FieldValueDuplicate", "message": "Duplicate value"}),
        "a duplicate shows the rule node's value (an object: omitted), never the message"
    );
    assert_eq!(
        cause("FieldValueInvalid"),
        json!({"field": "spec.a", "reason": "FieldValueInvalid", "message": "Invalid value: no x"})
    );
}

#[test]
fn message_expressions_replace_the_message_only_when_usable() {
    let with = |expression: &str| {
        let schema = obj(
            json!({"a": {"type": "string"}}),
            json!([{"rule": "self.a == 'ok'", "message": "static", "messageExpression": expression}]),
        );
        errors(schema, json!({"a": "bad"}))
    };
    assert_eq!(with("'a is ' + self.a"), ["spec: Invalid value: a is bad"]);
    assert_eq!(with("'  padded  '"), ["spec: Invalid value: padded"]);
    // Not a string, empty, several lines, or an error: the message is used instead.
    for unusable in ["1", "'   '", "'two\\nlines'", "self.missing"] {
        assert_eq!(
            with(unusable),
            ["spec: Invalid value: static"],
            "{unusable}"
        );
    }
}

#[test]
fn runtime_errors_are_worded_as_cel_go_words_them() {
    let schema = obj(
        json!({"m": {"type": "object", "additionalProperties": {"type": "integer"}}, "d": {"type": "integer"}, "re": {"type": "string"}}),
        json!([
            {"rule": "self.m['missing'] > 0"},
            {"rule": "10 / self.d > 1"},
            {"rule": "'abc'.matches(self.re)"},
        ]),
    );
    assert_eq!(
        errors(schema, json!({"m": {}, "d": 0, "re": "(["})),
        [
            "spec: Invalid value: \"object\": no such key: missing evaluating rule: self.m['missing'] > 0",
            "spec: Invalid value: \"object\": division by zero evaluating rule: 10 / self.d > 1",
            "spec: Invalid value: \"object\": error parsing regexp: missing closing ]: `[` evaluating rule: 'abc'.matches(self.re)",
        ]
    );
}

#[test]
fn has_sees_only_present_non_null_fields() {
    let schema = obj(
        json!({"a": {"type": "string", "nullable": true}, "b": {"type": "string"}}),
        json!([{"rule": "has(self.a) == has(self.b)", "message": "both or neither"}]),
    );
    assert!(errors(schema.clone(), json!({})).is_empty());
    assert!(errors(schema.clone(), json!({"a": "x", "b": "y"})).is_empty());
    assert_eq!(
        errors(schema.clone(), json!({"a": null, "b": "y"})),
        ["spec: Invalid value: both or neither"],
        "a null field is absent"
    );
    assert_eq!(
        errors(schema, json!({"a": "x"})),
        ["spec: Invalid value: both or neither"]
    );
}

#[test]
fn maps_lists_and_escaped_names() {
    let schema = obj(
        json!({
            "labels": {"type": "object", "additionalProperties": {"type": "string"},
                "x-kubernetes-validations": [{"rule": "self.all(k, k.startsWith('app.') && self[k] != '')"},
                                             {"rule": "'team' in self", "message": "needs a team"}]},
            "ports": {"type": "array", "items": {"type": "integer"},
                "x-kubernetes-validations": [{"rule": "self.isSorted() && self.sum() < 100"}]},
            "x-name": {"type": "string"},
            "namespace": {"type": "string"},
        }),
        json!([{"rule": "self.x__dash__name == self.__namespace__", "message": "names differ"}]),
    );
    let spec = json!({"labels": {"app.a": "1", "team": "t"}, "ports": [3, 1], "x-name": "a", "namespace": "b"});
    assert_eq!(
        errors(schema, spec),
        [
            "spec: Invalid value: names differ",
            "spec.labels: Invalid value: failed rule: self.all(k, k.startsWith('app.') && self[k] != '')",
            "spec.ports: Invalid value: failed rule: self.isSorted() && self.sum() < 100",
        ]
    );
}

#[test]
fn the_kubernetes_libraries_answer_as_the_apiserver() {
    let holds = |rule: &str| {
        let schema = obj(json!({"s": {"type": "string"}}), json!([{"rule": rule}]));
        errors(schema, json!({"s": "x"})).is_empty()
    };
    for rule in [
        "isURL('https://example.com/a') && url('https://example.com:8443/a').getPort() == '8443'",
        "!isURL('example.com')",
        "isIP('10.0.0.1') && ip('10.0.0.1').family() == 4 && !isIP('10.0.0.256')",
        "cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP('11.0.0.1')",
        "isQuantity('500m') && quantity('1Gi').isGreaterThan(quantity('1G'))",
        "quantity('1').compareTo(quantity('1000m')) == 0",
        "format.dns1123Label().validate('ok-name') == optional.none()",
        "format.dns1123Label().validate('Not_OK').hasValue()",
        "'a,b,c'.split(',').size() == 3 && ['a', 'b'].join('-') == 'a-b'",
        "'Hello'.lowerAscii() == 'hello' && 'héllo'.size() == 5 && 'héllo'.charAt(1) == 'é'",
        "'abc123def'.find('[0-9]+') == '123' && 'a1b2'.findAll('[0-9]') == ['1', '2']",
        "sets.contains([1, 2, 3], [2]) && sets.intersects([1], [1, 4]) && sets.equivalent([1, 1], [1])",
        "[3, 1, 2].min() == 1 && [1, 2, 1].lastIndexOf(1) == 2 && [1, 2].indexOf(2) == 1",
        "[1, 2, 3].exists_one(x, x > 2) && [1, 2, 3].filter(x, x > 1).map(x, x * 2) == [4, 6]",
        "1 == 1.0 && 2 > 1.5",
    ] {
        assert!(holds(rule), "{rule}");
    }
}

#[test]
fn transition_rules_run_only_on_updates() {
    let schema = obj(
        json!({"id": {"type": "string", "x-kubernetes-validations": [
            {"rule": "self == oldSelf", "message": "id is immutable"}]}}),
        json!([]),
    );
    assert!(
        run(schema.clone(), json!({"id": "a"}), None)
            .errors
            .is_empty()
    );
    let changed = run(schema.clone(), json!({"id": "b"}), Some(json!({"id": "a"})));
    assert_eq!(
        changed.errors[0].to_string(),
        "spec.id: Invalid value: \"b\": id is immutable"
    );
    // A field added by the update has no old value to compare with.
    assert!(
        run(schema, json!({"id": "b"}), Some(json!({})))
            .errors
            .is_empty()
    );
}

#[test]
fn optional_old_self_runs_without_an_old_value() {
    let schema = obj(
        json!({"n": {"type": "integer", "x-kubernetes-validations": [{
            "rule": "oldSelf.hasValue() ? self >= oldSelf.value() : self == 0",
            "message": "starts at 0 and only grows", "optionalOldSelf": true}]}}),
        json!([]),
    );
    assert!(run(schema.clone(), json!({"n": 0}), None).errors.is_empty());
    assert_eq!(run(schema.clone(), json!({"n": 5}), None).errors.len(), 1);
    assert!(
        run(schema.clone(), json!({"n": 6}), Some(json!({"n": 5})))
            .errors
            .is_empty()
    );
    assert_eq!(
        run(schema, json!({"n": 4}), Some(json!({"n": 5})))
            .errors
            .len(),
        1
    );
}

#[test]
fn map_list_items_correlate_by_key() {
    let item = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "port": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port", "message": "port is immutable"}]});
    let schema = obj(
        json!({"ports": {"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"], "items": item}}),
        json!([]),
    );
    let old = json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]});
    // Reordered and extended: each item is compared with the old item of its key.
    let new = json!({"ports": [{"name": "b", "port": 2}, {"name": "c", "port": 9}, {"name": "a", "port": 3}]});
    let outcome = run(schema, new, Some(old));
    let got: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
    assert_eq!(got, ["spec.ports[2]: Invalid value: port is immutable"]);
}

#[test]
fn unchanged_invalid_values_are_ratcheted_into_warnings() {
    let schema = obj(
        json!({
            "a": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 3", "message": "too long"}]},
            "b": {"type": "string"},
        }),
        json!([]),
    );
    let old = json!({"a": "long", "b": "x"});
    let unchanged = run(
        schema.clone(),
        json!({"a": "long", "b": "y"}),
        Some(old.clone()),
    );
    assert!(unchanged.errors.is_empty());
    assert_eq!(
        unchanged.warnings,
        ["spec.a: Invalid value: \"long\": too long"]
    );
    let changed = run(schema, json!({"a": "longer", "b": "x"}), Some(old));
    assert_eq!(changed.errors.len(), 1);
    assert!(changed.warnings.is_empty());
}

#[test]
fn a_schema_without_rules_builds_no_validator() {
    let schema = root(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    assert!(!Validator::new(&schema).has_rules());
    let ruled = root(obj(json!({}), json!([{"rule": "true"}])));
    assert!(Validator::new(&ruled).has_rules());
}

#[test]
fn int_or_string_values_keep_their_type() {
    let schema = obj(
        json!({"v": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [
            {"rule": "type(self) == int ? self > 0 : self.endsWith('%')", "message": "a positive count or a percentage"}]}}),
        json!([]),
    );
    assert!(errors(schema.clone(), json!({"v": 3})).is_empty());
    assert!(errors(schema.clone(), json!({"v": "25%"})).is_empty());
    assert_eq!(
        errors(schema.clone(), json!({"v": "25"})),
        ["spec.v: Invalid value: \"25\": a positive count or a percentage"]
    );
    assert_eq!(errors(schema, json!({"v": 0})).len(), 1);
}

#[test]
fn list_helpers() {
    let schema = obj(
        json!({"l": string_list()}),
        json!([{"rule": "self.l.all(x, x.matches('^[a-z]+$'))"}]),
    );
    assert!(errors(schema.clone(), json!({"l": ["abc"]})).is_empty());
    assert_eq!(errors(schema, json!({"l": ["abc", "A"]})).len(), 1);
}

#[test]
fn two_variable_comprehensions() {
    let holds = |rule: &str| {
        let schema = obj(
            json!({"m": {"type": "object", "additionalProperties": {"type": "string"}}, "l": string_list()}),
            json!([{"rule": rule}]),
        );
        errors(schema, json!({"m": {"a": "x", "b": "b"}, "l": ["p", "q"]})).is_empty()
    };
    for rule in [
        "self.m.exists(k, v, k == v) && !self.m.all(k, v, k == v)",
        "self.l.all(i, v, i < 2 && v != '') && self.l.existsOne(i, v, i == 1 && v == 'q')",
        "self.l.exists_one(i, v, v == 'p')",
        "self.l.transformList(i, v, v + string(i)) == ['p0', 'q1']",
        "self.l.transformList(i, v, i > 0, v) == ['q']",
        "self.m.transformMap(k, v, v + k) == {'a': 'xa', 'b': 'bb'}",
        "self.l.transformMapEntry(i, v, {v: i}) == {'p': 0, 'q': 1}",
    ] {
        assert!(holds(rule), "{rule}");
    }
    assert!(!holds("self.m.all(k, v, k != v)"));
}

#[test]
fn an_element_that_decides_absorbs_another_elements_error() {
    let schema = |rule: &str| {
        obj(
            json!({"l": {"type": "array", "items": {"type": "integer"}}}),
            json!([{"rule": rule}]),
        )
    };
    // cel-go: `false` decides `all` whatever the error of another element.
    assert_eq!(
        errors(schema("self.l.all(x, 10 / x > 5)"), json!({"l": [0, 5]})),
        ["spec: Invalid value: failed rule: self.l.all(x, 10 / x > 5)"]
    );
    assert!(errors(schema("self.l.exists(x, 10 / x > 1)"), json!({"l": [0, 5]})).is_empty());
    assert_eq!(
        errors(schema("self.l.all(x, 10 / x > 1)"), json!({"l": [0, 5]})),
        [
            "spec: Invalid value: \"object\": division by zero evaluating rule: self.l.all(x, 10 / x > 1)"
        ]
    );
}

#[test]
fn timestamps_read_in_utc_or_the_given_zone() {
    let holds = |rule: &str| {
        let schema = obj(
            json!({"t": {"type": "string", "format": "date-time"}}),
            json!([{"rule": rule}]),
        );
        errors(schema, json!({"t": "2024-01-01T12:00:00+02:00"}))
    };
    // 10:00 UTC on Monday 1 January 2024.
    for rule in [
        "self.t.getHours() == 10 && self.t.getDayOfWeek() == 1 && self.t.getMonth() == 0",
        "self.t.getHours('America/New_York') == 5 && self.t.getHours('+05:30') == 15",
        "self.t.getMinutes('-01:30') == 30 && self.t.getDate() == 1 && self.t.getDayOfYear() == 0",
    ] {
        assert!(holds(rule).is_empty(), "{rule}: {:?}", holds(rule));
    }
    assert_eq!(
        holds("self.t.getHours('Mars/Base') == 0"),
        [
            "spec: Invalid value: \"object\": unknown time zone Mars/Base evaluating rule: self.t.getHours('Mars/Base') == 0"
        ]
    );
}

#[test]
fn a_missing_field_in_a_conversion_is_a_missing_key() {
    let schema = obj(
        json!({"s": {"type": "string"}}),
        json!([{"rule": "int(self.s) > 0"}]),
    );
    assert_eq!(
        errors(schema, json!({})),
        ["spec: Invalid value: \"object\": no such key: s evaluating rule: int(self.s) > 0"]
    );
}

#[test]
fn sort_by_orders_by_the_keys() {
    let schema = obj(
        json!({"l": {"type": "array", "items": {"type": "integer"}}}),
        json!([{"rule": "self.l.sortBy(x, -x) == [3, 2, 1]"}]),
    );
    assert!(errors(schema.clone(), json!({"l": [2, 3, 1]})).is_empty());
    assert_eq!(errors(schema, json!({"l": [1, 2, 3, 4]})).len(), 1);
}

#[test]
fn optional_macros_bind_the_value() {
    let schema = obj(
        json!({"s": {"type": "string"}}),
        json!([
            {"rule": "self.?s.optMap(v, v + 'x').orValue('none') == 'ax'", "message": "optMap"},
            {"rule": "self.?s.optFlatMap(v, v == 'a' ? optional.of(v) : optional.none()).hasValue()", "message": "optFlatMap"},
        ]),
    );
    assert!(errors(schema.clone(), json!({"s": "a"})).is_empty());
    assert_eq!(
        errors(schema, json!({})),
        [
            "spec: Invalid value: optMap",
            "spec: Invalid value: optFlatMap"
        ]
    );
}
