//! A resource request, served as the apiserver's CRD handler serves it: the URL's scope
//! and subresource checked first (`customresource_handler.go`), then each verb's handler
//! checking what it checks in its own order (`handlers/create.go`, `update.go`,
//! `patch.go`, `get.go`, `delete.go`), reading the body only at its turn. Which check comes
//! first decides which error a request with several faults gets.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http::{Response, StatusCode, header};
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use serde_json::Value;

use super::media::{self, BodyFormat, Encoding, PatchType};
use super::options::{self, Write};
use super::output::Output;
use super::path::{ResourceRequest, Verb};
use super::warnings::Recorder;
use super::{Call, RequestBody, ResponseBody, page_not_found, read_body};
use crate::Inner;
use crate::builtin;
use crate::decode;
use crate::state::{Change, ListOptions, State, Target, WriteOptions};
use crate::status::ApiError;
use kubegen_runtime::resource::Scope;

/// What the CRD handler makes of a resource request before any verb's handler runs.
enum Resolved {
    /// No handler: the plain-text `404 page not found` (an unknown resource, a served
    /// version the kind lacks, a URL of the other scope).
    PageNotFound,
    Target(Target),
}

/// `crdHandler.ServeHTTP`'s checks: the kind, its scope against the URL's (a namespaced
/// kind is listed and watched across namespaces, nothing else), the version, and the
/// subresource (one the kind does not have is a NotFound naming the object).
fn resolve(state: &State, r: &ResourceRequest) -> Result<Resolved, ApiError> {
    let Some(kind) = state.kind_index(&r.group, &r.resource) else {
        // A built-in group's handler answers for every path under it (an unknown version or
        // resource) with a Status; an unknown group is the plain 404.
        if state
            .kinds
            .iter()
            .any(|k| k.builtin.is_some() && k.group == r.group)
        {
            return Err(ApiError::resource_not_found());
        }
        return Ok(Resolved::PageNotFound);
    };
    let entry = &state.kinds[kind];
    // A namespace's path names it twice (`/api/v1/namespaces/<name>`): the resource is
    // cluster-scoped.
    let namespace = match (entry.group, entry.plural) {
        ("", "namespaces") => "",
        _ => r.namespace.as_str(),
    };
    if let Some(builtin) = entry.builtin
        && !restful_route(r, namespace, builtin.resource())?
    {
        return Ok(Resolved::PageNotFound);
    }
    let namespaced = entry.scope == Scope::Namespaced;
    let across_namespaces = matches!(r.verb, Some(Verb::List | Verb::Watch));
    match (namespaced, namespace.is_empty()) {
        (false, false) => return Ok(Resolved::PageNotFound),
        (true, true) if !across_namespaces => return Ok(Resolved::PageNotFound),
        _ => {}
    }
    let Some(version) = entry.version(&r.version) else {
        return match entry.builtin {
            Some(_) => Err(ApiError::resource_not_found()),
            None => Ok(Resolved::PageNotFound),
        };
    };
    match r.subresource.as_str() {
        "" => {}
        "status" if version.status => {}
        "scale" if version.scale.is_some() => {}
        "finalize" if (entry.group, entry.plural) == ("", "namespaces") => {}
        _ => return Err(ApiError::not_found(entry.group, entry.plural, &r.name)),
    }
    let text = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    Ok(Resolved::Target(Target {
        kind,
        version: version.name.to_owned(),
        namespace: text(namespace),
        name: text(&r.name),
        subresource: text(&r.subresource),
    }))
}

/// A built-in kind is served through go-restful routes, which answer before its handler: a
/// path no route has (`false`) is `404 page not found`, a method its route lacks a 405.
/// Each route serves the verbs discovery lists: the collection (across namespaces, only
/// read), an object, and each subresource.
fn restful_route(
    r: &ResourceRequest,
    namespace: &str,
    resource: &builtin::Resource,
) -> Result<bool, ApiError> {
    let has = |verb: &str| resource.verbs.iter().any(|v| v == verb);
    let mut allowed: Vec<Verb> = Vec::new();
    let mut allow = |verb: Verb, listed: bool| {
        if listed {
            allowed.push(verb);
        }
    };
    match (
        namespace.is_empty(),
        r.name.is_empty(),
        r.subresource.as_str(),
    ) {
        // The collection across namespaces.
        (true, true, "") if resource.namespaced => {
            allow(Verb::List, has("list"));
            allow(Verb::Watch, has("watch"));
        }
        (false, _, _) if !resource.namespaced => return Ok(false),
        (true, false, _) if resource.namespaced => return Ok(false),
        (_, true, "") => {
            allow(Verb::List, has("list"));
            allow(Verb::Watch, has("watch"));
            allow(Verb::Create, has("create"));
            allow(Verb::DeleteCollection, has("deletecollection"));
        }
        (_, false, "") => {
            allow(Verb::Get, has("get"));
            allow(Verb::Update, has("update"));
            allow(Verb::Patch, has("patch"));
            allow(Verb::Delete, has("delete"));
        }
        (_, false, name) => {
            let Some(sub) = resource.subresource(name) else {
                return Ok(false);
            };
            let has = |verb: &str| sub.verbs.iter().any(|v| v == verb);
            allow(Verb::Get, has("get"));
            allow(Verb::Update, has("update"));
            allow(Verb::Patch, has("patch"));
            allow(Verb::Create, has("create"));
            allow(Verb::Delete, has("delete"));
        }
        _ => return Ok(false),
    }
    match r.verb {
        Some(verb) if allowed.contains(&verb) => Ok(true),
        _ => Err(ApiError::restful_method_not_allowed()),
    }
}

/// Serves a resource request; `body` is read at the point the verb's handler reads it.
pub(super) async fn serve(
    inner: &Arc<Inner>,
    call: &Call,
    r: &ResourceRequest,
    body: impl RequestBody,
    warnings: &mut Recorder,
) -> Result<Response<ResponseBody>, ApiError> {
    let (t, group, plural, builtin) = {
        let state = inner.lock();
        match resolve(&state, r)? {
            Resolved::PageNotFound => return Ok(page_not_found()),
            Resolved::Target(t) => {
                let entry = &state.kinds[t.kind];
                (t, entry.group, entry.plural, entry.builtin.is_some())
            }
        }
    };
    // A deprecated built-in resource says so on every request.
    if builtin && (group, plural) == ("", "endpoints") {
        warnings.add(
            "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice".into(),
        );
    }
    // A subresource serves get, update and patch; the resource every verb.
    let verb = match (&t.subresource, r.verb) {
        (Some(_), Some(v @ (Verb::Get | Verb::Update | Verb::Patch))) | (None, Some(v)) => v,
        (_, verb) => {
            let verb = verb.map_or("", Verb::as_str);
            return Err(ApiError::method_not_supported(group, plural, verb));
        }
    };
    // go-restful refuses what a built-in kind's route does not produce in its own words.
    let output = || {
        Output::negotiate(&call.accept(), call.pretty).map_err(|e| match builtin {
            true => ApiError::restful_not_acceptable(),
            false => e,
        })
    };
    match verb {
        Verb::Get => {
            let out = output()?;
            export(call)?;
            let object = inner.lock().get(&t)?;
            Ok(call.answer(&out, 200, object))
        }
        Verb::List => {
            let out = output()?;
            let state = inner.lock();
            let o = list_options(&state, &t, call, false)?;
            Ok(call.answer(&out, 200, state.list(&t, &o)?))
        }
        Verb::Watch => watch(inner, call, &t),
        Verb::Create => {
            let out = output()?;
            let format = media::body_format(&call.content_type())?;
            let sent = Sent::read(call, body).await?;
            let w = options::write(&call.query, Write::Create, &call.user_agent)?;
            let collection = Target {
                name: None,
                ..t.clone()
            };
            let mut state = inner.lock();
            let object = write_body(&state, &t, sent, format, &w, warnings)?;
            let mut found = Vec::new();
            let created = state.create(&collection, object, &w, &mut found);
            warnings.extend(found);
            Ok(call.answer_stored(&out, 201, created?))
        }
        Verb::Update => {
            require_name(&t)?;
            let out = output()?;
            let sent = Sent::read(call, body).await?;
            let w = options::write(&call.query, Write::Update, &call.user_agent)?;
            let format = media::body_format(&call.content_type())?;
            let mut state = inner.lock();
            let object = match t.subresource.as_deref() {
                Some("scale") => decode::object(
                    &json_bytes(&sent.into_bytes(), format, "Scale")?,
                    "Scale",
                    "autoscaling/v1",
                )?,
                _ => write_body(&state, &t, sent, format, &w, warnings)?,
            };
            let mut found = Vec::new();
            let written = state.write(&t, Change::Replace(object), &w, &mut found);
            warnings.extend(found);
            let (code, object) = written?;
            Ok(call.answer_stored(&out, code, object))
        }
        Verb::Patch => {
            let patch = media::patch_type(&call.content_type(), builtin)?;
            require_name(&t)?;
            let out = output()?;
            let body = read_body(call, body).await?;
            let apply = patch == PatchType::Apply;
            let w = options::write(&call.query, Write::Patch { apply }, &call.user_agent)?;
            let change = match patch {
                PatchType::Merge => decode::merge_patch(&body, w.field_validation)
                    .map(|(patch, complaints)| Change::MergePatch(patch, complaints)),
                PatchType::Json => decode::json_patch(&body, w.field_validation)
                    .map(|(patch, complaints)| Change::JsonPatch(patch, complaints)),
                PatchType::Apply => decode::apply(&body)
                    .map(|(object, duplicates)| Change::Apply(object, duplicates)),
                PatchType::Strategic => decode::strategic_patch(&body).map(Change::Strategic),
            };
            // A merge or JSON patch is read when it is applied to the stored object, so an
            // object that is not there is a 404 first (an apply creates it instead).
            let change = match change {
                Err(e) if patch != PatchType::Apply => {
                    inner.lock().get(&t)?;
                    return Err(e);
                }
                change => change?,
            };
            let mut found = Vec::new();
            let written = inner.lock().write(&t, change, &w, &mut found);
            warnings.extend(found);
            let (code, object) = written?;
            Ok(call.answer_stored(&out, code, object))
        }
        Verb::Delete => {
            let out = output()?;
            let body = read_body(call, body).await?;
            let (options, w) = delete_options(call, &body)?;
            let mut found = Vec::new();
            let deleted = inner.lock().delete(&t, &options, &w, &mut found);
            warnings.extend(found);
            let (code, answer) = deleted?;
            Ok(call.answer(&out, code, answer))
        }
        Verb::DeleteCollection => {
            let out = output()?;
            let o = list_options(&inner.lock(), &t, call, false)?;
            let body = read_body(call, body).await?;
            let (options, w) = delete_options(call, &body)?;
            let mut found = Vec::new();
            let deleted = inner
                .lock()
                .delete_collection(&t, &o, &options, &w, &mut found);
            warnings.extend(found);
            Ok(call.answer(&out, 200, deleted?))
        }
        // No request has the rules' wildcard verb.
        Verb::All => Err(ApiError::method_not_supported(group, plural, "")),
    }
}

/// A PUT or PATCH names its object: at a collection URL it is a 400.
fn require_name(t: &Target) -> Result<(), ApiError> {
    match t.name {
        Some(_) => Ok(()),
        None => Err(ApiError::bad_request("name must be provided")),
    }
}

/// `?export` on a GET: accepted when false, refused since Kubernetes 1.14 otherwise.
fn export(call: &Call) -> Result<(), ApiError> {
    match call.query.go_bool("export") {
        Some(true) => Err(ApiError::bad_request(
            "the export parameter, deprecated since v1.14, is no longer supported",
        )),
        _ => Ok(()),
    }
}

/// A list's, watch's or delete-collection's query options: `timeoutSeconds` decoded first
/// (a 400 when it is no integer), then the state's reading of the rest.
fn list_options(
    state: &State,
    t: &Target,
    call: &Call,
    watch: bool,
) -> Result<ListOptions, ApiError> {
    timeout_seconds(call)?;
    state.list_options(t, |key| call.query.first(key), watch)
}

/// `timeoutSeconds`, as Go's `strconv.ParseInt` reads it.
fn timeout_seconds(call: &Call) -> Result<Option<i64>, ApiError> {
    let Some(value) = call.query.first("timeoutSeconds") else {
        return Ok(None);
    };
    value.parse::<i64>().map(Some).map_err(|e| {
        let why = match e.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                "value out of range"
            }
            _ => "invalid syntax",
        };
        ApiError::bad_request(format!(
            "strconv.ParseInt: parsing {}: {why}",
            kubegen_core::go_print::quote(value)
        ))
    })
}

/// A watch: the `Accept` negotiated as for a list, the watch opened, then its stream
/// serializer negotiated (YAML has none: 406).
fn watch(inner: &Arc<Inner>, call: &Call, t: &Target) -> Result<Response<ResponseBody>, ApiError> {
    let out = Output::negotiate(&call.accept(), call.pretty)?;
    let rx = {
        let mut state = inner.lock();
        let o = list_options(&state, t, call, true)?;
        state.watch(
            t,
            o,
            call.query.first("resourceVersion"),
            call.query.go_bool("allowWatchBookmarks").unwrap_or(false),
        )?
    };
    if out.encoding == Encoding::Yaml {
        return Err(media::not_acceptable(true));
    }
    // No timeout, or zero: the apiserver picks one of at least 30 minutes.
    let timeout = match timeout_seconds(call)? {
        Some(s) if s < 0 => Duration::ZERO,
        Some(s) if s > 0 => Duration::from_secs(s.unsigned_abs()),
        _ => Duration::from_secs(1800),
    };
    inner.start_bookmark_ticker();
    let deadline = tokio::time::Instant::now() + timeout;
    let stream = futures::stream::unfold(rx, move |mut rx| async move {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(frame)) => Some((frame, rx)),
            _ => None,
        }
    })
    .map(move |frame| Ok::<_, std::convert::Infallible>(Frame::data(out.watch_event(frame))));
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/json")
        .body(StreamBody::new(stream.boxed()).boxed_unsync())
        .unwrap_or_else(|_| Response::new(http_body_util::Full::new(Bytes::new()).boxed_unsync())))
}

/// A create or update body as it was sent.
enum Sent {
    Bytes(Bytes),
    /// An in-process request's object.
    Value(Value),
}

impl Sent {
    /// The body of `call`: its in-process value, or the bytes read.
    async fn read(call: &Call, body: impl RequestBody) -> Result<Sent, ApiError> {
        match call.take_value() {
            Some(value) => Ok(Sent::Value(value)),
            None => read_body(call, body).await.map(Sent::Bytes),
        }
    }

    /// The body as JSON bytes: an in-process object written out.
    fn into_bytes(self) -> Bytes {
        match self {
            Sent::Bytes(body) => body,
            Sent::Value(object) => Bytes::from(kubegen_go::json::to_vec(&object)),
        }
    }
}

/// A create or update body of `t`'s kind, decoded and coerced with the schema of the
/// version it names. An in-process object naming the endpoint's own type (as the server's
/// controllers' do) is coerced as it is: decoding its JSON would check nothing more.
fn write_body(
    state: &State,
    t: &Target,
    sent: Sent,
    format: BodyFormat,
    w: &WriteOptions,
    warnings: &mut Recorder,
) -> Result<Value, ApiError> {
    let entry = &state.kinds[t.kind];
    let api_version = entry.api_version(&t.version);
    let schema = |version: &str| entry.version(version).map(|v| &v.schema);
    let body = match sent {
        Sent::Value(object)
            if object["apiVersion"] == api_version.as_str() && object["kind"] == entry.kind =>
        {
            let (object, found) =
                decode::write_value(object, entry.kind, &api_version, schema, w.field_validation)?;
            warnings.extend(found);
            return Ok(object);
        }
        sent => sent.into_bytes(),
    };
    let body = body.as_ref();
    let mut yaml = format == BodyFormat::Yaml;
    let typed = match entry.builtin {
        Some(_) => decode::builtin_body(body, yaml, entry.kind, &api_version)?,
        None => None,
    };
    let body = match &typed {
        Some(json) => {
            yaml = false;
            json.as_slice()
        }
        None => body,
    };
    let (object, found) = decode::write_body(
        body,
        yaml,
        entry.kind,
        &api_version,
        schema,
        w.field_validation,
    )?;
    warnings.extend(found);
    Ok(object)
}

/// A body as JSON: YAML bodies (`Content-Type: application/yaml`) are converted first, and
/// their conversion errors answer as the apiserver's for a body of kind `kind`.
fn json_bytes<'b>(
    body: &'b [u8],
    format: BodyFormat,
    kind: &str,
) -> Result<std::borrow::Cow<'b, [u8]>, ApiError> {
    match format {
        BodyFormat::Json => Ok(std::borrow::Cow::Borrowed(body)),
        BodyFormat::Yaml => decode::yaml_to_json(body, kind).map(std::borrow::Cow::Owned),
    }
}

/// A DELETE's options: its body's when it has one (typed by its `Content-Type`), its
/// query's otherwise; checked, with the dry run they ask for.
fn delete_options(call: &Call, body: &[u8]) -> Result<(Value, WriteOptions), ApiError> {
    let options = match body.is_empty() {
        true => options::delete_from_query(&call.query)?,
        false => {
            let format = media::body_format(&call.content_type())?;
            decode::delete_options(&json_bytes(body, format, "DeleteOptions")?)?
        }
    };
    let dry_run = options::check_delete(&options)?;
    let w = WriteOptions {
        dry_run,
        ..WriteOptions::default()
    };
    Ok((options, w))
}
