//! Embedded Kubernetes types keep the apiserver's merge keys: two field managers
//! server-side-applying different containers, env entries and ports of one CronJob's Pod
//! template both keep theirs, as they would in a Deployment. Without the list types kubegen
//! takes from `schema::k8s_extensions`, the template's lists would be atomic and the second
//! manager's apply would conflict with (or, forced, replace) the first's.
//!
//! Also: the committed extension table is what the running apiserver serves.

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicySpec;
use k8s_openapi::api::apps::v1::DeploymentStatus;
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::{
    Container, NodeStatus, PersistentVolumeSpec, PodSpec, ServiceAccount, ServiceSpec,
};
use k8s_openapi::api::flowcontrol::v1::FlowSchemaStatus;
use k8s_openapi::api::resource::v1::ResourceClaimStatus;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kubegen::client::{Patch, PatchParams};
use kubegen::prelude::*;
use kubegen::schema::k8s_extensions::{self, EXTENSION_KEYS};
use kubegen::testing::TestEnv;
use serde_json::{Map, Value, json};

use crate::fixtures::managed::owned_fields;

/// A CronJob holding a whole Job template, as the kubebuilder tutorial's does.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "embedded.kubegen.dev", version = "v1", kind = "CronJob")]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    pub schedule: String,
    pub job_template: JobTemplateSpec,
}

/// Other built-in types with list maps, map types and keyed defaults, in one kind: its CRD
/// must install on the apiserver like every registered one.
#[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
#[resource(group = "embedded.kubegen.dev", version = "v1", kind = "Builtin")]
#[serde(rename_all = "camelCase")]
pub struct BuiltinSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<ServiceAccount>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<PersistentVolumeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<ResourceClaimStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<ValidatingAdmissionPolicySpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<FlowSchemaStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<DeploymentStatus>,
}

/// An apply configuration of CronJob `nightly` holding `containers`.
fn config(containers: Value) -> Value {
    json!({
        "apiVersion": "embedded.kubegen.dev/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {"schedule": "@daily", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": containers,
        }}}}},
    })
}

fn pod_spec(job: &CronJob) -> &PodSpec {
    let template = job.spec.job_template.spec.as_ref().expect("a job spec");
    template.template.spec.as_ref().expect("a pod spec")
}

fn env_names(container: &Container) -> Vec<&str> {
    container
        .env
        .iter()
        .flatten()
        .map(|v| v.name.as_str())
        .collect()
}

/// The fields `manager` owns under the template's `spec.containers`, as managedFields
/// writes them.
fn owned_containers(job: &CronJob, manager: &str) -> Value {
    let fields = owned_fields(&job.metadata, manager, "Apply", "")
        .unwrap_or_else(|| panic!("no Apply entry of {manager}"));
    fields["f:spec"]["f:jobTemplate"]["f:spec"]["f:template"]["f:spec"]["f:containers"].clone()
}

#[kubegen::test]
async fn two_managers_apply_different_containers_env_entries_and_ports(e: TestEnv) {
    let jobs = e.client.cron_jobs(&e.namespace);
    let a = config(json!([{
        "name": "a",
        "image": "busybox:1",
        "env": [{"name": "A", "value": "1"}],
        "ports": [{"containerPort": 80}],
    }]));
    jobs.patch("nightly", &PatchParams::apply("alice"), &Patch::Apply(&a))
        .await
        .unwrap();
    // Bob adds a container of his own, and an env entry and a port to Alice's container.
    let b = config(json!([
        {"name": "a", "env": [{"name": "B", "value": "2"}], "ports": [{"containerPort": 443}]},
        {"name": "b", "image": "nginx:1"},
    ]));
    let job = jobs
        .patch("nightly", &PatchParams::apply("bob"), &Patch::Apply(&b))
        .await
        .unwrap();

    let pod = pod_spec(&job);
    let names: Vec<&str> = pod.containers.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let first = &pod.containers[0];
    assert_eq!(first.image.as_deref(), Some("busybox:1"));
    assert_eq!(env_names(first), ["A", "B"]);
    // The port list is keyed by port and protocol, and the protocol defaults to TCP.
    let ports: Vec<(i32, Option<&str>)> = first
        .ports
        .iter()
        .flatten()
        .map(|p| (p.container_port, p.protocol.as_deref()))
        .collect();
    assert_eq!(ports, [(80, Some("TCP")), (443, Some("TCP"))]);

    // Ownership is per key: each manager owns its own entries, and nothing of the other's.
    // The port key holds the defaulted protocol, which neither manager applied or owns.
    assert_eq!(
        owned_containers(&job, "alice"),
        json!({r#"k:{"name":"a"}"#: {
            ".": {}, "f:name": {}, "f:image": {},
            "f:env": {r#"k:{"name":"A"}"#: {".": {}, "f:name": {}, "f:value": {}}},
            "f:ports": {r#"k:{"containerPort":80,"protocol":"TCP"}"#: {".": {}, "f:containerPort": {}}},
        }})
    );
    assert_eq!(
        owned_containers(&job, "bob"),
        json!({
            r#"k:{"name":"a"}"#: {
                ".": {}, "f:name": {},
                "f:env": {r#"k:{"name":"B"}"#: {".": {}, "f:name": {}, "f:value": {}}},
                "f:ports": {r#"k:{"containerPort":443,"protocol":"TCP"}"#: {".": {}, "f:containerPort": {}}},
            },
            r#"k:{"name":"b"}"#: {".": {}, "f:name": {}, "f:image": {}},
        })
    );

    // Bob changing Alice's image conflicts, and the conflict names her.
    let theirs = config(json!([{"name": "a", "image": "busybox:2"}]));
    let err = jobs
        .patch(
            "nightly",
            &PatchParams::apply("bob"),
            &Patch::Apply(&theirs),
        )
        .await
        .unwrap_err();
    assert!(err.is_conflict(), "{err}");
    let status = err.status().unwrap();
    assert!(
        status.message.contains(r#"conflict with "alice""#),
        "{}",
        status.message
    );
    let causes = &status.details.as_ref().unwrap().causes;
    assert_eq!(causes.len(), 1, "{causes:?}");
    assert_eq!(
        causes[0].field,
        r#".spec.jobTemplate.spec.template.spec.containers[name="a"].image"#
    );

    // Bob withdrawing his apply removes what only he owned, and nothing of Alice's.
    let job = jobs
        .patch(
            "nightly",
            &PatchParams::apply("bob"),
            &Patch::Apply(&config(json!([]))),
        )
        .await
        .unwrap();
    let pod = pod_spec(&job);
    assert_eq!(pod.containers.len(), 1);
    assert_eq!(env_names(&pod.containers[0]), ["A"]);
    assert_eq!(pod.containers[0].ports.as_ref().map(Vec::len), Some(1));
}

#[kubegen::test]
async fn built_in_list_maps_install_keyed_and_defaulted(e: TestEnv) {
    let crds: Api<CustomResourceDefinition> = Api::all(e.client.clone());
    let crd = crds.get("builtins.embedded.kubegen.dev").await.unwrap();
    let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
    let spec = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"];
    let ports = &spec["service"]["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-list-type"], "map");
    assert_eq!(
        ports["x-kubernetes-list-map-keys"],
        json!(["port", "protocol"])
    );
    assert_eq!(
        spec["service"]["properties"]["selector"]["x-kubernetes-map-type"],
        "atomic"
    );
    // Keyed by an optional, undefaulted field in Kubernetes: atomic in a CRD.
    assert_eq!(
        spec["account"]["properties"]["secrets"]["x-kubernetes-list-type"],
        "atomic"
    );
    assert_eq!(
        spec["claim"]["properties"]["devices"]["x-kubernetes-list-type"],
        "atomic"
    );
    // Required in k8s-openapi (optional in the apiserver's OpenAPI), so still a list map.
    assert_eq!(
        spec["flow"]["properties"]["conditions"]["x-kubernetes-list-type"],
        "map"
    );

    // Both servers default the optional key, and keep two ports that differ only in it.
    let builtins = e.client.builtins(&e.namespace);
    let body = json!({
        "apiVersion": "embedded.kubegen.dev/v1",
        "kind": "Builtin",
        "metadata": {"name": "b"},
        "spec": {"service": {"ports": [{"port": 53}, {"port": 53, "protocol": "UDP"}]}},
    });
    let created = builtins
        .patch("b", &PatchParams::apply("test"), &Patch::Apply(&body))
        .await
        .unwrap();
    let ports: Vec<(i32, Option<&str>)> = created
        .spec
        .service
        .as_ref()
        .unwrap()
        .ports
        .iter()
        .flatten()
        .map(|p| (p.port, p.protocol.as_deref()))
        .collect();
    assert_eq!(ports, [(53, Some("TCP")), (53, Some("UDP"))]);
}

/// The extension table as `generate.py` derives it from the documents `/openapi/v3` lists.
async fn served_table(client: &kube::Client) -> Value {
    let get = |path: String| async move {
        let request = http::Request::get(path).body(Vec::new()).unwrap();
        let text = client.request_text(request).await.unwrap();
        serde_json::from_str::<Value>(&text).unwrap()
    };
    // The apiserver's own groups, not those of CustomResourceDefinitions (this test's own
    // among them).
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd_groups: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|crd| crd.spec.group)
        .collect();
    let built_in = |path: &str| {
        let parts: Vec<&str> = path.split('/').collect();
        parts[0] == "api"
            || (parts[0] == "apis"
                && parts
                    .get(1)
                    .is_none_or(|g| !crd_groups.iter().any(|c| c == g)))
    };
    let index = get("/openapi/v3".into()).await;
    let mut definitions = BTreeMap::<String, Value>::new();
    for (path, document) in index["paths"].as_object().unwrap() {
        if !built_in(path) {
            continue;
        }
        let url = document["serverRelativeURL"].as_str().unwrap().to_owned();
        let document = get(url).await;
        for (name, schema) in document["components"]["schemas"]
            .as_object()
            .into_iter()
            .flatten()
        {
            definitions
                .entry(name.clone())
                .or_insert_with(|| schema.clone());
        }
    }
    let extensions = |schema: &Value| -> Map<String, Value> {
        let node = schema.as_object().unwrap();
        EXTENSION_KEYS
            .iter()
            .filter_map(|k| node.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect()
    };
    let mut table = Map::new();
    for (name, schema) in &definitions {
        let own = extensions(schema);
        if !own.is_empty() {
            entry(&mut table, name).extend(own);
        }
        for (property, node) in schema["properties"].as_object().into_iter().flatten() {
            let found = extensions(node);
            if !found.is_empty() {
                property_entry(&mut table, name, property).extend(found);
            }
            if node["x-kubernetes-list-type"] != "map" {
                continue;
            }
            let item = node["items"]["$ref"].as_str().unwrap();
            let item = item.trim_start_matches("#/components/schemas/");
            for key in node["x-kubernetes-list-map-keys"].as_array().unwrap() {
                let key = key.as_str().unwrap();
                if let Some(default) = definitions[item]["properties"][key].get("default") {
                    property_entry(&mut table, item, key).insert("default".into(), default.clone());
                }
            }
        }
    }
    Value::Object(table)
}

fn entry<'t>(table: &'t mut Map<String, Value>, name: &str) -> &'t mut Map<String, Value> {
    match table.entry(name).or_insert_with(|| json!({})) {
        Value::Object(entry) => entry,
        _ => unreachable!("entries are objects"),
    }
}

fn property_entry<'t>(
    table: &'t mut Map<String, Value>,
    name: &str,
    property: &str,
) -> &'t mut Map<String, Value> {
    let properties = entry(table, name)
        .entry("properties")
        .or_insert_with(|| json!({}));
    match properties
        .as_object_mut()
        .unwrap()
        .entry(property)
        .or_insert_with(|| json!({}))
    {
        Value::Object(entry) => entry,
        _ => unreachable!("entries are objects"),
    }
}

/// Runs only on a real apiserver: the in-memory server serves no OpenAPI documents.
#[test]
fn the_committed_table_is_what_the_apiserver_serves() {
    kubegen::testing::backend::run_on_apiserver("the_committed_table", |e: TestEnv| async move {
        let committed: Value = serde_json::from_str(k8s_extensions::TABLE).unwrap();
        let version = e.client.apiserver_version().await.unwrap();
        assert_eq!(
            committed["kubernetes"], version.git_version,
            "the table was generated from another Kubernetes version: regenerate it with \
             runtime/core/src/schema/k8s_extensions/generate.py"
        );
        let served = served_table(&e.client).await;
        let committed = committed["definitions"].as_object().unwrap();
        let served = served.as_object().unwrap();
        for (name, entry) in served {
            assert_eq!(
                committed.get(name),
                Some(entry),
                "{name}: regenerate the table"
            );
        }
        for name in committed.keys() {
            assert!(served.contains_key(name), "{name} is no longer served");
        }
    });
}
