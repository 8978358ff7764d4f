//! Reads: gets, lists with selectors and pages, and scripted watch sequences.

use http::Method;
use serde_json::json;

use super::{SCALARS, object};
use crate::conformance::script::Case;

/// A case starting from Scalars `a`..`e` with labels `app` (web, web, api, web, db) and `n`.
fn five(case: &str) -> Case {
    let apps = ["web", "web", "api", "web", "db"];
    let mut c = Case::new(case);
    for (i, app) in apps.iter().enumerate() {
        let name = ((b'a' + i as u8) as char).to_string();
        c = c.create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": name, "labels": {"app": app, "n": i.to_string()}}, "spec": {"replicas": i}}),
        );
    }
    c
}

pub fn cases() -> Vec<Case> {
    let s = SCALARS;
    vec![
        Case::new("get: a missing object").get(s, "missing", None),
        Case::new("discovery: the group")
            .raw(Method::GET, "/apis/conformance.kubegen.dev", None, b"")
            .raw(Method::GET, "/apis/conformance.kubegen.dev/v1", None, b""),
        five("list: everything").list(s, ""),
        five("list: label selectors")
            .list(s, "labelSelector=app%3Dweb")
            .list(s, "labelSelector=app%21%3Dweb")
            .list(s, "labelSelector=app+in+%28api%2Cdb%29")
            .list(s, "labelSelector=app+notin+%28web%29%2Cn")
            .list(s, "labelSelector=%21n"),
        five("list: an invalid label selector").list(s, "labelSelector=app+in+web"),
        five("list: field selectors")
            .list(s, "fieldSelector=metadata.name%3Db")
            .list(
                s,
                "fieldSelector=metadata.name%21%3Db%2Cmetadata.namespace%3D{ns}",
            ),
        five("list: an unsupported field selector").list(s, "fieldSelector=spec.title%3Dx"),
        five("list: pages")
            .list(s, "limit=2")
            .capture("continue:first")
            .list(s, "limit=2&continue={continue:first}")
            .capture("continue:second")
            .list(s, "limit=2&continue={continue:second}"),
        five("list: a page with a selector").list(s, "limit=1&labelSelector=app%3Dweb"),
        five("list: an invalid limit").list(s, "limit=lots"),
        five("list: an invalid continue token").list(s, "limit=2&continue=nonsense"),
        five("list: resourceVersion 0 and a limit")
            .list(s, "resourceVersion=0")
            .list(s, "resourceVersion=0&limit=2"),
        five("list: resourceVersionMatch")
            .capture("now")
            .list(s, "resourceVersion={now}&resourceVersionMatch=NotOlderThan")
            .list(s, "resourceVersionMatch=NotOlderThan")
            .list(s, "resourceVersion=0&resourceVersionMatch=Exact")
            .list(s, "resourceVersion={now}&resourceVersionMatch=Sometimes"),
        five("list: a continue token with a resourceVersion")
            .list(s, "limit=2")
            .capture("continue:first")
            .list(s, "limit=2&continue={continue:first}&resourceVersion=0"),
        five("list: an invalid resourceVersion").list(s, "resourceVersion=abc"),
        Case::new("watch: from resourceVersion 0 the current objects come first")
            .create(s, "Scalar", object("a", json!({})))
            .create(s, "Scalar", object("b", json!({})))
            .watch(s, "resourceVersion=0")
            .events(2)
            .merge(s, "a", json!({"spec": {"replicas": 4}}))
            .events(1),
        Case::new("watch: an invalid resourceVersion").watch(s, "resourceVersion=abc"),
        Case::new("watch: create, update, delete")
            .create(s, "Scalar", object("a", json!({})))
            .capture("start")
            .watch(s, "resourceVersion={start}")
            .merge(s, "a", json!({"spec": {"replicas": 3}}))
            .create(s, "Scalar", object("b", json!({})))
            .delete(s, "a", json!({}))
            .events(3),
        Case::new("watch: objects entering and leaving a label selector")
            .create(
                s,
                "Scalar",
                json!({"metadata": {"name": "a", "labels": {"app": "web"}}, "spec": {}}),
            )
            .capture("start")
            .watch(s, "resourceVersion={start}&labelSelector=app%3Dweb")
            .merge(s, "a", json!({"metadata": {"labels": {"app": "api"}}}))
            .merge(s, "a", json!({"metadata": {"labels": {"app": "web"}}}))
            .merge(s, "a", json!({"spec": {"replicas": 2}}))
            .events(3),
        Case::new("watch: a field selector")
            .create(s, "Scalar", object("a", json!({})))
            .capture("start")
            .watch(s, "resourceVersion={start}&fieldSelector=metadata.name%3Db")
            .create(s, "Scalar", object("b", json!({})))
            .merge(s, "a", json!({"spec": {"replicas": 2}}))
            .merge(s, "b", json!({"spec": {"replicas": 2}}))
            .events(2),
        Case::new("watch: finalizers, deletion and release")
            .create(
                s,
                "Scalar",
                json!({"metadata": {"name": "a", "finalizers": ["example.com/hold"]}, "spec": {}}),
            )
            .capture("start")
            .watch(s, "resourceVersion={start}")
            .delete(s, "a", json!({}))
            .merge(s, "a", json!({"metadata": {"finalizers": null}}))
            .events(2),
    ]
}
