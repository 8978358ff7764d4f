//! The typed walks on a small schema with every kind of node.

use serde_json::{Value, json};

use super::Duplicates;
use crate::fieldpath::schema::KindTypes;
use crate::fieldpath::{Path, PathElement, Set};

fn schema() -> KindTypes {
    KindTypes::from_openapi(&json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {
                "title": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"],
                    "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "protocol": {"type": "string", "default": "TCP"}, "port": {"type": "integer"}}}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "args": {"type": "array", "items": {"type": "string"}},
                "selector": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}},
                "extra": {"x-kubernetes-preserve-unknown-fields": true},
            }},
        },
    }))
    .unwrap()
}

fn fields_v1(set: &Set) -> Value {
    set.to_fields_v1()
}

#[test]
fn field_sets_follow_the_schema() {
    let object = json!({
        "apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "labels": {"a": "1"}},
        "spec": {"title": "t", "labels": {}, "ports": [{"name": "http", "port": 80}], "tags": ["x"],
                 "args": ["-v"], "selector": {"app": "a"}, "extra": {"deep": {"list": [1]}}},
    });
    let set = schema().to_field_set(&object).unwrap();
    assert_eq!(
        fields_v1(&set),
        json!({
            "f:apiVersion": {}, "f:kind": {},
            "f:metadata": {"f:name": {}, "f:labels": {"f:a": {}}},
            "f:spec": {
                "f:title": {}, "f:labels": {}, "f:args": {}, "f:selector": {},
                "f:ports": {"k:{\"name\":\"http\",\"protocol\":\"TCP\"}": {".": {}, "f:name": {}, "f:port": {}}},
                "f:tags": {"v:\"x\"": {}},
                "f:extra": {"f:deep": {".": {}, "f:list": {}}},
            },
        })
    );
}

#[test]
fn comparisons_mark_new_containers_and_changed_leaves() {
    let old = json!({"spec": {"title": "a", "tags": ["x", "y"], "args": ["1"]}});
    let new =
        json!({"spec": {"title": "b", "tags": ["y", "z"], "args": ["1"], "labels": {"k": "v"}}});
    let c = schema().compare(&old, &new).unwrap();
    assert_eq!(fields_v1(&c.modified), json!({"f:spec": {"f:title": {}}}));
    assert_eq!(
        fields_v1(&c.added),
        json!({"f:spec": {"f:labels": {".": {}, "f:k": {}}, "f:tags": {"v:\"z\"": {}}}})
    );
    assert_eq!(
        fields_v1(&c.removed),
        json!({"f:spec": {"f:tags": {"v:\"x\"": {}}}})
    );
    assert!(schema().compare(&old, &old).unwrap().is_same());
}

#[test]
fn merges_keep_the_live_order_where_the_configuration_agrees() {
    let port = |name: &str, port: i64| json!({"name": name, "port": port});
    let live = json!({"spec": {"ports": [port("a", 1), port("b", 2), port("c", 3)], "tags": ["x", "y"],
                                "args": ["1", "2"], "selector": {"a": "1"}, "labels": {"a": "1"}}});
    let config = json!({"spec": {"ports": [port("c", 4), port("a", 1)], "tags": ["y", "z"],
                                  "args": ["3"], "selector": {"b": "2"}, "labels": {"b": "2"}}});
    let merged = schema().merge(&live, &config).unwrap();
    assert_eq!(
        merged,
        json!({"spec": {"ports": [port("b", 2), port("c", 4), port("a", 1)], "tags": ["x", "y", "z"],
                        "args": ["3"], "selector": {"b": "2"}, "labels": {"a": "1", "b": "2"}}})
    );
}

#[test]
fn removing_every_entry_leaves_an_empty_container_and_extracting_keeps_keys() {
    let object = json!({"spec": {"title": "t", "labels": {"a": "1"},
                                 "ports": [{"name": "a", "protocol": "UDP", "port": 1}]}});
    let key = PathElement::key([
        ("name".into(), json!("a")),
        ("protocol".into(), json!("UDP")),
    ]);
    let mut set = Set::from_paths([
        Path::fields(["spec", "labels", "a"]),
        Path::fields(["spec", "title"]),
    ]);
    set.insert(&[
        PathElement::field("spec"),
        PathElement::field("ports"),
        key.clone(),
        PathElement::field("port"),
    ]);
    let removed = schema().remove_items(&object, &set);
    assert_eq!(
        removed,
        json!({"spec": {"labels": {}, "ports": [{"name": "a", "protocol": "UDP"}]}})
    );
    let extracted = schema().extract_items(&object, &set, true);
    assert_eq!(
        extracted,
        json!({"spec": {"title": "t", "labels": {"a": "1"}, "ports": [{"name": "a", "protocol": "UDP", "port": 1}]}})
    );
    let without_keys = schema().extract_items(&object, &set, false);
    assert_eq!(without_keys["spec"]["ports"], json!([{"port": 1}]));
}

#[test]
fn sets_below_atomic_containers_collapse_and_struct_fields_become_members() {
    let set = Set::from_paths([
        Path::fields(["spec", "selector", "a"]),
        Path::fields(["spec", "title"]),
    ]);
    let reconciled = schema().reconcile_field_set(&set).unwrap();
    assert_eq!(
        fields_v1(&reconciled),
        json!({"f:spec": {"f:selector": {}, "f:title": {}}})
    );
    assert_eq!(schema().reconcile_field_set(&reconciled), None);
    let ensured = schema()
        .ensure_named_fields_are_members(&Set::from_paths([Path::fields(["spec", "labels", "a"])]));
    assert_eq!(
        fields_v1(&ensured),
        json!({"f:spec": {".": {}, "f:labels": {".": {}, "f:a": {}}}})
    );
}

#[test]
fn validation_reports_paths_as_the_apiserver_does() {
    let s = schema();
    let err = s
        .validate(&json!({"spec": {"junk": 1}}), Duplicates::Reject)
        .unwrap_err();
    assert_eq!(err.to_string(), ".spec.junk: field not declared in schema");
    let dup = json!({"spec": {"ports": [{"name": "a"}, {"name": "a", "protocol": "TCP"}]}});
    assert_eq!(
        s.validate(&dup, Duplicates::Reject)
            .unwrap_err()
            .to_string(),
        r#".spec.ports: duplicate entries for key [name="a",protocol="TCP"]"#
    );
    assert!(s.validate(&dup, Duplicates::Allow).is_ok());
    let keyless = json!({"spec": {"ports": [{"port": 1}]}});
    assert!(
        s.validate(&keyless, Duplicates::Allow).is_ok(),
        "protocol has a default"
    );
    let wrong = s
        .validate(
            &json!({"spec": {"title": 5, "tags": [{}]}}),
            Duplicates::Reject,
        )
        .unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "errors:\n  .spec.tags: element 0: associative list without keys has an element that's a map type\n  .spec.title: expected string, got &value.valueUnstructured{Value:5}"
    );
}
