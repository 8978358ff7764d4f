//! The built-in kinds the in-memory server serves for controllers: `coordination.k8s.io/v1`
//! Lease (leader election) and `events.k8s.io/v1` Event (event recorders).

use serde_json::{Value, json};

use crate::conformance::script::{Case, Res};

const LEASES: Res = Res {
    group: "coordination.k8s.io",
    version: "v1",
    plural: "leases",
    namespaced: true,
};
const EVENTS: Res = Res {
    group: "events.k8s.io",
    version: "v1",
    plural: "events",
    namespaced: true,
};

fn lease(name: &str, spec: Value) -> Value {
    json!({"metadata": {"name": name}, "spec": spec})
}

/// An event as kube-runtime's recorder writes it.
fn event(name: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": "{ns}"},
        "eventTime": "2026-01-01T00:00:00.123456Z",
        "type": "Normal",
        "reason": "Elected",
        "action": "Elect",
        "note": "became leader",
        "reportingController": "kubegen-test",
        "reportingInstance": "test-0",
        "regarding": {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "name": "l", "namespace": "{ns}"},
    })
}

pub fn cases() -> Vec<Case> {
    let held = json!({"holderIdentity": "a", "leaseDurationSeconds": 15, "leaseTransitions": 0,
        "acquireTime": "2026-01-01T00:00:00.000001Z", "renewTime": "2026-01-01T00:00:00.123456Z"});
    vec![
        Case::new("lease: create, MicroTimes round-trip, no generation")
            .create(LEASES, "Lease", lease("l", held.clone())),
        Case::new("lease: a MicroTime in another zone is written back in UTC").create(
            LEASES,
            "Lease",
            lease("l", json!({"renewTime": "2026-01-01T02:00:00.000001+02:00"})),
        ),
        Case::new("lease: a MicroTime without six fractional digits").create(
            LEASES,
            "Lease",
            lease("l", json!({"renewTime": "2026-01-01T00:00:00.123Z"})),
        ),
        Case::new("lease: a non-positive duration and negative transitions").create(
            LEASES,
            "Lease",
            lease("l", json!({"leaseDurationSeconds": 0, "leaseTransitions": -1})),
        ),
        Case::new("lease: an unknown field").create(
            LEASES,
            "Lease",
            lease("l", json!({"holderIdentity": "a", "owner": "b"})),
        ),
        Case::new("lease: updates need the current resourceVersion")
            .create(LEASES, "Lease", lease("l", held.clone()))
            .put(
                LEASES,
                "Lease",
                "l",
                None,
                json!({"metadata": {"name": "l", "resourceVersion": "{rv}"},
                    "spec": {"holderIdentity": "b", "leaseDurationSeconds": 15, "leaseTransitions": 1}}),
            )
            .put(
                LEASES,
                "Lease",
                "l",
                None,
                json!({"metadata": {"name": "l"}, "spec": {"holderIdentity": "c"}}),
            )
            .put(
                LEASES,
                "Lease",
                "l",
                None,
                json!({"metadata": {"name": "l", "resourceVersion": "1"}, "spec": {"holderIdentity": "c"}}),
            )
            .put(
                LEASES,
                "Lease",
                "l",
                None,
                json!({"metadata": {"name": "l", "resourceVersion": "{rv}"}, "spec": {"leaseDurationSeconds": -5}}),
            ),
        Case::new("lease: a release as client-go writes it")
            .create(LEASES, "Lease", lease("l", held))
            .merge(
                LEASES,
                "l",
                json!({"spec": {"holderIdentity": "", "leaseDurationSeconds": 1,
                    "acquireTime": "2026-01-01T00:00:01.000000Z", "renewTime": "2026-01-01T00:00:01.000000Z"}}),
            ),
        Case::new("event: a create, then the recorder's series patch")
            .create(EVENTS, "Event", event("e"))
            .merge(EVENTS, "e", {
                let mut repeat = event("e");
                repeat["series"] = json!({"count": 2, "lastObservedTime": "2026-01-01T00:00:05.000000Z"});
                repeat
            }),
        Case::new("event: the create checks")
            .create(EVENTS, "Event", {
                let mut e = event("e");
                let m = e.as_object_mut().unwrap();
                for key in ["action", "reportingController", "reportingInstance"] {
                    m.remove(key);
                }
                e["type"] = json!("Info");
                e["note"] = json!("x".repeat(1025));
                e["series"] = json!({"count": 1});
                e
            })
            .create(EVENTS, "Event", {
                let mut e = event("e");
                e.as_object_mut().unwrap().remove("eventTime");
                e
            }),
        Case::new("event: an event's own fields are immutable")
            .create(EVENTS, "Event", event("e"))
            .merge(EVENTS, "e", json!({"reason": "Other", "note": "changed"}))
            .merge(EVENTS, "e", json!({"series": {"count": 1, "lastObservedTime": "2026-01-01T00:00:05.000000Z"}})),
        // Under a built-in group, a path that names nothing served is the group's Status 404
        // (a kind's informer reports it as not served); under no group, the plain 404.
        Case::new("builtin: no such version or resource in a served group")
            .raw(
                http::Method::GET,
                "/apis/coordination.k8s.io/v1alpha2/namespaces/{ns}/leasecandidates",
                None,
                b"",
            )
            .raw(http::Method::GET, "/apis/coordination.k8s.io/v1/namespaces/{ns}/nosuch", None, b"")
            .raw(http::Method::GET, "/apis/events.k8s.io/v9/events", None, b"")
            .raw(http::Method::GET, "/apis/nosuch.example.com/v1/namespaces/{ns}/things", None, b""),
    ]
}
