//! The field manager end to end: Update and Apply operations on one object.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{ApplyError, FieldManager, ScaleHandler, extract, manager_from_user_agent};
use crate::fieldpath::schema::KindTypes;
use crate::fieldpath::{Path, Set};

const V1: &str = "g/v1";

fn schema() -> KindTypes {
    KindTypes::from_openapi(&json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "title": {"type": "string"},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            }},
            "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
        },
    }))
    .unwrap()
}

struct Fixture {
    schema: KindTypes,
    reset: BTreeMap<String, Set>,
}

impl Fixture {
    fn new() -> Self {
        let reset = BTreeMap::from([(V1.to_owned(), Set::from_paths([Path::fields(["status"])]))]);
        Fixture {
            schema: schema(),
            reset,
        }
    }

    fn run<R>(&self, now: &str, f: impl FnOnce(&FieldManager<'_>) -> R) -> R {
        let schemas = |v: &str| (v == V1).then_some(&self.schema);
        f(&FieldManager {
            schemas: &schemas,
            convert: &super::relabel,
            api_version: V1,
            kind: "K",
            subresource: "",
            reset: &self.reset,
            now,
        })
    }
}

fn object(spec: Value) -> Value {
    json!({"apiVersion": V1, "kind": "K", "metadata": {"name": "o", "uid": "u"}, "spec": spec})
}

/// `(manager, operation, fieldsV1)` of each entry, in order.
fn entries(o: &Value) -> Vec<(String, String, Value)> {
    o["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["manager"].as_str().unwrap_or("").to_owned(),
                e["operation"].as_str().unwrap_or("").to_owned(),
                e["fieldsV1"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_create_owns_what_it_set_and_an_apply_conflicts_until_forced() {
    let fx = Fixture::new();
    let empty = json!({"apiVersion": V1, "kind": "K"});
    let mut created = object(json!({"replicas": 1, "title": "a"}));
    created["status"] = json!({"phase": "ignored"});
    fx.run("2024-01-01T00:00:00Z", |fm| {
        fm.update(&empty, &mut created, "")
    });
    assert_eq!(
        entries(&created),
        [(
            "unknown".into(),
            "Update".into(),
            json!({"f:spec": {".": {}, "f:replicas": {}, "f:title": {}}})
        )]
    );
    let config =
        json!({"apiVersion": V1, "kind": "K", "metadata": {"name": "o"}, "spec": {"title": "b"}});
    let err = fx
        .run("2024-01-01T00:00:01Z", |fm| {
            fm.apply(&created, &config, "alice", false)
        })
        .unwrap_err();
    let ApplyError::Conflicts(conflicts) = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        conflicts.message(),
        r#"Apply failed with 1 conflict: conflict with "unknown" using g/v1: .spec.title"#
    );
    let forced = fx
        .run("2024-01-01T00:00:01Z", |fm| {
            fm.apply(&created, &config, "alice", true)
        })
        .unwrap();
    assert_eq!(forced["spec"], json!({"replicas": 1, "title": "b"}));
    assert_eq!(
        entries(&forced),
        [
            (
                "alice".into(),
                "Apply".into(),
                json!({"f:spec": {"f:title": {}}})
            ),
            (
                "unknown".into(),
                "Update".into(),
                json!({"f:spec": {".": {}, "f:replicas": {}}})
            ),
        ]
    );
}

#[test]
fn an_applier_drops_list_items_it_alone_applied() {
    let fx = Fixture::new();
    let live = object(json!({}));
    let config = |ports: Value| json!({"apiVersion": V1, "kind": "K", "metadata": {"name": "o"}, "spec": {"ports": ports}});
    let t = "2024-01-01T00:00:00Z";
    let both = json!([{"name": "a", "port": 1}, {"name": "b", "port": 2}]);
    let mut o = fx
        .run(t, |fm| {
            fm.apply(&live, &config(both.clone()), "alice", false)
        })
        .unwrap();
    // Applied to an object nobody tracked: its existing fields went to before-first-apply.
    assert_eq!(entries(&o)[1].0, "before-first-apply");
    o = fx
        .run(t, |fm| {
            fm.apply(&o, &config(json!([{"name": "b", "port": 2}])), "bob", false)
        })
        .unwrap();
    o = fx
        .run(t, |fm| fm.apply(&o, &config(json!([])), "alice", false))
        .unwrap();
    assert_eq!(o["spec"]["ports"], json!([{"name": "b", "port": 2}]));
}

#[test]
fn an_update_without_managed_fields_on_a_tracked_object_stays_untracked() {
    let fx = Fixture::new();
    let live = object(json!({"title": "a"}));
    let mut new = object(json!({"title": "b"}));
    fx.run("2024-01-01T00:00:00Z", |fm| {
        fm.update(&live, &mut new, "bob")
    });
    assert!(new["metadata"].get("managedFields").is_none());
}

#[test]
fn update_managers_beyond_ten_merge_into_ancient_changes() {
    let fx = Fixture::new();
    let empty = json!({"apiVersion": V1, "kind": "K"});
    let mut o = object(json!({"replicas": 0}));
    fx.run("2024-01-01T00:00:00Z", |fm| {
        fm.update(&empty, &mut o, "m00")
    });
    for i in 1..=10 {
        let mut next = o.clone();
        next["metadata"]["labels"][format!("l{i:02}")] = json!("x");
        let now = format!("2024-01-01T00:00:{i:02}Z");
        fx.run(&now, |fm| fm.update(&o, &mut next, &format!("m{i:02}")));
        o = next;
    }
    let managers: Vec<String> = entries(&o).into_iter().map(|e| e.0).collect();
    let mut expected = vec!["ancient-changes".to_owned()];
    expected.extend((2..=10).map(|i| format!("m{i:02}")));
    assert_eq!(managers, expected);
    assert_eq!(
        entries(&o)[0].2,
        json!({"f:metadata": {"f:labels": {".": {}, "f:l01": {}}}, "f:spec": {".": {}, "f:replicas": {}}})
    );
}

#[test]
fn the_scale_view_owns_replicas_for_the_resources_owners() {
    let parent = json!([
        {"manager": "a", "operation": "Update", "apiVersion": V1, "time": "2024-01-01T00:00:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:replicas": {}, "f:title": {}}}},
    ]);
    let paths = BTreeMap::from([(V1.to_owned(), Some(Path::fields(["spec", "replicas"])))]);
    let handler = ScaleHandler {
        parent: Some(&parent),
        api_version: V1,
        replicas_paths: &paths,
    };
    let view = handler.to_subresource().unwrap();
    assert_eq!(view[0]["apiVersion"], "autoscaling/v1");
    assert_eq!(view[0]["fieldsV1"], json!({"f:spec": {"f:replicas": {}}}));
    let scaled = json!({"metadata": {"managedFields": [
        {"manager": "hpa", "operation": "Update", "apiVersion": "autoscaling/v1", "subresource": "scale", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:replicas": {}}}},
    ]}});
    let back = handler
        .to_parent(scaled["metadata"].get("managedFields"))
        .unwrap();
    let owners: Vec<(&str, &Value)> = back
        .iter()
        .map(|e| (e["manager"].as_str().unwrap(), &e["fieldsV1"]))
        .collect();
    assert_eq!(
        owners,
        [
            ("hpa", &json!({"f:spec": {"f:replicas": {}}})),
            ("a", &json!({"f:spec": {"f:title": {}}}))
        ]
    );
}

#[test]
fn requests_without_a_field_manager_are_named_after_their_user_agent() {
    assert_eq!(
        manager_from_user_agent("kubectl/v1.36.2 (linux/amd64) kubernetes/abc"),
        "kubectl"
    );
    assert_eq!(manager_from_user_agent("my\tctl"), "myctl");
    assert_eq!(manager_from_user_agent(""), "");
    assert_eq!(manager_from_user_agent(&"x".repeat(200)).len(), 128);
}

#[test]
fn an_appliers_fields_extract_as_a_configuration() {
    let fx = Fixture::new();
    let live = object(json!({"replicas": 3}));
    let config = json!({"apiVersion": V1, "kind": "K", "metadata": {"name": "o"},
                        "spec": {"title": "t", "ports": [{"name": "a", "port": 1}]}});
    let applied = fx
        .run("2024-01-01T00:00:00Z", |fm| {
            fm.apply(&live, &config, "alice", false)
        })
        .unwrap();
    let extracted = extract(&fx.schema, &applied, "alice", "").unwrap().unwrap();
    assert_eq!(
        extracted,
        json!({"apiVersion": V1, "kind": "K", "spec": {"title": "t", "ports": [{"name": "a", "port": 1}]}})
    );
    assert_eq!(extract(&fx.schema, &applied, "bob", "").unwrap(), None);
}
