//! Built-in kinds through the typed clients: a Deployment's scale and status, and every served kind.

use super::*;

/// A built-in kind reaches the subresources kube-apiserver serves for it through the typed
/// client: a Deployment's `/scale` and `/status`.
#[kubegen::test]
async fn a_deployments_scale_and_status_through_the_typed_client(e: TestEnv) {
    use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
    use kubegen::builtin::BuiltinClientExt;
    let deployment: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }))
    .unwrap();
    let deployments = e.client.deployments(&e.namespace);
    deployments.create(&deployment).await.unwrap();
    assert_eq!(
        deployments
            .get_scale("web")
            .await
            .unwrap()
            .spec
            .unwrap()
            .replicas,
        Some(1)
    );
    let patch = serde_json::json!({"spec": {"replicas": 3}});
    let scaled = deployments
        .patch_scale("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(scaled.spec.unwrap().replicas, Some(3));
    let status = serde_json::json!({"status": {"observedGeneration": 2, "replicas": 3}});
    let written = deployments
        .patch_status("web", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(
        written
            .status
            .as_ref()
            .and_then(|s: &DeploymentStatus| s.replicas),
        Some(3)
    );
    let read = deployments.get_status("web").await.unwrap();
    assert_eq!(read.spec.replicas, Some(3));
    assert_eq!(read.status.and_then(|s| s.observed_generation), Some(2));
}

/// Built-in kinds have typed clients the kubegen way: the Lease both servers serve, through
/// `client.leases(ns)`, `leases_all_namespaces()`, and a cluster-scoped kind's `namespaces()`.
#[kubegen::test]
async fn builtin_kinds_have_typed_clients(e: TestEnv) {
    use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
    use kubegen::builtin::BuiltinClientExt;
    let mut lease = Lease::default();
    lease.metadata.name = Some("typed".into());
    lease.spec = Some(LeaseSpec {
        holder_identity: Some("a".into()),
        ..LeaseSpec::default()
    });
    let leases = e.client.leases(&e.namespace);
    let created = leases.create(&lease).await.unwrap();
    assert_eq!(
        created.spec.and_then(|s| s.holder_identity).as_deref(),
        Some("a")
    );
    let everywhere = e.client.leases_all_namespaces();
    let listed = everywhere.list(&ListParams::default()).await.unwrap();
    assert!(
        listed
            .items
            .iter()
            .any(|l| l.metadata.name.as_deref() == Some("typed"))
    );
    let patched = leases
        .patch(
            "typed",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"holderIdentity": "b"}})),
        )
        .await
        .unwrap();
    assert_eq!(
        patched.spec.and_then(|s| s.holder_identity).as_deref(),
        Some("b")
    );
    // A cluster-scoped kind takes no namespace (compiles to `/api/v1/namespaces`).
    let _ = e.client.namespaces();
}
