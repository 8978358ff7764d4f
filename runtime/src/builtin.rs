//! Typed clients for the built-in kinds, the kubegen way: `client.deployments(ns)`,
//! `client.config_maps(ns)`, `client.namespaces()`, … for every resource kube-apiserver
//! v1.36.2 serves by default with the `list` verb, at its preferred version (60 resources;
//! the core `v1` Event is `core_events`, events.k8s.io's `events`). Each returns the
//! [`ResourceClient`] a derived kind gets, with status and scale methods where the apiserver
//! serves those subresources; a namespaced kind's `*_all_namespaces` lists and watches
//! everywhere. [`BuiltinInformersExt`] gives their shared informers on a
//! [`SharedInformerFactory`] the same way (`factory.deployments()`), whose stores the
//! [`Lister`](crate::cache::Lister) reads. Kinds k8s-openapi has only from a later Kubernetes
//! version (resource.k8s.io `v1`, `VolumeAttributesClass`, `MutatingAdmissionPolicy`) are
//! there when its version feature is at least that version.
//!
//! Use them wherever an operator touches a kind it does not define: the Deployments and
//! Services it owns, the Secrets and ConfigMaps it reads. Bring the traits into scope and the
//! methods appear on `kube::Client` and on the informer factory:
//!
//! ```
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::builtin::BuiltinClientExt;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let server = kubegen::testing::ApiServer::new(); // or kube::Client::try_default()
//! server.create_namespace("demo").unwrap();
//! let client = server.client();
//!
//! let mut settings = ConfigMap::default();
//! settings.metadata.name = Some("settings".into());
//! settings.data = Some([("mode".to_string(), "fast".to_string())].into());
//! client.config_maps("demo").create(&settings).await?;
//!
//! let read = client.config_maps("demo").get("settings").await?;
//! assert_eq!(read.data.unwrap()["mode"], "fast");
//! let everywhere = client.config_maps_all_namespaces().list(&Default::default()).await?;
//! // The root CA publisher is not running here: the one ConfigMap is ours.
//! assert_eq!(everywhere.items.len(), 1);
//! # Ok::<(), kubegen::client::ClientError>(())
//! # }).unwrap();
//! ```
//!
//! The table below was generated from the apiserver's discovery (`/api/v1`, `/apis/*/*`).

use crate::client::{AllNamespacesClient, ResourceClient};
use crate::informer::{SharedIndexInformer, SharedInformerFactory};

/// Declares the traits and implements them on `kube::Client` (one method per resource, two
/// for namespaced kinds) and on `SharedInformerFactory`; a `[gate]` wraps a resource's
/// methods in k8s-openapi's version macro. The methods are `#[inline]`, so they are compiled
/// in the crate that calls them: otherwise a dev build of this crate compiles the client,
/// watcher and decoding of all 60 kinds, and every crate built on it pays for looking through
/// them (`benches/README.md`, compile time).
macro_rules! builtin_clients {
    (
        namespaced { $($(#[$ngate:ident])? $nmethod:ident, $nall:ident: $nkind:ty, $ndoc:literal;)* }
        cluster { $($(#[$cgate:ident])? $cmethod:ident: $ckind:ty, $cdoc:literal;)* }
    ) => {
        /// Typed clients for the built-in kinds on `kube::Client`; see the [module](self).
        pub trait BuiltinClientExt {
            $(gated!($($ngate)?;
                #[doc = concat!("`", $ndoc, "` objects in `namespace`.")]
                fn $nmethod(&self, namespace: &str) -> ResourceClient<$nkind>;
                #[doc = concat!("`", $ndoc, "` objects in every namespace: list and watch.")]
                fn $nall(&self) -> AllNamespacesClient<$nkind>;
            );)*
            $(gated!($($cgate)?;
                #[doc = concat!("`", $cdoc, "` objects (cluster-scoped).")]
                fn $cmethod(&self) -> ResourceClient<$ckind>;
            );)*
        }

        impl BuiltinClientExt for kube::Client {
            $(gated!($($ngate)?;
                #[inline]
                fn $nmethod(&self, namespace: &str) -> ResourceClient<$nkind> {
                    ResourceClient::namespaced(self.clone(), namespace)
                }
                #[inline]
                fn $nall(&self) -> AllNamespacesClient<$nkind> {
                    AllNamespacesClient::new(self.clone())
                }
            );)*
            $(gated!($($cgate)?;
                #[inline]
                fn $cmethod(&self) -> ResourceClient<$ckind> {
                    ResourceClient::cluster(self.clone())
                }
            );)*
        }

        /// Shared informers for the built-in kinds on a [`SharedInformerFactory`]; see the
        /// [module](self).
        pub trait BuiltinInformersExt {
            $(gated!($($ngate)?;
                #[doc = concat!("The shared informer of `", $ndoc, "` (the factory's namespace, if it has one).")]
                fn $nmethod(&self) -> SharedIndexInformer<$nkind>;
            );)*
            $(gated!($($cgate)?;
                #[doc = concat!("The shared informer of `", $cdoc, "`.")]
                fn $cmethod(&self) -> SharedIndexInformer<$ckind>;
            );)*
        }

        impl BuiltinInformersExt for SharedInformerFactory {
            $(gated!($($ngate)?;
                #[inline]
                fn $nmethod(&self) -> SharedIndexInformer<$nkind> {
                    self.informer()
                }
            );)*
            $(gated!($($cgate)?;
                #[inline]
                fn $cmethod(&self) -> SharedIndexInformer<$ckind> {
                    self.informer()
                }
            );)*
        }
    };
}

/// Items as they are, or inside k8s-openapi's `k8s_if_ge_*` macro when gated.
macro_rules! gated {
    (; $($item:tt)*) => { $($item)* };
    (v1_34; $($item:tt)*) => { k8s_openapi::k8s_if_ge_1_34! { $($item)* } };
    (v1_36; $($item:tt)*) => { k8s_openapi::k8s_if_ge_1_36! { $($item)* } };
}

builtin_clients! {
    namespaced {
        config_maps, config_maps_all_namespaces: k8s_openapi::api::core::v1::ConfigMap, "v1 ConfigMap";
        endpoints, endpoints_all_namespaces: k8s_openapi::api::core::v1::Endpoints, "v1 Endpoints";
        core_events, core_events_all_namespaces: k8s_openapi::api::core::v1::Event, "v1 Event";
        limit_ranges, limit_ranges_all_namespaces: k8s_openapi::api::core::v1::LimitRange, "v1 LimitRange";
        persistent_volume_claims, persistent_volume_claims_all_namespaces: k8s_openapi::api::core::v1::PersistentVolumeClaim, "v1 PersistentVolumeClaim";
        pods, pods_all_namespaces: k8s_openapi::api::core::v1::Pod, "v1 Pod";
        pod_templates, pod_templates_all_namespaces: k8s_openapi::api::core::v1::PodTemplate, "v1 PodTemplate";
        replication_controllers, replication_controllers_all_namespaces: k8s_openapi::api::core::v1::ReplicationController, "v1 ReplicationController";
        resource_quotas, resource_quotas_all_namespaces: k8s_openapi::api::core::v1::ResourceQuota, "v1 ResourceQuota";
        secrets, secrets_all_namespaces: k8s_openapi::api::core::v1::Secret, "v1 Secret";
        service_accounts, service_accounts_all_namespaces: k8s_openapi::api::core::v1::ServiceAccount, "v1 ServiceAccount";
        services, services_all_namespaces: k8s_openapi::api::core::v1::Service, "v1 Service";
        controller_revisions, controller_revisions_all_namespaces: k8s_openapi::api::apps::v1::ControllerRevision, "apps/v1 ControllerRevision";
        daemon_sets, daemon_sets_all_namespaces: k8s_openapi::api::apps::v1::DaemonSet, "apps/v1 DaemonSet";
        deployments, deployments_all_namespaces: k8s_openapi::api::apps::v1::Deployment, "apps/v1 Deployment";
        replica_sets, replica_sets_all_namespaces: k8s_openapi::api::apps::v1::ReplicaSet, "apps/v1 ReplicaSet";
        stateful_sets, stateful_sets_all_namespaces: k8s_openapi::api::apps::v1::StatefulSet, "apps/v1 StatefulSet";
        events, events_all_namespaces: k8s_openapi::api::events::v1::Event, "events.k8s.io/v1 Event";
        horizontal_pod_autoscalers, horizontal_pod_autoscalers_all_namespaces: k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler, "autoscaling/v2 HorizontalPodAutoscaler";
        cron_jobs, cron_jobs_all_namespaces: k8s_openapi::api::batch::v1::CronJob, "batch/v1 CronJob";
        jobs, jobs_all_namespaces: k8s_openapi::api::batch::v1::Job, "batch/v1 Job";
        ingresses, ingresses_all_namespaces: k8s_openapi::api::networking::v1::Ingress, "networking.k8s.io/v1 Ingress";
        network_policies, network_policies_all_namespaces: k8s_openapi::api::networking::v1::NetworkPolicy, "networking.k8s.io/v1 NetworkPolicy";
        pod_disruption_budgets, pod_disruption_budgets_all_namespaces: k8s_openapi::api::policy::v1::PodDisruptionBudget, "policy/v1 PodDisruptionBudget";
        role_bindings, role_bindings_all_namespaces: k8s_openapi::api::rbac::v1::RoleBinding, "rbac.authorization.k8s.io/v1 RoleBinding";
        roles, roles_all_namespaces: k8s_openapi::api::rbac::v1::Role, "rbac.authorization.k8s.io/v1 Role";
        csi_storage_capacities, csi_storage_capacities_all_namespaces: k8s_openapi::api::storage::v1::CSIStorageCapacity, "storage.k8s.io/v1 CSIStorageCapacity";
        leases, leases_all_namespaces: k8s_openapi::api::coordination::v1::Lease, "coordination.k8s.io/v1 Lease";
        endpoint_slices, endpoint_slices_all_namespaces: k8s_openapi::api::discovery::v1::EndpointSlice, "discovery.k8s.io/v1 EndpointSlice";
        #[v1_34] resource_claims, resource_claims_all_namespaces: k8s_openapi::api::resource::v1::ResourceClaim, "resource.k8s.io/v1 ResourceClaim";
        #[v1_34] resource_claim_templates, resource_claim_templates_all_namespaces: k8s_openapi::api::resource::v1::ResourceClaimTemplate, "resource.k8s.io/v1 ResourceClaimTemplate";
    }
    cluster {
        component_statuses: k8s_openapi::api::core::v1::ComponentStatus, "v1 ComponentStatus";
        namespaces: k8s_openapi::api::core::v1::Namespace, "v1 Namespace";
        nodes: k8s_openapi::api::core::v1::Node, "v1 Node";
        persistent_volumes: k8s_openapi::api::core::v1::PersistentVolume, "v1 PersistentVolume";
        api_services: k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService, "apiregistration.k8s.io/v1 APIService";
        certificate_signing_requests: k8s_openapi::api::certificates::v1::CertificateSigningRequest, "certificates.k8s.io/v1 CertificateSigningRequest";
        ingress_classes: k8s_openapi::api::networking::v1::IngressClass, "networking.k8s.io/v1 IngressClass";
        ip_addresses: k8s_openapi::api::networking::v1::IPAddress, "networking.k8s.io/v1 IPAddress";
        service_cidrs: k8s_openapi::api::networking::v1::ServiceCIDR, "networking.k8s.io/v1 ServiceCIDR";
        cluster_role_bindings: k8s_openapi::api::rbac::v1::ClusterRoleBinding, "rbac.authorization.k8s.io/v1 ClusterRoleBinding";
        cluster_roles: k8s_openapi::api::rbac::v1::ClusterRole, "rbac.authorization.k8s.io/v1 ClusterRole";
        csi_drivers: k8s_openapi::api::storage::v1::CSIDriver, "storage.k8s.io/v1 CSIDriver";
        csi_nodes: k8s_openapi::api::storage::v1::CSINode, "storage.k8s.io/v1 CSINode";
        storage_classes: k8s_openapi::api::storage::v1::StorageClass, "storage.k8s.io/v1 StorageClass";
        volume_attachments: k8s_openapi::api::storage::v1::VolumeAttachment, "storage.k8s.io/v1 VolumeAttachment";
        #[v1_34] volume_attributes_classes: k8s_openapi::api::storage::v1::VolumeAttributesClass, "storage.k8s.io/v1 VolumeAttributesClass";
        #[v1_36] mutating_admission_policies: k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicy, "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy";
        #[v1_36] mutating_admission_policy_bindings: k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicyBinding, "admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding";
        mutating_webhook_configurations: k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration, "admissionregistration.k8s.io/v1 MutatingWebhookConfiguration";
        validating_admission_policies: k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicy, "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy";
        validating_admission_policy_bindings: k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicyBinding, "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding";
        validating_webhook_configurations: k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration, "admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration";
        custom_resource_definitions: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition, "apiextensions.k8s.io/v1 CustomResourceDefinition";
        priority_classes: k8s_openapi::api::scheduling::v1::PriorityClass, "scheduling.k8s.io/v1 PriorityClass";
        runtime_classes: k8s_openapi::api::node::v1::RuntimeClass, "node.k8s.io/v1 RuntimeClass";
        #[v1_34] device_classes: k8s_openapi::api::resource::v1::DeviceClass, "resource.k8s.io/v1 DeviceClass";
        #[v1_34] resource_slices: k8s_openapi::api::resource::v1::ResourceSlice, "resource.k8s.io/v1 ResourceSlice";
        flow_schemas: k8s_openapi::api::flowcontrol::v1::FlowSchema, "flowcontrol.apiserver.k8s.io/v1 FlowSchema";
        priority_level_configurations: k8s_openapi::api::flowcontrol::v1::PriorityLevelConfiguration, "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration";
    }
}
