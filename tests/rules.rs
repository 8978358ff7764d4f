//! `#[rule]`s the derive checks and accepts: every kind of expression a CRD author writes
//! (field access through serde names, `has()`, the list and map macros, map access, string
//! and list functions, optionals, transition rules with `oldSelf`), on the type, on fields
//! and on fields of other kubegen types. They compile, their CRDs build, and on a real
//! apiserver the CRDs are accepted and the rules enforced.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::client::ClientError;
use kubegen::prelude::*;
use kubegen::testing::TestEnv;
use serde_json::{Value, json};

/// A gate with rules of every shape.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(group = "rules.kubegen.dev", version = "v1", kind = "Gate")]
#[serde(rename_all = "camelCase")]
#[rule(
    "self.minReplicas <= self.maxReplicas",
    message_expression = "has(self.owner) ? 'minReplicas exceeds maxReplicas for ' + self.owner : 'minReplicas exceeds maxReplicas'",
    field_path = ".minReplicas",
    reason = "FieldValueForbidden"
)]
#[rule(
    "!has(self.owner) || self.owner.size() > 0",
    message = "owner must not be empty"
)]
#[rule(
    "self.?owner.optMap(o, o != 'root').orValue(true)",
    message = "root cannot own a gate"
)]
#[rule(
    "self.ports.all(p, p.port > 0 && (!has(p.name) || p.name.startsWith('p')))",
    message = "port names start with p"
)]
#[rule(
    "self.zones.exists(z, z.endsWith('-a')) || self.zones.size() == 0",
    message = "some zone must end in -a"
)]
#[rule(
    "self.zones.exists_one(z, z == 'primary') || !('primary' in self.zones)",
    message = "primary at most once"
)]
#[rule("self.zones.map(z, z.size()).all(n, n < 30)", message = "short zones")]
#[rule(
    "self.zones.filter(z, z.startsWith('x')).size() <= 2",
    message = "at most two x zones"
)]
#[rule(
    "!('tier' in self.labels) || self.labels['tier'] in ['web', 'db']",
    message = "tier is web or db"
)]
#[rule(
    "!has(self.labels.team) || self.labels.team != ''",
    message = "team must not be empty"
)]
#[rule(
    "self.labels.all(k, v, k != v)",
    message = "a label's value is not its key"
)]
#[rule(
    "self.__namespace__ != 'kube-system' && self.namespace != 'kube-public'",
    message = "not in system namespaces"
)]
#[rule(
    "self.maxReplicas >= oldSelf.maxReplicas",
    message = "maxReplicas may not shrink"
)]
#[rule(
    "!oldSelf.hasValue() || self.minReplicas >= oldSelf.value().minReplicas",
    optional_old_self = true,
    message = "minReplicas may not shrink"
)]
pub struct GateSpec {
    #[validate(minimum = 0)]
    pub min_replicas: i32,
    #[validate(maximum = 100)]
    pub max_replicas: i32,
    #[validate(max_length = 63)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// A field with a CEL reserved word for a name.
    #[rule("self.matches('^[a-z-]+$')", message = "a namespace name")]
    #[validate(max_length = 63)]
    pub namespace: String,
    #[schema(list_type = "map", list_map_keys = ["port"])]
    #[validate(max_items = 8)]
    #[rule("self.all(p, p.port < 65536)", message = "ports fit in 16 bits")]
    #[rule(
        "self.size() == 0 || self[0].port != 0",
        message = "the first port is set"
    )]
    #[serde(default)]
    pub ports: Vec<GatePort>,
    #[validate(max_properties = 8)]
    #[rule(
        "self.all(k, k.size() <= 20 && self[k].size() <= 40)",
        message = "short labels"
    )]
    #[serde(default)]
    pub labels: BTreeMap<String, Label>,
    #[validate(max_items = 4)]
    #[rule("self.all(z, z.size() <= 40)", message = "short zone names")]
    #[serde(default)]
    pub zones: Vec<String>,
    /// A transition rule on a field of another kubegen type.
    #[rule("self.image == oldSelf.image", message = "the image is immutable")]
    #[rule(
        "self.image.contains(':') || self.pull != 'Never'",
        message = "pin the image"
    )]
    pub template: Template,
    /// Items with a transition rule of their own, in a map list.
    #[schema(list_type = "map", list_map_keys = ["stepName"])]
    #[validate(max_items = 8)]
    #[serde(default)]
    pub steps: Vec<Step>,
    #[schema(int_or_string)]
    #[rule(
        "type(self) == int ? self >= 0 : self.endsWith('%')",
        message = "a count or a percentage"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surge: Option<IntOrString>,
    #[rule(
        "self > timestamp('2000-01-01T00:00:00Z')",
        message = "not before 2000"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<Time>,
    #[schema(embedded_resource, preserve_unknown_fields)]
    #[rule(
        "self.kind != '' && self.metadata.name != ''",
        message = "a named object"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
}

/// A label value, bounded so rules over labels stay within the apiserver's cost budget.
pub type Label = String;

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GatePort {
    pub port: i32,
    #[validate(max_length = 15)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Template {
    #[validate(max_length = 200)]
    pub image: String,
    #[validate(max_length = 20)]
    pub pull: String,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[rule("self.image == oldSelf.image", message = "a step's image is immutable")]
pub struct Step {
    #[validate(max_length = 20)]
    pub step_name: String,
    #[validate(max_length = 200)]
    pub image: String,
}

fn gate(name: &str) -> Gate {
    Gate::new(
        name,
        GateSpec {
            min_replicas: 1,
            max_replicas: 3,
            owner: Some("team".into()),
            namespace: "apps".into(),
            ports: vec![GatePort {
                port: 80,
                name: Some("plain".into()),
            }],
            labels: BTreeMap::from([("tier".into(), "web".into())]),
            zones: vec!["eu-a".into()],
            template: Template {
                image: "nginx:1".into(),
                pull: "Always".into(),
            },
            steps: vec![Step {
                step_name: "build".into(),
                image: "rust:1".into(),
            }],
            surge: Some(IntOrString::String("25%".into())),
            expires: None,
            object: Some(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
            ),
        },
    )
}

#[test]
fn the_rules_reach_the_crd() {
    let crd = serde_json::to_value(Gate::crd().unwrap()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    let rules = spec["x-kubernetes-validations"].as_array().unwrap();
    assert_eq!(rules.len(), 14);
    assert_eq!(
        rules[0],
        json!({
            "rule": "self.minReplicas <= self.maxReplicas",
            "messageExpression": "has(self.owner) ? 'minReplicas exceeds maxReplicas for ' + self.owner : 'minReplicas exceeds maxReplicas'",
            "fieldPath": ".minReplicas",
            "reason": "FieldValueForbidden",
        })
    );
    assert_eq!(rules[13]["optionalOldSelf"], json!(true));
    let steps = &spec["properties"]["steps"]["items"];
    assert_eq!(
        steps["x-kubernetes-validations"],
        json!([{"rule": "self.image == oldSelf.image", "message": "a step's image is immutable"}])
    );
}

/// A rule's message and a change of a valid gate that breaks it.
type Refusal = (&'static str, fn(&mut GateSpec));

/// On a real apiserver the CRD was accepted when the test environment installed it; on both
/// servers the rules then hold: a valid gate is created, each broken rule is refused with its
/// message, and the transition rules refuse changes.
#[kubegen::test]
async fn the_apiserver_accepts_the_crd_and_enforces_the_rules(e: TestEnv) {
    let gates = e.client.gates(&e.namespace);
    let created = gates.create(&gate("ok")).await.unwrap();
    assert_eq!(created.spec, gate("ok").spec);
    let refusals: [Refusal; 6] = [
        ("minReplicas exceeds maxReplicas for team", |s| {
            s.min_replicas = 5
        }),
        ("root cannot own a gate", |s| s.owner = Some("root".into())),
        ("port names start with p", |s| {
            s.ports[0].name = Some("http".into())
        }),
        ("tier is web or db", |s| {
            s.labels.insert("tier".into(), "cache".into());
        }),
        ("not in system namespaces", |s| {
            s.namespace = "kube-system".into()
        }),
        ("a count or a percentage", |s| {
            s.surge = Some(IntOrString::String("25".into()))
        }),
    ];
    for (i, (message, break_it)) in refusals.into_iter().enumerate() {
        let mut bad = gate(&format!("bad-{i}"));
        break_it(&mut bad.spec);
        match gates.create(&bad).await {
            Err(ClientError::Invalid { status, .. }) => assert!(
                status.message.contains(message),
                "expected {message:?} in {:?}",
                status.message
            ),
            other => panic!("expected {message:?} to be refused, got {other:?}"),
        }
    }
    let mut changed = created.clone();
    changed.spec.template.image = "nginx:2".into();
    changed.spec.steps[0].image = "rust:2".into();
    changed.spec.max_replicas = 2;
    match gates.update(&changed).await {
        Err(ClientError::Invalid { status, .. }) => {
            for message in [
                "the image is immutable",
                "a step's image is immutable",
                "maxReplicas may not shrink",
            ] {
                assert!(
                    status.message.contains(message),
                    "expected {message:?} in {:?}",
                    status.message
                );
            }
        }
        other => panic!("expected the transition rules to refuse the update, got {other:?}"),
    }
}
