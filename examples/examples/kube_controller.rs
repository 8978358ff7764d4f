//! Generated kinds plug into kube-runtime's `Controller` unchanged.
//!
//! `cargo run --example kube_controller` reconciles Widgets on an in-memory API server for a
//! moment and prints what it did.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use kubegen::testing::ApiServer;
use kubegen_examples::widget::{Color, Widget, WidgetClientExt, WidgetSpec, WidgetStatus};

#[derive(Debug, thiserror::Error)]
#[error(transparent)]
struct Error(#[from] kubegen::client::ClientError);

async fn reconcile(widget: Arc<Widget>, client: Arc<kube::Client>) -> Result<Action, Error> {
    let replicas = widget.spec.replicas.unwrap_or(1);
    if widget.status.as_ref().map(|s| s.replicas) != Some(replicas) {
        let mut next = (*widget).clone();
        next.status = Some(WidgetStatus {
            replicas,
            selector: Some(format!(
                "widget={}",
                widget.metadata.name.clone().unwrap_or_default()
            )),
        });
        client.widgets().update_status(&next).await?;
    }
    Ok(Action::requeue(Duration::from_secs(300)))
}

fn error_policy(_: Arc<Widget>, _: &Error, _: Arc<kube::Client>) -> Action {
    Action::requeue(Duration::from_secs(1))
}

#[tokio::main]
async fn main() {
    let server = ApiServer::new();
    let client = server.client();
    for (name, replicas) in [("small", 1), ("large", 5)] {
        let spec = WidgetSpec {
            replicas: Some(replicas),
            min_available: 0,
            color: Color::Blue,
            max_surge: None,
            tags: Default::default(),
            ports: vec![],
            zones: vec![],
            shape: None,
            extra: None,
        };
        client
            .widgets()
            .create(&Widget::new(name, spec))
            .await
            .expect("seed");
    }
    let api: kube::Api<Widget> = kube::Api::all(client.clone());
    let run = Controller::new(api, watcher::Config::default())
        .run(reconcile, error_policy, Arc::new(client.clone()))
        .take(2)
        .for_each(|result| async move {
            match result {
                Ok((object, _)) => println!("reconciled {}", object.name),
                Err(e) => println!("reconcile error: {e}"),
            }
        });
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("two reconciles");
    for w in client
        .widgets()
        .list(&Default::default())
        .await
        .expect("list")
        .items
    {
        println!(
            "{}: status.replicas = {}",
            w.metadata.name.unwrap_or_default(),
            w.status.map(|s| s.replicas).unwrap_or(0)
        );
    }
}
