//! Creates of the Union kind (every serde enum tagging), the Ruled kind (CEL rules) and the
//! cluster-scoped Global kind.

use serde_json::json;

use super::{GLOBALS, RULEDS, UNIONS, object};
use crate::conformance::script::Case;

pub fn cases() -> Vec<Case> {
    let unions = [
        (
            "external, one variant",
            json!({"external": {"http": {"path": "/"}}}),
        ),
        (
            "external, two variants",
            json!({"external": {"http": {"path": "/"}, "tcp": {"port": 1}}}),
        ),
        ("external, no variant", json!({"external": {}})),
        (
            "external, variant missing a field",
            json!({"external": {"tcp": {}}}),
        ),
        (
            "internal, circle",
            json!({"internal": {"kind": "circle", "radius": 1.5}}),
        ),
        (
            "internal, negative radius",
            json!({"internal": {"kind": "circle", "radius": -1}}),
        ),
        (
            "internal, unknown tag",
            json!({"internal": {"kind": "triangle"}}),
        ),
        ("internal, no tag", json!({"internal": {"radius": 1}})),
        (
            "internal, fields of the other variant",
            json!({"internal": {"kind": "circle", "width": 1, "height": 2}}),
        ),
        (
            "adjacent, file",
            json!({"adjacent": {"type": "file", "config": {"path": "/x"}}}),
        ),
        (
            "adjacent, no content",
            json!({"adjacent": {"type": "secret"}}),
        ),
        (
            "adjacent, content missing a field",
            json!({"adjacent": {"type": "secret", "config": {"name": "n"}}}),
        ),
        (
            "untagged, host and port",
            json!({"untagged": {"host": "h", "port": 1}}),
        ),
        ("untagged, path", json!({"untagged": {"path": "/p"}})),
        (
            "untagged, host without port",
            json!({"untagged": {"host": "h"}}),
        ),
        ("untagged, nothing", json!({"untagged": {}})),
    ];
    let mut cases: Vec<Case> = unions
        .into_iter()
        .map(|(what, spec)| {
            Case::new(format!("union: {what}")).create(UNIONS, "Union", object("u", spec))
        })
        .collect();
    let ruled = [
        (
            "rules pass",
            json!({"name": "ok", "min": 1, "max": 2, "tags": ["a"]}),
        ),
        (
            "schema error blocks the rules",
            json!({"name": "too-long", "min": 1, "max": 2}),
        ),
        (
            "type error blocks the rules",
            json!({"name": "ok", "min": "1", "max": 2}),
        ),
        (
            "missing field blocks the rules",
            json!({"name": "ok", "min": 1}),
        ),
        ("a rule fails", json!({"name": "ok", "min": 3, "max": 2})),
        (
            "a field rule fails",
            json!({"name": "ok", "min": 1, "max": 2, "tags": ["a", "b", "c", "d"]}),
        ),
    ];
    cases.extend(ruled.into_iter().map(|(what, spec)| {
        Case::new(format!("ruled: {what}")).create(RULEDS, "Ruled", object("r", spec))
    }));
    cases.push(
        Case::new("global: cluster-scoped create, get and delete")
            .create(GLOBALS, "Global", object("{ns}-g", json!({"value": "v"})))
            .delete(GLOBALS, "{ns}-g", json!({})),
    );
    cases.push(Case::new("global: missing field").create(
        GLOBALS,
        "Global",
        object("{ns}-g", json!({})),
    ));
    cases
}
