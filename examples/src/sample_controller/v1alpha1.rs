//! `samplecontroller.k8s.io/v1alpha1`: the Foo kind, as sample-controller's
//! `pkg/apis/samplecontroller/v1alpha1` declares it.

use kubegen::prelude::*;

/// A Foo asks for an nginx Deployment of its own, named and sized by its spec.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    status = "FooStatus",
    // The apiserver reserves groups under k8s.io for reviewed APIs; sample-controller's CRD
    // carries the same annotation.
    annotation(
        "api-approved.kubernetes.io",
        "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups"
    ),
    printcolumn(name = "Deployment", json_path = ".spec.deploymentName", type = "string"),
    printcolumn(
        name = "Available",
        json_path = ".status.availableReplicas",
        type = "integer"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The name of the Deployment the Foo controls, in the Foo's namespace.
    pub deployment_name: String,

    /// How many nginx pods the Deployment runs.
    #[validate(minimum = 1, maximum = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// What the controller last saw of the Foo's Deployment.
#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    /// The Deployment's `status.availableReplicas`.
    #[serde(default)]
    pub available_replicas: i32,
}
