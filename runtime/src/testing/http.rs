//! The REST surface: routing, discovery, request decoding and response encoding.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::Frame;
use serde_json::{Value, json};

use super::Inner;
use super::decode::{self, FieldValidation};
use super::state::{Change, State, Target, WriteOptions};
use super::status::ApiError;
use crate::fieldpath::managed::manager_from_user_agent;
use crate::resource::Scope;
use crate::validation::gofmt;

/// The response body type of the in-memory server.
pub type ResponseBody = UnsyncBoxBody<Bytes, Infallible>;

/// The apiserver's request size limit.
const MAX_BODY: usize = 3 * 1024 * 1024;

fn full(status: StatusCode, value: &Value) -> Response<ResponseBody> {
    // Go's encoder, as the apiserver's `json.Encoder`, which ends the body with a newline.
    let mut body = kubegen_go::json::to_vec(value);
    body.push(b'\n');
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)).boxed_unsync())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed_unsync()))
}

/// The discovery hash of a kind's storage version: the first 8 bytes of the SHA-256 of
/// `group/version/kind`, in base64, as the apiserver computes it.
fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine as _;
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{group}/{version}/{kind}").as_bytes(),
    );
    base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
}

/// The apiserver's answer for a path no handler serves: plain text, not a `Status`.
fn page_not_found() -> Response<ResponseBody> {
    Response::builder()
        .status(StatusCode::NOT_FOUND)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from_static(b"404 page not found\n")).boxed_unsync())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed_unsync()))
}

/// An error as a `Status` response.
pub fn error(e: &ApiError) -> Response<ResponseBody> {
    let mut r = full(
        StatusCode::from_u16(e.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &e.to_status(),
    );
    if let Some(secs) = e.retry_after
        && let Ok(v) = header::HeaderValue::from_str(&secs.to_string())
    {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

type Query = Vec<(String, String)>;

fn param<'q>(q: &'q Query, key: &str) -> Option<&'q str> {
    q.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn truthy(q: &Query, key: &str) -> bool {
    matches!(param(q, key), Some("true" | "1" | ""))
}

enum Route {
    /// No handler: the apiserver's plain-text `404 page not found`.
    PageNotFound,
    Version,
    CoreGroup,
    CoreResources,
    Groups,
    Group(String),
    Resources(String, String),
    Crds(Option<String>),
    /// A CRD's status subresource.
    CrdStatus(String),
    Object(Target),
}

fn route(state: &State, path: &str) -> Result<Route, ApiError> {
    let parts: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    let target =
        |group: &str,
         version: &str,
         ns: Option<&str>,
         plural: &str,
         name: Option<&str>,
         sub: Option<&str>| {
            let Some(kind) = state.kinds.iter().position(|k| {
                k.group == group && k.plural == plural && k.version(version).is_some()
            }) else {
                return Ok(Route::PageNotFound);
            };
            let entry = &state.kinds[kind];
            // Scope is enforced by the URL: a namespaced kind has no cluster-level object URLs,
            // a cluster-scoped kind has no namespaced URLs.
            match (entry.scope, ns, name) {
                (Scope::Cluster, Some(_), _) | (Scope::Namespaced, None, Some(_)) => {
                    return Ok(Route::PageNotFound);
                }
                _ => {}
            }
            let Some(version) = entry.version(version) else {
                return Ok(Route::PageNotFound);
            };
            match (sub, name) {
                (None, _) => {}
                (Some("status"), _) if version.status => {}
                (Some("scale"), _) if version.scale.is_some() => {}
                // A subresource the kind does not have: the object "is not found".
                (Some(_), Some(name)) => {
                    return Err(ApiError::not_found(entry.group, entry.plural, name));
                }
                (Some(_), None) => return Ok(Route::PageNotFound),
            }
            Ok(Route::Object(Target {
                kind,
                version: version.name.to_owned(),
                namespace: ns.map(str::to_owned),
                name: name.map(str::to_owned),
                subresource: sub.map(str::to_owned),
            }))
        };
    match parts.as_slice() {
        ["version"] => Ok(Route::Version),
        ["api"] => Ok(Route::CoreGroup),
        ["api", "v1"] => Ok(Route::CoreResources),
        ["apis"] => Ok(Route::Groups),
        [
            "apis",
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
        ] => Ok(Route::Crds(None)),
        [
            "apis",
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            name,
        ] => Ok(Route::Crds(Some((*name).to_owned()))),
        [
            "apis",
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            name,
            "status",
        ] => Ok(Route::CrdStatus((*name).to_owned())),
        ["apis", g] => Ok(Route::Group((*g).to_owned())),
        ["apis", g, v] => Ok(Route::Resources((*g).to_owned(), (*v).to_owned())),
        ["apis", g, v, "namespaces", ns, plural] => target(g, v, Some(ns), plural, None, None),
        ["apis", g, v, "namespaces", ns, plural, name] => {
            target(g, v, Some(ns), plural, Some(name), None)
        }
        ["apis", g, v, "namespaces", ns, plural, name, sub] => {
            target(g, v, Some(ns), plural, Some(name), Some(sub))
        }
        ["apis", g, v, plural] => target(g, v, None, plural, None, None),
        ["apis", g, v, plural, name] => target(g, v, None, plural, Some(name), None),
        ["apis", g, v, plural, name, sub] => target(g, v, None, plural, Some(name), Some(sub)),
        _ => Ok(Route::PageNotFound),
    }
}

fn discovery(state: &State, r: &Route) -> Option<Result<Value, ApiError>> {
    let groups = || {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = vec![json!({
            "name": "apiextensions.k8s.io",
            "versions": [{"groupVersion": "apiextensions.k8s.io/v1", "version": "v1"}],
            "preferredVersion": {"groupVersion": "apiextensions.k8s.io/v1", "version": "v1"},
        })];
        for k in &state.kinds {
            if seen.contains(&k.group) {
                continue;
            }
            seen.push(k.group);
            let mut versions: Vec<&str> = state
                .kinds
                .iter()
                .filter(|o| o.group == k.group)
                .flat_map(|o| o.versions.iter().filter(|v| v.served).map(|v| v.name))
                .collect();
            versions.sort_by_key(|v| std::cmp::Reverse(crate::crd::version_priority(v)));
            versions.dedup();
            let list: Vec<Value> = versions
                .iter()
                .map(|v| json!({"groupVersion": format!("{}/{v}", k.group), "version": v}))
                .collect();
            out.push(
                json!({"name": k.group, "versions": list.clone(), "preferredVersion": list[0]}),
            );
        }
        out
    };
    Some(Ok(match r {
        Route::Version => {
            json!({"major": "1", "minor": "37", "gitVersion": "v1.37.0-kubegen", "platform": "linux/amd64"})
        }
        Route::CoreGroup => {
            json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})
        }
        Route::CoreResources => {
            json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": []})
        }
        Route::Groups => json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups()}),
        Route::Group(g) => match groups().into_iter().find(|x| x["name"] == g.as_str()) {
            Some(mut group) => {
                group["kind"] = json!("APIGroup");
                group["apiVersion"] = json!("v1");
                group
            }
            None => return Some(Err(ApiError::no_route(&format!("/apis/{g}")))),
        },
        Route::Resources(g, v) if g == "apiextensions.k8s.io" && v == "v1" => json!({
            "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apiextensions.k8s.io/v1",
            "resources": [{"name": "customresourcedefinitions", "singularName": "customresourcedefinition", "namespaced": false, "kind": "CustomResourceDefinition", "verbs": ["get", "list"], "shortNames": ["crd", "crds"]}],
        }),
        Route::Resources(g, v) => {
            let mut resources = Vec::new();
            for k in state.kinds.iter().filter(|k| k.group == g.as_str()) {
                let Some(version) = k.version(v) else {
                    continue;
                };
                let namespaced = k.scope == Scope::Namespaced;
                let mut resource = json!({
                    "name": k.plural, "singularName": k.singular, "namespaced": namespaced, "kind": k.kind,
                    "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
                    "storageVersionHash": storage_version_hash(k.group, k.storage, k.kind),
                });
                if !k.short_names.is_empty() {
                    resource["shortNames"] = json!(k.short_names);
                }
                if !k.categories.is_empty() {
                    resource["categories"] = json!(k.categories);
                }
                resources.push(resource);
                if version.status {
                    resources.push(json!({"name": format!("{}/status", k.plural), "singularName": "", "namespaced": namespaced, "kind": k.kind, "verbs": ["get", "patch", "update"]}));
                }
                if version.scale.is_some() {
                    resources.push(json!({"name": format!("{}/scale", k.plural), "singularName": "", "namespaced": namespaced, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}));
                }
            }
            if resources.is_empty() {
                return Some(Err(ApiError::no_route(&format!("/apis/{g}/{v}"))));
            }
            json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": format!("{g}/{v}"), "resources": resources})
        }
        Route::Crds(None) => json!({
            "kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1",
            "metadata": {"resourceVersion": state.resource_version().to_string()},
            "items": state.kinds.iter().filter(|k| k.builtin.is_none()).map(|k| k.crd.clone()).collect::<Vec<_>>(),
        }),
        Route::Crds(Some(name)) => match state
            .kinds
            .iter()
            .find(|k| k.crd["metadata"]["name"] == name.as_str())
        {
            Some(k) => k.crd.clone(),
            None => {
                return Some(Err(ApiError::not_found(
                    "apiextensions.k8s.io",
                    "customresourcedefinitions",
                    name,
                )));
            }
        },
        Route::Object(_) | Route::CrdStatus(_) | Route::PageNotFound => return None,
    }))
}

/// Serves one request.
pub async fn handle<B>(inner: Arc<Inner>, req: Request<B>) -> Response<ResponseBody>
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    if let Some(delay) = inner.faults.latency() {
        tokio::time::sleep(delay).await;
    }
    if let Some(e) = inner.faults.take_failure() {
        return error(&e);
    }
    let (parts, body) = req.into_parts();
    let query: Query = parts
        .uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let bytes = match Limited::new(body, MAX_BODY).collect().await {
        Ok(c) => c.to_bytes(),
        Err(_) => return error(&ApiError::too_large()),
    };
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_owned();
    let path = parts.uri.path().to_owned();
    let user_agent = parts
        .headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let method = parts.method.clone();
    let watch_requested = truthy(&query, "watch");
    if watch_requested && inner.faults.take_watch_failure() {
        return error(&ApiError::injected(500, None));
    }

    let mut warnings = Vec::new();
    let outcome = {
        let mut state = inner.lock();
        let route = match route(&state, &path) {
            Ok(r) => r,
            Err(e) => return error(&e),
        };
        if matches!(route, Route::PageNotFound) {
            return page_not_found();
        }
        if let Route::CrdStatus(name) = &route {
            return crd_status(&mut state, name, &method, &content_type, &bytes);
        }
        if let Some(result) = discovery(&state, &route) {
            // Applying or updating a CRD the server already serves (as an operator does at
            // start-up) is acknowledged with the served CRD; new kinds cannot be added.
            let crd_write = matches!(route, Route::Crds(Some(_)))
                && matches!(method, Method::PATCH | Method::PUT);
            return match (method, result) {
                (Method::GET, Ok(v)) => full(StatusCode::OK, &v),
                (_, Ok(v)) if crd_write => full(StatusCode::OK, &v),
                (Method::GET, Err(e)) => error(&e),
                (m, _) => error(&ApiError::method_not_allowed(m.as_str())),
            };
        }
        let Route::Object(target) = route else {
            return error(&ApiError::no_route(&path));
        };
        dispatch(
            &mut state,
            &target,
            &method,
            &query,
            &bytes,
            &content_type,
            watch_requested,
            &user_agent,
            &mut warnings,
        )
    };
    let mut response = respond(&inner, outcome);
    // Identical warnings are sent once, as the apiserver's recorder does.
    let mut sent = Vec::new();
    for warning in warnings {
        if sent.contains(&warning) {
            continue;
        }
        if let Ok(v) = header::HeaderValue::from_str(&format!("299 - {}", gofmt::quote(&warning))) {
            response.headers_mut().append(header::WARNING, v);
        }
        sent.push(warning);
    }
    response
}

/// A CRD's status subresource: reads, and writes of `status` alone (a storage version
/// migration trims `storedVersions` there; the apiserver does not validate them on status
/// writes). The rest of a served CRD is fixed.
fn crd_status(
    state: &mut State,
    name: &str,
    method: &Method,
    content_type: &str,
    body: &[u8],
) -> Response<ResponseBody> {
    let Some(kind) = state
        .kinds
        .iter_mut()
        .find(|k| k.crd["metadata"]["name"] == name)
    else {
        return error(&ApiError::not_found(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            name,
        ));
    };
    if *method == Method::GET {
        return full(StatusCode::OK, &kind.crd);
    }
    let sent: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return error(&ApiError::bad_request(e.to_string())),
    };
    let mut status = kind.crd["status"].clone();
    match (method, content_type) {
        (&Method::PUT, _) => status = sent["status"].clone(),
        (&Method::PATCH, "application/merge-patch+json") => {
            json_patch::merge(&mut status, &sent["status"])
        }
        (&Method::PATCH, _) => return error(&ApiError::unsupported_media_type()),
        (m, _) => return error(&ApiError::method_not_allowed(m.as_str())),
    }
    kind.crd["status"] = status;
    full(StatusCode::OK, &kind.crd)
}

fn respond(inner: &Arc<Inner>, outcome: Result<Outcome, ApiError>) -> Response<ResponseBody> {
    match outcome {
        Ok(Outcome::Json(code, v)) => {
            full(StatusCode::from_u16(code).unwrap_or(StatusCode::OK), &v)
        }
        Ok(Outcome::Watch(rx, timeout)) => {
            inner.start_bookmark_ticker();
            let deadline = tokio::time::Instant::now() + timeout;
            let stream = futures::stream::unfold(rx, move |mut rx| async move {
                match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Ok(Some(frame)) => Some((Ok::<_, Infallible>(Frame::data(frame)), rx)),
                    _ => None,
                }
            });
            Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "application/json")
                .body(StreamBody::new(stream.boxed()).boxed_unsync())
                .unwrap_or_else(|_| error(&ApiError::bad_request("watch")))
        }
        Err(e) => error(&e),
    }
}

enum Outcome {
    Json(u16, Value),
    Watch(tokio::sync::mpsc::Receiver<Bytes>, std::time::Duration),
}

#[allow(clippy::too_many_arguments)]
fn dispatch(
    state: &mut State,
    t: &Target,
    method: &Method,
    q: &Query,
    body: &[u8],
    content_type: &str,
    watch: bool,
    user_agent: &str,
    warnings: &mut Vec<String>,
) -> Result<Outcome, ApiError> {
    let options = match *method {
        Method::POST => "CreateOptions",
        Method::PUT => "UpdateOptions",
        _ => "PatchOptions",
    };
    let w = WriteOptions {
        dry_run: param(q, "dryRun") == Some("All"),
        // Without `fieldManager`, the manager is named after the User-Agent.
        field_manager: Some(match param(q, "fieldManager") {
            Some(m) => m.to_owned(),
            None => manager_from_user_agent(user_agent),
        }),
        force: param(q, "force") == Some("true"),
        field_validation: match *method {
            Method::POST | Method::PUT | Method::PATCH => {
                decode::field_validation(param(q, "fieldValidation"), options)?
            }
            _ => FieldValidation::default(),
        },
    };
    // A write body of this kind, decoded and coerced with the schema of the version it names.
    let mut write_body = |body: &[u8]| -> Result<Value, ApiError> {
        let entry = &state.kinds[t.kind];
        let (object, found) = decode::write_body(
            body,
            content_type == "application/yaml",
            entry.kind,
            &entry.api_version(&t.version),
            |version| entry.version(version).map(|v| &v.schema),
            w.field_validation,
        )?;
        warnings.extend(found);
        Ok(object)
    };
    let list_options = || state.list_options(t, |key| param(q, key), watch);
    let collection = t.name.is_none();
    match (method, collection) {
        (&Method::GET, true) if watch => {
            let o = list_options()?;
            let timeout = param(q, "timeoutSeconds")
                .and_then(|s| s.parse::<u64>().ok())
                .unwrap_or(1800);
            let rx = state.watch(
                t,
                o,
                param(q, "resourceVersion"),
                truthy(q, "allowWatchBookmarks"),
            )?;
            Ok(Outcome::Watch(rx, std::time::Duration::from_secs(timeout)))
        }
        (&Method::GET, true) => {
            let o = list_options()?;
            state.list(t, &o).map(|v| Outcome::Json(200, v))
        }
        // A POST to an object's path is a create as well; the name comes from the body.
        (&Method::POST, _) if t.subresource.is_none() => {
            if t.namespace.is_none() && state.kinds[t.kind].scope == Scope::Namespaced {
                return Err(ApiError::no_route(
                    "a namespaced kind is created in a namespace",
                ));
            }
            let collection = Target {
                name: None,
                ..t.clone()
            };
            let object = write_body(body)?;
            state
                .create(&collection, object, &w, warnings)
                .map(|v| Outcome::Json(201, v))
        }
        (&Method::PUT, true) => Err(ApiError::bad_request("name must be provided")),
        (&Method::DELETE, true) => {
            let o = list_options()?;
            let options = decode::delete_options(body)?;
            state
                .delete_collection(t, &o, &options, &w, warnings)
                .map(|v| Outcome::Json(200, v))
        }
        (&Method::GET, false) => state.get(t).map(|v| Outcome::Json(200, v)),
        (&Method::PUT, false) => {
            let object = match t.subresource.as_deref() {
                Some("scale") => decode::object(body, "Scale", "autoscaling/v1")?,
                _ => write_body(body)?,
            };
            state
                .write(t, Change::Replace(object), &w, warnings)
                .map(|(c, v)| Outcome::Json(c, v))
        }
        (&Method::PATCH, false) => {
            let change = match content_type {
                "application/merge-patch+json" => {
                    let (patch, complaints) = decode::merge_patch(body, w.field_validation)?;
                    Change::MergePatch(patch, complaints)
                }
                "application/json-patch+json" => {
                    let (patch, complaints) = decode::json_patch(body, w.field_validation)?;
                    Change::JsonPatch(patch, complaints)
                }
                "application/apply-patch+yaml" | "application/apply-patch+cbor"
                    if param(q, "fieldManager").unwrap_or("").is_empty() =>
                {
                    return Err(ApiError::field_manager_required());
                }
                "application/apply-patch+yaml" | "application/apply-patch+cbor" => {
                    let (object, duplicates) = decode::apply(body)?;
                    Change::Apply(object, duplicates)
                }
                _ => return Err(ApiError::unsupported_media_type()),
            };
            state
                .write(t, change, &w, warnings)
                .map(|(c, v)| Outcome::Json(c, v))
        }
        (&Method::DELETE, false) => {
            let options = decode::delete_options(body)?;
            state
                .delete(t, &options, &w, warnings)
                .map(|v| Outcome::Json(200, v))
        }
        (m, _) => Err(ApiError::method_not_allowed(m.as_str())),
    }
}
