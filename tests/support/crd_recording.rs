//! What a real kube-apiserver says of CRDs, asked live or read from a recording: shared by
//! the tests that compare `crd()`'s checks with the apiserver's (`tests/cel_cost.rs`,
//! `tests/crd/refusals.rs`).
//!
//! A recording maps a case name to the causes the apiserver gave (none when it accepted), so
//! a machine without an apiserver still checks kubegen against them. With one
//! (`KUBEGEN_TEST_KUBECONFIG`, or `KUBEBUILDER_ASSETS` with the `envtest` feature) a test asks
//! live and compares with the recording, or rewrites it.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// What a server says of a CRD: accepted (no causes), or the `(field, message)` of each cause
/// it was refused for.
pub type Causes = Vec<(String, String)>;

/// A client for a real apiserver, and what keeps it running (an Envtest started for the
/// caller, dropped with it); `None` when none is configured.
pub async fn real_client() -> Option<(kube::Client, Option<Box<dyn std::any::Any>>)> {
    if let Ok(path) = std::env::var("KUBEGEN_TEST_KUBECONFIG")
        && !path.is_empty()
    {
        let kubeconfig = kube::config::Kubeconfig::read_from(&path).expect("the kubeconfig");
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .expect("a client configuration");
        return Some((kube::Client::try_from(config).expect("a client"), None));
    }
    #[cfg(feature = "envtest")]
    if std::env::var_os("KUBEBUILDER_ASSETS").is_some_and(|v| !v.is_empty()) {
        // An apiserver of our own, without the registered CRDs: the test binaries register
        // kinds whose CRDs are meant to fail.
        let env = kubegen::testing::Envtest::builder()
            .crds(Vec::<CustomResourceDefinition>::new())
            .start()
            .await
            .expect("envtest");
        let client = env.client();
        return Some((client, Some(Box::new(env))));
    }
    None
}

/// Creates `crd` as a dry run: the causes the apiserver refuses it for (its message alone
/// when it gives none), in its order; empty when it accepts it.
pub async fn dry_run_create(client: &kube::Client, crd: &CustomResourceDefinition) -> Causes {
    let api: kube::Api<CustomResourceDefinition> = kube::Api::all(client.clone());
    let params = kube::api::PostParams {
        dry_run: true,
        field_manager: None,
    };
    match api.create(&params, crd).await {
        Ok(_) => Vec::new(),
        Err(kube::Error::Api(status)) => {
            let mut causes: Causes = status
                .details
                .iter()
                .flat_map(|d| d.causes.iter())
                .map(|c| (c.field.clone(), c.message.clone()))
                .collect();
            if causes.is_empty() {
                causes.push((String::new(), status.message.clone()));
            }
            causes
        }
        Err(e) => panic!("creating a CRD: {e}"),
    }
}

/// The recording at `path` (empty when there is none yet).
pub fn read(path: &str) -> BTreeMap<String, Causes> {
    std::fs::read(path)
        .ok()
        .map(|b| serde_json::from_slice(&b).expect("the recording is JSON"))
        .unwrap_or_default()
}

/// Writes a recording, one case a line so that changes read well in a diff.
pub fn write(path: &str, recording: &BTreeMap<String, Causes>) {
    let lines: Vec<String> = recording
        .iter()
        .map(|(key, causes)| {
            format!(
                "  {}: {}",
                serde_json::to_string(key).unwrap(),
                serde_json::to_string(causes).unwrap()
            )
        })
        .collect();
    std::fs::write(path, format!("{{\n{}\n}}\n", lines.join(",\n")))
        .expect("writing the recording");
}
