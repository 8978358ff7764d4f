//! crdgen's webhook manifests: `spec.conversion` for a kind with generated conversions, and
//! the mutating and validating webhook configurations, checked field by field and, when a
//! real apiserver is configured, created there and read back unchanged.

use std::time::Duration;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, PostParams};
use kubegen::crd::webhooks::{self, WebhookEndpoint, WebhookManifestError};
use kubegen::webhook::SelfSigned;
use serde_json::{Value, json};

mod v1 {
    use kubegen::prelude::*;

    /// The hub.
    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(group = "manifests.kubegen.dev", version = "v1", kind = "Bucket")]
    pub struct BucketSpec {
        pub size: String,
    }
}

mod v1beta1 {
    use kubegen::prelude::*;

    /// A spoke, converted field by field.
    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(
        group = "manifests.kubegen.dev",
        version = "v1beta1",
        kind = "Bucket",
        storage = false
    )]
    #[convert(hub = super::v1::BucketSpec)]
    pub struct BucketSpec {
        pub size: String,
    }
}

mod gateway {
    use kubegen::prelude::*;

    /// One version, cluster-scoped: no conversion webhook.
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "manifests.kubegen.dev",
        version = "v1",
        kind = "Gateway",
        scope = "Cluster"
    )]
    pub struct GatewaySpec {
        pub address: String,
    }
}

/// This module's kinds: crdgen is asked for them alone, as the test binary registers others.
const OURS: [&str; 2] = [
    "--kind=buckets.manifests.kubegen.dev",
    "--kind=gateways.manifests.kubegen.dev",
];

/// This module's CRDs among the registered ones, by name.
fn our_crds() -> Vec<CustomResourceDefinition> {
    let mut crds = kubegen::registry::crds().unwrap();
    crds.retain(|c| c.spec.group == "manifests.kubegen.dev");
    crds
}

/// Runs crdgen for this module's kinds; returns the exit code, standard output and standard
/// error.
fn crdgen(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("crdgen")
        .chain(OURS)
        .chain(args.iter().copied());
    let code = kubegen::crdgen::run_cli(argv, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// A CA certificate in a file, as cert-manager leaves one.
fn ca_file() -> (tempfile::TempDir, String, String) {
    let ca = SelfSigned::generate(&["localhost"]).unwrap().ca_pem;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ca.crt");
    std::fs::write(&path, &ca).unwrap();
    (dir, path.display().to_string(), ca)
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// crdgen's YAML output as its documents.
fn yaml_documents(out: &str) -> Vec<Value> {
    out.split("---\n")
        .filter(|d| !d.is_empty())
        .map(|d| serde_yaml_ng::from_str(d).unwrap())
        .collect()
}

/// crdgen's JSON output as its items.
fn items(out: &str) -> Vec<Value> {
    let list: Value = serde_json::from_str(out).unwrap();
    assert_eq!(list["kind"], "List");
    list["items"].as_array().unwrap().clone()
}

#[test]
fn crdgen_writes_the_conversion_webhook_and_both_configurations() {
    let (_dir, ca_path, ca) = ca_file();
    let (code, out, err) = crdgen(&[
        "--format=json",
        "--webhook-url=https://127.0.0.1:9443/hooks/",
        &format!("--ca-bundle={ca_path}"),
        "--mutating=Bucket",
        "--validating=buckets",
        "--validating=gateways.manifests.kubegen.dev",
        "--validating=Bucket", // named twice: one webhook
        "--failure-policy=ignore",
        "--timeout-seconds=5",
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    let items = items(&out);
    let kinds: Vec<(&str, &str)> = items
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap(),
                i["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("CustomResourceDefinition", "buckets.manifests.kubegen.dev"),
            ("CustomResourceDefinition", "gateways.manifests.kubegen.dev"),
            (
                "MutatingWebhookConfiguration",
                "mutating-webhook-configuration"
            ),
            (
                "ValidatingWebhookConfiguration",
                "validating-webhook-configuration"
            ),
        ]
    );
    let ca_bundle = base64(ca.as_bytes());
    assert_eq!(
        items[0]["spec"]["conversion"],
        json!({
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": {"url": "https://127.0.0.1:9443/hooks/convert", "caBundle": ca_bundle},
                "conversionReviewVersions": ["v1"],
            },
        })
    );
    // One version, no conversions: left as it was.
    assert_eq!(items[1]["spec"].get("conversion"), None);

    let webhook = |admission: &str,
                   version: &str,
                   plural: &str,
                   scope: &str,
                   operations: &[&str]| {
        let verb = if admission == "mutating" {
            "mutate"
        } else {
            "validate"
        };
        let mut hook = json!({
            "name": format!("{verb}-{version}.{plural}.manifests.kubegen.dev"),
            "clientConfig": {
                "url": format!("https://127.0.0.1:9443/hooks/{verb}/manifests.kubegen.dev/{version}/{plural}"),
                "caBundle": ca_bundle,
            },
            "rules": [{
                "apiGroups": ["manifests.kubegen.dev"],
                "apiVersions": [version],
                "resources": [plural],
                "operations": operations,
                "scope": scope,
            }],
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
            "failurePolicy": "Ignore",
            "matchPolicy": "Equivalent",
            "timeoutSeconds": 5,
            "namespaceSelector": {},
            "objectSelector": {},
        });
        if admission == "mutating" {
            hook["reinvocationPolicy"] = json!("Never");
        }
        hook
    };
    // Bucket's webhooks sit at its storage version, v1 (not v1beta1).
    assert_eq!(
        items[2]["webhooks"],
        json!([webhook(
            "mutating",
            "v1",
            "buckets",
            "Namespaced",
            &["CREATE", "UPDATE"]
        )])
    );
    let all = ["CREATE", "UPDATE", "DELETE"];
    assert_eq!(
        items[3]["webhooks"],
        json!([
            webhook("validating", "v1", "buckets", "Namespaced", &all),
            webhook("validating", "v1", "gateways", "Cluster", &all),
        ])
    );
}

#[test]
fn a_service_endpoint_in_yaml_and_in_an_out_dir() {
    let args = [
        "--webhook-service=bucket-system/bucket-webhook",
        "--mutating=Gateway",
        "--mutating-configuration=buckets-mutating",
    ];
    let (code, out, err) = crdgen(&args);
    assert_eq!((code, err.as_str()), (0, ""));
    let documents = yaml_documents(&out);
    assert_eq!(documents.len(), 3);
    assert_eq!(
        documents[0]["spec"]["conversion"]["webhook"]["clientConfig"],
        json!({"service": {"namespace": "bucket-system", "name": "bucket-webhook", "port": 443, "path": "/convert"}})
    );
    assert_eq!(documents[2]["metadata"]["name"], "buckets-mutating");
    assert_eq!(
        documents[2]["webhooks"][0]["clientConfig"]["service"]["path"],
        "/mutate/manifests.kubegen.dev/v1/gateways"
    );

    let dir = tempfile::tempdir().unwrap();
    let out_dir = format!("--out-dir={}", dir.path().display());
    let (code, out, err) = crdgen(&[&args[..], &[&out_dir]].concat());
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "buckets-mutating.yaml",
            "buckets.manifests.kubegen.dev.yaml",
            "gateways.manifests.kubegen.dev.yaml"
        ]
    );
    let written: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(dir.path().join("buckets-mutating.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(written, documents[2]);
}

#[test]
fn without_an_endpoint_nothing_changes() {
    let (code, out, err) = crdgen(&[]);
    assert_eq!((code, err.as_str()), (0, ""));
    let documents = yaml_documents(&out);
    let mut crds = our_crds();
    crds.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    let expected: Vec<Value> = crds
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect();
    assert_eq!(documents, expected);
    assert!(
        documents
            .iter()
            .all(|d| d["spec"].get("conversion").is_none())
    );

    for flag in [
        "--mutating=Bucket",
        "--validating=Gateway",
        "--ca-bundle=ca.crt",
        "--timeout-seconds=3",
    ] {
        let (code, out, err) = crdgen(&[flag]);
        let name = flag.split('=').next().unwrap();
        assert_eq!(code, 1, "{flag}");
        assert!(out.is_empty(), "{flag}");
        assert_eq!(
            err,
            format!(
                "crdgen: {name} needs the webhook server's address: give --webhook-service NAMESPACE/NAME[:PORT] or --webhook-url URL\n"
            )
        );
    }
}

#[test]
fn bad_endpoints_timeouts_and_kinds_fail_with_what_is_wrong() {
    let (_dir, ca_path, _) = ca_file();
    let cases: [(&[&str], &str); 8] = [
        (
            &["--webhook-url=http://127.0.0.1:9443"],
            "'https' is the only allowed URL scheme",
        ),
        (
            &["--webhook-url=https://me@hooks.example.com"],
            "user information is not permitted",
        ),
        (
            &["--webhook-url=https://hooks.example.com/?a=b"],
            "query parameters are not permitted",
        ),
        (
            &["--webhook-service=bucket-webhook"],
            "no `/` between namespace and name",
        ),
        (
            &["--webhook-service=ns/svc:0"],
            "port 0 is not a valid port",
        ),
        (
            &["--webhook-url=https://h", "--ca-bundle=/nonexistent/ca.crt"],
            "cannot read the CA bundle /nonexistent/ca.crt",
        ),
        (
            &["--webhook-url=https://h", "--validating=Nothing"],
            "no registered kind matches `Nothing`",
        ),
        (
            &[
                "--webhook-url=https://h",
                "--validating=Bucket",
                "--timeout-seconds=31",
            ],
            "timeout of 31 seconds: the apiserver accepts 1 to 30",
        ),
    ];
    for (args, message) in cases {
        let (code, out, err) = crdgen(args);
        assert_eq!(code, 1, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert!(
            err.starts_with("crdgen: ") && err.contains(message),
            "{args:?}: {err}"
        );
    }
    // Service and URL are alternatives.
    let (code, _, err) = crdgen(&["--webhook-url=https://h", "--webhook-service=a/b"]);
    assert_eq!(code, 2, "{err}");
    // A CA that is not a certificate.
    let key = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        key.path(),
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let bad = WebhookEndpoint::url("https://h")
        .unwrap()
        .with_ca_bundle_file(key.path());
    assert!(
        matches!(bad, Err(WebhookManifestError::CaBundleNotPem { .. })),
        "{bad:?}"
    );
    assert!(
        WebhookEndpoint::url("https://h")
            .unwrap()
            .with_ca_bundle_file(&ca_path)
            .is_ok()
    );
}

#[test]
fn admission_webhooks_go_to_the_storage_version() {
    let found = webhooks::storage_versions("buckets.manifests.kubegen.dev").unwrap();
    assert_eq!(
        found
            .iter()
            .map(|i| (i.kind, i.version))
            .collect::<Vec<_>>(),
        [("Bucket", "v1")]
    );
    assert!(matches!(
        webhooks::storage_versions("Nothing"),
        Err(WebhookManifestError::UnknownKind(name)) if name == "Nothing"
    ));
    let crds = our_crds();
    let needs: Vec<bool> = crds
        .iter()
        .map(|c| webhooks::needs_conversion(c).unwrap())
        .collect();
    assert_eq!(needs, [true, false]); // buckets, gateways
    // A third version without a conversion could not be served by the webhook.
    let mut three = crds[0].clone();
    let mut v2 = three.spec.versions[0].clone();
    v2.name = "v2".into();
    v2.storage = false;
    three.spec.versions.push(v2);
    assert!(matches!(
        webhooks::needs_conversion(&three),
        Err(WebhookManifestError::MissingConversion { ref versions, ref hub, .. }) if versions == &["v2"] && hub == "v1"
    ));
}

/// What crdgen writes for `args`, as typed objects.
fn manifests(
    args: &[&str],
) -> (
    CustomResourceDefinition,
    MutatingWebhookConfiguration,
    ValidatingWebhookConfiguration,
) {
    let args = [&["--format=json"], args].concat();
    let (code, out, err) = crdgen(&args);
    assert_eq!((code, err.as_str()), (0, ""));
    let items = items(&out);
    let crd = serde_json::from_value(items[0].clone()).unwrap();
    let mutating = serde_json::from_value(items[2].clone()).unwrap();
    let validating = serde_json::from_value(items[3].clone()).unwrap();
    (crd, mutating, validating)
}

/// The apiserver validates all of it (a fully qualified webhook name, an https URL, a
/// caBundle that parses, rules, sideEffects, review versions) and defaults what is left out;
/// crdgen's manifests pass and come back exactly as written.
#[test]
fn the_apiserver_accepts_the_manifests_and_reads_them_back_unchanged() {
    kubegen::testing::backend::run_on_apiserver("manifests_on_apiserver", |e| async move {
        let (_dir, ca_path, _) = ca_file();
        let mutating_name = format!("{}-mutating", e.namespace);
        let validating_name = format!("{}-validating", e.namespace);
        let (crd, mutating, validating) = manifests(&[
            "--webhook-service=bucket-system/bucket-webhook:9443",
            &format!("--ca-bundle={ca_path}"),
            "--mutating=Bucket",
            "--mutating=Gateway",
            "--validating=Bucket",
            "--validating=Gateway",
            &format!("--mutating-configuration={mutating_name}"),
            &format!("--validating-configuration={validating_name}"),
        ]);

        // The CRD is installed already (without conversion): apply it as `kubectl apply
        // --server-side` would.
        let name = crd.metadata.name.clone().unwrap();
        kubegen::crd::install_crds(
            &e.client,
            std::slice::from_ref(&crd),
            "manifests-test",
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        let crds: Api<CustomResourceDefinition> = Api::all(e.client.clone());
        let stored = crds.get(&name).await.unwrap();
        assert_eq!(stored.spec.conversion, crd.spec.conversion);

        let mutations: Api<MutatingWebhookConfiguration> = Api::all(e.client.clone());
        let validations: Api<ValidatingWebhookConfiguration> = Api::all(e.client.clone());
        mutations
            .create(&PostParams::default(), &mutating)
            .await
            .unwrap();
        validations
            .create(&PostParams::default(), &validating)
            .await
            .unwrap();
        let (m, v) = (
            mutations.get(&mutating_name).await.unwrap(),
            validations.get(&validating_name).await.unwrap(),
        );
        mutations
            .delete(&mutating_name, &DeleteParams::default())
            .await
            .unwrap();
        validations
            .delete(&validating_name, &DeleteParams::default())
            .await
            .unwrap();
        assert_eq!(m.webhooks, mutating.webhooks);
        assert_eq!(v.webhooks, validating.webhooks);

        // A URL endpoint without a CA, on a dry run.
        let (crd, mutating, validating) = manifests(&[
            "--webhook-url=https://127.0.0.1:9443/prefix",
            "--mutating=Bucket",
            "--validating=Gateway",
            &format!("--mutating-configuration={mutating_name}"),
            &format!("--validating-configuration={validating_name}"),
        ]);
        let dry = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        let mut current = crds.get(&name).await.unwrap();
        current.spec.conversion = crd.spec.conversion.clone();
        let replaced = crds.replace(&name, &dry, &current).await.unwrap();
        assert_eq!(replaced.spec.conversion, crd.spec.conversion);
        assert_eq!(
            mutations.create(&dry, &mutating).await.unwrap().webhooks,
            mutating.webhooks
        );
        assert_eq!(
            validations
                .create(&dry, &validating)
                .await
                .unwrap()
                .webhooks,
            validating.webhooks
        );

        // The URLs kubegen refuses are the ones the apiserver refuses.
        for url in [
            "https://127.0.0.1:9443",
            "https://hooks.example.com/a/b/",
            "https://hooks.example.com?",
            "https://hooks.example.com#",
            "http://127.0.0.1:9443",
            "https://user@hooks.example.com",
            "https://@hooks.example.com",
            "https://hooks.example.com?a=b",
            "https://hooks.example.com#top",
        ] {
            let ours = WebhookEndpoint::url(url);
            let mut config = validating.clone();
            for hook in config.webhooks.iter_mut().flatten() {
                hook.client_config.url = Some(url.to_owned());
            }
            let theirs = validations.create(&dry, &config).await;
            assert_eq!(
                ours.is_ok(),
                theirs.is_ok(),
                "{url}: kubegen {ours:?}, apiserver {theirs:?}"
            );
            // The CRD's conversion webhook URL is checked by the same rules.
            let mut crd = current.clone();
            let config = crd
                .spec
                .conversion
                .as_mut()
                .and_then(|c| c.webhook.as_mut());
            config.and_then(|w| w.client_config.as_mut()).unwrap().url = Some(url.to_owned());
            let theirs = crds.replace(&name, &dry, &crd).await;
            assert_eq!(
                ours.is_ok(),
                theirs.is_ok(),
                "{url}: kubegen {ours:?}, apiserver {theirs:?}"
            );
        }

        // So are CA bundles: on an established CRD the apiserver loads the bundle as its
        // client would, and refuses one without a certificate.
        let ca = SelfSigned::generate(&["localhost"]).unwrap().ca_pem;
        let not_x509 = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".to_owned();
        for bundle in [
            ca.clone(),
            not_x509,
            ca.replace("CERTIFICATE", "PRIVATE KEY"),
            "hello".into(),
        ] {
            let ours = WebhookEndpoint::url("https://h")
                .unwrap()
                .with_ca_bundle(bundle.clone().into_bytes());
            let mut crd = current.clone();
            let config = crd
                .spec
                .conversion
                .as_mut()
                .and_then(|c| c.webhook.as_mut());
            config
                .and_then(|w| w.client_config.as_mut())
                .unwrap()
                .ca_bundle = Some(k8s_openapi::ByteString(bundle.clone().into_bytes()));
            let theirs = crds.replace(&name, &dry, &crd).await;
            assert_eq!(
                ours.is_ok(),
                theirs.is_ok(),
                "{bundle:?}: kubegen {ours:?}, apiserver {theirs:?}"
            );
        }
    });
}
