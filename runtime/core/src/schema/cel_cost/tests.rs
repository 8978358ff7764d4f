//! Unit tests of the estimate against figures worked out from the apiserver's source.

use serde_json::{Value, json};

use super::{estimate_schema, factor};

fn spec(props: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}})
}

fn only_cost(schema: &Value) -> u64 {
    let costs = estimate_schema(schema);
    assert_eq!(costs.rules.len(), 1, "{costs:#?}");
    costs.rules[0]
        .cost
        .unwrap_or_else(|| panic!("{:?}", costs.rules[0]))
}

#[test]
fn factors_are_worded_as_the_apiserver_words_them() {
    assert_eq!(factor(25, 10), "2.5x");
    assert_eq!(factor(10_000_001, 10_000_000), "1.000000x");
    assert_eq!(factor(12, 10), "1.200000x");
    assert_eq!(factor(2000, 10), "more than 100x");
}

#[test]
fn a_comparison_of_two_bounded_strings_costs_their_length() {
    // self.a == self.b over two maxLength 10 strings: 2 selects of 2 each, and comparing
    // strings of at most 40 bytes (maxLength × 4) costs ceil(40 × 0.1) = 4.
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string", "maxLength": 10},
        "b": {"type": "string", "maxLength": 10}},
        "x-kubernetes-validations": [{"rule": "self.a == self.b"}]});
    assert_eq!(only_cost(&schema), 8);
}

#[test]
fn nested_comprehensions_over_an_unbounded_list_are_quadratic() {
    let schema = spec(
        json!({"tags": {"type": "array", "items": {"type": "string"},
        "x-kubernetes-validations": [{"rule": "self.all(a, self.all(b, a != b))"}]}}),
    );
    let cost = only_cost(&schema);
    assert!(cost > 100 * super::RULE_COST_LIMIT, "{cost}");
}

#[test]
fn rules_under_unbounded_lists_run_once_per_item() {
    let schema = spec(
        json!({"items": {"type": "array", "items": {"type": "object",
        "properties": {"name": {"type": "string", "maxLength": 5}},
        "x-kubernetes-validations": [{"rule": "self.name != ''"}]}}}),
    );
    let costs = estimate_schema(&schema);
    let rule = &costs.rules[0];
    assert!(!rule.cardinality_bounded);
    // The item object has no required fields: {} is 2 bytes, so 3 MiB / 3 items.
    assert_eq!(rule.cardinality, 3 * 1024 * 1024 / 3);
    assert_eq!(rule.path, ".spec.items[*]");
    assert_eq!(
        rule.field,
        "properties[spec].properties[items].items.x-kubernetes-validations[0].rule"
    );
}
