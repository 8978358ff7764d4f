//! Apply sequences with three managers: who owns a field when appliers share it, take it by
//! force, give it up, or meet Update managers (merge and JSON patches, status updates) —
//! `map` lists by key, sets by value, granular and atomic maps, atomic lists, maps of structs,
//! composite keys, preserve-unknown fields and the status subresource. After every step the
//! stored object and its `managedFields` are compared.
//!
//! Managers act in the alphabetical order of their names (a manager may act again before the
//! next one starts), so both servers order `managedFields` entries alike whether or not a
//! second boundary falls inside a case (see `ownership.rs`).

use serde_json::json;

use super::ownership::{Steps, collection_by, scalar_by};
use super::{COLLECTIONS, SCALARS};
use crate::conformance::script::Case;

fn port(name: &str, port: i64) -> serde_json::Value {
    json!({"name": name, "port": port})
}

fn lists() -> Vec<Case> {
    vec![
        Case::new("apply sequences: three appliers share a map-list item and own their own")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [port("a", 1), port("b", 2)]}))
            .apply_collection("bob", false, json!({"ports": [port("b", 2), port("c", 3)]}))
            .apply_collection("carol", false, json!({"ports": [port("c", 3)]})),
        Case::new("apply sequences: a map-list conflict names both owners, force takes from both")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [port("a", 1)]}))
            .apply_collection("bob", false, json!({"ports": [port("a", 1)]}))
            .apply_collection("carol", false, json!({"ports": [port("a", 9)]}))
            .apply_collection("carol", true, json!({"ports": [port("a", 9)]})),
        Case::new("apply sequences: an applier drops the map-list item only it owned")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [port("a", 1)]}))
            .apply_collection("bob", false, json!({"ports": [port("a", 1), port("b", 2)]}))
            .apply_collection("bob", false, json!({"ports": [port("a", 1)]}))
            .apply_collection("carol", false, json!({"ports": [port("c", 3)]})),
        Case::new("apply sequences: an applier drops a map-list item another applier shares")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [port("a", 1)]}))
            .apply_collection("bob", false, json!({"ports": [port("a", 1), port("b", 2)]}))
            .apply_collection("bob", false, json!({"ports": [port("b", 2)]}))
            .apply_collection("carol", false, json!({"ports": [port("b", 2)]})),
        collection_by("apply sequences: an update between appliers takes the map-list field it changed", "alice", json!({"ports": [port("a", 1)]}))
            .apply_collection("bob", false, json!({"ports": [port("a", 1), port("b", 2)]}))
            .merge_as(COLLECTIONS, "c", "carol", json!({"spec": {"ports": [port("a", 5), port("b", 2)]}}))
            .apply_collection("dave", false, json!({"ports": [port("d", 4)]})),
        Case::new("apply sequences: three appliers on a composite-key list")
            .apply_collection("alice", false, json!({"owner": "team", "endpoints": [{"port": 80}, {"port": 81, "host": "a"}]}))
            .apply_collection("bob", false, json!({"endpoints": [{"port": 80, "protocol": "UDP"}, {"port": 81, "protocol": "TCP", "host": "a"}]}))
            .apply_collection("carol", false, json!({"endpoints": [{"port": 80, "protocol": "TCP", "host": "c"}]}))
            .apply_collection("carol", true, json!({"endpoints": [{"port": 80, "protocol": "TCP", "host": "c"}]})),
        Case::new("apply sequences: set values shared by two, one applier applies an empty set")
            .apply_collection("alice", false, json!({"owner": "team", "tags": ["x", "y"]}))
            .apply_collection("bob", false, json!({"tags": ["y", "z"]}))
            .apply_collection("carol", false, json!({"tags": []})),
        Case::new("apply sequences: an applier stops applying a set value another applier shares")
            .apply_collection("alice", false, json!({"owner": "team", "tags": ["x"]}))
            .apply_collection("bob", false, json!({"tags": ["x", "y"]}))
            .apply_collection("bob", false, json!({"tags": ["y"]}))
            .apply_collection("carol", false, json!({"tags": ["z"]})),
        collection_by("apply sequences: a JSON patch adds a set value between appliers", "alice", json!({"tags": ["x"]}))
            .apply_collection("bob", false, json!({"tags": ["x", "y"]}))
            .patch(COLLECTIONS, "c", None, crate::conformance::script::JSON_PATCH, Some("fieldManager=carol"), json!([{"op": "add", "path": "/spec/tags/-", "value": "z"}]))
            .apply_collection("dave", false, json!({"tags": ["w"]})),
        Case::new("apply sequences: an atomic list shared by two appliers, forced by a third")
            .apply_collection("alice", false, json!({"owner": "team", "env": [{"name": "A", "value": "1"}]}))
            .apply_collection("bob", false, json!({"env": [{"name": "A", "value": "1"}]}))
            .apply_collection("carol", false, json!({"env": [{"name": "C", "value": "3"}]}))
            .apply_collection("carol", true, json!({"env": [{"name": "C", "value": "3"}]})),
    ]
}

fn maps() -> Vec<Case> {
    vec![
        Case::new("apply sequences: a forced takeover of one shared granular-map key")
            .apply_collection("alice", false, json!({"owner": "team", "labels": {"a": "1", "s": "s"}}))
            .apply_collection("bob", false, json!({"labels": {"b": "2", "s": "s"}}))
            .apply_collection("carol", true, json!({"labels": {"s": "c"}})),
        Case::new("apply sequences: an atomic map shared by two appliers, forced by a third")
            .apply_collection("alice", false, json!({"owner": "team", "selector": {"matchLabels": {"app": "a"}}}))
            .apply_collection("bob", false, json!({"selector": {"matchLabels": {"app": "a"}}}))
            .apply_collection("carol", true, json!({"selector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}})),
        Case::new("apply sequences: fields of a map of structs, shared and conflicting")
            .apply_collection("alice", false, json!({"owner": "team", "limits": {"cpu": {"max": 4}}}))
            .apply_collection("bob", false, json!({"limits": {"cpu": {"max": 4}, "memory": {"max": 2}}}))
            .apply_collection("carol", false, json!({"limits": {"cpu": {"max": 8}}}))
            .apply_collection("carol", false, json!({"limits": {"gpu": {"max": 1}}})),
        Case::new("apply sequences: nested preserve-unknown maps with three appliers")
            .apply_collection("alice", false, json!({"owner": "team", "extra": {"nested": {"x": 1, "shared": true}}}))
            .apply_collection("bob", false, json!({"extra": {"nested": {"y": 2, "shared": true}}}))
            .apply_collection("bob", false, json!({"extra": {"nested": {"y": 2}}}))
            .apply_collection("carol", false, json!({"extra": {"nested": {"shared": false}}})),
        Case::new("apply sequences: labels and finalizers from three appliers")
            .apply_collection("alice", false, json!({"owner": "team"}))
            .merge_as(COLLECTIONS, "c", "alice", json!({"metadata": {"labels": {"a": "1"}}}))
            .apply(COLLECTIONS, "Collection", "c", "bob", false, json!({"metadata": {"name": "c", "labels": {"b": "2"}, "finalizers": ["example.com/b"]}}))
            .apply(COLLECTIONS, "Collection", "c", "carol", false, json!({"metadata": {"name": "c", "labels": {"a": "3"}, "finalizers": ["example.com/b", "example.com/c"]}}))
            .apply(COLLECTIONS, "Collection", "c", "carol", true, json!({"metadata": {"name": "c", "labels": {"a": "3"}, "finalizers": ["example.com/c"]}})),
    ]
}

fn scalars_and_status() -> Vec<Case> {
    vec![
        scalar_by(
            "apply sequences: a conflict with an updater and an applier, then force",
            "alice",
            json!({"title": "same"}),
        )
        .apply_scalar("bob", false, json!({"title": "same", "slug": "b"}))
        .apply_scalar("carol", false, json!({"title": "other"}))
        .apply_scalar("carol", true, json!({"title": "other"})),
        Case::new("apply sequences: three appliers, one field each, one given up")
            .apply_scalar("alice", false, json!({"title": "al", "step": 5}))
            .apply_scalar("bob", false, json!({"slug": "bob"}))
            .apply_scalar("bob", false, json!({}))
            .apply_scalar("carol", false, json!({"mode": "Fast", "step": 5})),
        Case::new("apply sequences: spec by one applier, status by an updater and an applier")
            .apply_scalar("alice", false, json!({"title": "al"}))
            .merge_status("bob", json!({"phase": "Running", "selector": "app=a"}))
            .apply_status("carol", false, json!({"phase": "Done"}))
            .apply_status("carol", true, json!({"phase": "Done"})),
        Case::new("apply sequences: two status appliers and a spec updater")
            .apply_scalar("alice", false, json!({"title": "al"}))
            .apply_status("bob", false, json!({"phase": "Running"}))
            .apply_status("carol", false, json!({"selector": "app=c"}))
            .merge_as(SCALARS, "s", "dave", json!({"spec": {"title": "dave"}})),
    ]
}

pub fn cases() -> Vec<Case> {
    [lists(), maps(), scalars_and_status()].concat()
}
