//! Field ownership across the versions of a kind (`Versioned`, `None` conversion strategy,
//! `v2` with a field `v1` lacks): managers applying and updating at `v1` and `v2`, conflicts
//! compared at each manager's version, `force`, dropped fields, a manager moving between
//! versions, and what happens to fields one version does not declare.

use serde_json::{Value, json};

use super::object;
use super::ownership::manager;
use crate::conformance::script::{Case, MERGE, Res};

const fn res(version: &'static str) -> Res {
    Res {
        group: "conformance.kubegen.dev",
        version,
        plural: "versioneds",
        namespaced: true,
    }
}

const V1: Res = res("v1");
const V2: Res = res("v2");

fn apply(case: Case, r: Res, who: &str, force: bool, spec: Value) -> Case {
    case.apply(r, "Versioned", "o", who, force, object("o", spec))
}

pub fn cases() -> Vec<Case> {
    let start = |name: &str| {
        let case = Case::new(format!("versions: {name}"));
        let case = apply(
            case,
            V1,
            "alice",
            false,
            json!({"size": 1, "ports": [{"name": "http", "port": 80}]}),
        );
        apply(
            case,
            V2,
            "bob",
            false,
            json!({"color": "red", "ports": [{"name": "grpc", "port": 90}]}),
        )
    };
    vec![
        // bob, at v2, changes alice's v1 field: a conflict, then forced.
        apply(
            apply(
                start("a conflict across versions, then force"),
                V2,
                "bob",
                false,
                json!({"color": "red", "size": 2}),
            ),
            V2,
            "bob",
            true,
            json!({"color": "red", "size": 2}),
        ),
        // A list-map item each: dropping one removes only it.
        apply(
            start("dropping a list item applied at the other version"),
            V1,
            "alice",
            false,
            json!({"size": 1}),
        ),
        // alice moves to v2, dropping `size`: pruned at v1, where she applied it.
        apply(
            start("a manager moving to the other version"),
            V2,
            "alice",
            false,
            json!({"ports": [{"name": "http", "port": 81}]}),
        ),
        // Updates at each version keep the other version's managers.
        start("updates at both versions")
            .patch(
                V2,
                "o",
                None,
                MERGE,
                Some(&manager("carol")),
                json!({"spec": {"size": 3}}),
            )
            .patch(
                V1,
                "o",
                None,
                MERGE,
                Some(&manager("dave")),
                json!({"spec": {"color": "blue"}}),
            ),
        // `extra` exists only at v2: owned there, dropped from storage at v1.
        apply(
            apply(
                start("a field only one version declares"),
                V2,
                "carol",
                false,
                json!({"extra": "e"}),
            ),
            V1,
            "alice",
            false,
            json!({"size": 5, "ports": [{"name": "http", "port": 80}]}),
        ),
    ]
}
