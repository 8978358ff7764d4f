//! Mutation classes: each takes a valid request and makes it malformed or hostile in one way
//! (its body's bytes, its JSON, its metadata, its headers, its query, its URL). Every choice
//! comes from the case's seeded generator, so a case is the same on every run.

use http::Method;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::request::{Body, Request, Template};

/// A mutation class: its name (reported with its agreement figure), the templates it applies
/// to, and the mutation.
pub struct Class {
    pub name: &'static str,
    pub applies: fn(Template) -> bool,
    pub mutate: fn(&mut Request, &mut ChaCha8Rng),
}

fn any(_: Template) -> bool {
    true
}

fn whole(t: Template) -> bool {
    t.whole_object()
}

fn widget_object(t: Template) -> bool {
    t.whole_object() && !matches!(t, Template::CreateGadget | Template::CreateLease)
}

pub const CLASSES: &[Class] = &[
    Class {
        name: "body bytes",
        applies: any,
        mutate: body_bytes,
    },
    Class {
        name: "invalid UTF-8",
        applies: any,
        mutate: invalid_utf8,
    },
    Class {
        name: "surrogate escapes",
        applies: widget_object,
        mutate: surrogates,
    },
    Class {
        name: "nesting depth",
        applies: widget_object,
        mutate: depth,
    },
    Class {
        name: "sizes",
        applies: widget_object,
        mutate: sizes,
    },
    Class {
        name: "body shape",
        applies: any,
        mutate: shape,
    },
    Class {
        name: "value types",
        applies: widget_object,
        mutate: types,
    },
    Class {
        name: "numbers",
        applies: widget_object,
        mutate: numbers,
    },
    Class {
        name: "strings",
        applies: widget_object,
        mutate: strings,
    },
    Class {
        name: "apiVersion and kind",
        applies: whole,
        mutate: type_meta,
    },
    Class {
        name: "metadata",
        applies: whole,
        mutate: metadata,
    },
    Class {
        name: "content type",
        applies: any,
        mutate: content_types,
    },
    Class {
        name: "accept",
        applies: any,
        mutate: accept,
    },
    Class {
        name: "query",
        applies: any,
        mutate: query,
    },
    Class {
        name: "url and scope",
        applies: any,
        mutate: url,
    },
    Class {
        name: "patch documents",
        applies: patches,
        mutate: patch_documents,
    },
    Class {
        name: "apply YAML",
        applies: apply,
        mutate: apply_yaml,
    },
];

fn patches(t: Template) -> bool {
    matches!(t, Template::MergeWidget | Template::JsonPatchWidget)
}

fn apply(t: Template) -> bool {
    t == Template::ApplyWidget
}

fn pick<T: Clone>(rng: &mut ChaCha8Rng, from: &[T]) -> T {
    from[rng.random_range(0..from.len())].clone()
}

/// The JSON body to change (`None` once a mutation turned it into bytes or text).
fn json_body(r: &mut Request) -> Option<&mut Value> {
    match &mut r.body {
        Body::Json(v) => Some(v),
        _ => None,
    }
}

/// Puts `raw` (JSON text, possibly invalid) where `placeholder` (a string value) is.
fn splice(r: &mut Request, placeholder: &str, raw: &str) {
    let text = r.body.text();
    r.body = Body::Text(text.replace(&format!("\"{placeholder}\""), raw));
}

const PLACEHOLDER: &str = "@@fuzz@@";

/// Sets `spec.<field>` to the placeholder, for [`splice`].
fn spec_slot(r: &mut Request, field: &str) {
    if let Some(body) = json_body(r) {
        let spec = if body.get("spec").is_some() {
            &mut body["spec"]
        } else {
            body
        };
        if spec.is_object() {
            spec[field] = json!(PLACEHOLDER);
        }
    }
}

pub fn body_bytes(r: &mut Request, rng: &mut ChaCha8Rng) {
    let mut bytes = r.body.bytes();
    if bytes.is_empty() {
        return;
    }
    let at = rng.random_range(0..bytes.len());
    match rng.random_range(0..4) {
        0 => bytes.truncate(at),
        1 => bytes.insert(at, pick(rng, b"{}[]\",:\\ x0\n")),
        2 => {
            bytes.remove(at);
        }
        _ => {
            let end = (at + rng.random_range(1..16)).min(bytes.len());
            let copy = bytes[at..end].to_vec();
            bytes.splice(at..at, copy);
        }
    }
    r.body = Body::Bytes(bytes);
}

pub fn invalid_utf8(r: &mut Request, rng: &mut ChaCha8Rng) {
    let sequences: &[&[u8]] = &[
        &[0xff],
        &[0xc3],
        &[0xc0, 0xaf],
        &[0xed, 0xa0, 0x80],
        &[0xf4, 0x90, 0x80, 0x80],
        &[0x80],
    ];
    let sequence = pick(rng, sequences);
    let mut bytes = r.body.bytes();
    // Inside a string: just after an opening or closing quote.
    let quotes: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b'"').collect();
    if quotes.is_empty() {
        return;
    }
    let at = pick(rng, &quotes) + 1;
    bytes.splice(at..at, sequence.iter().copied());
    r.body = Body::Bytes(bytes);
}

fn surrogates(r: &mut Request, rng: &mut ChaCha8Rng) {
    let raw = pick(
        rng,
        &[
            r#""\ud800""#,
            r#""a\udc00b""#,
            r#""\ud83d\ude00""#,
            r#""\ud800\u0041""#,
            r#""\uDFFF""#,
            r#""\ud800\ud800""#,
        ],
    );
    if rng.random_bool(0.3) {
        // In a key.
        let text = r.body.text();
        r.body = Body::Text(text.replacen("\"spec\":{", &format!("\"spec\":{{{raw}:1,"), 1));
    } else {
        spec_slot(r, pick(rng, &["s", "free"]));
        splice(r, PLACEHOLDER, raw);
    }
}

fn depth(r: &mut Request, rng: &mut ChaCha8Rng) {
    let depth = pick(
        rng,
        &[2usize, 100, 128, 129, 200, 1000, 5000, 9990, 10001, 20000],
    );
    let (open, close) = pick(rng, &[("[", "]"), ("{\"a\":", "}")]);
    let mut raw = open.repeat(depth);
    raw.push('1');
    raw.push_str(&close.repeat(depth));
    spec_slot(r, pick(rng, &["free", "unknown", "nested"]));
    splice(r, PLACEHOLDER, &raw);
}

fn sizes(r: &mut Request, rng: &mut ChaCha8Rng) {
    match rng.random_range(0..4) {
        0 => {
            let n = pick(rng, &[64usize, 65, 10_000, 300_000]);
            spec_slot(r, "s");
            splice(r, PLACEHOLDER, &format!("\"{}\"", "x".repeat(n)));
        }
        1 => {
            // An unknown field with a long name.
            let n = pick(rng, &[300usize, 5000, 1 << 20]);
            let text = r.body.text();
            let field = format!("\"{}\":1,", "u".repeat(n));
            r.body = Body::Text(text.replacen("\"spec\":{", &format!("\"spec\":{{{field}"), 1));
        }
        2 => {
            // Past the apiserver's 3 MiB request limit.
            let mut text = r.body.text();
            text.push_str(&" ".repeat(3 << 20));
            r.body = Body::Text(text);
        }
        _ => {
            let n = pick(rng, &[100usize, 2000]);
            spec_slot(r, "items");
            let items: Vec<String> = (0..n).map(|i| format!("{{\"name\":\"n{i}\"}}")).collect();
            splice(r, PLACEHOLDER, &format!("[{}]", items.join(",")));
        }
    }
}

pub fn shape(r: &mut Request, rng: &mut ChaCha8Rng) {
    let text = r.body.text();
    r.body = Body::Text(match rng.random_range(0..11) {
        0 => String::new(),
        1 => "null".into(),
        2 => "[]".into(),
        3 => "42".into(),
        4 => "\"x\"".into(),
        5 => "{}".into(),
        6 => format!("{text} x"),
        7 => format!("{text}}}"),
        8 => format!("\u{feff}{text}"),
        9 => format!("{text}{text}"),
        _ => format!("  {text}\n\n"),
    });
}

const TYPED_VALUES: &[&str] = &[
    "null",
    "true",
    "7",
    "-1.5",
    "\"str\"",
    "[]",
    "[1]",
    "{}",
    "{\"k\":\"v\"}",
];

fn types(r: &mut Request, rng: &mut ChaCha8Rng) {
    let raw = pick(rng, TYPED_VALUES);
    let Some(body) = json_body(r) else { return };
    let slots = [
        "/spec/s",
        "/spec/i32",
        "/spec/i64",
        "/spec/n",
        "/spec/flag",
        "/spec/items",
        "/spec/nested",
        "/spec/labels",
        "/spec",
        "/metadata",
        "/metadata/labels",
        "/metadata/name",
        "/status",
    ];
    let slot = pick(rng, &slots);
    let (parent, field) = slot.rsplit_once('/').unwrap_or(("", slot));
    let parent = if parent.is_empty() {
        Some(&mut *body)
    } else {
        body.pointer_mut(parent)
    };
    if let Some(Value::Object(fields)) = parent {
        fields.insert(field.to_owned(), json!(PLACEHOLDER));
        splice(r, PLACEHOLDER, raw);
    }
}

fn numbers(r: &mut Request, rng: &mut ChaCha8Rng) {
    let raw = pick(
        rng,
        &[
            "0",
            "-1",
            "2147483647",
            "2147483648",
            "-2147483649",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551616",
            "1e3",
            "1.0",
            "1.5",
            "10.000000000000001",
            "1e309",
            "-0",
            "0.1e1",
            "1E2",
            "123456789012345678901234567890",
            "5e-324",
        ],
    );
    spec_slot(r, pick(rng, &["i32", "i64", "n", "items"]));
    if r.body.text().contains("\"items\":\"@@fuzz@@\"") {
        splice(r, PLACEHOLDER, &format!("[{{\"name\":\"a\",\"v\":{raw}}}]"));
    } else {
        splice(r, PLACEHOLDER, raw);
    }
}

fn strings(r: &mut Request, rng: &mut ChaCha8Rng) {
    let value = pick(
        rng,
        &[
            String::new(),
            "\u{0}".into(),
            "\t".into(),
            "ä".into(),
            "😀".into(),
            "a\"b".into(),
            "x".repeat(64),
            "x".repeat(65),
            "\u{2028}".into(),
            "<&>".into(),
        ],
    );
    let Some(body) = json_body(r) else { return };
    match rng.random_range(0..3) {
        0 if body["spec"].is_object() => body["spec"]["s"] = json!(value),
        1 if body["spec"].is_object() => body["spec"]["nested"] = json!({"a": value}),
        _ => body["metadata"]["labels"] = json!({"k": value}),
    }
}

fn type_meta(r: &mut Request, rng: &mut ChaCha8Rng) {
    let choice = rng.random_range(0..10);
    let Some(body) = json_body(r) else { return };
    let Some(fields) = body.as_object_mut() else {
        return;
    };
    match choice {
        0 => {
            fields.remove("apiVersion");
        }
        1 => {
            fields.insert("apiVersion".into(), Value::Null);
        }
        2 => {
            fields.insert("apiVersion".into(), json!("v1"));
        }
        3 => {
            fields.insert("apiVersion".into(), json!("fuzz.kubegen.dev/v2"));
        }
        4 => {
            fields.remove("kind");
        }
        5 => {
            fields.insert("kind".into(), json!("Other"));
        }
        6 => {
            fields.insert("kind".into(), Value::Null);
        }
        7 => {
            let kind = fields.get("kind").cloned().unwrap_or(Value::Null);
            fields.remove("kind");
            fields.insert("Kind".into(), kind);
        }
        8 => {
            let text = r.body.text();
            r.body = Body::Text(text.replacen("\"kind\":", "\"kind\":\"Gadget\",\"kind\":", 1));
        }
        _ => {
            let version = fields.remove("apiVersion").unwrap_or(Value::Null);
            fields.insert("APIVersion".into(), version);
        }
    }
}

fn metadata(r: &mut Request, rng: &mut ChaCha8Rng) {
    let choice = rng.random_range(0..16);
    let Some(body) = json_body(r) else { return };
    if !body["metadata"].is_object() {
        return;
    }
    let m = &mut body["metadata"];
    match choice {
        0 => {
            m["resourceVersion"] = json!(pick(
                rng,
                &["1", "0", "", "abc", "-1", "99999999999999999999"]
            ))
        }
        1 => m["uid"] = json!("x"),
        2 => m["deletionTimestamp"] = json!("2020-01-01T00:00:00Z"),
        3 => m["deletionGracePeriodSeconds"] = json!(5),
        4 => m["creationTimestamp"] = json!(pick(rng, &["garbage", "2020-01-01T00:00:00Z"])),
        5 => m["generation"] = json!(7),
        6 => m["selfLink"] = json!("/x"),
        7 => m["managedFields"] = pick(rng, &[json!([{"manager": "x"}]), json!("str"), json!([])]),
        8 => {
            m["name"] = pick(
                rng,
                &[
                    json!(""),
                    Value::Null,
                    json!("A"),
                    json!("a_b"),
                    json!("a".repeat(254)),
                    json!("ä"),
                ],
            )
        }
        9 => {
            if let Some(fields) = m.as_object_mut() {
                fields.remove("name");
            }
            m["generateName"] = json!(pick(
                rng,
                &[
                    "g-",
                    "fz-ä-",
                    &"a".repeat(70),
                    &"ä".repeat(40),
                    "-",
                    "UPPER-"
                ]
            ));
        }
        10 => m["namespace"] = json!("other"),
        11 => {
            m["labels"] = pick(
                rng,
                &[
                    json!({"bad key!": "v"}),
                    json!({"k": "v".repeat(64)}),
                    json!({"a/b/c": "v"}),
                ],
            )
        }
        12 => m["annotations"] = json!({"a": "x".repeat(300_000)}),
        13 => m["finalizers"] = json!(["bad finalizer", "a/b", "kubernetes"]),
        14 => {
            m["ownerReferences"] = pick(
                rng,
                &[
                    json!([{}]),
                    json!("x"),
                    json!([{"apiVersion": "v1", "kind": "X", "name": "n", "uid": "u", "controller": true}]),
                ],
            )
        }
        _ => m["unknownMeta"] = json!(1),
    }
}

fn set_header(r: &mut Request, name: &str, value: Option<String>) {
    r.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    if let Some(value) = value {
        r.headers.push((name.to_owned(), value));
    }
}

fn content_types(r: &mut Request, rng: &mut ChaCha8Rng) {
    let value = pick(
        rng,
        &[
            None,
            Some("application/yaml"),
            Some("application/merge-patch+json"),
            Some("application/json-patch+json"),
            Some("application/apply-patch+yaml"),
            Some("application/strategic-merge-patch+json"),
            Some("application/json; charset=utf-8"),
            Some("application/json ; charset=utf-8"),
            Some("APPLICATION/JSON"),
            Some("text/plain"),
            Some("application/json;q="),
            Some("*/*"),
            Some("application/apply-patch+cbor"),
        ],
    );
    set_header(r, "Content-Type", value.map(str::to_owned));
}

fn accept(r: &mut Request, rng: &mut ChaCha8Rng) {
    let value = pick(
        rng,
        &[
            "application/yaml",
            "text/plain",
            "application/json;as=Table;v=v1;g=meta.k8s.io",
            "*/*",
            "application/xml",
            "x",
            "application/json, */*",
        ],
    );
    set_header(r, "Accept", Some(value.to_owned()));
}

fn query(r: &mut Request, rng: &mut ChaCha8Rng) {
    let segment = pick(
        rng,
        &[
            "dryRun=All".to_owned(),
            "dryRun=x".into(),
            "dryRun=".into(),
            "dryRun=All&dryRun=x".into(),
            format!("fieldManager={}", "m".repeat(130)),
            "fieldManager=%07x".into(),
            "fieldManager=%C3%A4".into(),
            "fieldManager=".into(),
            "fieldValidation=Strict".into(),
            "fieldValidation=Ignore".into(),
            "fieldValidation=x".into(),
            "force=true".into(),
            "force=x".into(),
            "timeout=x".into(),
            "timeout=1s".into(),
            "timeout=-1s".into(),
            "pretty=true".into(),
            "unknown=1".into(),
            "%zz=1".into(),
            "dryRun=%zz".into(),
            "a;b=c".into(),
        ],
    );
    if rng.random_bool(0.5) {
        r.query.retain(|q| !q.starts_with("fieldManager="));
    }
    r.query.push(segment);
}

fn url(r: &mut Request, rng: &mut ChaCha8Rng) {
    let cluster_widgets = "/apis/fuzz.kubegen.dev/v1/widgets";
    match rng.random_range(0..8) {
        0 => {
            if let Some(body) = json_body(r)
                && body["metadata"].is_object()
            {
                body["metadata"]["name"] = json!("other");
            }
        }
        1 => {
            if let Some(body) = json_body(r)
                && body["metadata"].is_object()
            {
                body["metadata"]["namespace"] = json!("elsewhere");
            }
        }
        2 => r.path = r.path.replace("/namespaces/{ns}", ""),
        3 => {
            r.path = r.path.replace(
                "/apis/fuzz.kubegen.dev/v1/gadgets",
                "/apis/fuzz.kubegen.dev/v1/namespaces/{ns}/gadgets",
            )
        }
        4 => {
            if r.method != Method::POST {
                r.path = r
                    .path
                    .rsplit_once('/')
                    .map_or(r.path.clone(), |(c, _)| c.to_owned());
                if r.path.ends_with("/w") {
                    r.path = r.path.trim_end_matches("/w").to_owned();
                }
            } else {
                r.method = Method::PUT;
            }
        }
        5 => r.path = r.path.replacen("/w", "/w%20x", 1),
        6 => r.path = format!("{}/{}", r.path, pick(rng, &["scale", "foo", "status"])),
        _ => {
            r.method = pick(rng, &[Method::DELETE, Method::GET, Method::OPTIONS]);
            if rng.random_bool(0.5) {
                r.path = cluster_widgets.to_owned();
                // A list across namespaces sees only this case's objects: other cases' are
                // not the same on both servers (generated names, objects one keeps).
                if r.method == Method::GET {
                    r.query.push("fieldSelector=metadata.namespace={ns}".into());
                }
            }
        }
    }
}

fn patch_documents(r: &mut Request, rng: &mut ChaCha8Rng) {
    let json_patch = r.template == Template::JsonPatchWidget;
    let doc = if json_patch {
        pick(
            rng,
            &[
                json!([]),
                Value::Null,
                json!([{"op": "add", "path": "/spec/s"}]),
                json!([{"op": "replace", "path": "/spec/missing", "value": 1}]),
                json!([{"op": "remove", "path": "/spec/i64"}]),
                json!([{"op": "test", "path": "/spec/s", "value": "nope"}]),
                json!([{"op": "move", "from": "/spec/s", "path": "/spec/nested/a"}]),
                json!([{"op": "copy", "from": "/spec/items/0", "path": "/spec/items/-"}]),
                json!([{"op": "add", "path": "spec/s", "value": "x"}]),
                json!([{"op": "bogus", "path": "/spec/s"}]),
                json!([{"op": "add", "path": "/metadata/name", "value": "z"}]),
                json!([{"op": "replace", "path": "/kind", "value": "Gadget"}]),
                json!([{"op": "remove", "path": "/apiVersion"}]),
                json!([{"op": "add", "path": "/spec/items/5", "value": {"name": "x"}}]),
                json!({"op": "add"}),
                Value::Array(vec![
                    json!({"op": "test", "path": "/spec/s", "value": "red"});
                    10_001
                ]),
            ],
        )
    } else {
        pick(
            rng,
            &[
                Value::Null,
                json!([]),
                json!("x"),
                json!({"spec": null}),
                json!({"metadata": null}),
                json!({"apiVersion": null}),
                json!({"kind": "Gadget"}),
                json!({"metadata": {"name": "z"}}),
                json!({"metadata": {"uid": "u"}}),
                json!({"spec": {"items": null}}),
                json!({"status": {"ready": "yes"}}),
            ],
        )
    };
    r.body = Body::Json(doc);
}

fn apply_yaml(r: &mut Request, rng: &mut ChaCha8Rng) {
    let head = "apiVersion: fuzz.kubegen.dev/v1\nkind: Widget\nmetadata:\n  name: w\n";
    let spec = pick(
        rng,
        &[
            "spec:\n  i32: 012\n",
            "spec:\n  flag: yes\n",
            "spec:\n  s: on\n",
            "spec:\n  s: a\n  s: b\n",
            "spec:\n  i64: 0x1F\n",
            "spec:\n  n: .inf\n",
            "spec:\n  s: ~\n",
            "spec:\n  s: !!binary aGVsbG8=\n",
            "spec:\n  nested: &x\n    a: q\n  free: *x\n",
            "spec:\n\ts: tab\n",
            "spec:\n  s: x\n---\nkind: Gadget\n",
            "spec: [1, 2\n",
            "spec:\n  s: 1e309\n",
            "spec:\n  i64: 99999999999999999999\n",
            "spec:\n  n: 012.5\n",
        ],
    );
    r.body = Body::Text(format!("{head}{spec}"));
}
