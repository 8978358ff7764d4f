//! The request a fuzz case sends, the valid templates it starts from, and its conversion into
//! a conformance [`Case`] (setup steps, the request, a read of the object afterwards).

use http::Method;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::conformance::script::{Case, Payload, Step, WriteKind};

pub const GROUP: &str = "fuzz.kubegen.dev";
pub const API_VERSION: &str = "fuzz.kubegen.dev/v1";

/// What a template does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    CreateWidget,
    UpdateWidget,
    MergeWidget,
    JsonPatchWidget,
    ApplyWidget,
    StatusWidget,
    CreateGadget,
    CreateLease,
}

impl Template {
    pub const ALL: [Template; 8] = [
        Template::CreateWidget,
        Template::UpdateWidget,
        Template::MergeWidget,
        Template::JsonPatchWidget,
        Template::ApplyWidget,
        Template::StatusWidget,
        Template::CreateGadget,
        Template::CreateLease,
    ];

    /// Whether the request addresses an object that exists (a setup step creates it).
    pub fn needs_object(self) -> bool {
        matches!(
            self,
            Template::UpdateWidget
                | Template::MergeWidget
                | Template::JsonPatchWidget
                | Template::StatusWidget
        )
    }

    /// Whether the body is a whole object (create, update, apply) rather than a patch.
    pub fn whole_object(self) -> bool {
        !matches!(self, Template::MergeWidget | Template::JsonPatchWidget)
    }
}

/// A body: JSON until a mutation works on its bytes.
#[derive(Clone, Debug)]
pub enum Body {
    Json(Value),
    Text(String),
    Bytes(Vec<u8>),
}

impl Body {
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Body::Json(v) => serde_json::to_vec(v).unwrap_or_default(),
            Body::Text(t) => t.clone().into_bytes(),
            Body::Bytes(b) => b.clone(),
        }
    }

    /// The body as text, replacing a JSON body by its serialization.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }
}

/// One request, as built from a template and mutated.
#[derive(Clone, Debug)]
pub struct Request {
    pub template: Template,
    pub method: Method,
    pub path: String,
    /// Query segments as sent (`key=value`, encoded).
    pub query: Vec<String>,
    pub headers: Vec<(String, String)>,
    pub body: Body,
    /// The object read back afterwards.
    pub object: Option<String>,
}

pub fn widgets() -> String {
    format!("/apis/{GROUP}/v1/namespaces/{{ns}}/widgets")
}

fn widget_path(name: &str) -> String {
    format!("{}/{name}", widgets())
}

fn content_type(value: &str) -> (String, String) {
    ("Content-Type".into(), value.into())
}

/// A valid spec, drawn from `rng`.
pub fn widget_spec(rng: &mut ChaCha8Rng) -> Value {
    let mut spec = json!({});
    if rng.random_bool(0.7) {
        spec["s"] = json!(["red", "green", "a b", "ä"][rng.random_range(0..4)]);
    }
    if rng.random_bool(0.6) {
        spec["i32"] = json!(rng.random_range(0..1000));
    }
    if rng.random_bool(0.4) {
        spec["i64"] = json!(rng.random_range(-1_000_000i64..1_000_000));
    }
    if rng.random_bool(0.4) {
        spec["n"] = json!(rng.random_range(-100..100) as f64 / 8.0);
    }
    if rng.random_bool(0.3) {
        spec["flag"] = json!(rng.random_bool(0.5));
    }
    if rng.random_bool(0.5) {
        let count = rng.random_range(1..4);
        spec["items"] = (0..count)
            .map(|i| json!({"name": format!("i{i}"), "v": i}))
            .collect();
    }
    if rng.random_bool(0.4) {
        spec["nested"] = json!({"a": "x", "tags": ["t1", "t2"]});
    }
    if rng.random_bool(0.3) {
        spec["labels"] = json!({"k": "v"});
    }
    if rng.random_bool(0.3) {
        spec["free"] = json!({"any": [1, "two", {"three": null}]});
    }
    spec
}

fn widget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": API_VERSION, "kind": "Widget", "metadata": {"name": name}, "spec": spec})
}

impl Request {
    /// The valid request of `template`.
    pub fn from_template(template: Template, rng: &mut ChaCha8Rng) -> Request {
        let json = || content_type("application/json");
        let (method, path, query, headers, body, object) = match template {
            Template::CreateWidget => (
                Method::POST,
                widgets(),
                vec![],
                vec![json()],
                widget("w", widget_spec(rng)),
                Some(widget_path("w")),
            ),
            Template::UpdateWidget => {
                let mut body = widget("w", widget_spec(rng));
                body["metadata"]["resourceVersion"] = json!("{rv}");
                (
                    Method::PUT,
                    widget_path("w"),
                    vec![],
                    vec![json()],
                    body,
                    Some(widget_path("w")),
                )
            }
            Template::MergeWidget => (
                Method::PATCH,
                widget_path("w"),
                vec![],
                vec![content_type("application/merge-patch+json")],
                json!({"spec": widget_spec(rng)}),
                Some(widget_path("w")),
            ),
            Template::JsonPatchWidget => (
                Method::PATCH,
                widget_path("w"),
                vec![],
                vec![content_type("application/json-patch+json")],
                json!([{"op": "replace", "path": "/spec/s", "value": "patched"},
                       {"op": "add", "path": "/spec/i32", "value": 5}]),
                Some(widget_path("w")),
            ),
            Template::ApplyWidget => (
                Method::PATCH,
                widget_path("w"),
                vec!["fieldManager=fuzz".into()],
                vec![content_type("application/apply-patch+yaml")],
                widget("w", widget_spec(rng)),
                Some(widget_path("w")),
            ),
            Template::StatusWidget => (
                Method::PATCH,
                format!("{}/status", widget_path("w")),
                vec![],
                vec![content_type("application/merge-patch+json")],
                json!({"status": {"ready": true}}),
                Some(widget_path("w")),
            ),
            Template::CreateGadget => (
                Method::POST,
                format!("/apis/{GROUP}/v1/gadgets"),
                vec![],
                vec![json()],
                json!({"apiVersion": API_VERSION, "kind": "Gadget",
                       "metadata": {"name": "g-{ns}"}, "spec": {"s": "x"}}),
                Some(format!("/apis/{GROUP}/v1/gadgets/g-{{ns}}")),
            ),
            Template::CreateLease => (
                Method::POST,
                "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases".into(),
                vec![],
                vec![json()],
                json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                       "metadata": {"name": "l"},
                       "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}),
                Some("/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l".into()),
            ),
        };
        Request {
            template,
            method,
            path,
            query,
            headers,
            body: Body::Json(body),
            object,
        }
    }

    /// The case: the setup the template needs, then this request and the read-back.
    pub fn into_case(self, name: String) -> Case {
        let mut case = Case::new(name);
        if self.template.needs_object() {
            let setup = widget("w", json!({"s": "red", "items": [{"name": "i0", "v": 0}]}));
            case = request(
                case,
                Method::POST,
                &format!("{}?fieldManager=setup", widgets()),
                vec![content_type("application/json")],
                serde_json::to_vec(&setup).unwrap_or_default(),
                None,
            )
            .capture("rv");
        }
        let uri = match self.query.is_empty() {
            true => self.path.clone(),
            false => format!("{}?{}", self.path, self.query.join("&")),
        };
        request(
            case,
            self.method,
            &uri,
            self.headers,
            self.body.bytes(),
            self.object,
        )
    }
}

/// `case` with one more request: `uri` with its query, every header as given (none added), the body as
/// bytes; compared on its own, then `object` (a path) is read back and compared too.
fn request(
    mut case: Case,
    method: Method,
    uri: &str,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    object: Option<String>,
) -> Case {
    let (path, query) = match uri.split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
        None => (uri.to_owned(), None),
    };
    case.steps.push(Step::Write {
        kind: if object.is_some() {
            WriteKind::ThenGet
        } else {
            WriteKind::Only
        },
        method,
        path,
        query,
        content_type: None,
        body: if body.is_empty() {
            Payload::Empty
        } else {
            Payload::Raw(body)
        },
        object,
        capture: None,
        headers,
    });
    case
}
