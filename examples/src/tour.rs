//! A walk through the typed clients, used by `cargo run --example client_tour`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use futures::StreamExt;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::client::{
    ClientError, DeleteParams, ListParams, Patch, PatchParams, WatchEvent, WatchParams,
};

use crate::database::v1::{
    Backup, Database, DatabaseClientExt, DatabaseSpec, DatabaseStatus, Engine,
};
use crate::widget::{Color, Widget, WidgetClientExt, WidgetSpec};

fn database(name: &str, team: &str) -> Database {
    let mut db = Database::new(
        name,
        DatabaseSpec {
            engine: Engine::Postgres,
            version: "16".into(),
            storage: Quantity("10Gi".into()),
            backup: None,
        },
    );
    db.metadata.labels = Some(BTreeMap::from([("team".to_string(), team.to_string())]));
    db
}

/// Runs the tour against `client` in `namespace`, narrating into the returned text.
pub async fn client_tour(client: &kube::Client, namespace: &str) -> Result<String, ClientError> {
    let mut out = String::new();
    let dbs = client.databases(namespace);

    let created = dbs.create(&database("orders", "shop")).await?;
    let _ = writeln!(
        out,
        "created databases/orders: uid {}, resourceVersion {}, generation {}",
        created.metadata.uid.as_deref().unwrap_or("?"),
        created.metadata.resource_version.as_deref().unwrap_or("?"),
        created.metadata.generation.unwrap_or(0)
    );
    dbs.create(&database("billing", "finance")).await?;

    let mut watch = dbs
        .watch(
            &WatchParams::default().disable_bookmarks(),
            created.metadata.resource_version.as_deref().unwrap_or("0"),
        )
        .await?
        .boxed();

    let shop = dbs.list(&ListParams::default().labels("team=shop")).await?;
    let _ = writeln!(out, "team=shop selects {} of 2 databases", shop.items.len());

    let patched = dbs
        .patch(
            "orders",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"backup": {}}})),
        )
        .await?;
    let backup = patched.spec.backup.clone().unwrap_or(Backup {
        schedule: None,
        retention_days: None,
    });
    let _ = writeln!(
        out,
        "merge patch added a backup; the server defaulted it to schedule {:?}, {} days",
        backup.schedule.unwrap_or_default(),
        backup.retention_days.unwrap_or(0)
    );

    let mut stale = created.clone();
    stale.spec.version = "17".into();
    match dbs.update(&stale).await {
        Err(e) if e.is_conflict() => {
            let _ = writeln!(out, "updating a stale copy: 409 Conflict, as expected");
        }
        other => {
            let _ = writeln!(out, "updating a stale copy unexpectedly gave {other:?}");
        }
    }
    let upgraded = dbs
        .retry_on_conflict("orders", 3, |db| db.spec.version = "17".into())
        .await?;
    let _ = writeln!(
        out,
        "retry_on_conflict upgraded to version {} (generation {})",
        upgraded.spec.version,
        upgraded.metadata.generation.unwrap_or(0)
    );

    let mut with_status = upgraded.clone();
    with_status.status = Some(DatabaseStatus {
        ready: true,
        endpoint: Some("orders.db:5432".into()),
    });
    let ready = dbs.update_status(&with_status).await?;
    let _ = writeln!(
        out,
        "status subresource: ready={}, generation still {}",
        ready.status.as_ref().is_some_and(|s| s.ready),
        ready.metadata.generation.unwrap_or(0)
    );

    let applied = dbs
        .apply(&database("analytics", "data"), "tour", false)
        .await?;
    let _ = writeln!(
        out,
        "server-side apply created databases/analytics, managed by {:?}",
        applied
            .metadata
            .managed_fields
            .unwrap_or_default()
            .iter()
            .filter_map(|m| m.manager.clone())
            .collect::<Vec<_>>()
    );

    let mut events = Vec::new();
    while events.len() < 3 {
        match tokio::time::timeout(std::time::Duration::from_secs(5), watch.next()).await {
            Ok(Some(Ok(WatchEvent::Added(d)))) => {
                events.push(format!("ADDED {}", d.metadata.name.unwrap_or_default()))
            }
            Ok(Some(Ok(WatchEvent::Modified(d)))) => {
                events.push(format!("MODIFIED {}", d.metadata.name.unwrap_or_default()))
            }
            Ok(Some(Ok(_))) => {}
            _ => break,
        }
    }
    let _ = writeln!(out, "the watch saw: {}", events.join(", "));

    let widgets = client.widgets();
    let name = format!("{namespace}-pool");
    widgets
        .create(&Widget::new(
            &name,
            WidgetSpec {
                replicas: Some(2),
                min_available: 0,
                color: Color::Green,
                max_surge: None,
                tags: BTreeMap::new(),
                ports: vec![],
                zones: vec![],
                shape: None,
                extra: None,
            },
        ))
        .await?;
    let scaled = widgets
        .patch_scale(
            &name,
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"replicas": 5}})),
        )
        .await?;
    let _ = writeln!(
        out,
        "scaled widgets/{name} (cluster-scoped) to {} replicas",
        scaled.spec.and_then(|s| s.replicas).unwrap_or(0)
    );

    dbs.delete("billing", &DeleteParams::default()).await?;
    widgets.delete(&name, &DeleteParams::default()).await?;
    let left = dbs.list(&ListParams::default()).await?;
    let _ = writeln!(
        out,
        "deleted billing; {} databases remain",
        left.items.len()
    );
    Ok(out)
}
