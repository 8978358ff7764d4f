//! A realistic kind (~1 KiB per object as JSON, managedFields included) and watch-event
//! JSON for many of them, shared by the benchmarks.
#![allow(dead_code)]

use std::collections::BTreeMap;

use kubegen::prelude::*;

/// An application deployment, shaped like what operators typically cache.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "bench.kubegen.dev",
    version = "v1",
    kind = "App",
    status = "AppStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct AppSpec {
    pub image: String,
    pub replicas: i32,
    pub tier: String,
    pub ports: Vec<AppPort>,
    pub env: BTreeMap<String, String>,
    pub command: Vec<String>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct AppPort {
    pub name: String,
    pub port: i32,
    pub protocol: String,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub ready_replicas: i32,
    pub phase: String,
    pub message: String,
}

/// One object as JSON.
pub fn object_json(i: usize, namespaces: usize) -> serde_json::Value {
    let ns = format!("team-{:03}", i % namespaces);
    serde_json::json!({
        "apiVersion": "bench.kubegen.dev/v1",
        "kind": "App",
        "metadata": {
            "name": format!("app-{i:06}"),
            "namespace": ns,
            "uid": format!("6f1c2b9e-0000-4000-8000-{i:012}"),
            "resourceVersion": format!("{}", 100000 + i),
            "generation": 3,
            "creationTimestamp": "2026-11-01T10:00:00Z",
            "labels": {"app.kubernetes.io/name": format!("app-{i}"), "app.kubernetes.io/part-of": "shop", "tier": "backend"},
            "annotations": {"deployment.kubernetes.io/revision": "7", "example.com/owner": "team-payments@example.com"},
            "managedFields": [{
                "manager": "app-operator", "operation": "Update", "apiVersion": "bench.kubegen.dev/v1",
                "time": "2026-11-01T10:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:image": {}, "f:replicas": {}, "f:tier": {}, "f:ports": {}, "f:env": {"f:LOG_LEVEL": {}, "f:REGION": {}}, "f:command": {}}},
            }],
        },
        "spec": {
            "image": format!("registry.example.com/shop/app-{i}:v1.{}", i % 50),
            "replicas": 3,
            "tier": "backend",
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}, {"name": "metrics", "port": 9090, "protocol": "TCP"}],
            "env": {"LOG_LEVEL": "info", "REGION": "eu-west-1"},
            "command": ["/app/server", "--config=/etc/app/config.yaml"],
        },
        "status": {"readyReplicas": 3, "phase": "Running", "message": "all replicas ready"},
    })
}

/// `n` ADDED watch events, one JSON document each, over `namespaces` namespaces, laid out as
/// the apiserver writes them: `type` before `object` (serde_json's map would sort `object`
/// first, which makes every decoder buffer the object before it knows the event type), and
/// the object's own keys sorted, as Go's encoder writes a custom resource's map.
pub fn watch_lines(n: usize, namespaces: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut line = br#"{"type":"ADDED","object":"#.to_vec();
            serde_json::to_writer(&mut line, &object_json(i, namespaces)).expect("json");
            line.push(b'}');
            line
        })
        .collect()
}

/// Decodes a watch event the way kube's watch stream does.
pub fn decode(line: &[u8]) -> App {
    match serde_json::from_slice::<kube::core::WatchEvent<App>>(line).expect("a watch event") {
        kube::core::WatchEvent::Added(o) | kube::core::WatchEvent::Modified(o) => o,
        other => panic!("unexpected {other:?}"),
    }
}

/// Decodes a watch event the way a kubegen informer set to strip managedFields does.
pub fn decode_without_managed_fields(line: &[u8]) -> App {
    use kubegen::informer::WithoutManagedFields;
    match serde_json::from_slice::<kube::core::WatchEvent<WithoutManagedFields<App>>>(line)
        .expect("a watch event")
    {
        kube::core::WatchEvent::Added(o) | kube::core::WatchEvent::Modified(o) => o.0,
        other => panic!("unexpected {other:?}"),
    }
}

/// Decodes a watch event the way a kubegen informer keeping some managers' managedFields
/// does: every `fieldsV1` read as JSON text.
pub fn decode_compact(line: &[u8]) -> App {
    use kubegen::informer::CompactManagedFields;
    match serde_json::from_slice::<kube::core::WatchEvent<CompactManagedFields<App>>>(line)
        .expect("a watch event")
    {
        kube::core::WatchEvent::Added(o) | kube::core::WatchEvent::Modified(o) => o.0,
        other => panic!("unexpected {other:?}"),
    }
}
