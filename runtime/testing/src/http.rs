//! The REST surface: what the apiserver's HTTP front does before and around its handlers. The path
//! is percent-decoded and split as Go's server and `RequestInfoFactory` do ([`path`]), the query
//! read as Go's `url.ParseQuery` reads it ([`query`]), `timeout` checked first for everything but
//! watches ([`duration`](crate::duration)), then discovery, the CRDs, or a resource request
//! ([`resource`]), whose handlers check `Accept` and `Content-Type` ([`media`]), read the body (at
//! most 3 MiB) and check their options ([`options`]) in each verb's order. Responses are written in
//! the type the client accepts ([`output`]), with the request's warnings as the apiserver's
//! recorder writes them ([`warnings`]).

mod crds;
mod discovery;
mod media;
mod options;
mod output;
mod path;
mod query;
mod resource;
mod virtual_resources;
mod warnings;

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode, header};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use parking_lot::Mutex;
use serde_json::Value;

use self::crds::CrdRequest;
use self::discovery::Discovery;
use self::path::Verb;
use self::query::Query;
use self::warnings::Recorder;
use super::Inner;
use super::status::ApiError;

/// The response body type of the in-memory server.
pub type ResponseBody = UnsyncBoxBody<Bytes, Infallible>;

/// The apiserver's request body limit (`MaxRequestBodyBytes`): 3 MiB.
const MAX_BODY: usize = 3 * 1024 * 1024;

/// The most bytes a request line and its headers may take: the apiserver's
/// `MaxHeaderBytes` (1 MiB) and the 4096 bytes Go's server reads beyond it. Past it, the
/// answer is a 431.
pub(super) const MAX_HEADER_BYTES: usize = (1 << 20) + 4096;

/// The most headers a request can have within [`MAX_HEADER_BYTES`] (`a:` and a line end
/// each): Go counts no headers, so only their size limits them.
pub(super) const MAX_HEADERS: usize = MAX_HEADER_BYTES / 4;

/// A request body the server can read.
pub(super) trait RequestBody:
    http_body::Body<Data: Send, Error: Into<Box<dyn std::error::Error + Send + Sync>>> + Send + 'static
{
}

impl<B> RequestBody for B
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
}

/// A request of the server's own controllers, in its extensions: its body (if any) is this
/// value rather than bytes, and the answer comes back as one in the response's extensions
/// (its body left empty). Nothing is written out as JSON only to be read back: the value is
/// what decoding the JSON would give, numbers included ([`kubegen_go::json::through_storage`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct InProcess(pub Option<Value>);

/// The answer to an [`InProcess`] request, in the response's extensions: shared with the
/// store when it is a stored object shown as stored.
#[derive(Clone, Debug)]
pub(crate) struct Answered(pub Arc<Value>);

/// One request, as the handlers read it.
pub(super) struct Call {
    method: Method,
    segments: Vec<String>,
    query: Query,
    headers: HeaderMap,
    user_agent: String,
    /// Whether the request asks for indented JSON (`?pretty`, or a browser's User-Agent).
    pretty: bool,
    /// Whether the request is [`InProcess`], answered with a value.
    in_process: bool,
    /// An [`InProcess`] request's body, until a handler takes it.
    value: Mutex<Option<Value>>,
}

impl Call {
    fn header(&self, name: header::HeaderName) -> String {
        self.headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default()
    }

    /// The `Accept` header (empty when absent).
    fn accept(&self) -> String {
        self.header(header::ACCEPT)
    }

    /// The `Content-Type` header (empty when absent).
    fn content_type(&self) -> String {
        self.header(header::CONTENT_TYPE)
    }

    /// An [`InProcess`] request's body as a value; taken once, after which the body reads as
    /// its JSON ([`read_body`]).
    fn take_value(&self) -> Option<Value> {
        self.value.lock().take()
    }

    /// `value` with `code`, as `out` writes it, or as a value to an [`InProcess`] request
    /// that asked for no transformation.
    fn answer(&self, out: &output::Output, code: u16, mut value: Value) -> Response<ResponseBody> {
        if self.in_process && out.convert.is_none() {
            kubegen_go::json::through_storage(&mut value);
        }
        self.answer_stored(out, code, Arc::new(value))
    }

    /// [`Call::answer`] with an object as storage reads it back (its numbers already Go's),
    /// which an [`InProcess`] request gets shared, not copied.
    fn answer_stored(
        &self,
        out: &output::Output,
        code: u16,
        value: Arc<Value>,
    ) -> Response<ResponseBody> {
        if !self.in_process || out.convert.is_some() {
            return out.write(code, value);
        }
        let mut response = Response::new(Full::new(Bytes::new()).boxed_unsync());
        *response.status_mut() =
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        response.extensions_mut().insert(Answered(value));
        response
    }
}

/// Serves one request.
pub(super) async fn handle(
    inner: Arc<Inner>,
    req: Request<impl RequestBody>,
) -> Response<ResponseBody> {
    if let Some(delay) = inner.faults.latency() {
        tokio::time::sleep(delay).await;
    }
    handle_with(inner, req, true).await
}

/// Serves one request of the server's own controllers: as any other, but past the injected
/// faults and latency, which are the test's for its own clients.
pub(super) async fn handle_internal(
    inner: Arc<Inner>,
    req: Request<impl RequestBody>,
) -> Response<ResponseBody> {
    handle_with(inner, req, false).await
}

async fn handle_with(
    inner: Arc<Inner>,
    req: Request<impl RequestBody>,
    faults: bool,
) -> Response<ResponseBody> {
    let (mut parts, body) = req.into_parts();
    let in_process = parts.extensions.remove::<InProcess>();
    // Go's server refuses a path it cannot unescape before any handler runs.
    let Ok(segments) = path::segments(parts.uri.path()) else {
        return plain(StatusCode::BAD_REQUEST, "400 Bad Request");
    };
    let query = Query::parse(parts.uri.query());
    let user_agent = parts
        .headers
        .get(header::USER_AGENT)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let call = Call {
        pretty: output::pretty_requested(parts.uri.query(), &query, &user_agent),
        method: parts.method,
        segments,
        query,
        headers: parts.headers,
        user_agent,
        in_process: in_process.is_some(),
        value: Mutex::new(in_process.and_then(|InProcess(body)| body)),
    };
    let mut warnings = Recorder::default();
    let mut response = match serve(&inner, &call, body, &mut warnings, faults).await {
        Ok(response) => response,
        Err(e) => output::error(&e, &call.accept(), call.pretty),
    };
    for value in warnings.headers() {
        response.headers_mut().append(header::WARNING, value);
    }
    // A HEAD is answered as a GET without the body.
    if call.method == Method::HEAD {
        let (parts, _) = response.into_parts();
        response = Response::from_parts(parts, Full::new(Bytes::new()).boxed_unsync());
    }
    response
}

async fn serve(
    inner: &Arc<Inner>,
    call: &Call,
    body: impl RequestBody,
    warnings: &mut Recorder,
    faults: bool,
) -> Result<Response<ResponseBody>, ApiError> {
    if faults && let Some(e) = inner.faults.take_failure() {
        return Err(e);
    }
    let resource = path::resource_request(&call.segments, &call.method, &call.query);
    let watch = resource
        .as_ref()
        .is_some_and(|r| r.verb == Some(Verb::Watch));
    // The request-deadline filter runs before routing, for every request but watches.
    if !watch && let Some(timeout) = call.query.first_raw("timeout").filter(|t| !t.is_empty()) {
        crate::duration::parse(timeout).map_err(|e| {
            ApiError::bad_request(format!(
                "invalid timeout specified in the request URL - {e}"
            ))
        })?;
    }
    if watch && faults && inner.faults.take_watch_failure() {
        return Err(ApiError::injected(500, None));
    }
    if let Some(crd) = CrdRequest::of(&call.segments) {
        let body = match crd.reads_body(&call.method) {
            true => read_body(call, body).await?,
            false => Bytes::new(),
        };
        let content_type = call.content_type();
        let media = content_type.split(';').next().unwrap_or("").trim();
        let answer = crd.answer(&mut inner.lock(), &call.method, media, &body)?;
        return Ok(output::Output::negotiate(&call.accept(), call.pretty)?.write(200, answer));
    }
    if let Some(r) = &resource {
        if let Some(asked) = virtual_resources::VirtualResource::of(r) {
            return virtual_resources::serve(inner, call, r, asked, body).await;
        }
        return resource::serve(inner, call, r, body, warnings).await;
    }
    let Some(document) = Discovery::of(&call.segments) else {
        return Ok(page_not_found());
    };
    let Some(answer) = discovery::answer(&inner.lock(), &document)? else {
        return Ok(page_not_found());
    };
    match call.method {
        // Discovery has the default restrictions: no transformations.
        Method::GET | Method::HEAD => {
            let accept = call.accept();
            let out =
                output::Output::negotiate_for(&accept, call.pretty, media::Endpoint::Default)?;
            Ok(out.write(200, answer))
        }
        ref m => Err(ApiError::method_not_allowed(m.as_str())),
    }
}

/// A request's body, read whole up to the apiserver's limit: past 3 MiB, its 413. An
/// [`InProcess`] body not yet taken is written out.
async fn read_body(call: &Call, body: impl RequestBody) -> Result<Bytes, ApiError> {
    if let Some(value) = call.take_value() {
        return Ok(Bytes::from(kubegen_go::json::to_vec(&value)));
    }
    match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(ApiError::too_large(&format!("limit is {MAX_BODY}")))
        }
        Err(e) => Err(ApiError::internal(e.to_string())),
    }
}

/// The apiserver's answer for a path no handler serves: plain text, not a `Status`.
fn page_not_found() -> Response<ResponseBody> {
    plain(StatusCode::NOT_FOUND, "404 page not found\n")
}

/// A plain-text answer of Go's HTTP server or mux.
fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from_static(text.as_bytes())).boxed_unsync())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed_unsync()))
}
