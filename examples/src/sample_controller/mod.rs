//! Kubernetes' sample-controller (github.com/kubernetes/sample-controller, `controller.go`)
//! on kubegen: a [`Foo`] asks for an nginx Deployment named by `spec.deploymentName` with
//! `spec.replicas` pods, and its controller keeps that Deployment in shape.
//!
//! For each Foo the [`FooReconciler`]
//! - creates the Deployment ([`new_deployment`]) with the Foo as its controlling owner, if the
//!   cache has none of that name;
//! - refuses a Deployment of that name the Foo does not control: a Warning event
//!   [`ERR_RESOURCE_EXISTS`] on the Foo and [`SyncError::ResourceExists`], retried with
//!   backoff (nothing is written to the Deployment);
//! - replaces the Deployment with the desired one when its replicas differ from the Foo's
//!   (conditionally on the cached resourceVersion, where sample-controller replaces it
//!   unconditionally);
//! - copies the Deployment's `status.availableReplicas` into the Foo's status;
//! - records a Normal event [`SUCCESS_SYNCED`].
//!
//! The [`controller`] reconciles Foos on spec changes and whenever a Deployment a Foo
//! controls changes (`owns`), so a Deployment's status written by kube-controller-manager
//! reaches its Foo. `cargo run --example sample_controller` runs it on the in-memory server,
//! writing the Deployment's status itself, since no kube-controller-manager runs there.

// The kind is sample-controller's Foo, so its objects are `foo`s.
#![allow(clippy::disallowed_names)]

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kubegen::builtin::{BuiltinClientExt, BuiltinInformersExt};
use kubegen::cache::Lister;
use kubegen::client::{ClientError, Patch, PatchParams, PostParams};
use kubegen::controller::predicate::GenerationChanged;
use kubegen::controller::util::set_controller_reference;
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::events::{EventRecorder, EventType};
use kubegen::informer::SharedInformerFactory;
use kubegen::manager::Manager;
use kubegen::rbac::{Rules, Verb};

mod v1alpha1;

pub use v1alpha1::{Foo, FooClientExt, FooSpec, FooStatus};

/// The controller's name: its events' reporting controller and its field manager.
pub const CONTROLLER_AGENT_NAME: &str = "sample-controller";

/// The reason of the Normal event recorded when a Foo is synced.
pub const SUCCESS_SYNCED: &str = "Synced";

/// The reason of the Warning event recorded when a Foo's Deployment already exists and
/// another owner (or none) controls it.
pub const ERR_RESOURCE_EXISTS: &str = "ErrResourceExists";

/// The note of the [`SUCCESS_SYNCED`] event.
pub const MESSAGE_RESOURCE_SYNCED: &str = "Foo synced successfully";

/// The action the controller's events report.
const SYNC_ACTION: &str = "Sync";

/// The note of the [`ERR_RESOURCE_EXISTS`] event, and the error's message, for a Deployment
/// named `name`.
pub fn message_resource_exists(name: &str) -> String {
    // Deployment names are DNS subdomains, so Rust's quoting is Go's `%q` here.
    format!("Resource {name:?} already exists and is not managed by Foo")
}

/// Why a Foo could not be synced; the key is retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// A Deployment of the Foo's `spec.deploymentName` exists and the Foo does not control
    /// it.
    #[error("{}", message_resource_exists(.0))]
    ResourceExists(String),
    /// A request failed.
    #[error(transparent)]
    Client(#[from] ClientError),
}

// ANCHOR: controller
/// The Foo controller: Foos whose spec changed (their generation moved), and the owners of
/// Deployments that changed, with two workers (sample-controller's default). Status writes
/// coming back are skipped.
pub fn controller() -> Controller<Foo> {
    Controller::new("foo")
        .owns::<Deployment>()
        .with_predicate(GenerationChanged)
        .concurrency(2)
        .writes(
            Rules::new()
                .grant::<Deployment>(&[Verb::Create, Verb::Update])
                .grant_subresource::<Foo>("status", &[Verb::Patch]),
        )
}

/// A Manager running the Foo controller on `namespace`, recording events as
/// [`CONTROLLER_AGENT_NAME`]. Run it with [`Manager::run`].
pub fn manager(client: &kube::Client, namespace: &str) -> Manager {
    let cache = SharedInformerFactory::new(client.clone()).namespace(namespace);
    let mut manager = Manager::with_cache(cache);
    let recorder = manager.event_recorder(CONTROLLER_AGENT_NAME);
    let reconciler = FooReconciler {
        client: client.clone(),
        deployments: manager.cache().deployments().lister(),
        recorder,
    };
    manager.add(controller(), reconciler)
}
// ANCHOR_END: controller

// ANCHOR: reconciler
/// Syncs one Foo: reads the Foo and its Deployment from the cache, writes through the
/// client.
pub struct FooReconciler {
    client: kube::Client,
    deployments: Lister<Deployment>,
    recorder: EventRecorder,
}

impl FooReconciler {
    /// A reconciler writing with `client`, reading Deployments from `deployments` (the
    /// cache the controller's `owns` fills), recording with `recorder`.
    pub fn new(
        client: kube::Client,
        deployments: Lister<Deployment>,
        recorder: EventRecorder,
    ) -> Self {
        FooReconciler {
            client,
            deployments,
            recorder,
        }
    }

    fn field_manager() -> PostParams {
        PostParams {
            field_manager: Some(CONTROLLER_AGENT_NAME.into()),
            ..PostParams::default()
        }
    }

    /// Brings `foo`'s Deployment to its spec and its status to the Deployment's.
    async fn sync(&self, namespace: &str, foo: &Foo) -> Result<(), SyncError> {
        let name = foo.spec.deployment_name.as_str();
        if name.is_empty() {
            // Nothing to do until the Foo is changed; retrying would not help.
            return Ok(());
        }
        let deployments = self.client.deployments(namespace);
        let deployment = match self.deployments.namespace(namespace).get(name) {
            Some(cached) => cached,
            None => Arc::new(
                deployments
                    .create_with(&Self::field_manager(), &new_deployment(foo))
                    .await?,
            ),
        };
        if !is_controlled_by(&deployment, foo) {
            let message = message_resource_exists(name);
            self.recorder.publish_for(
                foo,
                EventType::Warning,
                ERR_RESOURCE_EXISTS,
                SYNC_ACTION,
                Some(message),
            );
            return Err(SyncError::ResourceExists(name.to_owned()));
        }
        let replicas = deployment.spec.replicas;
        let deployment = match foo.spec.replicas {
            Some(wanted) if Some(wanted) != replicas => {
                // The desired Deployment replaces the one the cache holds, on the condition
                // that it is still that one: a change the cache has not seen yet is a
                // conflict, retried once the cache has it.
                let mut desired = new_deployment(foo);
                desired.metadata.resource_version = deployment.metadata.resource_version.clone();
                Arc::new(
                    deployments
                        .update_with(&Self::field_manager(), &desired)
                        .await?,
                )
            }
            _ => deployment,
        };
        self.update_foo_status(namespace, foo, &deployment).await?;
        self.recorder.publish_for(
            foo,
            EventType::Normal,
            SUCCESS_SYNCED,
            SYNC_ACTION,
            Some(MESSAGE_RESOURCE_SYNCED.into()),
        );
        Ok(())
    }

    /// Copies the Deployment's available replicas into the Foo's status, through the status
    /// subresource. A merge patch of that one field, so a cache a write behind cannot make
    /// it conflict.
    async fn update_foo_status(
        &self,
        namespace: &str,
        foo: &Foo,
        deployment: &Deployment,
    ) -> Result<(), ClientError> {
        let available = deployment
            .status
            .as_ref()
            .and_then(|s| s.available_replicas)
            .unwrap_or(0);
        let current = foo.status.as_ref().map(|s| s.available_replicas);
        if current == Some(available) {
            return Ok(());
        }
        let patch = serde_json::json!({"status": {"availableReplicas": available}});
        let params = PatchParams {
            field_manager: Some(CONTROLLER_AGENT_NAME.into()),
            ..PatchParams::default()
        };
        let name = foo.metadata.name.as_deref().unwrap_or_default();
        self.client
            .foos(namespace)
            .patch_status(name, &params, &Patch::Merge(patch))
            .await?;
        Ok(())
    }
}

impl Reconciler<Foo> for FooReconciler {
    type Error = SyncError;

    async fn reconcile(&self, key: &ObjectKey, foo: Option<Arc<Foo>>) -> Result<Action, SyncError> {
        // A Foo gone from the cache was deleted; the garbage collector takes its Deployment.
        let Some(foo) = foo else {
            return Ok(Action::Done);
        };
        self.sync(key.namespace().unwrap_or_default(), &foo).await?;
        Ok(Action::Done)
    }
}
// ANCHOR_END: reconciler

// ANCHOR: deployment
/// Whether `foo` is `deployment`'s controlling owner (metav1's `IsControlledBy`: the
/// controller reference's UID is the Foo's).
pub fn is_controlled_by(deployment: &Deployment, foo: &Foo) -> bool {
    deployment
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
        .is_some_and(|o| foo.metadata.uid.as_ref() == Some(&o.uid))
}

/// The Deployment `foo` asks for: `spec.deploymentName` in the Foo's namespace, controlled by
/// the Foo, running `spec.replicas` pods of `nginx:latest` labelled `app: nginx` and
/// `controller: <the Foo's name>`.
pub fn new_deployment(foo: &Foo) -> Deployment {
    let name = foo.metadata.name.clone().unwrap_or_default();
    let labels: BTreeMap<String, String> = [("app", "nginx"), ("controller", name.as_str())]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .into();
    let mut deployment = Deployment {
        metadata: ObjectMeta {
            name: Some(foo.spec.deployment_name.clone()),
            namespace: foo.metadata.namespace.clone(),
            ..ObjectMeta::default()
        },
        spec: DeploymentSpec {
            replicas: foo.spec.replicas,
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "nginx".into(),
                        image: Some("nginx:latest".into()),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        },
        status: None,
    };
    // The Foo and its Deployment share a namespace, so this cannot fail; a Foo read from
    // the apiserver has the uid the reference needs.
    set_controller_reference(foo, &mut deployment).expect("a Foo owns a Deployment beside it");
    deployment
}
// ANCHOR_END: deployment
