//! Installing the registered CRDs into a cluster, as operators do at start-up.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};

use crate::crd::CrdError;
use crate::registry;

/// Why installing CRDs failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A registered kind's CRD could not be built.
    #[error(transparent)]
    Crd(#[from] CrdError),
    /// The apiserver refused a request.
    #[error("applying CRD {crd}: {source}")]
    Api {
        /// The CRD name.
        crd: String,
        /// kube's error.
        source: Box<kube::Error>,
    },
    /// A CRD did not report `Established` in time.
    #[error("CRD {crd} was not established within {timeout:?}")]
    NotEstablished {
        /// The CRD name.
        crd: String,
        /// How long was waited.
        timeout: Duration,
    },
}

/// Server-side applies every registered CRD as `field_manager` (forcing ownership), then
/// waits until each reports the `Established` condition. Returns the CRD names.
pub async fn install(
    client: &kube::Client,
    field_manager: &str,
    timeout: Duration,
) -> Result<Vec<String>, InstallError> {
    install_crds(client, &registry::crds()?, field_manager, timeout).await
}

/// [`install`] for a given list of CRDs instead of the registered ones.
pub async fn install_crds(
    client: &kube::Client,
    crds: &[CustomResourceDefinition],
    field_manager: &str,
    timeout: Duration,
) -> Result<Vec<String>, InstallError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let params = PatchParams::apply(field_manager).force();
    let mut names = Vec::new();
    for crd in crds {
        let name = crd.metadata.name.clone().unwrap_or_default();
        api.patch(&name, &params, &Patch::Apply(crd))
            .await
            .map_err(|e| InstallError::Api {
                crd: name.clone(),
                source: Box::new(e),
            })?;
        names.push(name);
    }
    let deadline = tokio::time::Instant::now() + timeout;
    for name in &names {
        loop {
            let crd = api.get(name).await.map_err(|e| InstallError::Api {
                crd: name.clone(),
                source: Box::new(e),
            })?;
            if is_established(&crd) {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(InstallError::NotEstablished {
                    crd: name.clone(),
                    timeout,
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    Ok(names)
}

/// Whether the apiserver reports the CRD's `Established` condition as `True`: its kinds can be
/// served.
pub fn is_established(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|conditions| {
            conditions
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True")
        })
}
