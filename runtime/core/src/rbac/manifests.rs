//! The objects that give an operator its permissions: a ServiceAccount to run as, the
//! ClusterRole from its [`Rules`], and the ClusterRoleBinding between them.

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use super::Rules;
use crate::crd::crdgen::{Format, SerializeError, render_all};

/// Why the RBAC manifests could not be printed.
#[derive(Debug, thiserror::Error)]
pub enum RbacError {
    /// An object could not be serialized.
    #[error(transparent)]
    Serialize(#[from] SerializeError),
    /// Writing failed.
    #[error("cannot write {what}: {source}")]
    Io {
        /// What was being written.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A ClusterRoleBinding named `role` granting ClusterRole `role` to ServiceAccount
/// `namespace/service_account`.
// `roleRef.apiGroup` is a `String` in some Kubernetes versions' types, an `Option` in others.
#[allow(clippy::useless_conversion)]
pub fn cluster_role_binding(
    role: &str,
    service_account: &str,
    namespace: &str,
) -> ClusterRoleBinding {
    ClusterRoleBinding {
        metadata: ObjectMeta {
            name: Some(role.to_owned()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: String::from("rbac.authorization.k8s.io").into(),
            kind: "ClusterRole".into(),
            name: role.to_owned(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: service_account.to_owned(),
            namespace: Some(namespace.to_owned()),
            api_group: None,
        }]),
    }
}

/// ServiceAccount `namespace/name`.
pub fn service_account(name: &str, namespace: &str) -> ServiceAccount {
    ServiceAccount {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            ..ObjectMeta::default()
        },
        ..ServiceAccount::default()
    }
}

/// ServiceAccount `namespace/name`, ClusterRole `name` holding `rules`, and ClusterRoleBinding
/// `name` between them, as multi-document YAML (`---` before each), printed as crdgen prints
/// CRDs. `kubectl apply -f` installs them.
pub fn manifests(rules: &Rules, name: &str, namespace: &str) -> Result<String, RbacError> {
    print(rules, name, namespace, Format::Yaml)
}

/// [`manifests`] in either of crdgen's formats.
pub(super) fn print(
    rules: &Rules,
    name: &str,
    namespace: &str,
    format: Format,
) -> Result<String, RbacError> {
    let documents = [
        document("ServiceAccount", &service_account(name, namespace))?,
        document("ClusterRole", &rules.cluster_role(name))?,
        document(
            "ClusterRoleBinding",
            &cluster_role_binding(name, name, namespace),
        )?,
    ];
    Ok(render_all(format, &documents)?)
}

fn document(kind: &str, object: &impl serde::Serialize) -> Result<(String, Value), RbacError> {
    let value = serde_json::to_value(object).map_err(|e| SerializeError {
        document: kind.to_owned(),
        message: e.to_string(),
    })?;
    Ok((kind.to_owned(), value))
}
