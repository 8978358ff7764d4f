//! defaulter-gen: `set_defaults` fills unset fields recursively, and the schema carries the
//! same defaults so the apiserver and local code agree.

use std::collections::BTreeMap;

use kubegen::prelude::*;
use serde_json::json;

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "defaults.example.com",
    version = "v1",
    kind = "Defaulted",
    status = "DefaultedStatus",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct DefaultedSpec {
    #[default(3)]
    pub replicas: Option<i32>,
    #[default("standard")]
    pub tier: Option<String>,
    #[default(Mode::Fast)]
    pub mode: Option<Mode>,
    #[default(Inner { depth: None, label: "auto".into() })]
    pub inner: Option<Inner>,
    pub items: Vec<Inner>,
    pub by_name: BTreeMap<String, Inner>,
    pub variant: Option<Variant>,
    #[serde(default = "seven")]
    #[default(7)]
    pub plain: i64,
}

fn seven() -> i64 {
    7
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Mode {
    Fast,
    Safe,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inner {
    #[default(1)]
    pub depth: Option<u8>,
    pub label: String,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Variant {
    Tuned {
        #[default(0.5)]
        ratio: Option<f64>,
    },
}

#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DefaultedStatus {
    // This type derives Default, whose derive claims `#[default]`; kubegen reads the same
    // marker from `#[schema(default = ...)]`.
    #[schema(default = false)]
    pub ready: Option<bool>,
}

fn empty() -> Defaulted {
    serde_json::from_value(json!({"spec": {"items": [{"label": "a"}], "byName": {"k": {"label": "b"}}, "variant": {"type": "Tuned"}}, "status": {}}))
        .unwrap()
}

#[test]
fn set_defaults_fills_unset_fields_recursively() {
    let mut d = empty();
    assert_eq!(d.spec.plain, 7, "serde's own default applied on read");
    d.set_defaults();
    let s = &d.spec;
    assert_eq!(
        (s.replicas, s.tier.as_deref(), s.mode.clone()),
        (Some(3), Some("standard"), Some(Mode::Fast))
    );
    assert_eq!(
        s.inner,
        Some(Inner {
            depth: Some(1),
            label: "auto".into()
        }),
        "defaults apply inside a default"
    );
    assert_eq!(s.items[0].depth, Some(1));
    assert_eq!(s.by_name["k"].depth, Some(1));
    assert_eq!(s.variant, Some(Variant::Tuned { ratio: Some(0.5) }));
    assert_eq!(
        d.status.as_ref().unwrap().ready,
        Some(false),
        "the kind's set_defaults covers status"
    );
}

#[test]
fn set_defaults_keeps_what_is_set() {
    let mut d = empty();
    d.spec.replicas = Some(0);
    d.spec.mode = Some(Mode::Safe);
    d.spec.inner = Some(Inner {
        depth: Some(9),
        label: "mine".into(),
    });
    d.set_defaults();
    assert_eq!(
        (d.spec.replicas, d.spec.mode.clone()),
        (Some(0), Some(Mode::Safe))
    );
    assert_eq!(d.spec.inner.as_ref().unwrap().depth, Some(9));
    let once = d.clone();
    d.set_defaults();
    assert_eq!(d, once, "defaulting is idempotent");
}

#[test]
fn the_schema_carries_the_same_defaults() {
    let crd = serde_json::to_value(Defaulted::crd().unwrap()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert_eq!(spec["replicas"]["default"], 3);
    assert_eq!(spec["tier"]["default"], "standard");
    assert_eq!(spec["mode"]["default"], "Fast");
    assert_eq!(
        spec["inner"]["default"],
        json!({"label": "auto"}),
        "None members are left out"
    );
    assert!(
        spec["replicas"].get("nullable").is_none(),
        "a defaulted field is never nullable"
    );
    assert_eq!(spec["inner"]["properties"]["depth"]["default"], 1);
    assert_eq!(spec["plain"]["default"], 7);
    assert_eq!(spec["variant"]["properties"]["ratio"]["default"], 0.5);

    // What the apiserver would store for an empty spec matches what set_defaults produces.
    let mut local = empty();
    local.set_defaults();
    assert_eq!(
        serde_json::to_value(local.spec.replicas).unwrap(),
        spec["replicas"]["default"]
    );
}
