//! Corners of the CEL libraries, through `CelProbe`: each case names one probe rule and
//! sends objects with the inputs it reads — values it accepts, values it refuses, values it
//! cannot evaluate.

use serde_json::{Value, json};

use super::cel::{creates, res};
use crate::conformance::script::{Case, Res};

const CEL_PROBES: Res = res("celprobes");

/// `CelProbe` cases: each row names a probe rule and the inputs of its objects.
pub fn cases() -> Vec<Case> {
    let rows: Vec<(&str, Vec<Value>)> = vec![
        ("unicode", vec![json!({"s": "héllo"}), json!({"s": "hélo"})]),
        (
            "offsets",
            vec![json!({"s": "aba"}), json!({"s": "abb"}), json!({"s": "a"})],
        ),
        ("replaceN", vec![json!({"s": "aac"}), json!({"s": "xac"})]),
        ("splitN", vec![json!({"s": "a,b,c"}), json!({"s": "a,b"})]),
        (
            "substring",
            vec![
                json!({"s": "hello"}),
                json!({"s": "help"}),
                json!({"s": "h"}),
            ],
        ),
        (
            "format",
            vec![json!({"s": "a", "n": 1}), json!({"s": "b", "n": 2})],
        ),
        ("quote", vec![json!({"s": "ab"}), json!({"s": "a\"b"})]),
        (
            "absorbAll",
            vec![
                json!({"l": [0, 5]}),
                json!({"l": [0, 1]}),
                json!({"l": [1]}),
            ],
        ),
        ("absorbOr", vec![json!({"n": 0}), json!({"n": 2})]),
        (
            "urlParts",
            vec![
                json!({"s": "https://h:80/a%20b?x=1&x=2"}),
                json!({"s": "https://g/a%20b?x=1"}),
            ],
        ),
        (
            "ipKinds",
            vec![json!({"s": "0.0.0.0"}), json!({"s": "127.0.0.1"})],
        ),
        (
            "cidrParts",
            vec![json!({"s": "10.0.0.0/8"}), json!({"s": "10.1.2.3/8"})],
        ),
        (
            "ipString",
            vec![json!({"s": "2001:db8::1"}), json!({"s": "2001:DB8::1"})],
        ),
        ("quantityMath", vec![json!({"s": "1"}), json!({"s": "3"})]),
        ("approx", vec![json!({"s": "1.5"}), json!({"s": "500m"})]),
        (
            "semver",
            vec![
                json!({"s": "1.1.0"}),
                json!({"s": "2.0.0"}),
                json!({"s": "v1"}),
            ],
        ),
        (
            "semverErrors",
            vec![
                json!({"s": "1.0.0+b.7"}),
                json!({"s": "1.0"}),
                json!({"s": "01.0.0"}),
                json!({"s": "1.0.0-01"}),
                json!({"s": "1.0.0-a..b"}),
            ],
        ),
        ("optional", vec![json!({}), json!({"s": "x"})]),
        ("optionals", vec![json!({"s": "a"}), json!({})]),
        (
            "conversions",
            vec![json!({"n": 3}), json!({"n": 4}), json!({"n": -1})],
        ),
        ("bytes", vec![json!({"s": "héll"}), json!({"s": "hell"})]),
        (
            "timestamp",
            vec![
                json!({"s": "2024-01-01T12:00:00Z"}),
                json!({"s": "2024-01-02T12:00:00Z"}),
                json!({"s": "yesterday"}),
            ],
        ),
        (
            "timeMath",
            vec![
                json!({"s": "2024-01-01T12:00:00Z"}),
                json!({"s": "2023-12-31T12:00:00Z"}),
            ],
        ),
        (
            "duration",
            vec![json!({"s": "1h30m"}), json!({"s": "1h"}), json!({"s": "x"})],
        ),
        (
            "listExt",
            vec![json!({"l": [1, 2, 2]}), json!({"l": [1, 2, 3]})],
        ),
        ("sort", vec![json!({"l": [3, 1, 2]}), json!({"l": [3, 1]})]),
        ("sortBy", vec![json!({"l": [1, 3, 2]}), json!({"l": [1]})]),
        ("firstLast", vec![json!({"l": [1, 9]}), json!({"l": []})]),
        ("pairs", vec![json!({"l": [1, 2, 3]}), json!({"l": [0]})]),
        (
            "boundary",
            vec![json!({"s": "a foo b"}), json!({"s": "afoo"})],
        ),
        (
            "index",
            vec![json!({"l": [1, 2], "n": 1}), json!({"l": [1, 2], "n": 5})],
        ),
        (
            "overflow",
            vec![json!({"n": 1}), json!({"n": 9223372036854775807_i64})],
        ),
        ("modulus", vec![json!({"n": 3}), json!({"n": 0})]),
        (
            "types",
            vec![json!({"n": 1, "s": "a", "l": []}), json!({"n": 1, "l": []})],
        ),
        ("doubles", vec![json!({"n": 1}), json!({"n": 2})]),
        ("membership", vec![json!({"n": 2}), json!({"n": 4})]),
        ("numbers", vec![json!({"n": 1}), json!({"n": 2})]),
        ("compare", vec![json!({"s": "a"}), json!({"s": "ba"})]),
    ];
    rows.into_iter()
        .map(|(probe, inputs)| {
            let specs = inputs
                .into_iter()
                .map(|mut input| {
                    input["probe"] = json!(probe);
                    input
                })
                .collect();
            creates(&format!("probe {probe}"), CEL_PROBES, "CelProbe", specs)
        })
        .collect()
}
