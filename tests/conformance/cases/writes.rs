//! Writes to existing objects: PUT, merge and JSON patches, server-side apply, the status and
//! scale subresources, deletion, and malformed requests.

use http::Method;
use serde_json::{Value, json};

use super::{COLLECTIONS, SCALARS, object};
use crate::conformance::script::{APPLY, Case, JSON, MERGE};

/// A case that starts from a stored Scalar `s` with `spec`.
fn with_scalar(case: &str, spec: Value) -> Case {
    Case::new(case).create(SCALARS, "Scalar", object("s", spec))
}

fn put_spec(spec: Value) -> Value {
    json!({"metadata": {"name": "s", "resourceVersion": "{rv}"}, "spec": spec})
}

pub fn cases() -> Vec<Case> {
    let s = SCALARS;
    vec![
        // PUT
        with_scalar("put: a spec change bumps generation", json!({"replicas": 1}))
            .put(s, "Scalar", "s", None, put_spec(json!({"replicas": 2}))),
        with_scalar("put: a label change keeps generation", json!({"replicas": 1})).put(
            s,
            "Scalar",
            "s",
            None,
            json!({"metadata": {"name": "s", "resourceVersion": "{rv}", "labels": {"a": "b"}}, "spec": {"replicas": 1}}),
        ),
        with_scalar("put: a stale resourceVersion conflicts", json!({})).put(
            s,
            "Scalar",
            "s",
            None,
            json!({"metadata": {"name": "s", "resourceVersion": "1"}, "spec": {"replicas": 2}}),
        ),
        with_scalar("put: without a resourceVersion", json!({})).put(
            s,
            "Scalar",
            "s",
            None,
            json!({"metadata": {"name": "s"}, "spec": {"replicas": 2}}),
        ),
        with_scalar("put: the name differs from the URL", json!({})).put(
            s,
            "Scalar",
            "s",
            None,
            json!({"metadata": {"name": "other", "resourceVersion": "{rv}"}, "spec": {}}),
        ),
        with_scalar("put: an invalid value", json!({}))
            .put(s, "Scalar", "s", None, put_spec(json!({"replicas": 99, "title": "x"}))),
        with_scalar("put: status is ignored on the main resource", json!({})).put(
            s,
            "Scalar",
            "s",
            None,
            json!({"metadata": {"name": "s", "resourceVersion": "{rv}"}, "spec": {}, "status": {"phase": "Up"}}),
        ),
        Case::new("put: a missing object").put(
            s,
            "Scalar",
            "missing",
            None,
            json!({"metadata": {"name": "missing", "resourceVersion": "1"}, "spec": {}}),
        ),
        with_scalar("put: the uid cannot change", json!({})).put(
            s,
            "Scalar",
            "s",
            None,
            json!({"metadata": {"name": "s", "resourceVersion": "{rv}", "uid": "00000000-0000-0000-0000-000000000000"}, "spec": {}}),
        ),
        with_scalar("put: the wrong kind", json!({})).put(
            s,
            "Other",
            "s",
            None,
            put_spec(json!({})),
        ),
        // merge patch
        with_scalar("merge: set and remove fields", json!({"title": "hello", "mode": "Fast"}))
            .merge(s, "s", json!({"spec": {"title": null, "replicas": 4}})),
        with_scalar("merge: an invalid result", json!({}))
            .merge(s, "s", json!({"spec": {"replicas": "many"}})),
        with_scalar("merge: remove a defaulted field", json!({}))
            .merge(s, "s", json!({"spec": {"flavor": null}})),
        with_scalar("merge: labels and annotations", json!({})).merge(
            s,
            "s",
            json!({"metadata": {"labels": {"tier": "web"}, "annotations": {"note": "x"}}}),
        ),
        with_scalar("merge: a stale resourceVersion in the patch", json!({})).merge(
            s,
            "s",
            json!({"metadata": {"resourceVersion": "1"}, "spec": {"replicas": 2}}),
        ),
        Case::new("merge: a missing object").merge(s, "missing", json!({"spec": {}})),
        with_scalar("merge: not JSON", json!({})).raw(
            Method::PATCH,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s",
            Some(MERGE),
            b"{nope",
        ),
        // JSON patch
        with_scalar("json patch: add, replace and remove", json!({"title": "hello"})).json_patch(
            s,
            "s",
            json!([
                {"op": "add", "path": "/spec/mode", "value": "Safe"},
                {"op": "replace", "path": "/spec/replicas", "value": 5},
                {"op": "remove", "path": "/spec/title"},
            ]),
        ),
        with_scalar("json patch: a failing test", json!({})).json_patch(
            s,
            "s",
            json!([{"op": "test", "path": "/spec/replicas", "value": 9}, {"op": "replace", "path": "/spec/replicas", "value": 2}]),
        ),
        with_scalar("json patch: remove a missing path", json!({}))
            .json_patch(s, "s", json!([{"op": "remove", "path": "/spec/title"}])),
        with_scalar("json patch: an invalid result", json!({}))
            .json_patch(s, "s", json!([{"op": "add", "path": "/spec/small", "value": -1}])),
        with_scalar("json patch: not a list of operations", json!({}))
            .json_patch(s, "s", json!({"op": "add"})),
        // server-side apply
        Case::new("apply: creates").apply(
            s,
            "Scalar",
            "s",
            "alice",
            false,
            json!({"metadata": {"name": "s"}, "spec": {"replicas": 2, "title": "by alice"}}),
        ),
        Case::new("apply: a second manager conflicts, then forces")
            .apply(s, "Scalar", "s", "alice", false, object("s", json!({"replicas": 2})))
            .apply(s, "Scalar", "s", "bob", false, object("s", json!({"replicas": 3})))
            .apply(s, "Scalar", "s", "bob", true, object("s", json!({"replicas": 3}))),
        Case::new("apply: shared fields do not conflict")
            .apply(s, "Scalar", "s", "alice", false, object("s", json!({"replicas": 2})))
            .apply(s, "Scalar", "s", "bob", false, object("s", json!({"replicas": 2, "title": "bob"}))),
        Case::new("apply: a manager drops a field it stopped applying")
            .apply(s, "Scalar", "s", "alice", false, object("s", json!({"replicas": 2, "title": "alice"})))
            .apply(s, "Scalar", "s", "alice", false, object("s", json!({"replicas": 2}))),
        Case::new("apply: an invalid configuration").apply(
            s,
            "Scalar",
            "s",
            "alice",
            false,
            object("s", json!({"replicas": 100})),
        ),
        with_scalar("apply: after an update", json!({"replicas": 1}))
            .apply(s, "Scalar", "s", "alice", false, object("s", json!({"replicas": 4}))),
        Case::new("apply: without a field manager").patch(
            s,
            "s",
            None,
            APPLY,
            None,
            json!({"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s"}, "spec": {}}),
        ),
        // status
        with_scalar("status: put", json!({})).put(
            s,
            "Scalar",
            "s",
            Some("status"),
            json!({"metadata": {"name": "s", "resourceVersion": "{rv}"}, "spec": {"replicas": 9}, "status": {"replicas": 2, "phase": "Up"}}),
        ),
        with_scalar("status: merge", json!({})).patch(
            s,
            "s",
            Some("status"),
            MERGE,
            None,
            json!({"status": {"phase": "Ready", "conditions": [{"type": "Ready", "status": "True", "reason": "Done", "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"}]}}),
        ),
        with_scalar("status: invalid", json!({})).patch(
            s,
            "s",
            Some("status"),
            MERGE,
            None,
            json!({"status": {"phase": "much-too-long-phase", "replicas": "two"}}),
        ),
        with_scalar("status: condition missing required fields", json!({})).patch(
            s,
            "s",
            Some("status"),
            MERGE,
            None,
            json!({"status": {"conditions": [{"type": "Ready"}]}}),
        ),
        with_scalar("status: apply", json!({})).patch(
            s,
            "s",
            Some("status"),
            APPLY,
            Some("fieldManager=controller"),
            json!({"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s"}, "status": {"replicas": 1}}),
        ),
        // scale
        with_scalar("scale: get", json!({"replicas": 3})).get(s, "s", Some("scale")),
        with_scalar("scale: merge", json!({"replicas": 3})).patch(
            s,
            "s",
            Some("scale"),
            MERGE,
            None,
            json!({"spec": {"replicas": 5}}),
        ),
        with_scalar("scale: beyond the schema's maximum", json!({"replicas": 3})).patch(
            s,
            "s",
            Some("scale"),
            MERGE,
            None,
            json!({"spec": {"replicas": 50}}),
        ),
        with_scalar("scale: negative", json!({"replicas": 3})).patch(
            s,
            "s",
            Some("scale"),
            MERGE,
            None,
            json!({"spec": {"replicas": -1}}),
        ),
        // delete
        with_scalar("delete: gone at once", json!({})).delete(s, "s", json!({})),
        Case::new("delete: finalizers hold it")
            .create(
                s,
                "Scalar",
                json!({"metadata": {"name": "s", "finalizers": ["example.com/hold"]}, "spec": {}}),
            )
            .delete(s, "s", json!({}))
            .merge(s, "s", json!({"metadata": {"finalizers": null}})),
        with_scalar("delete: a uid precondition that fails", json!({})).delete(
            s,
            "s",
            json!({"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}),
        ),
        with_scalar("delete: a resourceVersion precondition that fails", json!({})).delete(
            s,
            "s",
            json!({"preconditions": {"resourceVersion": "1"}}),
        ),
        Case::new("delete: a missing object").delete(s, "missing", json!({})),
        with_scalar("delete: dry run", json!({})).raw(
            Method::DELETE,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s?dryRun=All",
            Some(JSON),
            b"{}",
        ),
        // malformed requests
        Case::new("malformed: not JSON").raw(
            Method::POST,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars",
            Some(JSON),
            b"{not json",
        ),
        Case::new("malformed: a JSON list").raw(
            Method::POST,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars",
            Some(JSON),
            b"[1, 2]",
        ),
        Case::new("malformed: the wrong kind").create(
            s,
            "Other",
            object("s", json!({})),
        ),
        Case::new("malformed: the wrong apiVersion").create(
            s,
            "Scalar",
            json!({"apiVersion": "conformance.kubegen.dev/v2", "metadata": {"name": "s"}, "spec": {}}),
        ),
        Case::new("malformed: PUT on a collection").raw(
            Method::PUT,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars",
            Some(JSON),
            b"{}",
        ),
        with_scalar("malformed: an unsupported patch type", json!({})).raw(
            Method::PATCH,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s",
            Some("text/plain"),
            b"x",
        ),
        with_scalar("malformed: strategic merge patch", json!({})).raw(
            Method::PATCH,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s",
            Some("application/strategic-merge-patch+json"),
            b"{\"spec\": {}}",
        ),
        Case::new("malformed: an unknown resource").raw(
            Method::GET,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/nothings",
            None,
            b"",
        ),
        Case::new("malformed: an unknown subresource")
            .create(COLLECTIONS, "Collection", object("c", json!({"owner": "o"})))
            .raw(
                Method::GET,
                "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/collections/c/status",
                None,
                b"",
            )
            .raw(
                Method::GET,
                "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/collections/c/scale",
                None,
                b"",
            ),
        Case::new("malformed: a namespaced kind without a namespace").raw(
            Method::GET,
            "/apis/conformance.kubegen.dev/v1/scalars/s",
            None,
            b"",
        ),
        Case::new("malformed: a cluster-scoped kind in a namespace").raw(
            Method::GET,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/globals/g",
            None,
            b"",
        ),
        Case::new("malformed: an unknown group").raw(Method::GET, "/apis/nothing.example.com/v1/things", None, b""),
        Case::new("malformed: an unserved version").raw(
            Method::GET,
            "/apis/conformance.kubegen.dev/v9/namespaces/{ns}/scalars",
            None,
            b"",
        ),
        Case::new("malformed: POST to an object").raw(
            Method::POST,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s",
            Some(JSON),
            b"{}",
        ),
        Case::new("malformed: a list of all namespaces")
            .create(s, "Scalar", object("s", json!({})))
            .raw(Method::GET, "/apis/conformance.kubegen.dev/v1/scalars?labelSelector=none%3Dnone", None, b""),
        Case::new("collection: list-map items merge by key")
            .create(
                COLLECTIONS,
                "Collection",
                object("c", json!({"owner": "o", "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]})),
            )
            .merge(COLLECTIONS, "c", json!({"spec": {"ports": [{"name": "b", "port": 3}]}})),
    ]
}
