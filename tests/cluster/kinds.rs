//! The custom kind the scenarios use: a Gizmo, a namespaced object with a free-form spec
//! and a status, to own and be owned by built-in kinds.

use kubegen::prelude::*;

/// A namespaced kind with a status subresource.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "cluster.kubegen.dev",
    version = "v1",
    kind = "Gizmo",
    status = "GizmoStatus"
)]
pub struct GizmoSpec {
    #[serde(default)]
    pub size: i32,
}

#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GizmoStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}
