//! Running a scenario on one backend: each step's request, then the cluster left to settle
//! (in memory `ApiServer::settle`; on a real cluster until its objects stop changing), then
//! a snapshot.

use std::time::{Duration, Instant};

use http::{Method, Request};
use kubegen::testing::{ApiServer, Kubelet};
use serde_json::{Value, json};

use super::script::{Action, NAMESPACES, Scenario, WATCHED};
use super::snapshot::{Normalizer, normalize};

/// How long a real cluster's objects must stay unchanged to count as settled.
const QUIET: Duration = Duration::from_millis(2500);
/// How often a real cluster is looked at while settling.
const POLL: Duration = Duration::from_millis(250);
/// The most a real cluster is waited for.
const PATIENCE: Duration = Duration::from_secs(90);

/// One backend.
pub struct Side {
    pub client: kube::Client,
    /// The in-memory server, when this side is one.
    pub server: Option<ApiServer>,
}

impl Side {
    fn now(&self) -> String {
        match &self.server {
            Some(s) => s.clock().rfc3339(),
            None => k8s_openapi::jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
        }
    }
}

/// Runs `scenario` in `namespace`: one observation for the namespace's creation, then one
/// per step.
pub async fn run(side: &Side, namespace: &str, scenario: &Scenario) -> Vec<Value> {
    let mut norm = Normalizer::default();
    norm.known.insert(namespace.to_owned());
    for step in &scenario.steps {
        if let Action::Create(body) = &step.action
            && let Some(name) = body["metadata"]["name"].as_str()
        {
            norm.known.insert(name.to_owned());
        }
    }
    // A kubelet of the scenario's own: the addresses it hands out do not depend on the
    // scenarios that ran before (a recording of some scenarios holds for a run of all).
    let kubelet = Kubelet::new();
    let mut observations = Vec::new();
    let created = send(
        &side.client,
        Method::POST,
        &NAMESPACES.collection(""),
        Some(&json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})),
        "application/json",
    )
    .await;
    let snapshot = settle(side, namespace, scenario, &mut norm).await;
    observations.push(json!({"step": "namespace created", "answer": created, "cluster": snapshot}));
    for step in &scenario.steps {
        let (label, answer) = act(side, &kubelet, namespace, &step.action).await;
        let answer = unfill(&answer, namespace);
        let snapshot = settle(side, namespace, scenario, &mut norm).await;
        observations.push(json!({"step": label, "answer": answer, "cluster": snapshot}));
    }
    observations
}

/// Does one step; its label and the answer's code and reason.
async fn act(side: &Side, kubelet: &Kubelet, namespace: &str, action: &Action) -> (String, Value) {
    let client = &side.client;
    match action {
        Action::Create(body) => {
            // Labelled as written: `{ns}` stays a placeholder.
            let label = format!(
                "create {} {}",
                body["kind"].as_str().unwrap_or(""),
                body["metadata"]["name"].as_str().unwrap_or("")
            );
            let body = with_uids(client, namespace, fill(body, namespace)).await;
            let res = super::script::resource_of(&body);
            let answer = send(
                client,
                Method::POST,
                &res.collection(namespace),
                Some(&body),
                "application/json",
            )
            .await;
            (label, answer)
        }
        Action::Patch {
            res,
            name,
            subresource,
            patch,
        } => {
            let label = format!(
                "patch {} {name}{}",
                res.plural,
                subresource.map(|s| format!("/{s}")).unwrap_or_default()
            );
            let name = &name.replace("{ns}", namespace);
            let mut path = res.object(namespace, name);
            if let Some(s) = subresource {
                path = format!("{path}/{s}");
            }
            let answer = send(
                client,
                Method::PATCH,
                &path,
                Some(&with_uids(client, namespace, fill(patch, namespace)).await),
                "application/merge-patch+json",
            )
            .await;
            (label, answer)
        }
        Action::Delete {
            res,
            name,
            propagation,
        } => {
            let body = propagation.map(
                |p| json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": p}),
            );
            let label = format!(
                "delete {} {name} ({})",
                res.plural,
                propagation.unwrap_or("default")
            );
            let name = name.replace("{ns}", namespace);
            let answer = send(
                client,
                Method::DELETE,
                &res.object(namespace, &name),
                body.as_ref(),
                "application/json",
            )
            .await;
            (label, answer)
        }
        Action::DeleteNamespace => {
            let answer = send(
                client,
                Method::DELETE,
                &NAMESPACES.object("", namespace),
                None,
                "application/json",
            )
            .await;
            ("delete the namespace".into(), answer)
        }
        Action::Finalize(finalizers) => {
            let path = NAMESPACES.object("", namespace);
            let (_, mut body) = get(client, &path).await;
            body["spec"]["finalizers"] = json!(finalizers);
            let answer = send(
                client,
                Method::PUT,
                &format!("{path}/finalize"),
                Some(&body),
                "application/json",
            )
            .await;
            (format!("finalize {finalizers:?}"), answer)
        }
        Action::Pods { selector, fate } => {
            let selector = selector.replace("{ns}", namespace);
            let query: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("labelSelector", &selector)
                .finish();
            let (_, list) = get(
                client,
                &format!("{}?{query}", super::script::PODS.collection(namespace)),
            )
            .await;
            let mut names: Vec<String> = list["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| {
                    p["status"]["phase"] == "Pending" && !p["status"]["startTime"].is_string()
                })
                .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_owned))
                .collect();
            names.sort();
            let now = side.now();
            let mut codes = Vec::new();
            for name in &names {
                let code = match kubelet.set_at(client, namespace, name, *fate, &now).await {
                    Ok(_) => 200,
                    Err(kube::Error::Api(s)) => s.code,
                    Err(_) => 0,
                };
                codes.push(code);
            }
            (
                format!("pods {selector}: {fate:?}"),
                json!({"pods": names.len(), "codes": codes}),
            )
        }
        Action::Wait(time) => {
            match &side.server {
                Some(server) => server.clock().advance(*time),
                None => tokio::time::sleep(*time).await,
            }
            (format!("wait {time:?}"), Value::Null)
        }
        Action::WithinMinute(from, to) => {
            let now = match &side.server {
                Some(server) => server.clock().now(),
                None => k8s_openapi::jiff::Timestamp::now(),
            };
            let into = Duration::from_nanos(now.as_nanosecond().rem_euclid(60_000_000_000) as u64);
            let (from, to) = (Duration::from_secs(*from), Duration::from_secs(*to));
            let time = match into {
                t if t >= from && t <= to => Duration::ZERO,
                t if t < from => from - t,
                t => Duration::from_secs(60) - t + from,
            };
            match &side.server {
                // Advancing by nothing still freezes the clock: the minute stays put.
                Some(server) => server.clock().advance(time),
                None => tokio::time::sleep(time).await,
            }
            (
                format!(
                    "wait until {}-{} s into a minute",
                    from.as_secs(),
                    to.as_secs()
                ),
                Value::Null,
            )
        }
    }
}

/// Waits for the cluster to settle and takes its snapshot.
async fn settle(side: &Side, namespace: &str, scenario: &Scenario, norm: &mut Normalizer) -> Value {
    if let Some(server) = &side.server {
        server.settle().await;
        let (objects, events) = read(side, namespace, scenario).await;
        return normalize(norm, namespace, objects, events);
    }
    let started = Instant::now();
    let mut last = read(side, namespace, scenario).await;
    let mut since = Instant::now();
    loop {
        tokio::time::sleep(POLL).await;
        let now = read(side, namespace, scenario).await;
        if fingerprint(&now) != fingerprint(&last) {
            since = Instant::now();
            last = now;
        } else if since.elapsed() >= QUIET || started.elapsed() >= PATIENCE {
            break;
        }
    }
    normalize(norm, namespace, last.0, last.1)
}

/// What changes when anything in the snapshot changes: the resourceVersions.
fn fingerprint((objects, events): &(Vec<Value>, Vec<Value>)) -> Vec<String> {
    objects
        .iter()
        .chain(events)
        .map(|o| {
            format!(
                "{}/{}@{}",
                o["kind"].as_str().unwrap_or(""),
                o["metadata"]["name"].as_str().unwrap_or(""),
                o["metadata"]["resourceVersion"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// The namespace's objects of every watched kind (and the Namespace and cluster-scoped
/// objects the scenario asks for), and its core Events.
async fn read(side: &Side, namespace: &str, scenario: &Scenario) -> (Vec<Value>, Vec<Value>) {
    let client = &side.client;
    let mut objects = Vec::new();
    if scenario.namespace_object {
        let (code, ns) = get(client, &NAMESPACES.object("", namespace)).await;
        if code == 200 {
            objects.push(ns);
        }
    }
    for (res, name) in &scenario.cluster_objects {
        let name = name.replace("{ns}", namespace);
        let (code, o) = get(client, &res.object("", &name)).await;
        if code == 200 {
            objects.push(o);
        }
    }
    for res in WATCHED {
        let (code, list) = get(client, &res.collection(namespace)).await;
        if code != 200 {
            continue;
        }
        let kind = list["kind"]
            .as_str()
            .unwrap_or("")
            .trim_end_matches("List")
            .to_owned();
        for mut item in list["items"].as_array().cloned().unwrap_or_default() {
            item["kind"] = json!(kind);
            objects.push(item);
        }
    }
    let (_, events) = get(client, &super::script::EVENTS.collection(namespace)).await;
    (
        objects,
        events["items"].as_array().cloned().unwrap_or_default(),
    )
}

fn fill(body: &Value, namespace: &str) -> Value {
    match body {
        Value::String(s) => json!(s.replace("{ns}", namespace)),
        Value::Array(a) => a.iter().map(|v| fill(v, namespace)).collect(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| (k.clone(), fill(v, namespace)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => other.clone(),
    }
}

/// An answer with the scenario's namespace written `{ns}` (refusals name it), as the
/// recording keeps it.
fn unfill(answer: &Value, namespace: &str) -> Value {
    match answer {
        Value::String(s) => json!(s.replace(namespace, "{ns}")),
        Value::Array(a) => a.iter().map(|v| unfill(v, namespace)).collect(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| (k.clone(), unfill(v, namespace)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => other.clone(),
    }
}

/// `body` with its `{uid:...}` placeholders replaced by the uids of the objects they name
/// (an empty uid for one that is not there).
async fn with_uids(client: &kube::Client, namespace: &str, mut body: Value) -> Value {
    let mut wanted = Vec::new();
    placeholders(&body, &mut wanted);
    for placeholder in wanted {
        let inner = &placeholder["{uid:".len()..placeholder.len() - 1];
        let parts: Vec<&str> = inner.split('/').collect();
        let (plural, ns, name) = match parts.as_slice() {
            [plural, name] => (*plural, namespace, *name),
            [plural, ns, name] => (*plural, *ns, *name),
            _ => panic!("a uid placeholder names <plural>/<name>: {placeholder}"),
        };
        let res = super::script::resource_named(plural);
        let (_, object) = get(client, &res.object(ns, name)).await;
        let uid = object["metadata"]["uid"].as_str().unwrap_or("").to_owned();
        replace_string(&mut body, &placeholder, &uid);
    }
    body
}

fn placeholders(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if s.starts_with("{uid:") && s.ends_with('}') => {
            out.push(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|v| placeholders(v, out)),
        Value::Object(m) => m.values().for_each(|v| placeholders(v, out)),
        _ => {}
    }
}

fn replace_string(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) if s == from => *s = to.to_owned(),
        Value::Array(a) => a.iter_mut().for_each(|v| replace_string(v, from, to)),
        Value::Object(m) => m.values_mut().for_each(|v| replace_string(v, from, to)),
        _ => {}
    }
}

async fn get(client: &kube::Client, path: &str) -> (u16, Value) {
    let (code, answer, _) = exchange(client, Method::GET, path, None, "application/json").await;
    (code, answer)
}

/// Sends a request; the answer's code, its reason when it failed, and the warnings it
/// carried.
async fn send(
    client: &kube::Client,
    method: Method,
    path: &str,
    body: Option<&Value>,
    content_type: &str,
) -> Value {
    let (code, answer, warnings) = exchange(client, method, path, body, content_type).await;
    let mut said = match code {
        200..=299 => json!({"code": code}),
        _ => json!({"code": code, "reason": answer["reason"], "message": answer["message"]}),
    };
    if !warnings.is_empty() {
        said["warnings"] = json!(warnings);
    }
    said
}

/// A request's code, body and `Warning` headers.
async fn exchange(
    client: &kube::Client,
    method: Method,
    path: &str,
    body: Option<&Value>,
    content_type: &str,
) -> (u16, Value, Vec<String>) {
    let bytes = body
        .map(|b| serde_json::to_vec(b).unwrap_or_default())
        .unwrap_or_default();
    let mut request = Request::builder().method(method).uri(path);
    if body.is_some() {
        request = request.header(http::header::CONTENT_TYPE, content_type);
    }
    let request = request.body(bytes).expect("a valid request");
    match client.send(request.map(Into::into)).await {
        Ok(response) => {
            let code = response.status().as_u16();
            let warnings = response
                .headers()
                .get_all(http::header::WARNING)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect();
            let bytes = http_body_util::BodyExt::collect(response.into_body())
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            let answer = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            (code, answer, warnings)
        }
        Err(e) => (
            0,
            json!({"reason": "ClientError", "message": e.to_string()}),
            Vec::new(),
        ),
    }
}
