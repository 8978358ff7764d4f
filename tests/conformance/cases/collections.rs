//! Creates of the Collection kind: maps, nested lists, list-map and set lists, flatten,
//! preserve-unknown-fields, embedded Kubernetes types and an embedded resource.

use serde_json::{Value, json};

use super::{COLLECTIONS, object};
use crate::conformance::script::Case;

fn collection(case: &str, mut spec: Value) -> Case {
    if spec.get("owner").is_none() {
        spec["owner"] = json!("team-a");
    }
    Case::new(case).create(COLLECTIONS, "Collection", object("c", spec))
}

pub fn cases() -> Vec<Case> {
    let mut cases = vec![
        collection(
            "collection: every field valid",
            json!({
                "labels": {"a": "1", "b": "2"},
                "limits": {"cpu": {"max": 4}},
                "matrix": [[1, 2], [], [3]],
                "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
                "endpoints": [{"port": 80}, {"port": 80, "protocol": "UDP"}],
                "tags": ["x", "y"],
                "extra": {"anything": [1, "two", {"three": null}]},
                "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": 1}},
                "env": [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                "selector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]},
                "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"a": "b"}}, "data": {"k": "v"}},
            }),
        ),
        Case::new("collection: flattened required field missing").create(
            COLLECTIONS,
            "Collection",
            object("c", json!({"tags": ["x"]})),
        ),
        collection(
            "collection: unknown fields inside nested types are pruned",
            json!({"ports": [{"name": "a", "port": 1, "junk": true}], "limits": {"x": {"max": 1, "min": 0}}, "extra": {"kept": true}}),
        ),
    ];
    let invalid = [
        (
            "too many map entries",
            json!({"labels": {"a": "1", "b": "2", "c": "3", "d": "4"}}),
        ),
        ("map value of the wrong type", json!({"labels": {"a": 1}})),
        (
            "map of objects below minimum",
            json!({"limits": {"cpu": {"max": 0}}}),
        ),
        (
            "map of objects missing a field",
            json!({"limits": {"cpu": {}}}),
        ),
        (
            "nested list too long",
            json!({"matrix": [[1], [2], [3], [4]]}),
        ),
        (
            "nested list of the wrong type",
            json!({"matrix": [[1, "x"], 3]}),
        ),
        (
            "list-map duplicate key",
            json!({"ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]}),
        ),
        (
            "list-map too many items",
            json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}, {"name": "c", "port": 3}, {"name": "d", "port": 4}]}),
        ),
        (
            "list-map item invalid",
            json!({"ports": [{"name": "a-very-long-port-name", "port": 0}]}),
        ),
        (
            "list-map item missing its key",
            json!({"ports": [{"port": 1}]}),
        ),
        (
            "list-map duplicate composite key",
            json!({"endpoints": [{"port": 80, "protocol": "TCP"}, {"port": 80, "host": "h"}]}),
        ),
        ("set duplicate", json!({"tags": ["x", "y", "x"]})),
        ("set too long", json!({"tags": ["a", "b", "c", "d", "e"]})),
        ("list instead of map", json!({"labels": ["a"]})),
        ("object instead of list", json!({"tags": {"a": 1}})),
        (
            "embedded quantity invalid",
            json!({"resources": {"limits": {"cpu": "abc"}}}),
        ),
        (
            "embedded type missing a required field",
            json!({"env": [{"value": "1"}]}),
        ),
        (
            "embedded type field of the wrong type",
            json!({"tolerations": [{"key": 1}]}),
        ),
        (
            "label selector of the wrong shape",
            json!({"selector": {"matchLabels": ["a"]}}),
        ),
        (
            "embedded resource without apiVersion and kind",
            json!({"template": {"metadata": {"name": "x"}}}),
        ),
        (
            "embedded resource with an invalid name",
            json!({"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}}),
        ),
        (
            "embedded resource metadata of the wrong type",
            json!({"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": "x"}}}),
        ),
    ];
    cases.extend(
        invalid
            .into_iter()
            .map(|(what, spec)| collection(&format!("collection invalid: {what}"), spec)),
    );
    cases
}
