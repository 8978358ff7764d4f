//! Label selectors: parsing, errors and matching.

use std::collections::BTreeMap;

use super::Want::{self, Error, Names};
use crate::selector::{LabelSelector, Operator, Requirement};

/// The objects the selectors were run against: name and labels.
const OBJECTS: &[(&str, &[(&str, &str)])] = &[
    ("a", &[("app", "web"), ("n", "1"), ("tier", "front")]),
    ("b", &[("app", "api"), ("n", "10")]),
    ("c", &[("app", "db"), ("n", "x")]),
    ("d", &[("n", "007"), ("example.com/team", "a")]),
    ("e", &[("n", "5x"), ("app", "")]),
];

const LABEL_SELECTORS: &[(&str, Want)] = &[
    ("", Names(&["a", "b", "c", "d", "e"])),
    ("app=web", Names(&["a"])),
    ("app==web", Names(&["a"])),
    ("app!=web", Names(&["b", "c", "d", "e"])),
    ("app in (web,api)", Names(&["a", "b"])),
    ("app notin (web,api)", Names(&["c", "d", "e"])),
    ("app", Names(&["a", "b", "c", "e"])),
    ("!app", Names(&["d"])),
    ("!app,n", Names(&["d"])),
    ("n>5", Names(&["b", "d"])),
    ("n<5", Names(&["a"])),
    (
        "n>-1",
        Error(
            "unable to parse requirement: values[0][n]: Invalid value: \"-1\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "n<abc",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "n>",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    ("n in ()", Names(&[])),
    ("app in (,web)", Names(&["a", "e"])),
    ("app in (web,)", Names(&["a", "e"])),
    ("app in (web,,api)", Names(&["a", "b", "e"])),
    ("app notin ()", Names(&["a", "b", "c", "d"])),
    ("app=", Names(&["e"])),
    ("app!=", Names(&["a", "b", "c", "d"])),
    ("app=,n", Names(&["e"])),
    (
        "app in web",
        Error("unable to parse requirement: found 'web' expected: '('"),
    ),
    (
        "a b=c",
        Error("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "app in (web",
        Error("unable to parse requirement: found '', expected: ',' or ')'"),
    ),
    (
        "app in (web api)",
        Error("unable to parse requirement: found 'api', expected: ',' or ')'"),
    ),
    ("app,", Error("found '', expected: identifier after ','")),
    (
        ",app",
        Error("found ',', expected: !, identifier, or 'end of string'"),
    ),
    ("app,,n", Error("found ',', expected: identifier after ','")),
    (
        "=web",
        Error("found '=', expected: !, identifier, or 'end of string'"),
    ),
    (
        "!=web",
        Error("found '!=', expected: !, identifier, or 'end of string'"),
    ),
    (
        "!",
        Error("unable to parse requirement: found '', expected: identifier"),
    ),
    (
        "!app=web",
        Error("found '=', expected: ',' or 'end of string'"),
    ),
    (
        "app=web=x",
        Error("found '=', expected: ',' or 'end of string'"),
    ),
    (
        "app=!x",
        Error("unable to parse requirement: found '!', expected: identifier"),
    ),
    (
        "app in (web,!)",
        Error("unable to parse requirement: found '!', expected: ',', or identifier"),
    ),
    (
        "app=(web)",
        Error("unable to parse requirement: found '(', expected: identifier"),
    ),
    (
        "app in ((web))",
        Error("unable to parse requirement: found '(', expected: ',', ')' or identifier"),
    ),
    (
        "-app=x",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
    ),
    (
        "app-=x",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"app-\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
    ),
    (
        "Example.com/team=a",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"Example.com/team\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
    ),
    ("example.com/team=a", Names(&["d"])),
    (
        "/team=a",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"/team\": prefix part must be non-empty",
        ),
    ),
    (
        "example.com/=a",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"example.com/\": name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
    ),
    (
        "a/b/c=x",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ),
    ),
    (
        "x_/y=1",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"x_/y\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
    ),
    (
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": name part must be no more than 63 bytes",
        ),
    ),
    (
        "app=-web",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"-web\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "app=we b",
        Error("found 'b', expected: ',' or 'end of string'"),
    ),
    (
        "app=web!",
        Error("found '!', expected: ',' or 'end of string'"),
    ),
    (
        "app in (-x,y_)",
        Error(
            "unable to parse requirement: [values[0][app]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), values[1][app]: Invalid value: \"y_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]",
        ),
    ),
    (
        "app=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": must be no more than 63 bytes",
        ),
    ),
    ("app=a.b_c-d", Names(&[])),
    (
        "n>abc",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "n>1.5",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "n><5",
        Error("unable to parse requirement: found '<', expected: identifier"),
    ),
    (
        "n<=5",
        Error("unable to parse requirement: found '=', expected: identifier"),
    ),
    (
        "n>=5",
        Error("unable to parse requirement: found '=', expected: identifier"),
    ),
    (
        "app in (web) x",
        Error("found 'x', expected: ',' or 'end of string'"),
    ),
    (
        "app=web x",
        Error("found 'x', expected: ',' or 'end of string'"),
    ),
    ("app = web , n", Names(&["a"])),
    ("  app  ", Names(&["a", "b", "c", "e"])),
    ("\tapp\n", Names(&["a", "b", "c", "e"])),
    ("in=x", Names(&[])),
    ("notin in (in,notin)", Names(&[])),
    ("app notin (in)", Names(&["a", "b", "c", "d", "e"])),
    ("app=in", Names(&[])),
    ("n>007", Names(&["b"])),
    ("n<08", Names(&["a", "d"])),
    ("app in (a,b),app notin (a)", Names(&[])),
    (
        "é=x",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"é\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
    ),
    (
        "app=é",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"é\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "n>99999999999999999999",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "app>web",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"web\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "app=\"x\"",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"\\\"x\\\"\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "a!b",
        Error("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "a!!b",
        Error("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "!!a",
        Error("unable to parse requirement: found '!', expected: identifier"),
    ),
    ("a,!b", Names(&[])),
    ("a in(b)", Names(&[])),
    ("a notin(b)", Names(&["a", "b", "c", "d", "e"])),
    (
        "a in (b)c",
        Error("found 'c', expected: ',' or 'end of string'"),
    ),
    (
        "ain (b)",
        Error("unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    ("a=b,", Error("found '', expected: identifier after ','")),
    (
        "a==b==c",
        Error("found '==', expected: ',' or 'end of string'"),
    ),
    (
        "a!==b",
        Error("unable to parse requirement: found '=', expected: identifier"),
    ),
    (
        "a=>b",
        Error("unable to parse requirement: found '>', expected: identifier"),
    ),
    (
        "a<>b",
        Error("unable to parse requirement: found '>', expected: identifier"),
    ),
    (
        "a<b",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "a(b",
        Error("unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "a)b",
        Error("unable to parse requirement: found ')', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "(a)",
        Error("found '(', expected: !, identifier, or 'end of string'"),
    ),
    (
        ")",
        Error("found ')', expected: !, identifier, or 'end of string'"),
    ),
    (
        "a\u{a0}b=c",
        Error(
            "unable to parse requirement: <nil>: Invalid value: \"a\\u00a0b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
    ),
    (
        "app=a\u{1}",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"a\\x01\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "app=\u{200b}",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"\\u200b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "app=aé\u{a0}😀",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"aé\\u00a0😀\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "app=\"\\",
        Error(
            "unable to parse requirement: values[0][app]: Invalid value: \"\\\"\\\\\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "a in (b,c",
        Error("unable to parse requirement: found '', expected: ',' or ')'"),
    ),
    (
        "a in (b,c,",
        Error("unable to parse requirement: found '', expected: ',', or identifier"),
    ),
    (
        "a in (",
        Error("unable to parse requirement: found '', expected: ',', ')' or identifier"),
    ),
    (
        "a in (,",
        Error("unable to parse requirement: found '', expected: ',', or identifier"),
    ),
    (
        "a in",
        Error("unable to parse requirement: found '' expected: '('"),
    ),
    (
        "a notin",
        Error("unable to parse requirement: found '' expected: '('"),
    ),
    ("a =", Names(&[])),
    ("a ==", Names(&[])),
    (
        "a >",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "n<1,n>",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    ("a in (b)", Names(&[])),
    ("a in (b) ,c", Names(&[])),
    (
        "a\rb",
        Error("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "a=b\u{b}c",
        Error(
            "unable to parse requirement: values[0][a]: Invalid value: \"b\\vc\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "a=b\u{c}c",
        Error(
            "unable to parse requirement: values[0][a]: Invalid value: \"b\\fc\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    ("n>5,,", Error("found ',', expected: identifier after ','")),
    (
        "n>0x5",
        Error(
            "unable to parse requirement: values[0]: Invalid value: \"0x5\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
    ),
    (
        "n>+5",
        Error(
            "unable to parse requirement: values[0][n]: Invalid value: \"+5\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    (
        "n<-0",
        Error(
            "unable to parse requirement: values[0][n]: Invalid value: \"-0\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ),
    ("n> 5", Names(&["b", "d"])),
    ("n>5 ", Names(&["b", "d"])),
    ("app in (web,web)", Names(&["a"])),
    (
        "!a in (b)",
        Error("found 'in', expected: ',' or 'end of string'"),
    ),
    ("!a,!b", Names(&["a", "b", "c", "d", "e"])),
    (
        "!!",
        Error("unable to parse requirement: found '!', expected: identifier"),
    ),
    (
        "a!",
        Error("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "a! b",
        Error("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    (
        "a=b c=d",
        Error("found 'c', expected: ',' or 'end of string'"),
    ),
    (
        "a\0b",
        Error("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ),
    ("a,\0b", Names(&[])),
    ("a,\0", Error("found '', expected: identifier after ','")),
    ("\0", Names(&["a", "b", "c", "d", "e"])),
    (
        "app,\0=",
        Error("found '=', expected: identifier after ','"),
    ),
    ("app=web\0,n", Names(&["a"])),
    ("app=\0web", Names(&["a"])),
];

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn label_selectors_parse_match_and_fail_like_the_apiserver() {
    for (selector, want) in LABEL_SELECTORS {
        let listed = LabelSelector::parse(selector).map(|s| {
            OBJECTS
                .iter()
                .filter(|(_, l)| s.matches(&labels(l)))
                .map(|(name, _)| *name)
                .collect()
        });
        want.assert(selector, listed.map_err(|e| e.to_string()));
    }
}

#[test]
fn a_parsed_selector_written_out_parses_to_itself() {
    for (selector, want) in LABEL_SELECTORS {
        if let Names(_) = want {
            let parsed = LabelSelector::parse(selector).unwrap();
            let written = parsed.to_string();
            assert_eq!(
                LabelSelector::parse(&written),
                Ok(parsed),
                "{selector:?} -> {written:?}"
            );
        }
    }
    assert_eq!(
        LabelSelector::parse("tier notin (b,a), app in (web,,api),!x,n>3")
            .unwrap()
            .to_string(),
        "app in (,api,web),n>3,tier notin (a,b),!x"
    );
}

/// `Requirement::new` checks what the parser cannot produce (counts of values); its texts
/// follow the apiserver's `NewRequirement`.
#[test]
fn requirements_built_directly_are_checked() {
    let err = |key: &str, op, values: &[&str]| {
        Requirement::new(key, op, values.iter().copied())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("app", Operator::In, &[]),
        "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"
    );
    assert_eq!(
        err("app", Operator::Equals, &["a", "b"]),
        r#"values: Invalid value: ["a","b"]: exact-match compatibility requires one single value"#
    );
    assert_eq!(
        err("app", Operator::Exists, &["a"]),
        r#"values: Invalid value: ["a"]: values set must be empty for exists and does not exist"#
    );
    assert_eq!(
        err("n", Operator::LessThan, &["1", "x"]),
        "[values: Invalid value: [\"1\",\"x\"]: for 'Gt', 'Lt' operators, exactly one value is \
         required, values[1]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be \
         an integer]"
    );
    assert_eq!(
        err("/x", Operator::NotEquals, &["<&>"]),
        "[key: Invalid value: \"/x\": prefix part must be non-empty, values[0][/x]: Invalid \
         value: \"<&>\": a valid label must be an empty string or consist of alphanumeric \
         characters, '-', '_' or '.', and must start and end with an alphanumeric character \
         (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is \
         '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"
    );
    let r = Requirement::new("n", Operator::GreaterThan, ["2"]).unwrap();
    assert!(r.matches(&labels(&[("n", "3")])));
    assert!(!r.matches(&labels(&[("n", "2")])));
    assert!(!r.matches(&labels(&[("n", "three")])));
    assert!(!r.matches(&labels(&[])));
    let selector = LabelSelector(vec![r]);
    assert_eq!(selector.to_string(), "n>2");
}
