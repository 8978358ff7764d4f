//! Kubernetes' sample-controller on kubegen (see `kubegen_examples::sample_controller`).
//!
//! `cargo run --example sample_controller` runs it on an in-memory API server: creates a Foo,
//! shows the Deployment it gets, writes the Deployment's status as kube-controller-manager
//! would (none runs in memory), shows the Foo's status follow, scales the Foo, and lists the
//! events the controller recorded.

use std::future::Future;

use k8s_openapi::api::events::v1::Event;
use kube::api::{Patch, PatchParams};
use kubegen::builtin::BuiltinClientExt;
use kubegen::testing::{ApiServer, Eventually};
use kubegen_examples::sample_controller::{Foo, FooClientExt, FooSpec, manager};
use tokio_util::sync::CancellationToken;

const NAMESPACE: &str = "demo";

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("sample_controller: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    println!("using an in-memory API server (kubegen::testing::ApiServer)");
    let server = ApiServer::new();
    server
        .create_namespace(NAMESPACE)
        .map_err(|e| format!("creating namespace {NAMESPACE}: {}", e.message))?;
    let client = server.client();
    let stop = CancellationToken::new();
    let controller = tokio::spawn(manager(&client, NAMESPACE).run(stop.clone()));

    let foos = client.foos(NAMESPACE);
    let deployments = client.deployments(NAMESPACE);
    let spec = FooSpec {
        deployment_name: "example-foo".into(),
        replicas: Some(1),
    };
    foos.create(&Foo::new("example-foo", spec)).await?;
    println!("created foos/example-foo: deploymentName example-foo, 1 replica");

    let deployment = eventually("the Deployment exists", || async {
        deployments.get_opt("example-foo").await.ok().flatten()
    })
    .await?;
    let owner = &deployment.metadata.owner_references.unwrap_or_default()[0];
    println!(
        "deployments/example-foo: {} replica(s), controlled by {} {}",
        deployment.spec.replicas.unwrap_or_default(),
        owner.kind,
        owner.name
    );

    let status = serde_json::json!({"status": {
        "observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
        "readyReplicas": 1, "availableReplicas": 1,
    }});
    deployments
        .patch_status(
            "example-foo",
            &PatchParams::default(),
            &Patch::Merge(status),
        )
        .await?;
    println!("wrote the Deployment's status: 1 available (as kube-controller-manager would)");
    eventually("the Foo's status follows", || async {
        let current = foos.get("example-foo").await.ok()?;
        (current.status?.available_replicas == 1).then_some(())
    })
    .await?;
    println!("foos/example-foo: status.availableReplicas = 1");

    let scale = serde_json::json!({"spec": {"replicas": 3}});
    foos.patch("example-foo", &PatchParams::default(), &Patch::Merge(scale))
        .await?;
    eventually("the Deployment is scaled", || async {
        let d = deployments.get("example-foo").await.ok()?;
        (d.spec.replicas == Some(3)).then_some(())
    })
    .await?;
    println!("scaled foos/example-foo to 3: the Deployment has 3 replicas");

    stop.cancel();
    controller.await??;
    let events = kube::Api::<Event>::namespaced(client, NAMESPACE)
        .list(&Default::default())
        .await?;
    for event in events.items {
        println!(
            "event: {} {} {}",
            event.type_.unwrap_or_default(),
            event.reason.unwrap_or_default(),
            event.note.unwrap_or_default()
        );
    }
    Ok(())
}

/// `check` until it answers `Some`, for up to 10 seconds.
async fn eventually<T, F, Fut>(what: &str, check: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    Eventually::default().try_until(what, check).await
}
