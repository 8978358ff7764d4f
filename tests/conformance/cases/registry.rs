//! What the registry does with a decoded write: the metadata the server owns (immutable
//! uid, deletionTimestamp and deletionGracePeriodSeconds, selfLink dropped), the
//! resourceVersion rules of the store, names and namespaces of PUT, patch and apply bodies
//! against the URL, patches that change apiVersion or kind, evanphx/json-patch v4's reading
//! of JSON patches, merge-patch nulls, and the storage size limit (etcd's request limit, with
//! the retry without managedFields).

use http::Method;
use serde_json::{Value, json};

use super::{COLLECTIONS, GLOBALS, SCALARS, object};
use crate::conformance::script::{Case, JSON};

/// A case that starts from a stored Scalar `s` with `spec`.
fn with_scalar(case: &str, spec: Value) -> Case {
    Case::new(case).create(SCALARS, "Scalar", object("s", spec))
}

/// A case that starts from the Scalar `s` and merges `patch` into it.
fn merged(case: &str, patch: Value) -> Case {
    with_scalar(case, json!({"title": "ab"})).merge(SCALARS, "s", patch)
}

/// A case that starts from the Scalar `s` and sends the JSON patch `ops`.
fn json_patched(case: &str, ops: Value) -> Case {
    with_scalar(case, json!({"title": "ab"})).json_patch(SCALARS, "s", ops)
}

/// A case that starts from the Scalar `s` (created by apply as `m`) and applies `body` as `m`.
fn applied(case: &str, body: Value) -> Case {
    Case::new(case)
        .apply(
            SCALARS,
            "Scalar",
            "s",
            "m",
            true,
            object("s", json!({"title": "ab"})),
        )
        .apply(SCALARS, "Scalar", "s", "m", true, body)
}

/// A case that starts from the Scalar `s` and PUTs `body`.
fn put(case: &str, body: Value) -> Case {
    with_scalar(case, json!({"title": "ab"})).put(SCALARS, "Scalar", "s", None, body)
}

/// `metadata` of a PUT or apply body, with the current resourceVersion unless `meta` says.
fn meta(meta: Value) -> Value {
    let mut m = json!({"name": "s", "resourceVersion": "{rv}"});
    if let (Value::Object(m), Value::Object(extra)) = (&mut m, meta) {
        m.extend(extra);
    }
    json!({"metadata": m, "spec": {"title": "cd"}})
}

fn immutable_metadata() -> Vec<Case> {
    let uid = "11111111-2222-3333-4444-555555555555";
    vec![
        merged("registry: a merge patch changing uid", json!({"metadata": {"uid": uid}})),
        json_patched(
            "registry: a JSON patch changing uid",
            json!([{"op": "replace", "path": "/metadata/uid", "value": uid}]),
        ),
        applied(
            "registry: an apply changing uid",
            json!({"metadata": {"name": "s", "uid": uid}, "spec": {"title": "cd"}}),
        ),
        put(
            "registry: a PUT changing uid is a failed precondition",
            meta(json!({"uid": uid})),
        ),
        merged(
            "registry: a merge patch clearing uid keeps it",
            json!({"metadata": {"uid": null}, "spec": {"title": "cd"}}),
        ),
        merged(
            "registry: a merge patch with an empty uid keeps it",
            json!({"metadata": {"uid": ""}}),
        ),
        merged(
            "registry: a merge patch setting deletionTimestamp",
            json!({"metadata": {"deletionTimestamp": "2020-01-01T00:00:00Z"}}),
        ),
        put(
            "registry: a PUT setting deletionTimestamp",
            meta(json!({"deletionTimestamp": "2020-01-01T00:00:00Z"})),
        ),
        applied(
            "registry: an apply setting deletionTimestamp",
            json!({"metadata": {"name": "s", "deletionTimestamp": "2020-01-01T00:00:00Z"}, "spec": {"title": "cd"}}),
        ),
        merged(
            "registry: a merge patch setting deletionGracePeriodSeconds",
            json!({"metadata": {"deletionGracePeriodSeconds": 30}}),
        ),
        put(
            "registry: a PUT setting deletionGracePeriodSeconds",
            meta(json!({"deletionGracePeriodSeconds": 30})),
        ),
        merged(
            "registry: a merge patch setting uid, deletionTimestamp and the grace period",
            json!({"metadata": {"uid": uid, "deletionTimestamp": "2020-01-01T00:00:00Z", "deletionGracePeriodSeconds": 5}}),
        ),
        with_scalar("registry: a terminating object keeps its deletion fields", json!({}))
            .merge(SCALARS, "s", json!({"metadata": {"finalizers": ["a.example/f"]}}))
            .delete(SCALARS, "s", json!({}))
            .merge(
                SCALARS,
                "s",
                json!({"metadata": {"deletionTimestamp": null, "deletionGracePeriodSeconds": null}, "spec": {"title": "cd"}}),
            )
            .merge(
                SCALARS,
                "s",
                json!({"metadata": {"deletionGracePeriodSeconds": 30}}),
            )
            .merge(SCALARS, "s", json!({"metadata": {"finalizers": null}})),
        merged(
            "registry: a merge patch setting selfLink drops it",
            json!({"metadata": {"selfLink": "/x"}, "spec": {"title": "cd"}}),
        ),
        put(
            "registry: a PUT setting selfLink drops it",
            meta(json!({"selfLink": "/x"})),
        ),
        applied(
            "registry: an apply setting selfLink drops it",
            json!({"metadata": {"name": "s", "selfLink": "/x"}, "spec": {"title": "cd"}}),
        ),
        merged(
            "registry: a merge patch changing creationTimestamp and generation",
            json!({"metadata": {"creationTimestamp": "2020-01-01T00:00:00Z", "generation": 7}, "spec": {"title": "cd"}}),
        ),
        merged(
            "registry: a merge patch clearing creationTimestamp and generation",
            json!({"metadata": {"creationTimestamp": null, "generation": null}, "spec": {"title": "cd"}}),
        ),
        applied(
            "registry: an apply with managedFields",
            json!({"metadata": {"name": "s", "managedFields": [{"manager": "x", "operation": "Apply", "apiVersion": "conformance.kubegen.dev/v1", "fieldsType": "FieldsV1", "fieldsV1": {}}]}, "spec": {"title": "cd"}}),
        ),
    ]
}

fn resource_versions() -> Vec<Case> {
    let mut cases = Vec::new();
    for rv in ["0", "abc", "-1", " 1", "+1", "99999999999999999999"] {
        cases.push(put(
            &format!("registry: a PUT with resourceVersion {rv:?}"),
            meta(json!({"resourceVersion": rv})),
        ));
        cases.push(merged(
            &format!("registry: a merge patch with resourceVersion {rv:?}"),
            json!({"metadata": {"resourceVersion": rv}, "spec": {"title": "cd"}}),
        ));
    }
    for rv in ["0", "abc"] {
        cases.push(json_patched(
            &format!("registry: a JSON patch with resourceVersion {rv:?}"),
            json!([{"op": "replace", "path": "/metadata/resourceVersion", "value": rv}]),
        ));
        cases.push(applied(
            &format!("registry: an apply with resourceVersion {rv:?}"),
            json!({"metadata": {"name": "s", "resourceVersion": rv}, "spec": {"title": "cd"}}),
        ));
        cases.push(
            with_scalar(
                &format!("registry: a status PUT with resourceVersion {rv:?}"),
                json!({}),
            )
            .put(
                SCALARS,
                "Scalar",
                "s",
                Some("status"),
                json!({"metadata": {"name": "s", "resourceVersion": rv}, "spec": {}, "status": {"phase": "Up"}}),
            ),
        );
    }
    cases.extend([
        merged(
            "registry: a merge patch removing resourceVersion",
            json!({"metadata": {"resourceVersion": null}, "spec": {"title": "cd"}}),
        ),
        merged(
            "registry: a merge patch with an empty resourceVersion",
            json!({"metadata": {"resourceVersion": ""}}),
        ),
        json_patched(
            "registry: a JSON patch removing resourceVersion",
            json!([{"op": "remove", "path": "/metadata/resourceVersion"}]),
        ),
        merged(
            "registry: a merge patch with another resourceVersion conflicts",
            json!({"metadata": {"resourceVersion": "1"}}),
        ),
    ]);
    for rv in ["5", "0", "", "abc"] {
        cases.push(
            Case::new(format!("registry: a create with resourceVersion {rv:?}")).create(
                SCALARS,
                "Scalar",
                json!({"metadata": {"name": "s", "resourceVersion": rv}, "spec": {}}),
            ),
        );
    }
    for rv in ["5", "abc", "0"] {
        cases.push(
            Case::new(format!(
                "registry: an apply creating with resourceVersion {rv:?}"
            ))
            .apply(
                SCALARS,
                "Scalar",
                "s",
                "m",
                true,
                json!({"metadata": {"name": "s", "resourceVersion": rv}, "spec": {}}),
            ),
        );
    }
    cases
}

fn names() -> Vec<Case> {
    let ns_path = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars/s";
    vec![
        with_scalar("registry: a PUT without a name", json!({})).raw(
            Method::PUT,
            ns_path,
            Some(JSON),
            br#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Scalar","metadata":{"resourceVersion":"1"},"spec":{}}"#,
        ),
        with_scalar("registry: a PUT with an empty name", json!({})).raw(
            Method::PUT,
            ns_path,
            Some(JSON),
            br#"{"apiVersion":"conformance.kubegen.dev/v1","kind":"Scalar","metadata":{"name":"","resourceVersion":"1"},"spec":{}}"#,
        ),
        merged(
            "registry: a merge patch removing the name",
            json!({"metadata": {"name": null}}),
        ),
        merged(
            "registry: a merge patch emptying the name",
            json!({"metadata": {"name": ""}}),
        ),
        merged("registry: a merge patch removing metadata", json!({"metadata": null})),
        json_patched(
            "registry: a JSON patch removing the name",
            json!([{"op": "remove", "path": "/metadata/name"}]),
        ),
        merged(
            "registry: a merge patch renaming the object",
            json!({"metadata": {"name": "other"}}),
        ),
        applied(
            "registry: an apply with an empty name",
            json!({"metadata": {"name": ""}, "spec": {"title": "cd"}}),
        ),
        applied(
            "registry: an apply naming another object",
            json!({"metadata": {"name": "other"}, "spec": {"title": "cd"}}),
        ),
        applied(
            "registry: an apply without metadata",
            json!({"spec": {"title": "cd"}}),
        ),
        Case::new("registry: an apply creating without a name").apply(
            SCALARS,
            "Scalar",
            "s",
            "m",
            true,
            json!({"spec": {}}),
        ),
        Case::new("registry: an apply creating with another name").apply(
            SCALARS,
            "Scalar",
            "s",
            "m",
            true,
            object("other", json!({})),
        ),
        merged(
            "registry: a merge patch moving the object to another namespace",
            json!({"metadata": {"namespace": "other"}}),
        ),
        json_patched(
            "registry: a JSON patch moving the object to another namespace",
            json!([{"op": "replace", "path": "/metadata/namespace", "value": "other"}]),
        ),
        merged(
            "registry: a merge patch clearing the namespace",
            json!({"metadata": {"namespace": null}, "spec": {"title": "cd"}}),
        ),
        applied(
            "registry: an apply naming another namespace",
            json!({"metadata": {"name": "s", "namespace": "other"}, "spec": {"title": "cd"}}),
        ),
        Case::new("registry: an apply creating in another namespace").apply(
            SCALARS,
            "Scalar",
            "s",
            "m",
            true,
            json!({"metadata": {"name": "s", "namespace": "other"}, "spec": {}}),
        ),
        Case::new("registry: a cluster-scoped merge patch with a namespace clears it")
            .create(GLOBALS, "Global", object("g-registry", json!({"value": "a"})))
            .merge(
                GLOBALS,
                "g-registry",
                json!({"metadata": {"namespace": "default"}, "spec": {"value": "b"}}),
            )
            .delete(GLOBALS, "g-registry", json!({})),
    ]
}

fn type_changes() -> Vec<Case> {
    vec![
        merged(
            "registry: a merge patch removing kind",
            json!({"kind": null}),
        ),
        json_patched(
            "registry: a JSON patch removing kind",
            json!([{"op": "remove", "path": "/kind"}]),
        ),
        merged("registry: a merge patch emptying kind", json!({"kind": ""})),
        merged(
            "registry: a merge patch with a numeric kind",
            json!({"kind": 1}),
        ),
        merged(
            "registry: a merge patch changing kind",
            json!({"kind": "Global"}),
        ),
        merged(
            "registry: a merge patch changing the version",
            json!({"apiVersion": "conformance.kubegen.dev/v2"}),
        ),
        merged(
            "registry: a merge patch changing the group",
            json!({"apiVersion": "other.example.com/v1"}),
        ),
        json_patched(
            "registry: a JSON patch changing the group",
            json!([{"op": "replace", "path": "/apiVersion", "value": "x.io/v1"}]),
        ),
        merged(
            "registry: a merge patch with a core apiVersion",
            json!({"apiVersion": "v1"}),
        ),
        merged(
            "registry: a merge patch removing apiVersion",
            json!({"apiVersion": null}),
        ),
        merged(
            "registry: a merge patch emptying apiVersion",
            json!({"apiVersion": ""}),
        ),
        json_patched(
            "registry: a JSON patch removing apiVersion",
            json!([{"op": "remove", "path": "/apiVersion"}]),
        ),
        merged(
            "registry: a merge patch with a three-part apiVersion",
            json!({"apiVersion": "a/b/c"}),
        ),
        merged(
            "registry: a merge patch changing apiVersion and uid",
            json!({"apiVersion": "other.example.com/v1", "metadata": {"uid": "x"}}),
        ),
    ]
}

fn json_patches() -> Vec<Case> {
    let ops = |n: usize| {
        Value::Array(
            (0..n)
                .map(|_| json!({"op": "test", "path": "/kind", "value": "Scalar"}))
                .collect(),
        )
    };
    let table = [
        (
            "registry: JSON patch add without a value",
            json!([{"op": "add", "path": "/spec/note"}]),
        ),
        (
            "registry: JSON patch replace of a missing key adds it",
            json!([{"op": "replace", "path": "/spec/slug", "value": "x"}]),
        ),
        (
            "registry: JSON patch path without a leading slash",
            json!([{"op": "add", "path": "spec/slug", "value": "x"}]),
        ),
        (
            "registry: JSON patch path with a bad escape",
            json!([{"op": "add", "path": "/metadata/labels", "value": {}}, {"op": "add", "path": "/metadata/labels/a~2b", "value": "x"}]),
        ),
        (
            "registry: JSON patch with an unknown op",
            json!([{"op": "bogus", "path": "/spec/slug", "value": "x"}]),
        ),
        (
            "registry: JSON patch without an op",
            json!([{"path": "/spec/slug", "value": "x"}]),
        ),
        (
            "registry: JSON patch without a path",
            json!([{"op": "add", "value": "x"}]),
        ),
        (
            "registry: JSON patch removing a missing key",
            json!([{"op": "remove", "path": "/spec/slug"}]),
        ),
        (
            "registry: JSON patch moving a missing key",
            json!([{"op": "move", "from": "/spec/slug", "path": "/spec/note"}]),
        ),
        (
            "registry: JSON patch copying a missing key adds null",
            json!([{"op": "copy", "from": "/spec/slug", "path": "/spec/note"}]),
        ),
        (
            "registry: JSON patch copying and moving",
            json!([{"op": "copy", "from": "/spec/title", "path": "/spec/slug"}, {"op": "move", "from": "/spec/slug", "path": "/spec/note"}]),
        ),
        (
            "registry: JSON patch failing a test",
            json!([{"op": "test", "path": "/spec/title", "value": "zz"}]),
        ),
        (
            "registry: JSON patch testing a missing key against null",
            json!([{"op": "test", "path": "/spec/slug", "value": null}, {"op": "replace", "path": "/spec/title", "value": "cd"}]),
        ),
        (
            "registry: JSON patch testing the whole object",
            json!([{"op": "test", "path": "", "value": {}}]),
        ),
        (
            "registry: JSON patch replacing the whole object with a string",
            json!([{"op": "replace", "path": "", "value": "x"}, {"op": "replace", "path": "/spec/title", "value": "cd"}]),
        ),
        (
            "registry: JSON patch replacing the whole object with null",
            json!([{"op": "replace", "path": "", "value": null}]),
        ),
        (
            "registry: JSON patch replacing the whole object with an object",
            json!([{"op": "replace", "path": "", "value": {"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s", "resourceVersion": "1"}, "spec": {}}}]),
        ),
        (
            "registry: JSON patch replacing the whole object with an array",
            json!([{"op": "replace", "path": "", "value": []}]),
        ),
        (
            "registry: JSON patch adding to a missing parent",
            json!([{"op": "add", "path": "/spec/a/b", "value": 1}]),
        ),
        (
            "registry: JSON patch adding into a string",
            json!([{"op": "add", "path": "/spec/title/x", "value": 1}]),
        ),
        (
            "registry: JSON patch adding past the end of an array",
            json!([{"op": "add", "path": "/metadata/finalizers", "value": []}, {"op": "add", "path": "/metadata/finalizers/1", "value": "a.example/x"}]),
        ),
    ];
    let mut cases: Vec<Case> = table
        .into_iter()
        .map(|(name, ops)| json_patched(name, ops))
        .collect();
    cases.extend([
        [
            json!([{"op": "add", "path": "/metadata/finalizers/-", "value": "a.example/z"}]),
            json!([{"op": "add", "path": "/metadata/finalizers/1", "value": "a.example/y"}]),
            json!([{"op": "add", "path": "/metadata/finalizers/-1", "value": "a.example/w"}]),
            json!([{"op": "replace", "path": "/metadata/finalizers/-4", "value": "a.example/v"}]),
            json!([{"op": "remove", "path": "/metadata/finalizers/+1"}]),
            json!([{"op": "test", "path": "/metadata/finalizers/01", "value": "a.example/w"}]),
            json!([{"op": "remove", "path": "/metadata/finalizers/-9"}]),
            json!([{"op": "remove", "path": "/metadata/finalizers"}]),
        ]
        .into_iter()
        .fold(
            json_patched(
                "registry: JSON patch array indexes",
                json!([{"op": "add", "path": "/metadata/finalizers", "value": ["a.example/x"]}]),
            ),
            |case, ops| case.json_patch(SCALARS, "s", ops),
        ),
        json_patched("registry: JSON patch with a null operation", json!([null])),
        json_patched("registry: JSON patch null is no operation", Value::Null),
        json_patched("registry: JSON patch of 10000 operations", ops(10_000)),
        json_patched("registry: JSON patch of 10001 operations", ops(10_001)),
        merged(
            "registry: merge patch nulls remove keys",
            json!({"spec": {"title": null, "slug": "ab", "note": null}, "metadata": {"labels": {"a": "b", "c": null}, "annotations": null}}),
        ),
        merged("registry: merge patch removing spec", json!({"spec": null})),
        merged("registry: merge patch of an empty object", json!({})),
    ]);
    cases
}

/// A Collection body whose `spec.extra` (preserve-unknown) holds `size` bytes in `keys`
/// string values, sent as a create.
fn big_collection(name: &str, keys: usize, size: usize) -> Vec<u8> {
    let value = "x".repeat(size / keys);
    let extra: serde_json::Map<String, Value> = (0..keys)
        .map(|i| (format!("k{i:06}"), json!(value)))
        .collect();
    serde_json::to_vec(&json!({
        "apiVersion": "conformance.kubegen.dev/v1",
        "kind": "Collection",
        "metadata": {"name": name},
        "spec": {"owner": "o", "extra": extra},
    }))
    .unwrap_or_default()
}

fn storage() -> Vec<Case> {
    let path = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/collections";
    let post = |case: &str, keys: usize, size: usize| {
        Case::new(case)
            .raw(
                Method::POST,
                path,
                Some(JSON),
                &big_collection("big", keys, size),
            )
            .get(COLLECTIONS, "big", None)
    };
    vec![
        post("registry: a 1 MB object is stored", 10, 1_000_000),
        // Many small keys: the managedFields entry alone doubles the object.
        post(
            "registry: an object too large with its managedFields is stored without them",
            40_000,
            1_000_000,
        ),
        post("registry: a 1.6 MB object is too large for etcd", 10, 1_600_000),
        // Cluster-scoped, so the size in the message does not depend on the namespace's name.
        Case::new("registry: a 2.5 MB object is too large for the etcd client").create(
            GLOBALS,
            "Global",
            object("g-big", json!({"value": "x".repeat(2_500_000)})),
        ),
        Case::new("registry: a merge patch growing an object past the limit")
            .raw(Method::POST, path, Some(JSON), &big_collection("big", 10, 1_000_000))
            .merge(
                COLLECTIONS,
                "big",
                json!({"spec": {"extra": {"more": "y".repeat(700_000)}}}),
            ),
        Case::new("registry: an apply growing an object past the limit is not retried")
            .raw(Method::POST, path, Some(JSON), &big_collection("big", 10, 1_000_000))
            .apply(
                COLLECTIONS,
                "Collection",
                "big",
                "m",
                true,
                json!({"metadata": {"name": "big"}, "spec": {"owner": "o", "extra": {"more": "y".repeat(700_000)}}}),
            ),
    ]
}

pub fn cases() -> Vec<Case> {
    [
        immutable_metadata(),
        resource_versions(),
        names(),
        type_changes(),
        json_patches(),
        storage(),
    ]
    .concat()
}
