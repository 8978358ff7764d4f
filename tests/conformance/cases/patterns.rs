//! Creates of the Patterned kind (`pattern_kinds.rs`) and of CelString with patterns that
//! Go's RE2 and Rust's `regex` read differently: each value is one Go and Rust disagree on.

use serde_json::{Value, json};

use super::cel::{CEL_STRINGS, res};
use crate::conformance::script::{Case, Res};

const PATTERNEDS: Res = res("patterneds");

fn creates(case: &str, r: Res, kind: &str, specs: Vec<Value>) -> Case {
    super::creates(&format!("patterns: {case}"), r, kind, specs)
}

/// One case per field: each value one object.
fn field(field: &str, values: Vec<Value>) -> Case {
    let specs = values.into_iter().map(|v| json!({ field: v })).collect();
    creates(field, PATTERNEDS, "Patterned", specs)
}

pub fn cases() -> Vec<Case> {
    vec![
        field("word", vec![json!("abc_1"), json!("héllo")]),
        field(
            "boundary",
            vec![json!("a cat"), json!("écat"), json!("bobcat")],
        ),
        field("digits", vec![json!("123"), json!("١٢٣"), json!("５")]),
        field("space", vec![json!(" "), json!("\u{b}"), json!("\u{a0}")]),
        field("posix", vec![json!("a_b"), json!("é")]),
        field(
            "folded",
            vec![json!("\u{212a}"), json!("\u{17f}"), json!("é")],
        ),
        field("ampersands", vec![json!("a&&b"), json!("c")]),
        field("angle", vec![json!("<tag>"), json!("tag")]),
        field("quoted", vec![json!("a.b"), json!("axb")]),
        field("brace", vec![json!("a{,2}"), json!("aa")]),
        field("octal", vec![json!("A"), json!("101")]),
        field(
            "letters",
            vec![json!("日本"), json!("\u{10940}"), json!("a1")],
        ),
        field("greek", vec![json!("αβγ"), json!("abc")]),
        field("line", vec![json!("abc"), json!("abc\n")]),
        creates(
            "find and findAll",
            PATTERNEDS,
            "Patterned",
            vec![
                // The answers are Go's (regexp's FindString and FindAllString).
                json!({"text": "a1b22c333", "re": r"\d+", "found": "1", "count": 3, "second": "22"}),
                json!({"text": "baaab", "re": "a*", "found": "", "count": 3, "second": "aaa"}),
                json!({"text": "aa", "re": "(|a)*", "found": "", "count": 3, "second": ""}),
                json!({"text": "é cat", "re": r"\b\w+\b", "found": "cat", "count": 1}),
                json!({"text": "<a><b>", "re": r"\<\w\>", "found": "<a>", "count": 2, "second": "<b>"}),
                json!({"text": "Kk\u{212a}", "re": "(?i)k", "found": "K", "count": 3, "second": "k"}),
                json!({"text": "\u{17f}S", "re": "(?i)s+", "found": "\u{17f}S", "count": 1}),
                // Rust's answer, which Go's is not.
                json!({"text": "é cat", "re": r"\b\w+\b", "found": "é"}),
                json!({"text": "ab", "re": "(?x) a", "found": ""}),
                json!({"text": "ab", "re": "a{2}{3}", "count": 0}),
            ],
        ),
        creates(
            "matches from the object",
            CEL_STRINGS,
            "CelString",
            vec![
                json!({"text": "é", "pattern": r"^\w$"}),
                json!({"text": "\u{212a}", "pattern": "(?i)^k$"}),
                json!({"text": "a&b", "pattern": "^[a&&b]+$"}),
                json!({"text": "[a]", "pattern": "^[[a]]$"}),
                json!({"text": "a", "pattern": "[a--b]"}),
                json!({"text": "a", "pattern": r"\k<n>"}),
                json!({"text": "ab", "pattern": "(?P<n>a)(?P<n>b)"}),
                json!({"text": "a", "pattern": r"\pN"}),
                json!({"text": "x", "pattern": r"\p{Greek}"}),
                json!({"text": "a", "pattern": "(?U)a+?"}),
            ],
        ),
    ]
}
