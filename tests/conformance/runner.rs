//! Running scripted cases against a server and recording what it answered, normalized so that
//! two servers' answers compare equal exactly when a client could not tell them apart.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use http::{Method, Request};
use http_body_util::BodyExt;
use serde_json::{Value, json};

use super::script::{Case, Step, WriteKind};

/// What one request got back, as compared between servers.
pub type Observation = Value;

/// Per-server memory of a case: resourceVersions and uids seen, continue tokens, open watch.
struct Run<'a> {
    client: &'a kube::Client,
    namespace: &'a str,
    /// Object path → its latest resourceVersion on this server.
    versions: BTreeMap<String, String>,
    /// Named captures: resourceVersions and continue tokens, by label.
    captures: BTreeMap<String, String>,
    /// Every uid this server handed out in the case, blanked wherever it appears.
    uids: Vec<String>,
    /// Every `generateName` the case sent.
    generate_names: Vec<String>,
    watch: Option<WatchStream>,
    observations: Vec<Observation>,
}

type WatchStream = std::pin::Pin<Box<dyn futures::Stream<Item = Value> + Send>>;

/// Runs `case` on the server behind `client`, in `namespace`, returning one observation per
/// compared request.
pub async fn run(client: &kube::Client, namespace: &str, case: &Case) -> Vec<Observation> {
    let mut run = Run {
        client,
        namespace,
        versions: BTreeMap::new(),
        captures: BTreeMap::new(),
        uids: Vec::new(),
        generate_names: Vec::new(),
        watch: None,
        observations: Vec::new(),
    };
    for step in &case.steps {
        run.step(step).await;
    }
    run.observations
}

impl Run<'_> {
    fn fill(&self, text: &str) -> String {
        let mut out = text.replace("{ns}", self.namespace);
        for (label, value) in &self.captures {
            out = out.replace(&format!("{{{label}}}"), value);
        }
        out
    }

    /// Replaces `"{rv}"` (the object's current resourceVersion on this server) and other
    /// placeholders inside a JSON body.
    fn fill_body(&self, path: &str, body: &Value) -> Value {
        match body {
            Value::String(s) if s == "{rv}" => {
                json!(self.versions.get(path).cloned().unwrap_or_default())
            }
            Value::String(s) => json!(self.fill(s)),
            Value::Array(items) => items.iter().map(|i| self.fill_body(path, i)).collect(),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| (k.clone(), self.fill_body(path, v)))
                .collect::<serde_json::Map<_, _>>()
                .into(),
            other => other.clone(),
        }
    }

    /// Notes the prefix of the names the server may generate for `body`: the apiserver cuts
    /// a `generateName` to 58 bytes before adding five characters.
    fn remember_generate_name(&mut self, body: &Value) {
        if let Some(prefix) = body["metadata"]["generateName"].as_str() {
            let mut cut = prefix.len().min(58);
            while !prefix.is_char_boundary(cut) {
                cut -= 1;
            }
            self.generate_names.push(prefix[..cut].to_owned());
        }
    }

    async fn step(&mut self, step: &Step) {
        match step {
            Step::Write {
                kind,
                method,
                path,
                query,
                content_type,
                headers,
                body,
                object,
                capture,
            } => {
                let path = self.fill(path);
                let object = object.as_deref().map(|o| self.fill(o));
                let payload = match body {
                    super::script::Payload::Json(v) => {
                        self.remember_generate_name(v);
                        let filled = self.fill_body(object.as_deref().unwrap_or(&path), v);
                        serde_json::to_vec(&filled).unwrap_or_default()
                    }
                    super::script::Payload::Raw(bytes) => {
                        if let Some(v) = parse(bytes) {
                            self.remember_generate_name(&v);
                        }
                        match std::str::from_utf8(bytes) {
                            Ok(text) => self.fill(text).into_bytes(),
                            Err(_) => bytes.clone(),
                        }
                    }
                    super::script::Payload::Empty => Vec::new(),
                };
                let uri = match query {
                    Some(q) => format!("{path}?{}", self.fill(q)),
                    None => path.clone(),
                };
                let (code, headers, response) = send(
                    self.client,
                    method.clone(),
                    &uri,
                    content_type,
                    headers,
                    payload,
                )
                .await;
                if let Some(label) = capture {
                    self.capture(label, &response);
                }
                self.remember(&response, object.as_deref());
                let observed = self.observe(method, &uri, code, &headers, &response);
                self.observations.push(observed);
                // The stored object after every write, whatever its outcome.
                if *kind == WriteKind::ThenGet
                    && let Some(object) = object
                {
                    let (code, headers, got) =
                        send(self.client, Method::GET, &object, &None, &[], Vec::new()).await;
                    self.remember(&got, Some(&object));
                    let observed = self.observe(&Method::GET, &object, code, &headers, &got);
                    self.observations.push(observed);
                }
            }
            Step::Watch { path, query } => {
                let uri = format!("{}?watch=true&{}", self.fill(path), self.fill(query));
                let request = Request::get(&uri)
                    .body(Vec::new())
                    .expect("a valid request");
                match self.client.send(request.map(Into::into)).await {
                    Ok(response) if response.status().is_success() => {
                        self.observations
                            .push(json!({"request": format!("WATCH {}", normalize_uri(&uri)), "code": response.status().as_u16()}));
                        self.watch = Some(event_stream(response.into_body()));
                    }
                    Ok(response) => {
                        let code = response.status().as_u16();
                        let body = collect_json(response.into_body()).await;
                        let observed =
                            self.observe(&Method::GET, &uri, code, &http::HeaderMap::new(), &body);
                        self.observations.push(observed);
                    }
                    Err(e) => self
                        .observations
                        .push(json!({"request": format!("WATCH {}", normalize_uri(&uri)), "error": e.to_string()})),
                }
            }
            Step::Events { count } => {
                let mut events = Vec::new();
                if let Some(stream) = &mut self.watch {
                    while events.len() < *count {
                        match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
                            Ok(Some(event)) if event["type"] == "BOOKMARK" => {}
                            Ok(Some(mut event)) => {
                                collect_uids(&event, &mut self.uids);
                                if let Some(object) = event.get_mut("object") {
                                    *object = normalize(object.take(), self.namespace, &self.uids);
                                }
                                events.push(event);
                            }
                            Ok(None) => {
                                events.push(json!("the watch ended"));
                                break;
                            }
                            Err(_) => {
                                events.push(json!("no event within 10s"));
                                break;
                            }
                        }
                    }
                }
                self.observations.push(json!({"events": events}));
            }
        }
    }

    fn observe(
        &mut self,
        method: &Method,
        uri: &str,
        code: u16,
        headers: &http::HeaderMap,
        body: &Value,
    ) -> Observation {
        collect_uids(body, &mut self.uids);
        let mut body = normalize(body.clone(), self.namespace, &self.uids);
        for prefix in &self.generate_names {
            blank_generated_names(&mut body, prefix);
        }
        let mut o = json!({
            "request": format!("{method} {}", normalize_uri(&uri.replace(self.namespace, "{ns}"))),
            "code": code,
            "body": body,
        });
        // Sorted: warnings about sibling fields (ratcheted CEL errors) come in Go map order,
        // as causes do.
        let mut warnings: Vec<Value> = headers
            .get_all(http::header::WARNING)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()))
            .map(|w| normalize(json!(w), self.namespace, &self.uids))
            .collect();
        warnings.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        if !warnings.is_empty() {
            o["warnings"] = json!(warnings);
        }
        o
    }

    /// Records the resourceVersion the server gave `object`.
    fn remember(&mut self, response: &Value, object: Option<&str>) {
        if let (Some(object), Some(rv)) = (object, response["metadata"]["resourceVersion"].as_str())
            && response["kind"] != "Status"
            && !response["kind"]
                .as_str()
                .is_some_and(|k| k.ends_with("List"))
        {
            self.versions.insert(object.to_owned(), rv.to_owned());
        }
    }

    fn capture(&mut self, label: &str, response: &Value) {
        let value = match label.split_once(':') {
            Some(("continue", _)) => response["metadata"]["continue"].as_str(),
            _ => response["metadata"]["resourceVersion"].as_str(),
        };
        self.captures
            .insert(label.to_owned(), value.unwrap_or_default().to_owned());
    }
}

async fn send(
    client: &kube::Client,
    method: Method,
    uri: &str,
    content_type: &Option<&'static str>,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> (u16, http::HeaderMap, Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(ct) = content_type {
        request = request.header(http::header::CONTENT_TYPE, *ct);
    }
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let request = match request.body(body) {
        Ok(request) => request,
        Err(e) => return (0, http::HeaderMap::new(), json!(format!("not sent: {e}"))),
    };
    match client.send(request.map(Into::into)).await {
        Ok(response) => {
            let code = response.status().as_u16();
            let headers = response.headers().clone();
            let yaml = headers
                .get(http::header::CONTENT_TYPE)
                .is_some_and(|t| t.as_bytes().starts_with(b"application/yaml"));
            let body = collect_json(response.into_body()).await;
            // A YAML answer is compared as the data it holds (the in-memory server's YAML is
            // not yaml.v2's byte for byte); marked, so it never equals a JSON answer.
            match (yaml, &body) {
                (true, Value::String(text)) => {
                    let data: Value = serde_yaml_ng::from_str(text).unwrap_or(json!(text));
                    (code, headers, json!({"yaml": data}))
                }
                _ => (code, headers, body),
            }
        }
        Err(e) => (0, http::HeaderMap::new(), json!(e.to_string())),
    }
}

/// JSON as Go reads it (kubegen-go): any depth, where serde_json stops at 128 levels, and
/// the same numbers whether an answer is read live or from a recording (an integer past
/// int64 is a float, as the apiserver itself reads it).
pub fn parse(bytes: &[u8]) -> Option<Value> {
    kubegen_go::json::decode(bytes, &[]).ok()?.value.ok()
}

async fn collect_json(body: kube::client::Body) -> Value {
    match body.collect().await {
        Ok(bytes) => {
            let bytes = bytes.to_bytes();
            parse(&bytes).unwrap_or_else(|| json!(String::from_utf8_lossy(&bytes).into_owned()))
        }
        Err(e) => json!(format!("unreadable body: {e}")),
    }
}

/// The watch events of a streaming response body, one JSON value per line.
fn event_stream(body: kube::client::Body) -> WatchStream {
    let frames = body.into_data_stream();
    let lines = futures::stream::unfold(
        (frames, Vec::<u8>::new()),
        |(mut frames, mut buffer)| async move {
            loop {
                if let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = buffer.drain(..=end).collect();
                    let value = parse(&line).unwrap_or_else(
                        || json!({"type": "UNPARSEABLE", "line": String::from_utf8_lossy(&line)}),
                    );
                    return Some((value, (frames, buffer)));
                }
                match frames.next().await {
                    Some(Ok(chunk)) => buffer.extend_from_slice(&chunk),
                    _ => return None,
                }
            }
        },
    );
    Box::pin(lines)
}

/// The path with the per-run namespace replaced, so recordings do not depend on it.
fn normalize_uri(uri: &str) -> String {
    let mut parts: Vec<String> = uri.split('/').map(str::to_owned).collect();
    for i in 1..parts.len() {
        if parts[i - 1] == "namespaces" {
            parts[i] = "{ns}".into();
        }
    }
    let joined = parts.join("/");
    // Per-server values in queries (resourceVersions, continue tokens) are not compared.
    match joined.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k @ ("resourceVersion" | "continue"), v))
                        if v != "0" && !v.is_empty() =>
                    {
                        format!("{k}=<{k}>")
                    }
                    _ => kv.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => joined,
    }
}

/// Blanks what differs between any two servers by design: uids, resourceVersions,
/// timestamps, the namespace's name (different per run), continue tokens, and what the
/// apiserver allocates at random (cluster IPs, node ports, generated volume names).
pub fn normalize(mut value: Value, namespace: &str, uids: &[String]) -> Value {
    blank(&mut value, namespace, uids);
    if value["kind"] == "Status" {
        sort_causes(&mut value);
    }
    // The apiserver lists a group's resources in the order their CRDs became ready.
    if value["kind"] == "APIResourceList"
        && let Some(resources) = value.get_mut("resources").and_then(Value::as_array_mut)
    {
        resources.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
    value
}

/// The apiserver reports sibling fields' errors in Go map order, which varies from request
/// to request: causes are compared sorted, and an `Invalid` message listing them is rebuilt
/// in the same order — after checking that it lists exactly the causes, in their given order.
fn sort_causes(status: &mut Value) {
    let Some(causes) = status
        .get_mut("details")
        .and_then(|d| d.get_mut("causes"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let line = |c: &Value| {
        format!(
            "{}: {}",
            c["field"].as_str().unwrap_or(""),
            c["message"].as_str().unwrap_or("")
        )
    };
    let listed = |causes: &[Value]| {
        let mut lines: Vec<String> = Vec::new();
        for l in causes.iter().map(line) {
            if !lines.contains(&l) {
                lines.push(l);
            }
        }
        match lines.len() {
            1 => lines.remove(0),
            _ => format!("[{}]", lines.join(", ")),
        }
    };
    let before = listed(causes);
    causes.sort_by_key(|c| (line(c), c["reason"].as_str().unwrap_or("").to_owned()));
    let after = listed(causes);
    if let Some(message) = status["message"].as_str()
        && let Some(prefix) = message.strip_suffix(&before)
    {
        status["message"] = json!(format!("{prefix}{after}"));
    }
}

/// A name the server generated from `generateName`: the prefix and five characters from the
/// apiserver's alphabet, blanked wherever they appear.
pub fn blank_generated_names(value: &mut Value, prefix: &str) {
    let pattern = format!(
        "{}[bcdfghjklmnpqrstvwxz2456789]{{5}}",
        regex::escape(prefix)
    );
    let Ok(re) = regex::Regex::new(&pattern) else {
        return;
    };
    let replacement = format!("{prefix}<suffix>");
    visit_strings(value, &mut |s| {
        if re.is_match(s) {
            *s = re.replace_all(s, replacement.as_str()).into_owned();
        }
    });
}

fn visit_strings(value: &mut Value, f: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| visit_strings(v, f)),
        Value::Object(m) => m.values_mut().for_each(|v| visit_strings(v, f)),
        _ => {}
    }
}

fn collect_uids(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => {
            // Servers write 36-character uids; a short one a request sent (an owner
            // reference's `u`) is compared as it is, not blanked inside every other string.
            if let Some(Value::String(uid)) = m.get("uid")
                && uid.len() >= 8
                && !out.contains(uid)
            {
                out.push(uid.clone());
            }
            m.values().for_each(|v| collect_uids(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_uids(v, out)),
        _ => {}
    }
}

/// The apiserver orders `managedFields` entries by operation, then by the second each last
/// changed, then by manager (apiVersion, subresource). With times blanked, the second is not
/// compared: a case whose steps straddle a second boundary on one server and not on the other
/// would otherwise order alike entries differently. Entries without a time still come first.
fn order_managed_fields(entries: &mut Value) {
    let Some(entries) = entries.as_array_mut() else {
        return;
    };
    let key = |e: &Value| {
        let text = |k: &str| e[k].as_str().unwrap_or("").to_owned();
        (
            text("operation"),
            e.get("time").is_some(),
            text("manager"),
            text("apiVersion"),
            text("subresource"),
        )
    };
    entries.sort_by_key(key);
}

fn blank(value: &mut Value, namespace: &str, uids: &[String]) {
    match value {
        Value::Object(m) => {
            for (key, v) in m.iter_mut() {
                match key.as_str() {
                    "uid" if v.is_string() => *v = json!("<uid>"),
                    "resourceVersion" if v.as_str().is_some_and(|s| !s.is_empty()) => {
                        *v = json!("<rv>")
                    }
                    "creationTimestamp" | "deletionTimestamp" | "time" if v.is_string() => {
                        *v = json!("<time>")
                    }
                    "continue" if v.as_str().is_some_and(|s| !s.is_empty()) => {
                        *v = json!("<continue>")
                    }
                    // Allocated at random by the apiserver (a Service's node ports), or its
                    // own address (discovery's `serverAddress`).
                    "nodePort" | "healthCheckNodePort" if v.is_number() => *v = json!("<port>"),
                    "serverAddress" if v.is_string() => *v = json!("<address>"),
                    "managedFields" if v.is_array() => {
                        blank(v, namespace, uids);
                        order_managed_fields(v);
                    }
                    _ => blank(v, namespace, uids),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| blank(v, namespace, uids)),
        Value::String(s) => {
            for uid in uids {
                if s.contains(uid.as_str()) {
                    *s = s.replace(uid.as_str(), "<uid>");
                }
            }
            if s.contains(namespace) {
                *s = s.replace(namespace, "{ns}");
            }
            // What the apiserver picks at random: a Service's cluster IP (in its
            // 10.0.0.0/24), a Pod's token volume's suffix, a uid in a message (a Job's
            // generated selector names the uid of a Job that was refused).
            static RANDOM: std::sync::LazyLock<[(regex::Regex, &str); 3]> =
                std::sync::LazyLock::new(|| {
                    let re = |p: &str| regex::Regex::new(p).unwrap();
                    [
                        (re(r"\b10\.0\.0\.\d{1,3}\b"), "<cluster-ip>"),
                        (
                            re(r"kube-api-access-[a-z0-9]{5}"),
                            "kube-api-access-<suffix>",
                        ),
                        (
                            re(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
                            "<uid>",
                        ),
                    ]
                });
            for (re, replacement) in RANDOM.iter() {
                if re.is_match(s) {
                    *s = re.replace_all(s, *replacement).into_owned();
                }
            }
            // A message quoting a whole object (a patch that did not decode) carries its
            // timestamps and resourceVersion.
            static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                regex::Regex::new(r#"(\\":\\")\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z(\\")"#)
                    .unwrap()
            });
            static RV: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                regex::Regex::new(r#"resourceVersion\\":\\"\d+"#).unwrap()
            });
            // Quoted again inside the message (`Object 'Kind' is missing in '{...}'`).
            static RAW_TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                regex::Regex::new(r#"(":")\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z(")"#)
                    .unwrap()
            });
            static RAW_RV: std::sync::LazyLock<regex::Regex> =
                std::sync::LazyLock::new(|| regex::Regex::new(r#"resourceVersion":"\d+"#).unwrap());
            if TIME.is_match(s) {
                *s = TIME.replace_all(s, "$1<time>$3").into_owned();
            }
            if RV.is_match(s) {
                *s = RV
                    .replace_all(s, r#"resourceVersion\":\"<rv>"#)
                    .into_owned();
            }
            if RAW_TIME.is_match(s) {
                *s = RAW_TIME.replace_all(s, "$1<time>$3").into_owned();
            }
            if RAW_RV.is_match(s) {
                *s = RAW_RV
                    .replace_all(s, r#"resourceVersion":"<rv>"#)
                    .into_owned();
            }
            // A delete precondition's message quotes the object's resourceVersion.
            if let Some((head, tail)) = s.split_once("the ResourceVersion in record (")
                && let Some((_, rest)) = tail.split_once(')')
            {
                *s = format!("{head}the ResourceVersion in record (<rv>){rest}");
            }
        }
        _ => {}
    }
}
