//! CEL rules (`x-kubernetes-validations`) on creates: each case sends one object per row to
//! the kind of its library (`cel_kinds.rs`), each object setting the field of the rule it
//! exercises — passing values, failing values and values the rule cannot evaluate.
//! Library corners are in `cel_probes.rs`; updates, transition rules, ratcheting, status and
//! patches in `cel_updates.rs`.

use serde_json::{Value, json};

use super::GROUP;
use crate::conformance::script::{Case, Res};

pub const fn res(plural: &'static str) -> Res {
    Res {
        group: GROUP,
        version: "v1",
        plural,
        namespaced: true,
    }
}

pub const CEL_LISTS: Res = res("cellists");
pub const CEL_MAPS: Res = res("celmaps");
pub const CEL_STRINGS: Res = res("celstrings");
pub const CEL_NETS: Res = res("celnets");
pub const CEL_RULES: Res = res("celrules");

/// A case creating one object per spec (`o0`, `o1`, ...), each followed by its GET.
pub fn creates(case: &str, r: Res, kind: &str, specs: Vec<Value>) -> Case {
    super::creates(&format!("cel: {case}"), r, kind, specs)
}

/// Cases of one field: each row is the field's values, one object each.
fn field_cases(area: &str, r: Res, kind: &str, rows: Vec<(&str, Vec<Value>)>) -> Vec<Case> {
    rows.into_iter()
        .map(|(field, values)| {
            let specs = values.into_iter().map(|v| json!({ field: v })).collect();
            creates(&format!("{area} {field}"), r, kind, specs)
        })
        .collect()
}

/// A `CelRule` spec: the required bounds and `extra`.
pub fn bounded(extra: Value) -> Value {
    let mut spec = json!({"min": 1, "max": 5});
    if let (Value::Object(spec), Value::Object(extra)) = (&mut spec, extra) {
        spec.extend(extra);
    }
    spec
}

pub fn cases() -> Vec<Case> {
    [lists(), maps(), strings(), network(), semantics()].concat()
}

fn lists() -> Vec<Case> {
    let mut cases = field_cases(
        "list",
        CEL_LISTS,
        "CelList",
        vec![
            ("sized", vec![json!([1, 2, 3]), json!([1, 2, 3, 4])]),
            ("positive", vec![json!([1, 2]), json!([1, 0, -1])]),
            ("withZero", vec![json!([3, 0]), json!([1, 2])]),
            (
                "roles",
                vec![
                    json!(["primary", "x"]),
                    json!(["primary", "primary"]),
                    json!(["x"]),
                ],
            ),
            (
                "doubled",
                vec![
                    json!([1, 49]),
                    json!([50]),
                    json!([4611686018427387904_i64]),
                ],
            ),
            ("filtered", vec![json!([11, 3]), json!([11, 12])]),
            ("sorted", vec![json!([1, 2, 2]), json!([2, 1])]),
            ("summed", vec![json!([1, 2]), json!([5, 6])]),
            ("digits", vec![json!([0, 9]), json!([10]), json!([])]),
            ("letters", vec![json!(["x", "a"]), json!(["x", "a", "x"])]),
            (
                "ordered",
                vec![json!(["first", "b"]), json!(["b"]), json!([])],
            ),
            ("layers", vec![json!(["base", "top"]), json!(["top"])]),
            (
                "ranges",
                vec![
                    json!([{"low": 1, "high": 2}, {"low": 3, "high": 3}]),
                    json!([{"low": 1, "high": 2}, {"low": 4, "high": 3}]),
                    json!([{"low": 1}]),
                ],
            ),
        ],
    );
    cases.push(creates(
        "sets contains",
        CEL_LISTS,
        "CelList",
        vec![
            json!({"allowed": ["a", "b"], "chosen": ["a"]}),
            json!({"allowed": ["a", "b"], "chosen": ["a", "c"]}),
        ],
    ));
    cases.push(creates(
        "sets intersects",
        CEL_LISTS,
        "CelList",
        vec![
            json!({"left": ["a"], "right": ["b"]}),
            json!({"left": ["a", "b"], "right": ["b"]}),
        ],
    ));
    cases.push(creates(
        "sets equivalent",
        CEL_LISTS,
        "CelList",
        vec![
            json!({"before": ["a", "b"], "after": ["b", "a", "a"]}),
            json!({"before": ["a", "b"], "after": ["a"]}),
        ],
    ));
    cases.push(creates(
        "list several rules fail at once",
        CEL_LISTS,
        "CelList",
        vec![json!({"sized": [1, 2, 3, 4], "positive": [-1], "sorted": [3, 1], "allowed": ["a"], "chosen": ["b"]})],
    ));
    cases
}

fn maps() -> Vec<Case> {
    field_cases(
        "map",
        CEL_MAPS,
        "CelMap",
        vec![
            (
                "prefixed",
                vec![json!({"x-a": "1"}), json!({"x-a": "1", "b": "2"})],
            ),
            ("owned", vec![json!({"owner": "me"}), json!({"team": "a"})]),
            (
                "counts",
                vec![json!({"a": 1, "b": 0}), json!({"a": 1, "b": -1})],
            ),
            ("limits", vec![json!({"a": 99}), json!({"a": 1, "b": 100})]),
            (
                "echoes",
                vec![json!({"a": "A", "b": "c"}), json!({"a": "b"})],
            ),
            (
                "settings",
                vec![
                    json!({"mode": "on"}),
                    json!({"mode": "off"}),
                    json!({"other": "on"}),
                ],
            ),
            (
                "flags",
                vec![json!({"debug": "off"}), json!({}), json!({"debug": "on"})],
            ),
            (
                "small",
                vec![
                    json!({"a": "1", "b": "2"}),
                    json!({"a": "1", "b": "2", "c": "3"}),
                ],
            ),
            (
                "ranges",
                vec![
                    json!({"a": {"low": 1, "high": 2}}),
                    json!({"a": {"low": 1, "high": 2}, "b.c": {"low": 9, "high": 2}}),
                ],
            ),
        ],
    )
}

fn strings() -> Vec<Case> {
    let mut cases = field_cases(
        "string",
        CEL_STRINGS,
        "CelString",
        vec![
            ("slug", vec![json!("abc1"), json!("Abc")]),
            ("prefixed", vec![json!("k-x"), json!("x")]),
            ("domain", vec![json!("a.io"), json!("a.com")]),
            ("address", vec![json!("a@b"), json!("ab")]),
            ("code", vec![json!("ab-c"), json!("abc"), json!("a")]),
            ("pair", vec![json!("a:b"), json!(":b"), json!("ab")]),
            ("lower", vec![json!("abc"), json!("aBc")]),
            ("upper", vec![json!("ABC"), json!("ABc")]),
            ("dashed", vec![json!("a-b"), json!("a_b")]),
            ("csv", vec![json!("a,b"), json!("a,b,c,d")]),
            ("env", vec![json!("env-prod"), json!("dev-x"), json!("en")]),
            ("trimmed", vec![json!("a b"), json!(" a ")]),
            ("short", vec![json!("héé"), json!("abcd")]),
            ("parts", vec![json!(["a", "b"]), json!(["abcde", "fghij"])]),
            ("numbered", vec![json!("v12"), json!("v")]),
            ("sparse", vec![json!("a1b2"), json!("1a2b3")]),
        ],
    );
    cases.push(creates(
        "regex from the object",
        CEL_STRINGS,
        "CelString",
        vec![
            json!({"text": "abc", "pattern": "^a"}),
            json!({"text": "abc", "pattern": "^b"}),
            json!({"text": "abc", "pattern": "(["}),
            json!({"text": "a1", "pattern": "\\d$"}),
        ],
    ));
    cases
}

fn network() -> Vec<Case> {
    let mut cases = field_cases(
        "net",
        CEL_NETS,
        "CelNet",
        vec![
            (
                "link",
                vec![json!("https://example.com/x"), json!("example.com")],
            ),
            (
                "homepage",
                vec![
                    json!("https://example.com/a"),
                    json!("https://other.org"),
                    json!("not a url"),
                ],
            ),
            (
                "secure",
                vec![json!("https://x.io/"), json!("https://x.io:8443/")],
            ),
            ("ip", vec![json!("10.0.0.1"), json!("10.0.0.256")]),
            (
                "ipv4",
                vec![json!("10.0.0.1"), json!("::1"), json!("bogus")],
            ),
            ("remote", vec![json!("10.1.1.1"), json!("127.0.0.1")]),
            (
                "canonical",
                vec![json!("2001:db8::1"), json!("2001:db8:0::1")],
            ),
            ("subnet", vec![json!("10.0.0.0/8"), json!("10.0.0.0")]),
            ("narrow", vec![json!("10.1.0.0/16"), json!("10.0.0.0/8")]),
            (
                "private",
                vec![json!("10.1.0.0/16"), json!("192.168.0.0/16")],
            ),
            ("amount", vec![json!("1.5Gi"), json!("1.5 Gi")]),
            ("cpu", vec![json!("500m"), json!("2")]),
            ("count", vec![json!("1Ki"), json!("2Ki"), json!("1.5")]),
            ("label", vec![json!("my-app"), json!("My_App")]),
            (
                "id",
                vec![json!("123e4567-e89b-12d3-a456-426614174000"), json!("x")],
            ),
            ("host", vec![json!("a.b.c"), json!("-a")]),
        ],
    );
    cases.push(creates(
        "net address in network",
        CEL_NETS,
        "CelNet",
        vec![
            json!({"network": "10.0.0.0/8", "address": "10.1.2.3"}),
            json!({"network": "10.0.0.0/8", "address": "11.1.2.3"}),
            json!({"network": "10.0.0.0/8", "address": "x"}),
        ],
    ));
    cases.push(creates(
        "quantity request and limit",
        CEL_NETS,
        "CelNet",
        vec![
            json!({"request": "1Gi", "limit": "2Gi"}),
            json!({"request": "3", "limit": "2"}),
        ],
    ));
    cases
}

fn semantics() -> Vec<Case> {
    let rows: Vec<(&str, Vec<Value>)> = vec![
        (
            "type-level rules compare fields",
            vec![
                json!({}),
                json!({"min": 6}),
                json!({"replicas": 3}),
                json!({"replicas": 9}),
            ],
        ),
        (
            "has() on optional fields, reason Required",
            vec![
                json!({"owner": "a", "team": "b"}),
                json!({"owner": "a"}),
                json!({"team": "b"}),
            ],
        ),
        (
            "reasons Forbidden, Duplicate, Invalid",
            vec![
                json!({"user": "root"}),
                json!({"alias": "taken"}),
                json!({"nick": "a"}),
                json!({"user": "me", "alias": "free", "nick": "ab"}),
            ],
        ),
        (
            "message expressions",
            vec![
                json!({"size": 20}),
                json!({"size": 10}),
                json!({"note": {"text": "", "hint": ""}}),
                json!({"note": {"text": "", "hint": "   "}}),
                json!({"note": {"text": "", "hint": "write something"}}),
                json!({"ratio": {"part": 3, "whole": 2, "zero": 0}}),
            ],
        ),
        (
            "int-or-string",
            vec![
                json!({"surge": 20}),
                json!({"surge": "20"}),
                json!({"surge": "25%"}),
                json!({"surge": 5}),
            ],
        ),
        (
            "runtime errors",
            vec![
                json!({"divisor": 0}),
                json!({"divisor": 20}),
                json!({"divisor": 5}),
                json!({"number": "abc"}),
                json!({"number": "-1"}),
                json!({"number": "7"}),
                json!({"big": 9223372036854775807_i64}),
            ],
        ),
        (
            "timestamps and durations",
            vec![
                json!({"since": "1999-01-01T00:00:00Z"}),
                json!({"since": "2020-01-01T00:00:00Z"}),
                json!({"timeout": "2h"}),
                json!({"timeout": "30m"}),
                json!({"timeout": "bogus"}),
            ],
        ),
        (
            "escaped property names",
            vec![
                json!({"names": {"x-name": "a", "namespace": "a"}}),
                json!({"names": {"x-name": "a", "namespace": "b"}}),
                json!({"names": {"namespace": "kube-system"}}),
            ],
        ),
        (
            "field paths",
            vec![
                json!({"target": {"ports": {"http": 80}, "inner": {"enabled": true}}}),
                json!({"target": {"ports": {"a": -1}, "inner": {"enabled": true}}}),
                json!({"target": {"ports": {"http": 8080}, "inner": {"enabled": true}}}),
                json!({"target": {"ports": {}, "inner": {"enabled": true, "reason": "x"}}}),
            ],
        ),
        (
            "with schema errors",
            vec![
                // Over its maximum is not blocking: the rules run beside it.
                json!({"min": 200, "max": 100}),
                // Too long is blocking: the rules are not checked.
                json!({"owner": "an-owner-name-too-long", "user": "root"}),
                json!({"min": "one"}),
            ],
        ),
    ];
    let mut cases: Vec<Case> = rows
        .into_iter()
        .map(|(what, extras)| {
            let specs = extras.into_iter().map(bounded).collect();
            creates(&format!("rule {what}"), CEL_RULES, "CelRule", specs)
        })
        .collect();
    cases.push(creates(
        "rule a required field is missing",
        CEL_RULES,
        "CelRule",
        vec![json!({"min": 1}), json!({"min": 9, "user": "root"})],
    ));
    cases
}
