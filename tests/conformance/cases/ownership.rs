//! Field ownership: sequences of Update and Apply operations by two or three managers over
//! scalars, nested structs, `map` lists, sets, atomic lists and maps, preserve-unknown fields,
//! metadata, and the status and scale subresources — `metadata.managedFields`, apply
//! results, conflicts and `force`.
//!
//! The apiserver orders Update entries (and Apply entries) by the second they changed, then by
//! manager name; managers here act in the alphabetical order of their names (alice, bob,
//! carol, dave), so both servers order entries alike whether or not a second boundary falls
//! inside a case.

use http::Method;
use serde_json::{Value, json};

use super::{COLLECTIONS, GLOBALS, SCALARS, object};
use crate::conformance::script::{APPLY, Case, JSON, JSON_PATCH, MERGE, Res};

const SCALAR_API: &str = "conformance.kubegen.dev/v1";

pub(super) fn manager(name: &str) -> String {
    format!("fieldManager={name}")
}

/// A Scalar `s` created (an Update) by `creator`.
pub(super) fn scalar_by(case: &str, creator: &str, spec: Value) -> Case {
    Case::new(case).create_with(
        SCALARS,
        "Scalar",
        Some(&manager(creator)),
        object("s", spec),
    )
}

/// A Collection `c` created by `creator` (with its required owner).
pub(super) fn collection_by(case: &str, creator: &str, mut spec: Value) -> Case {
    spec["owner"] = json!("team");
    Case::new(case).create_with(
        COLLECTIONS,
        "Collection",
        Some(&manager(creator)),
        object("c", spec),
    )
}

pub(super) trait Steps {
    fn apply_scalar(self, who: &str, force: bool, spec: Value) -> Case;
    fn apply_collection(self, who: &str, force: bool, spec: Value) -> Case;
    fn merge_as(self, r: Res, name: &str, who: &str, body: Value) -> Case;
    fn apply_status(self, who: &str, force: bool, status: Value) -> Case;
    fn merge_status(self, who: &str, status: Value) -> Case;
    fn merge_scale(self, who: &str, replicas: i64) -> Case;
}

impl Steps for Case {
    fn apply_scalar(self, who: &str, force: bool, spec: Value) -> Case {
        self.apply(SCALARS, "Scalar", "s", who, force, object("s", spec))
    }

    fn apply_collection(self, who: &str, force: bool, spec: Value) -> Case {
        self.apply(
            COLLECTIONS,
            "Collection",
            "c",
            who,
            force,
            object("c", spec),
        )
    }

    fn merge_as(self, r: Res, name: &str, who: &str, body: Value) -> Case {
        self.patch(r, name, None, MERGE, Some(&manager(who)), body)
    }

    fn apply_status(self, who: &str, force: bool, status: Value) -> Case {
        let query = match force {
            true => format!("{}&force=true", manager(who)),
            false => manager(who),
        };
        self.patch(
            SCALARS,
            "s",
            Some("status"),
            APPLY,
            Some(&query),
            json!({"apiVersion": SCALAR_API, "kind": "Scalar", "metadata": {"name": "s"}, "status": status}),
        )
    }

    fn merge_status(self, who: &str, status: Value) -> Case {
        self.patch(
            SCALARS,
            "s",
            Some("status"),
            MERGE,
            Some(&manager(who)),
            json!({"status": status}),
        )
    }

    fn merge_scale(self, who: &str, replicas: i64) -> Case {
        self.patch(
            SCALARS,
            "s",
            Some("scale"),
            MERGE,
            Some(&manager(who)),
            json!({"spec": {"replicas": replicas}}),
        )
    }
}

fn condition(kind: &str, status: &str) -> Value {
    json!({"type": kind, "status": status, "reason": "Checked", "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"})
}

fn scalars() -> Vec<Case> {
    let s = SCALARS;
    vec![
        scalar_by("ownership: an apply of the value an update set shares the field", "alice", json!({"title": "same"}))
            .apply_scalar("bob", false, json!({"title": "same"})),
        scalar_by("ownership: an apply of another value conflicts with the updater, force takes it", "alice", json!({"title": "first"}))
            .apply_scalar("bob", false, json!({"title": "second"}))
            .apply_scalar("bob", true, json!({"title": "second"})),
        Case::new("ownership: an update takes a changed field from the applier")
            .apply_scalar("alice", false, json!({"title": "applied", "mode": "Fast"}))
            .merge_as(s, "s", "bob", json!({"spec": {"title": "updated"}})),
        Case::new("ownership: an update that changes nothing takes nothing")
            .apply_scalar("alice", false, json!({"title": "applied"}))
            .merge_as(s, "s", "bob", json!({"spec": {"title": "applied"}})),
        Case::new("ownership: a field two appliers share stays when one stops applying it")
            .apply_scalar("alice", false, json!({"replicas": 2, "title": "mine"}))
            .apply_scalar("bob", false, json!({"replicas": 2}))
            .apply_scalar("carol", false, json!({"mode": "Safe"}))
            .apply_scalar("alice", false, json!({"title": "mine"})),
        Case::new("ownership: a field only its applier owned goes when it stops applying it")
            .apply_scalar("alice", false, json!({"replicas": 2, "title": "mine", "enabled": true}))
            .apply_scalar("alice", false, json!({"replicas": 2})),
        Case::new("ownership: an applier that stops applying a defaulted field")
            .apply_scalar("alice", false, json!({"flavor": "spicy"}))
            .apply_scalar("alice", false, json!({"title": "plain now"})),
        Case::new("ownership: applying an empty spec owns nothing in it")
            .apply_scalar("alice", false, json!({"title": "kept"}))
            .apply_scalar("bob", false, json!({})),
        Case::new("ownership: re-applying the same configuration changes nothing")
            .apply_scalar("alice", false, json!({"title": "again"}))
            .apply_scalar("alice", false, json!({"title": "again"})),
        Case::new("ownership: the same manager applies and updates")
            .apply_scalar("alice", false, json!({"title": "applied"}))
            .merge_as(s, "s", "alice", json!({"spec": {"mode": "Fast"}})),
        scalar_by("ownership: conflicts with two managers are listed per manager", "alice", json!({"title": "alice's"}))
            .merge_as(s, "s", "bob", json!({"spec": {"mode": "Fast", "enabled": true}}))
            .apply_scalar("carol", false, json!({"title": "carol's", "mode": "Safe", "enabled": false}))
            .apply_scalar("carol", true, json!({"title": "carol's", "mode": "Safe", "enabled": false})),
        scalar_by("ownership: a PUT without a field removes it from its applier", "alice", json!({}))
            .apply_scalar("bob", false, json!({"title": "bob's", "mode": "Fast"}))
            .capture("bob")
            .raw(
                Method::PUT,
                "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s?fieldManager=carol",
                Some(JSON),
                br#"{"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s", "resourceVersion": "{bob}"}, "spec": {"replicas": 1, "mode": "Fast"}}"#,
            )
            .get(s, "s", None),
        scalar_by("ownership: a JSON patch by a named manager", "alice", json!({"title": "start"}))
            .patch(
                s,
                "s",
                None,
                JSON_PATCH,
                Some(&manager("bob")),
                json!([{"op": "replace", "path": "/spec/title", "value": "patched"}, {"op": "add", "path": "/spec/mode", "value": "Safe"}]),
            ),
        scalar_by("ownership: reset managed fields, then the first apply meets before-first-apply", "alice", json!({"title": "old"}))
            .merge_as(s, "s", "bob", json!({"metadata": {"managedFields": [{}]}}))
            .apply_scalar("carol", false, json!({"title": "new"}))
            .apply_scalar("carol", true, json!({"title": "new"})),
        scalar_by("ownership: managed fields a client writes are kept", "alice", json!({"title": "xx"})).merge_as(
            s,
            "s",
            "bob",
            json!({"metadata": {"managedFields": [{"manager": "zed", "operation": "Apply", "apiVersion": SCALAR_API, "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:title": {}}}}]}}),
        ),
        Case::new("ownership: an apply that sets nothing new adds an entry without a time")
            .apply_scalar("alice", false, json!({"title": "tt"}))
            .apply_scalar("bob", false, json!({"title": "tt"})),
        Case::new("ownership: labels, annotations and finalizers by key and value")
            .apply(s, "Scalar", "s", "alice", false, json!({"metadata": {"name": "s", "labels": {"a": "1"}, "annotations": {"note": "a"}, "finalizers": ["example.com/a"]}, "spec": {}}))
            .apply(s, "Scalar", "s", "bob", false, json!({"metadata": {"name": "s", "labels": {"b": "2"}, "finalizers": ["example.com/b"]}}))
            .apply(s, "Scalar", "s", "alice", false, json!({"metadata": {"name": "s", "labels": {"a": "1"}}, "spec": {}})),
        Case::new("ownership: an applier that stops applying an empty struct removes it")
            .apply_scalar("alice", false, json!({}))
            .apply(s, "Scalar", "s", "alice", false, json!({"metadata": {"name": "s", "labels": {"a": "1"}}})),
        Case::new("ownership: a label another manager owns conflicts")
            .apply(s, "Scalar", "s", "alice", false, json!({"metadata": {"name": "s", "labels": {"tier": "web"}}, "spec": {}}))
            .apply(s, "Scalar", "s", "bob", false, json!({"metadata": {"name": "s", "labels": {"tier": "db"}}})),
        Case::new("ownership: a dry-run apply stores nothing")
            .apply_scalar("alice", false, json!({"title": "real"}))
            .patch(
                s,
                "s",
                None,
                APPLY,
                Some("fieldManager=bob&dryRun=All"),
                json!({"apiVersion": SCALAR_API, "kind": "Scalar", "metadata": {"name": "s"}, "spec": {"mode": "Safe"}}),
            ),
    ]
}

/// An object kubectl created with client-side apply, then changed by `bob`.
fn client_side_applied(case: &str) -> Case {
    let last = json!({"apiVersion": SCALAR_API, "kind": "Scalar", "metadata": {"name": "s"}, "spec": {"title": "old"}});
    Case::new(case)
        .create_with(
            SCALARS,
            "Scalar",
            Some(&manager("kubectl-client-side-apply")),
            json!({"metadata": {"name": "s", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": last.to_string()}},
                   "spec": {"title": "old"}}),
        )
        .merge_as(SCALARS, "s", "kubectl-edit", json!({"spec": {"mode": "Fast"}}))
}

fn kubectl() -> Vec<Case> {
    vec![
        client_side_applied("ownership: kubectl takes over fields its last client-side apply set")
            .apply_scalar("kubectl", false, json!({"title": "new", "mode": "Fast"})),
        client_side_applied("ownership: kubectl still conflicts on fields it never applied")
            .apply_scalar("kubectl", false, json!({"title": "new", "mode": "Safe"})),
    ]
}

fn status_and_scale() -> Vec<Case> {
    vec![
        Case::new("ownership: status conditions applied by key by two controllers")
            .apply_scalar("alice", false, json!({}))
            .apply_status("bob", false, json!({"conditions": [condition("Ready", "True")]}))
            .apply_status("carol", false, json!({"conditions": [condition("Synced", "False")]})),
        Case::new("ownership: a status update conflicts with a status apply")
            .apply_scalar("alice", false, json!({}))
            .merge_status("bob", json!({"phase": "Up"}))
            .apply_status("carol", false, json!({"phase": "Down"}))
            .apply_status("carol", true, json!({"phase": "Down"})),
        Case::new("ownership: status on the main resource is not owned")
            .apply(SCALARS, "Scalar", "s", "alice", false, json!({"metadata": {"name": "s"}, "spec": {"title": "tt"}, "status": {"phase": "Up"}})),
        Case::new("ownership: spec in a status apply is not owned")
            .apply_scalar("alice", false, json!({"title": "spec"}))
            .patch(
                SCALARS,
                "s",
                Some("status"),
                APPLY,
                Some(&manager("bob")),
                json!({"apiVersion": SCALAR_API, "kind": "Scalar", "metadata": {"name": "s", "labels": {"x": "y"}}, "spec": {"title": "other"}, "status": {"phase": "Up"}}),
            ),
        Case::new("ownership: a controller stops applying a condition")
            .apply_scalar("alice", false, json!({}))
            .apply_status("bob", false, json!({"conditions": [condition("Ready", "True"), condition("Synced", "True")]}))
            .apply_status("bob", false, json!({"conditions": [condition("Ready", "False")]})),
        scalar_by("ownership: a scale update moves the replicas field to the scaler", "alice", json!({"replicas": 1}))
            .merge_scale("bob", 3),
        Case::new("ownership: a scale update takes replicas from an applier")
            .apply_scalar("alice", false, json!({"replicas": 2, "title": "tt"}))
            .merge_scale("bob", 4)
            .apply_scalar("carol", false, json!({"replicas": 5})),
        Case::new("ownership: a scale update of an unowned replicas field is not tracked")
            .apply_scalar("alice", false, json!({"title": "tt"}))
            .merge_scale("bob", 4),
        scalar_by("ownership: apply through the scale subresource", "alice", json!({"replicas": 1}))
            .patch(
                SCALARS,
                "s",
                Some("scale"),
                APPLY,
                Some(&manager("bob")),
                json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "s"}, "spec": {"replicas": 6}}),
            )
            .patch(
                SCALARS,
                "s",
                Some("scale"),
                APPLY,
                Some("fieldManager=bob&force=true"),
                json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "s"}, "spec": {"replicas": 6}}),
            ),
    ]
}

fn collections() -> Vec<Case> {
    let c = COLLECTIONS;
    vec![
        Case::new("ownership: map-list items owned by key")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [{"name": "a", "port": 1}]}))
            .apply_collection("bob", false, json!({"ports": [{"name": "b", "port": 2}]})),
        Case::new("ownership: a map-list item field another applier owns conflicts")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [{"name": "a", "port": 1}]}))
            .apply_collection("bob", false, json!({"ports": [{"name": "a", "port": 2}]}))
            .apply_collection("bob", true, json!({"ports": [{"name": "a", "port": 2}]})),
        collection_by("ownership: map-list order merges the live order with the applied one", "alice", json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}, {"name": "c", "port": 3}]}))
            .apply_collection("bob", false, json!({"ports": [{"name": "c", "port": 3}, {"name": "a", "port": 1}]})),
        Case::new("ownership: an applier removes the map-list item only it owned")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}, {"name": "c", "port": 3}]}))
            .apply_collection("bob", false, json!({"ports": [{"name": "b", "port": 2}]}))
            .apply_collection("carol", false, json!({"tags": ["x"]}))
            .apply_collection("alice", false, json!({"owner": "team", "ports": [{"name": "a", "port": 1}]})),
        Case::new("ownership: a composite map-list key takes its default")
            .apply_collection("alice", false, json!({"owner": "team", "endpoints": [{"port": 80}, {"port": 80, "protocol": "UDP", "host": "h"}]}))
            .apply_collection("bob", false, json!({"endpoints": [{"port": 80, "protocol": "TCP", "host": "b"}]})),
        Case::new("ownership: set values are owned one by one")
            .apply_collection("alice", false, json!({"owner": "team", "tags": ["x", "y"]}))
            .apply_collection("bob", false, json!({"tags": ["y", "z"]}))
            .apply_collection("carol", false, json!({"labels": {"k": "v"}}))
            .apply_collection("alice", false, json!({"owner": "team", "tags": ["w"]})),
        Case::new("ownership: an atomic list is replaced whole and conflicts whole")
            .apply_collection("alice", false, json!({"owner": "team", "env": [{"name": "A", "value": "1"}]}))
            .apply_collection("bob", false, json!({"env": [{"name": "B", "value": "2"}]}))
            .apply_collection("bob", true, json!({"env": [{"name": "B", "value": "2"}]})),
        Case::new("ownership: a list of lists is atomic")
            .apply_collection("alice", false, json!({"owner": "team", "matrix": [[1, 2], [3]]}))
            .apply_collection("alice", false, json!({"owner": "team", "matrix": [[4]]})),
        Case::new("ownership: an atomic map conflicts whole")
            .apply_collection("alice", false, json!({"owner": "team", "selector": {"matchLabels": {"app": "a"}}}))
            .apply_collection("bob", false, json!({"selector": {"matchLabels": {"tier": "b"}}})),
        Case::new("ownership: a granular map is owned by key")
            .apply_collection("alice", false, json!({"owner": "team", "labels": {"a": "1", "shared": "s"}}))
            .apply_collection("bob", false, json!({"labels": {"b": "2", "shared": "s"}}))
            .apply_collection("carol", false, json!({"labels": {"shared": "c"}})),
        Case::new("ownership: a map of structs is owned per field")
            .apply_collection("alice", false, json!({"owner": "team", "limits": {"cpu": {"max": 4}}}))
            .apply_collection("bob", false, json!({"limits": {"memory": {"max": 2}}}))
            .apply_collection("carol", false, json!({"limits": {"cpu": {"max": 8}}})),
        Case::new("ownership: preserve-unknown fields are granular maps and atomic lists")
            .apply_collection("alice", false, json!({"owner": "team", "extra": {"a": 1, "list": [1, 2], "nested": {"x": true}}}))
            .apply_collection("bob", false, json!({"extra": {"b": "two", "nested": {"y": false}}}))
            .apply_collection("carol", false, json!({"extra": {"list": [3]}})),
        Case::new("ownership: an embedded resource's metadata is typed")
            .apply_collection("alice", false, json!({"owner": "team", "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"a": "b"}}, "data": {"k": "v"}}}))
            .apply_collection("bob", false, json!({"template": {"metadata": {"labels": {"c": "d"}}, "data": {"k2": "v2"}}})),
        Case::new("ownership: int-or-string values inside a struct")
            .apply_collection("alice", false, json!({"owner": "team", "resources": {"limits": {"cpu": "1", "memory": 2}}}))
            .apply_collection("bob", false, json!({"resources": {"limits": {"cpu": 2}, "requests": {"cpu": "500m"}}})),
        collection_by("ownership: an update of a map-list item takes only what changed", "alice", json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]}))
            .merge_as(c, "c", "bob", json!({"spec": {"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 5}]}})),
        collection_by("ownership: an update that removes a set value", "alice", json!({"tags": ["x", "y"]}))
            .apply_collection("bob", false, json!({"tags": ["y"]}))
            .merge_as(c, "c", "carol", json!({"spec": {"tags": ["x"]}})),
    ]
}

fn errors_and_scopes() -> Vec<Case> {
    vec![
        Case::new("ownership: an applied field the schema does not declare")
            .apply_scalar("alice", false, json!({"title": "tt", "junk": 1})),
        Case::new("ownership: an applied number of the wrong type")
            .apply_scalar("alice", false, json!({"replicas": "many"})),
        Case::new("ownership: an applied boolean of the wrong type")
            .apply_scalar("alice", false, json!({"enabled": "yes"})),
        Case::new("ownership: an applied string of the wrong type")
            .apply_scalar("alice", false, json!({"title": 12})),
        Case::new("ownership: an applied list item without its key")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [{"port": 1}]})),
        Case::new("ownership: an applied list with a duplicate key")
            .apply_collection("alice", false, json!({"owner": "team", "ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]})),
        Case::new("ownership: nulls in an applied configuration are defaulted, kept or refused")
            .apply_scalar("alice", false, json!({"flavor": null, "note": null, "replicas": null}))
            .apply_scalar("alice", false, json!({"flavor": null, "title": null})),
        Case::new("ownership: an apply of another kind").patch(
            SCALARS,
            "s",
            None,
            APPLY,
            Some(&manager("alice")),
            json!({"apiVersion": SCALAR_API, "kind": "Other", "metadata": {"name": "s"}, "spec": {}}),
        ),
        scalar_by("ownership: an apply without an apiVersion", "alice", json!({})).patch(
            SCALARS,
            "s",
            None,
            APPLY,
            Some(&manager("bob")),
            json!({"kind": "Scalar", "metadata": {"name": "s"}, "spec": {"title": "no version"}}),
        ),
        Case::new("ownership: an apply that carries managed fields").patch(
            SCALARS,
            "s",
            None,
            APPLY,
            Some(&manager("alice")),
            json!({"apiVersion": SCALAR_API, "kind": "Scalar", "metadata": {"name": "s", "managedFields": [{"manager": "x", "operation": "Apply", "apiVersion": SCALAR_API, "fieldsType": "FieldsV1", "fieldsV1": {}}]}, "spec": {}}),
        ),
        Case::new("ownership: a cluster-scoped kind")
            .apply(GLOBALS, "Global", "{ns}-g", "alice", false, json!({"metadata": {"name": "{ns}-g"}, "spec": {"value": "a"}}))
            .apply(GLOBALS, "Global", "{ns}-g", "bob", false, json!({"metadata": {"name": "{ns}-g"}, "spec": {"value": "b"}}))
            .patch(GLOBALS, "{ns}-g", None, MERGE, Some(&manager("carol")), json!({"spec": {"value": "c"}}))
            .delete(GLOBALS, "{ns}-g", json!({})),
    ]
}

/// Eleven Update managers: the two oldest merge into `ancient-changes`.
fn capped() -> Case {
    let mut case = Case::new("ownership: at most ten update managers").create_with(
        SCALARS,
        "Scalar",
        Some(&manager("m00")),
        object("s", json!({})),
    );
    for i in 1..=10 {
        let mut labels = serde_json::Map::new();
        labels.insert(format!("l{i:02}"), json!("x"));
        case = case.merge_as(
            SCALARS,
            "s",
            &format!("m{i:02}"),
            json!({"metadata": {"labels": labels}}),
        );
    }
    case
}

pub fn cases() -> Vec<Case> {
    let mut cases = scalars();
    cases.extend(kubectl());
    cases.extend(status_and_scale());
    cases.extend(collections());
    cases.extend(errors_and_scopes());
    cases.push(capped());
    cases
}
