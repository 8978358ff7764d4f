//! Creates of the Scalar kind: every bound, length, pattern, enum and format, nulls, defaults,
//! unknown fields and metadata.

use serde_json::json;

use http::Method;

use super::{SCALARS, object, scalar};
use crate::conformance::script::{Case, JSON, MERGE};

pub fn cases() -> Vec<Case> {
    let mut cases = vec![
        scalar("scalar: empty spec gets its defaults", json!({})),
        scalar(
            "scalar: every field valid",
            json!({
                "replicas": 3, "ratio": 0.5, "step": 15, "title": "héllo wörld", "slug": "a-b-1",
                "mode": "Safe", "enabled": true, "small": 255, "maxSurge": "25%", "storage": "10Gi",
                "started": "2024-01-02T03:04:05Z", "day": "2024-02-29", "email": "a@example.com",
                "homepage": "https://example.com/x?y=1", "host": "db.example.com", "ipv4": "10.0.0.1",
                "ipv6": "2001:db8::1", "cidr": "10.0.0.0/8", "mac": "00:1a:2b:3c:4d:5e",
                "id": "123e4567-e89b-12d3-a456-426614174000", "timeout": "1h30m", "data": "aGVsbG8=",
                "note": "kept", "flavor": "spicy",
            }),
        ),
        scalar(
            "scalar: integer forms",
            json!({"replicas": 0, "maxSurge": 3, "storage": 5, "small": 0}),
        ),
        scalar(
            "scalar: nulls are dropped or kept as the schema says",
            json!({"replicas": null, "note": null, "flavor": null, "small": null, "title": null}),
        ),
        Case::new("scalar: no spec").create(SCALARS, "Scalar", json!({"metadata": {"name": "s"}})),
        Case::new("scalar: null spec").create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": "s"}, "spec": null}),
        ),
        scalar("scalar: spec of the wrong type", json!("text")),
        Case::new("scalar: unknown fields are pruned with a warning").create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": "s"}, "spec": {"replicas": 2, "junk": 1, "more": {"a": 1}}, "other": true}),
        ),
        Case::new("scalar: unknown fields with fieldValidation=Strict").create_with(
            SCALARS,
            "Scalar",
            Some("fieldValidation=Strict"),
            json!({"metadata": {"name": "s"}, "spec": {"replicas": 2, "junk": 1}}),
        ),
        Case::new("scalar: unknown fields with fieldValidation=Ignore").create_with(
            SCALARS,
            "Scalar",
            Some("fieldValidation=Ignore"),
            json!({"metadata": {"name": "s"}, "spec": {"junk": 1}}),
        ),
        Case::new("scalar: an invalid fieldValidation").create_with(
            SCALARS,
            "Scalar",
            Some("fieldValidation=Bogus"),
            object("s", json!({})),
        ),
        Case::new("scalar: unknown metadata fields and empty metadata collections").create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": "s", "bogus": 1, "labels": {}, "annotations": {"a": null}, "finalizers": [], "generation": 7, "selfLink": "x"}, "spec": {}}),
        ),
        Case::new("scalar: a creationTimestamp that is not a time").create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": "s", "creationTimestamp": "yesterday"}, "spec": {}}),
        ),
        Case::new("scalar: an owner reference with a number").create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": "s", "ownerReferences": [{"apiVersion": 1, "kind": "K", "name": "o", "uid": "u"}]}, "spec": {}}),
        ),
        Case::new("scalar: duplicate fields").raw(
            Method::POST,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars",
            Some(JSON),
            br#"{"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s"}, "spec": {"replicas": 1, "replicas": 2}}"#,
        ),
        Case::new("scalar: duplicate fields with fieldValidation=Strict").raw(
            Method::POST,
            "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/scalars?fieldValidation=Strict",
            Some(JSON),
            br#"{"apiVersion": "conformance.kubegen.dev/v1", "kind": "Scalar", "metadata": {"name": "s"}, "spec": {"replicas": 1, "replicas": 2}}"#,
        ),
        Case::new("scalar: unknown fields in a merge patch")
            .create(SCALARS, "Scalar", object("s", json!({})))
            .merge(SCALARS, "s", json!({"spec": {"junk": 1}, "metadata": {"bogus": 2}})),
        Case::new("scalar: unknown fields in a merge patch with fieldValidation=Strict")
            .create(SCALARS, "Scalar", object("s", json!({})))
            .patch(SCALARS, "s", None, MERGE, Some("fieldValidation=Strict"), json!({"spec": {"junk": 1}})),
        Case::new("scalar: unknown fields in an update")
            .create(SCALARS, "Scalar", object("s", json!({})))
            .put(
                SCALARS,
                "Scalar",
                "s",
                None,
                json!({"metadata": {"name": "s", "resourceVersion": "{rv}"}, "spec": {"junk": 1}}),
            ),
        Case::new("scalar: unknown fields in an apply").apply(
            SCALARS,
            "Scalar",
            "s",
            "alice",
            false,
            json!({"metadata": {"name": "s"}, "spec": {"replicas": 1, "junk": 1}}),
        ),
        Case::new("scalar: a merge patch that breaks metadata")
            .create(SCALARS, "Scalar", object("s", json!({})))
            .merge(SCALARS, "s", json!({"metadata": {"labels": "x"}})),
        Case::new("scalar: dry run creates nothing").create_with(
            SCALARS,
            "Scalar",
            Some("dryRun=All"),
            object("s", json!({"replicas": 2})),
        ),
        Case::new("scalar: status is dropped on create").create(
            SCALARS,
            "Scalar",
            json!({"metadata": {"name": "s"}, "spec": {}, "status": {"replicas": 3, "phase": "Up"}}),
        ),
    ];
    let invalid = [
        ("above maximum", json!({"replicas": 11})),
        ("below minimum", json!({"replicas": -1})),
        ("string for integer", json!({"replicas": "3"})),
        ("float for integer", json!({"replicas": 2.5})),
        ("object for integer", json!({"replicas": {"a": 1}})),
        ("list for integer", json!({"replicas": [1]})),
        ("exclusive minimum", json!({"ratio": 0})),
        ("exclusive maximum", json!({"ratio": 1})),
        ("large float", json!({"ratio": 1500000.0})),
        ("not a multiple", json!({"step": 7})),
        ("too short", json!({"title": "a"})),
        ("too long", json!({"title": "this title is much too long"})),
        (
            "too long in code points",
            json!({"title": "ééééééééééééééééééééé"}),
        ),
        ("pattern", json!({"slug": "Not-A-Slug"})),
        ("enum", json!({"mode": "Slow"})),
        ("boolean as string", json!({"enabled": "yes"})),
        ("u8 above 255", json!({"small": 300})),
        ("int-or-string given a boolean", json!({"maxSurge": true})),
        ("int-or-string given a float", json!({"maxSurge": 2.5})),
        ("quantity pattern", json!({"storage": "abc"})),
        ("quantity given a boolean", json!({"storage": false})),
        ("date-time", json!({"started": "yesterday"})),
        (
            "date-time without zone",
            json!({"started": "2024-01-02T03:04:05"}),
        ),
        ("date", json!({"day": "2024-13-01"})),
        ("email", json!({"email": "not-an-email"})),
        ("uri", json!({"homepage": "not a uri"})),
        ("hostname", json!({"host": "-bad-.example"})),
        ("ipv4", json!({"ipv4": "1.2.3.256"})),
        ("ipv6", json!({"ipv6": "2001:db8::g"})),
        ("cidr", json!({"cidr": "10.0.0.0/33"})),
        ("mac", json!({"mac": "00:1a:2b:3c:4d"})),
        ("uuid", json!({"id": "123e4567"})),
        ("duration", json!({"timeout": "5 parsecs"})),
        ("byte", json!({"data": "!!!"})),
        (
            "several errors at once",
            json!({"replicas": 20, "title": "x", "mode": "Slow", "slug": "UP", "email": "no"}),
        ),
    ];
    cases.extend(
        invalid
            .into_iter()
            .map(|(what, spec)| scalar(&format!("scalar invalid: {what}"), spec)),
    );
    let metadata = [
        ("invalid name", json!({"name": "Bad_Name"})),
        ("name too long", json!({"name": "n".repeat(254)})),
        ("no name", json!({})),
        ("generateName", json!({"generateName": "gen-"})),
        ("invalid generateName", json!({"generateName": "Gen_"})),
        (
            "invalid label key and value",
            json!({"name": "s", "labels": {"bad key": "v", "ok": "bad value!"}}),
        ),
        (
            "invalid annotation key",
            json!({"name": "s", "annotations": {"/x": "v"}}),
        ),
        (
            "finalizers",
            json!({"name": "s", "finalizers": ["example.com/cleanup", "bad finalizer"]}),
        ),
        (
            "namespace differs from the URL",
            json!({"name": "s", "namespace": "elsewhere"}),
        ),
        (
            "labels of the wrong type",
            json!({"name": "s", "labels": ["a"]}),
        ),
    ];
    cases.extend(metadata.into_iter().map(|(what, meta)| {
        Case::new(format!("scalar metadata: {what}")).create(
            SCALARS,
            "Scalar",
            json!({"metadata": meta, "spec": {}}),
        )
    }));
    cases
}
