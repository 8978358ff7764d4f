//! A small language for conformance cases: a case is a named list of requests, each sent to
//! every server. Writes are followed by a GET of the object, so the stored object is compared
//! as well as the response.
//!
//! Placeholders: `{ns}` in paths, queries and bodies is the case's namespace; `"{rv}"` as a
//! JSON string is the object's latest resourceVersion on that server; `{label}` is what a step
//! marked `.capture("label")` returned (its resourceVersion, or its continue token for labels
//! starting with `continue:`).

use http::Method;
use serde_json::Value;

/// A REST resource of one of the conformance kinds.
#[derive(Clone, Copy)]
pub struct Res {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
}

impl Res {
    /// The resource `plural` of `group`/`version`.
    pub const fn new(
        group: &'static str,
        version: &'static str,
        plural: &'static str,
        namespaced: bool,
    ) -> Res {
        Res {
            group,
            version,
            plural,
            namespaced,
        }
    }

    /// The group-version's path: `/api/v1` for the core group, `/apis/<group>/<version>`.
    fn root(&self) -> String {
        match self.group {
            "" => format!("/api/{}", self.version),
            group => format!("/apis/{group}/{}", self.version),
        }
    }

    pub fn collection(&self) -> String {
        match self.namespaced {
            true => format!("{}/namespaces/{{ns}}/{}", self.root(), self.plural),
            false => format!("{}/{}", self.root(), self.plural),
        }
    }

    pub fn object(&self, name: &str) -> String {
        format!("{}/{name}", self.collection())
    }

    pub fn api_version(&self) -> String {
        match self.group {
            "" => self.version.to_owned(),
            group => format!("{group}/{}", self.version),
        }
    }
}

/// What a write sends.
#[derive(Clone)]
pub enum Payload {
    Json(Value),
    Raw(Vec<u8>),
    Empty,
}

/// Whether a request is followed by a GET of its object.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    Only,
    ThenGet,
}

#[derive(Clone)]
pub enum Step {
    Write {
        kind: WriteKind,
        method: Method,
        path: String,
        query: Option<String>,
        content_type: Option<&'static str>,
        /// Other request headers (`Accept`, ...), sent besides `Content-Type`.
        headers: Vec<(String, String)>,
        body: Payload,
        /// The object the request addresses (for `"{rv}"` and the GET after it).
        object: Option<String>,
        capture: Option<String>,
    },
    /// Opens a watch (one open watch per case); its response code is compared.
    Watch { path: String, query: String },
    /// Reads the next `count` events (bookmarks skipped) of the open watch; compared in order.
    Events { count: usize },
}

pub const JSON: &str = "application/json";
pub const MERGE: &str = "application/merge-patch+json";
pub const JSON_PATCH: &str = "application/json-patch+json";
pub const APPLY: &str = "application/apply-patch+yaml";
pub const STRATEGIC: &str = "application/strategic-merge-patch+json";

#[derive(Clone)]
pub struct Case {
    pub name: String,
    pub steps: Vec<Step>,
}

impl Case {
    pub fn new(name: impl Into<String>) -> Case {
        Case {
            name: name.into(),
            steps: Vec::new(),
        }
    }

    /// The number of requests whose answers are compared.
    pub fn requests(&self) -> usize {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Write {
                    kind: WriteKind::ThenGet,
                    object: Some(_),
                    ..
                } => 2,
                _ => 1,
            })
            .sum()
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        mut self,
        kind: WriteKind,
        method: Method,
        path: String,
        query: Option<String>,
        content_type: Option<&'static str>,
        body: Payload,
        object: Option<String>,
    ) -> Case {
        self.steps.push(Step::Write {
            kind,
            method,
            path,
            query,
            content_type,
            headers: Vec::new(),
            body,
            object,
            capture: None,
        });
        self
    }

    /// Sends the last request with the header `name: value` too.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Case {
        if let Some(Step::Write { headers, .. }) = self.steps.last_mut() {
            headers.push((name.to_owned(), value.into()));
        }
        self
    }

    /// Remembers what the last request returned under `label`.
    pub fn capture(mut self, label: &str) -> Case {
        if let Some(Step::Write { capture, .. }) = self.steps.last_mut() {
            *capture = Some(label.to_owned());
        }
        self
    }

    /// POST, with `apiVersion` and `kind` filled in when the body has none.
    pub fn create(self, r: Res, kind: &str, body: Value) -> Case {
        self.create_with(r, kind, None, body)
    }

    /// POST with a query (`dryRun=All`, `fieldValidation=Strict`, ...).
    pub fn create_with(self, r: Res, kind: &str, query: Option<&str>, mut body: Value) -> Case {
        if let Value::Object(m) = &mut body {
            m.entry("apiVersion")
                .or_insert_with(|| Value::String(r.api_version()));
            m.entry("kind")
                .or_insert_with(|| Value::String(kind.to_owned()));
        }
        let object = body["metadata"]["name"].as_str().map(|n| r.object(n));
        self.write(
            WriteKind::ThenGet,
            Method::POST,
            r.collection(),
            query.map(str::to_owned),
            Some(JSON),
            Payload::Json(body),
            object,
        )
    }

    /// PUT of the whole object (write `"resourceVersion": "{rv}"` for the current one).
    pub fn put(self, r: Res, kind: &str, name: &str, sub: Option<&str>, mut body: Value) -> Case {
        if let Value::Object(m) = &mut body {
            m.entry("apiVersion")
                .or_insert_with(|| Value::String(r.api_version()));
            m.entry("kind")
                .or_insert_with(|| Value::String(kind.to_owned()));
        }
        let object = r.object(name);
        let path = match sub {
            Some(s) => format!("{object}/{s}"),
            None => object.clone(),
        };
        self.write(
            WriteKind::ThenGet,
            Method::PUT,
            path,
            None,
            Some(JSON),
            Payload::Json(body),
            Some(object),
        )
    }

    /// PATCH with the given content type, to the object or one of its subresources.
    pub fn patch(
        self,
        r: Res,
        name: &str,
        sub: Option<&str>,
        content_type: &'static str,
        query: Option<&str>,
        body: Value,
    ) -> Case {
        let object = r.object(name);
        let path = match sub {
            Some(s) => format!("{object}/{s}"),
            None => object.clone(),
        };
        let payload = match content_type {
            APPLY => Payload::Raw(serde_json::to_vec(&body).unwrap_or_default()),
            _ => Payload::Json(body),
        };
        self.write(
            WriteKind::ThenGet,
            Method::PATCH,
            path,
            query.map(str::to_owned),
            Some(content_type),
            payload,
            Some(object),
        )
    }

    pub fn merge(self, r: Res, name: &str, body: Value) -> Case {
        self.patch(r, name, None, MERGE, None, body)
    }

    pub fn json_patch(self, r: Res, name: &str, ops: Value) -> Case {
        self.patch(r, name, None, JSON_PATCH, None, ops)
    }

    /// Server-side apply as `manager`.
    pub fn apply(
        self,
        r: Res,
        kind: &str,
        name: &str,
        manager: &str,
        force: bool,
        mut body: Value,
    ) -> Case {
        if let Value::Object(m) = &mut body {
            m.entry("apiVersion")
                .or_insert_with(|| Value::String(r.api_version()));
            m.entry("kind")
                .or_insert_with(|| Value::String(kind.to_owned()));
        }
        let query = format!(
            "fieldManager={manager}{}",
            if force { "&force=true" } else { "" }
        );
        self.patch(r, name, None, APPLY, Some(&query), body)
    }

    pub fn get(self, r: Res, name: &str, sub: Option<&str>) -> Case {
        let path = match sub {
            Some(s) => format!("{}/{s}", r.object(name)),
            None => r.object(name),
        };
        self.write(
            WriteKind::Only,
            Method::GET,
            path,
            None,
            None,
            Payload::Empty,
            None,
        )
    }

    pub fn list(self, r: Res, query: &str) -> Case {
        let query = (!query.is_empty()).then(|| query.to_owned());
        self.write(
            WriteKind::Only,
            Method::GET,
            r.collection(),
            query,
            None,
            Payload::Empty,
            None,
        )
    }

    /// DELETE with options (an empty object for none).
    pub fn delete(self, r: Res, name: &str, options: Value) -> Case {
        let object = r.object(name);
        self.write(
            WriteKind::ThenGet,
            Method::DELETE,
            object.clone(),
            None,
            Some(JSON),
            Payload::Json(options),
            Some(object),
        )
    }

    /// Any request, as bytes, compared on its own.
    pub fn raw(
        self,
        method: Method,
        path: &str,
        content_type: Option<&'static str>,
        body: &[u8],
    ) -> Case {
        let payload = match body.is_empty() {
            true => Payload::Empty,
            false => Payload::Raw(body.to_vec()),
        };
        self.write(
            WriteKind::Only,
            method,
            path.to_owned(),
            None,
            content_type,
            payload,
            None,
        )
    }

    pub fn watch(mut self, r: Res, query: &str) -> Case {
        self.steps.push(Step::Watch {
            path: r.collection(),
            query: query.to_owned(),
        });
        self
    }

    pub fn events(mut self, count: usize) -> Case {
        self.steps.push(Step::Events { count });
        self
    }
}
