//! CEL rules on writes to existing objects: transition rules (`oldSelf`) on PUTs, patches
//! and server-side apply, `optional_old_self`, ratcheting (an unchanged invalid value gets a
//! warning), rules on status writes, and patches and applies that break rules.

use serde_json::{Value, json};

use super::cel::{CEL_RULES, bounded};
use super::{GROUP, object};
use crate::conformance::script::{APPLY, Case, JSON_PATCH, MERGE, Res};

const CEL_CHANGES: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "celchanges",
    namespaced: true,
};
const RATCHET_V1: Res = Res {
    group: GROUP,
    version: "v1",
    plural: "celratchets",
    namespaced: true,
};
const RATCHET_V2: Res = Res {
    group: GROUP,
    version: "v2",
    plural: "celratchets",
    namespaced: true,
};

/// The stored `CelChange` every transition case starts from.
fn change_spec() -> Value {
    json!({
        "version": 2,
        "id": "a",
        "template": {"image": "nginx:1"},
        "ports": [{"name": "http", "port": 80}, {"name": "ssh", "port": 22}],
        "counter": 5,
        "tags": ["locked"],
    })
}

/// `change_spec` with `changes` merged in (a `null` removes the field).
fn changed(changes: Value) -> Value {
    let mut spec = change_spec();
    json_patch::merge(&mut spec, &changes);
    spec
}

fn put_body(name: &str, spec: Value) -> Value {
    json!({"metadata": {"name": name, "resourceVersion": "{rv}"}, "spec": spec})
}

/// A case that creates `c` from `change_spec` and then PUTs `spec`.
fn transition(what: &str, spec: Value) -> Case {
    Case::new(format!("cel: transition {what}"))
        .create(CEL_CHANGES, "CelChange", object("c", change_spec()))
        .put(CEL_CHANGES, "CelChange", "c", None, put_body("c", spec))
}

fn with_rule(what: &str) -> Case {
    Case::new(format!("cel: {what}")).create(CEL_RULES, "CelRule", object("r", bounded(json!({}))))
}

pub fn cases() -> Vec<Case> {
    let mut cases = vec![
        Case::new("cel: transition rules do not run on a create")
            .create(CEL_CHANGES, "CelChange", object("c", change_spec()))
            .create(
                CEL_CHANGES,
                "CelChange",
                object("d", changed(json!({"counter": 20}))),
            )
            .create(
                CEL_CHANGES,
                "CelChange",
                object("e", changed(json!({"counter": 10}))),
            ),
        transition("an immutable field changes", changed(json!({"id": "b"}))),
        transition(
            "a type-level rule on the old value",
            changed(json!({"version": 1})),
        ),
        transition(
            "a valid change",
            changed(json!({"version": 3, "counter": 6})),
        ),
        transition(
            "a nested object's immutable field",
            changed(json!({"template": {"image": "nginx:2"}})),
        ),
        transition(
            "a nested object's other field",
            changed(json!({"template": {"pull": "Always"}})),
        ),
        transition(
            "a map-list item keeps its port",
            changed(json!({"ports": [{"name": "http", "port": 81}, {"name": "ssh", "port": 22}]})),
        ),
        transition(
            "map-list items reordered and added",
            changed(
                json!({"ports": [{"name": "web", "port": 8080}, {"name": "ssh", "port": 22}, {"name": "http", "port": 80}]}),
            ),
        ),
        transition("optional_old_self shrinks", changed(json!({"counter": 4}))),
        transition(
            "optional_old_self grows past 10",
            changed(json!({"counter": 50})),
        ),
        transition(
            "a message expression naming oldSelf",
            changed(json!({"tags": ["locked", "new"]})),
        ),
        transition("locked tags may go", changed(json!({"tags": ["other"]}))),
        transition(
            "a removed field is not checked",
            changed(json!({"template": null, "id": null})),
        ),
        // `id`'s transition rule does not run without an old value; `counter`'s optional one
        // does, with `oldSelf` none.
        Case::new("cel: transition a field added by the update has no old value")
            .create(
                CEL_CHANGES,
                "CelChange",
                object("c", changed(json!({"id": null, "counter": null}))),
            )
            .put(
                CEL_CHANGES,
                "CelChange",
                "c",
                None,
                put_body("c", changed(json!({"id": "new", "counter": 40}))),
            )
            .put(
                CEL_CHANGES,
                "CelChange",
                "c",
                None,
                put_body("c", changed(json!({"id": "new", "counter": 7}))),
            ),
        Case::new("cel: transition by merge patch")
            .create(CEL_CHANGES, "CelChange", object("c", change_spec()))
            .merge(CEL_CHANGES, "c", json!({"spec": {"id": "z", "version": 0}}))
            .merge(CEL_CHANGES, "c", json!({"spec": {"version": 7}})),
        Case::new("cel: transition by JSON patch")
            .create(CEL_CHANGES, "CelChange", object("c", change_spec()))
            .json_patch(
                CEL_CHANGES,
                "c",
                json!([{"op": "replace", "path": "/spec/template/image", "value": "busybox"}]),
            )
            .json_patch(
                CEL_CHANGES,
                "c",
                json!([{"op": "replace", "path": "/spec/ports/1/port", "value": 2222}]),
            ),
        Case::new("cel: transition by server-side apply")
            .apply(
                CEL_CHANGES,
                "CelChange",
                "c",
                "alice",
                false,
                object("c", change_spec()),
            )
            .apply(
                CEL_CHANGES,
                "CelChange",
                "c",
                "alice",
                false,
                object("c", changed(json!({"id": "b"}))),
            )
            .apply(
                CEL_CHANGES,
                "CelChange",
                "c",
                "alice",
                false,
                object("c", changed(json!({"counter": 8}))),
            ),
        Case::new("cel: apply creating an object that breaks a rule").apply(
            CEL_CHANGES,
            "CelChange",
            "c",
            "alice",
            false,
            object("c", changed(json!({"counter": 11}))),
        ),
    ];
    cases.extend(ratcheting());
    cases.extend(status());
    cases.extend(patches());
    cases
}

/// `CelRatchet` stored through `v1` (no rules) with three tags and level `mid`, both of
/// which `v2`'s rules refuse.
fn ratchet(what: &str) -> Case {
    Case::new(format!("cel: ratcheting {what}"))
        .create(
            RATCHET_V1,
            "CelRatchet",
            object("r", json!({"tags": ["a", "b", "c"], "level": "mid"})),
        )
        .capture("stored")
}

fn ratcheting() -> Vec<Case> {
    // The resourceVersion the create returned: a PUT through v2 addresses another path.
    let put = |spec: Value| json!({"metadata": {"name": "r", "resourceVersion": "{stored}"}, "spec": spec});
    vec![
        ratchet("unchanged invalid values are warnings").put(
            RATCHET_V2,
            "CelRatchet",
            "r",
            None,
            put(json!({"tags": ["a", "b", "c"], "level": "mid", "note": "x"})),
        ),
        ratchet("a changed value is an error, the unchanged one a warning").put(
            RATCHET_V2,
            "CelRatchet",
            "r",
            None,
            put(json!({"tags": ["a", "b", "c", "d"], "level": "mid"})),
        ),
        ratchet("fixing one value by merge patch").merge(
            RATCHET_V2,
            "r",
            json!({"spec": {"level": "low"}}),
        ),
        ratchet("through v1 there is nothing to ratchet").put(
            RATCHET_V1,
            "CelRatchet",
            "r",
            None,
            put(json!({"tags": ["a", "b", "c", "d"], "level": "mid"})),
        ),
        ratchet("apply of another field").apply(
            RATCHET_V2,
            "CelRatchet",
            "r",
            "bob",
            false,
            object("r", json!({"note": "applied"})),
        ),
        Case::new("cel: ratcheting does not apply to a create").create(
            RATCHET_V2,
            "CelRatchet",
            object("r", json!({"tags": ["a", "b", "c"], "level": "mid"})),
        ),
    ]
}

fn status() -> Vec<Case> {
    let status_put = |status: Value| json!({"metadata": {"name": "r", "resourceVersion": "{rv}"}, "spec": bounded(json!({})), "status": status});
    vec![
        with_rule("status put breaks a type-level rule").put(
            CEL_RULES,
            "CelRule",
            "r",
            Some("status"),
            status_put(json!({"ready": 3, "total": 2})),
        ),
        with_rule("status put passes").put(
            CEL_RULES,
            "CelRule",
            "r",
            Some("status"),
            status_put(json!({"ready": 2, "total": 2, "phase": "Ready"})),
        ),
        with_rule("status merge patch breaks a field rule").patch(
            CEL_RULES,
            "r",
            Some("status"),
            MERGE,
            None,
            json!({"status": {"phase": "Down"}}),
        ),
        with_rule("status apply").patch(
            CEL_RULES,
            "r",
            Some("status"),
            APPLY,
            Some("fieldManager=ctl"),
            json!({"apiVersion": format!("{GROUP}/v1"), "kind": "CelRule", "metadata": {"name": "r"}, "status": {"phase": "Gone", "ready": 1}}),
        ),
        with_rule("status rules are not run on a create").create(
            CEL_RULES,
            "CelRule",
            json!({"metadata": {"name": "s"}, "spec": bounded(json!({})), "status": {"phase": "Down"}}),
        ),
    ]
}

fn patches() -> Vec<Case> {
    let put =
        |spec: Value| json!({"metadata": {"name": "r", "resourceVersion": "{rv}"}, "spec": spec});
    vec![
        with_rule("put breaks a rule").put(
            CEL_RULES,
            "CelRule",
            "r",
            None,
            put(bounded(json!({"min": 9}))),
        ),
        with_rule("merge patch breaks rules").merge(
            CEL_RULES,
            "r",
            json!({"spec": {"min": 7, "user": "root"}}),
        ),
        with_rule("JSON patch breaks a rule").patch(
            CEL_RULES,
            "r",
            None,
            JSON_PATCH,
            None,
            json!([{"op": "add", "path": "/spec/owner", "value": "me"}]),
        ),
        with_rule("apply breaks a rule, then fixes it")
            .apply(
                CEL_RULES,
                "CelRule",
                "r",
                "alice",
                false,
                object("r", bounded(json!({"size": 11}))),
            )
            .apply(
                CEL_RULES,
                "CelRule",
                "r",
                "alice",
                false,
                object("r", bounded(json!({"size": 1}))),
            ),
        with_rule("dry-run create breaks a rule").create_with(
            CEL_RULES,
            "CelRule",
            Some("dryRun=All"),
            object("d", bounded(json!({"max": 0}))),
        ),
    ]
}
