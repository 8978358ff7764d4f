//! How an in-memory controller reads and writes: reads straight from the server's objects
//! (always current, as an informer that never lags), writes as requests through the whole
//! request path — routing, the body's coercion to its schema, admission, defaulting,
//! validation, field management, watches — under kube-controller-manager's user agent, so
//! they get what the controller-manager's writes get on a real apiserver, `managedFields`
//! manager included. Their bodies and answers stay values ([`InProcess`]): an object is not
//! written out as JSON only for the server to read it back.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util::{BodyExt, Full};
use serde_json::Value;

use crate::http::{self as front, Answered, InProcess};
use crate::{Clock, Inner};
use kubegen_runtime::resource::Scope;

/// kube-controller-manager's user agent; the controller's name follows it.
pub(crate) const USER_AGENT: &str =
    "kube-controller-manager/v1.36.2 (linux/amd64) kubernetes/98b3519";

/// A resource the server serves: group, version and plural.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Resource {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
}

impl Resource {
    pub(crate) const fn new(
        group: &'static str,
        version: &'static str,
        plural: &'static str,
    ) -> Self {
        Resource {
            group,
            version,
            plural,
        }
    }

    /// The resource's path, of a namespace's objects or (`namespace` empty) of all of them
    /// or of a cluster-scoped resource, with `name` and `subresource` appended when given.
    pub(crate) fn path(
        &self,
        namespace: &str,
        name: Option<&str>,
        subresource: Option<&str>,
    ) -> String {
        let mut path = match self.group {
            "" => format!("/api/{}", self.version),
            g => format!("/apis/{g}/{}", self.version),
        };
        let namespaces = self.group.is_empty() && self.plural == "namespaces";
        if !namespace.is_empty() && !namespaces {
            path.push_str("/namespaces/");
            path.push_str(&escape(namespace));
        }
        path.push('/');
        path.push_str(self.plural);
        for segment in [name, subresource].into_iter().flatten() {
            path.push('/');
            path.push_str(&escape(segment));
        }
        path
    }
}

/// Percent-encodes a path segment (names are DNS names, but a stray one must not break the
/// path).
fn escape(segment: &str) -> String {
    form_urlencoded::byte_serialize(segment.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

pub(crate) const NAMESPACES: Resource = Resource::new("", "v1", "namespaces");
pub(crate) const PODS: Resource = Resource::new("", "v1", "pods");
pub(crate) const EVENTS: Resource = Resource::new("", "v1", "events");
pub(crate) const CONFIG_MAPS: Resource = Resource::new("", "v1", "configmaps");
pub(crate) const SERVICE_ACCOUNTS: Resource = Resource::new("", "v1", "serviceaccounts");
pub(crate) const NODES: Resource = Resource::new("", "v1", "nodes");
pub(crate) const PERSISTENT_VOLUME_CLAIMS: Resource =
    Resource::new("", "v1", "persistentvolumeclaims");
pub(crate) const DEPLOYMENTS: Resource = Resource::new("apps", "v1", "deployments");
pub(crate) const REPLICA_SETS: Resource = Resource::new("apps", "v1", "replicasets");
pub(crate) const STATEFUL_SETS: Resource = Resource::new("apps", "v1", "statefulsets");
pub(crate) const DAEMON_SETS: Resource = Resource::new("apps", "v1", "daemonsets");
pub(crate) const CONTROLLER_REVISIONS: Resource =
    Resource::new("apps", "v1", "controllerrevisions");
pub(crate) const JOBS: Resource = Resource::new("batch", "v1", "jobs");
pub(crate) const CRON_JOBS: Resource = Resource::new("batch", "v1", "cronjobs");

/// A kind the server serves, as discovery describes it.
#[derive(Clone, Debug)]
pub(crate) struct Served {
    /// The resource at the kind's storage version.
    pub resource: Resource,
    pub namespaced: bool,
}

/// The patch types a controller sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Patch {
    Merge,
    Strategic,
}

impl Patch {
    fn content_type(self) -> &'static str {
        match self {
            Patch::Merge => "application/merge-patch+json",
            Patch::Strategic => "application/strategic-merge-patch+json",
        }
    }
}

/// A request the server refused: its code and `Status`.
#[derive(Clone, Debug)]
pub(crate) struct Refused {
    pub code: u16,
    pub reason: String,
    pub message: String,
    pub status: Value,
}

impl Refused {
    pub(crate) fn is_not_found(&self) -> bool {
        self.code == 404
    }

    pub(crate) fn is_conflict(&self) -> bool {
        self.code == 409 && self.reason == "Conflict"
    }

    pub(crate) fn is_already_exists(&self) -> bool {
        self.code == 409 && self.reason == "AlreadyExists"
    }

    /// Whether the namespace is being deleted (a create refused with the cause
    /// `NamespaceTerminating`), which controllers let go.
    pub(crate) fn is_namespace_terminating(&self) -> bool {
        self.status["details"]["causes"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["reason"] == "NamespaceTerminating"))
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for Refused {}

impl From<Refused> for String {
    fn from(r: Refused) -> String {
        r.to_string()
    }
}

/// One controller's access to the server.
pub(crate) struct Api {
    inner: Arc<Inner>,
    user_agent: Arc<str>,
}

impl Api {
    pub(crate) fn new(inner: Arc<Inner>, user_agent: Arc<str>) -> Self {
        Api { inner, user_agent }
    }

    /// The cluster's clock.
    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// Every kind the server serves (its storage version).
    pub(crate) fn served(&self) -> Vec<Served> {
        let state = self.inner.lock();
        (state.kinds.iter())
            .map(|k| Served {
                resource: Resource::new(k.group, k.storage, k.plural),
                namespaced: k.scope == Scope::Namespaced,
            })
            .collect()
    }

    /// The served resource of `kind` in `group` at `version` (a REST mapping), and whether
    /// it is namespaced.
    pub(crate) fn mapping(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Option<(Resource, bool)> {
        let state = self.inner.lock();
        (state.kinds.iter())
            .filter(|k| k.group == group && k.kind == kind)
            .find_map(|k| {
                let v = k.versions.iter().find(|v| v.served && v.name == version)?;
                let resource = Resource::new(k.group, v.name, k.plural);
                Some((resource, k.scope == Scope::Namespaced))
            })
    }

    /// The stored object, at the resource's storage version, shared with the store (a
    /// controller that changes it works on its own copy: `Value::clone(&object)`).
    pub(crate) fn get(&self, r: Resource, namespace: &str, name: &str) -> Option<Arc<Value>> {
        (self.inner.lock()).stored_object(r.group, r.plural, namespace, name)
    }

    /// The stored objects of a resource, in one namespace or (`None`) all, in key order,
    /// shared with the store.
    pub(crate) fn list(&self, r: Resource, namespace: Option<&str>) -> Vec<Arc<Value>> {
        (self.inner.lock()).stored_objects(r.group, r.plural, namespace)
    }

    /// [`Api::get`] as the controller's own copy, to change.
    pub(crate) fn get_owned(&self, r: Resource, namespace: &str, name: &str) -> Option<Value> {
        self.get(r, namespace, name).map(Arc::unwrap_or_clone)
    }

    /// [`Api::list`] as the controller's own copies, to change.
    pub(crate) fn list_owned(&self, r: Resource, namespace: Option<&str>) -> Vec<Value> {
        let shared = self.list(r, namespace);
        shared.into_iter().map(Arc::unwrap_or_clone).collect()
    }

    /// POST of a new object.
    pub(crate) fn create(
        &self,
        r: Resource,
        namespace: &str,
        body: impl Body,
    ) -> Result<Arc<Value>, Refused> {
        self.send(
            Method::POST,
            r.path(namespace, None, None),
            "application/json",
            Some(body.into_value()),
        )
    }

    /// PUT of the whole object.
    pub(crate) fn update(
        &self,
        r: Resource,
        namespace: &str,
        name: &str,
        body: impl Body,
    ) -> Result<Arc<Value>, Refused> {
        self.send(
            Method::PUT,
            r.path(namespace, Some(name), None),
            "application/json",
            Some(body.into_value()),
        )
    }

    /// PUT of the whole object to its `/status`.
    pub(crate) fn update_status(
        &self,
        r: Resource,
        namespace: &str,
        name: &str,
        body: impl Body,
    ) -> Result<Arc<Value>, Refused> {
        let path = r.path(namespace, Some(name), Some("status"));
        self.send(
            Method::PUT,
            path,
            "application/json",
            Some(body.into_value()),
        )
    }

    /// PATCH of the object, or of its `subresource`.
    pub(crate) fn patch(
        &self,
        r: Resource,
        namespace: &str,
        name: &str,
        subresource: Option<&str>,
        patch: Patch,
        body: impl Body,
    ) -> Result<Arc<Value>, Refused> {
        let path = r.path(namespace, Some(name), subresource);
        self.send(
            Method::PATCH,
            path,
            patch.content_type(),
            Some(body.into_value()),
        )
    }

    /// DELETE with `options` (a `DeleteOptions` body, or `Value::Null` for none).
    pub(crate) fn delete(
        &self,
        r: Resource,
        namespace: &str,
        name: &str,
        options: &Value,
    ) -> Result<Arc<Value>, Refused> {
        let body = (!options.is_null()).then(|| options.clone());
        self.send(
            Method::DELETE,
            r.path(namespace, Some(name), None),
            "application/json",
            body,
        )
    }

    /// Any request: `path` may carry a query. It goes through the server's whole request
    /// path, but [`InProcess`]: the body and the answer are values, not JSON, and an answer
    /// that is a stored object is the store's own, shared ([`Answered`]).
    pub(crate) fn send(
        &self,
        method: Method,
        path: String,
        content_type: &str,
        body: Option<Value>,
    ) -> Result<Arc<Value>, Refused> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::USER_AGENT, &*self.user_agent)
            .header(header::ACCEPT, "application/json");
        if body.is_some() {
            request = request.header(header::CONTENT_TYPE, content_type);
        }
        request = request.extension(InProcess(body));
        let request = request
            .body(Full::new(Bytes::new()))
            .map_err(|e| refused(400, "BadRequest", e.to_string()))?;
        let inner = self.inner.clone();
        let answer = crate::stack::deep(move || {
            let mut response = now_or_never(front::handle_internal(inner, request))?;
            let code = response.status().as_u16();
            let value = response.extensions_mut().remove::<Answered>();
            let body = now_or_never(response.into_body().collect())?
                .ok()?
                .to_bytes();
            Some((code, value.map(|Answered(value)| value), body))
        });
        let Some((code, value, body)) = answer else {
            return Err(refused(
                500,
                "InternalError",
                "the request did not complete at once".into(),
            ));
        };
        let value = value.unwrap_or_else(|| {
            let decoded = kubegen_go::json::decode(&body, &[]).ok();
            Arc::new(decoded.and_then(|d| d.value.ok()).unwrap_or(Value::Null))
        });
        if (200..300).contains(&code) {
            return Ok(value);
        }
        let value = Arc::unwrap_or_clone(value);
        Err(Refused {
            code,
            reason: value["reason"].as_str().unwrap_or_default().to_owned(),
            message: value["message"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| String::from_utf8_lossy(&body).into_owned()),
            status: value,
        })
    }
}

/// A request's body: a value the caller gives up, or one it keeps (then it is copied).
pub(crate) trait Body {
    fn into_value(self) -> Value;
}

impl Body for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl Body for &Value {
    fn into_value(self) -> Value {
        self.clone()
    }
}

impl Body for &Arc<Value> {
    fn into_value(self) -> Value {
        Value::clone(self)
    }
}

fn refused(code: u16, reason: &str, message: String) -> Refused {
    Refused {
        code,
        reason: reason.to_owned(),
        message,
        status: Value::Null,
    }
}

/// Polls `future` until it is ready, if it is ready without waiting: the server's handlers
/// wait for nothing but a watch, which controllers do not open.
fn now_or_never<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..16 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return Some(output);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApiServer;
    use serde_json::json;

    /// A Deployment named `name`; its `replicas` a float, which Go writes and reads back as
    /// an integer.
    fn deployment(name: &str) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": {"app": "a"}},
            "spec": {
                "replicas": 2.0,
                "selector": {"matchLabels": {"app": "a"}},
                "template": {
                    "metadata": {"labels": {"app": "a"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                },
            },
        })
    }

    /// `object` without what differs between two objects created alike.
    fn comparable(mut object: Value) -> Value {
        let metadata = object["metadata"].as_object_mut().expect("metadata");
        for key in ["name", "uid", "resourceVersion", "creationTimestamp"] {
            metadata.remove(key);
        }
        for entry in metadata["managedFields"]
            .as_array_mut()
            .expect("managed fields")
        {
            entry.as_object_mut().expect("an entry").remove("time");
        }
        object
    }

    /// A controller's request, whose body and answer are values, gets what the same request
    /// as JSON over the server's HTTP front gets: the answer, the stored object and its
    /// managed fields, numbers read as Go reads them.
    #[tokio::test]
    async fn in_process_requests_answer_as_json_ones() {
        let server = ApiServer::new();
        server.create_namespace("ns").expect("the namespace");
        let api = Api::new(server.inner.clone(), USER_AGENT.into());
        let in_process = api
            .create(DEPLOYMENTS, "ns", deployment("a"))
            .expect("created");
        assert_eq!(in_process["spec"]["replicas"], json!(2));
        assert!(in_process["spec"]["replicas"].is_i64());

        let request = Request::builder()
            .method(Method::POST)
            .uri(DEPLOYMENTS.path("ns", None, None))
            .header(header::USER_AGENT, USER_AGENT)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(kubegen_go::json::to_vec(
                &deployment("b"),
            ))))
            .expect("a request");
        let response = front::handle_internal(server.inner.clone(), request).await;
        assert_eq!(response.status(), 201);
        let body = response.into_body().collect().await.expect("a body");
        let over_http: Value = serde_json::from_slice(&body.to_bytes()).expect("JSON");
        assert_eq!(comparable(Value::clone(&in_process)), comparable(over_http));

        let stored = |name| api.get_owned(DEPLOYMENTS, "ns", name).expect("stored");
        assert_eq!(comparable(stored("a")), comparable(stored("b")));

        // A refusal comes back as the apiserver's Status either way.
        let refused = api
            .create(DEPLOYMENTS, "ns", deployment("a"))
            .expect_err("the name is taken");
        assert!(refused.is_already_exists(), "{refused:?}");
        assert_eq!(refused.status["kind"], "Status");
    }

    #[test]
    fn paths_are_the_apiservers() {
        assert_eq!(
            PODS.path("ns", Some("a"), Some("status")),
            "/api/v1/namespaces/ns/pods/a/status"
        );
        assert_eq!(PODS.path("", None, None), "/api/v1/pods");
        assert_eq!(
            DEPLOYMENTS.path("ns", None, None),
            "/apis/apps/v1/namespaces/ns/deployments"
        );
        assert_eq!(
            NAMESPACES.path("", Some("x"), Some("finalize")),
            "/api/v1/namespaces/x/finalize"
        );
        assert_eq!(NODES.path("", Some("n 1"), None), "/api/v1/nodes/n%201");
    }
}
