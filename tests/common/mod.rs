//! Fixtures shared by the integration tests: the test kinds and helpers. The backends a test
//! runs on come from `#[kubegen::test]` (see `kubegen::testing::backend`).
#![allow(dead_code)]

pub mod reads;

pub mod api {
    use kubegen::prelude::*;

    /// A Gadget: namespaced, with status and scale subresources.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "client.kubegen.dev",
        version = "v1",
        kind = "Gadget",
        status = "GadgetStatus",
        shortname = "gd",
        scale(
            spec_replicas_path = ".spec.replicas",
            status_replicas_path = ".status.replicas",
            label_selector_path = ".status.selector"
        ),
        selectable = ".spec.color",
        derive = "PartialEq"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetSpec {
        #[validate(minimum = 0, maximum = 10)]
        #[default(1)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        #[validate(pattern = "^[a-z]+$")]
        pub color: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<Size>,
        #[schema(list_type = "map", list_map_keys = ["name"])]
        #[validate(max_items = 3)]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub ports: Vec<Port>,
        #[schema(preserve_unknown_fields)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub extra: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub note: Option<String>,
    }

    #[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub enum Size {
        Small,
        Large,
    }

    #[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct Port {
        pub name: String,
        pub port: i32,
    }

    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct GadgetStatus {
        #[serde(default)]
        pub replicas: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub selector: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
    }

    /// A cluster-scoped kind without subresources.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "client.kubegen.dev",
        version = "v1",
        kind = "Plain",
        scope = "Cluster"
    )]
    pub struct PlainSpec {
        pub value: String,
    }
}

use api::*;

pub fn gadget(name: &str, color: &str) -> Gadget {
    Gadget::new(
        name,
        GadgetSpec {
            replicas: Some(2),
            color: color.into(),
            size: None,
            ports: vec![],
            extra: None,
            note: None,
        },
    )
}

pub fn rv(o: &impl kube::Resource) -> u64 {
    o.meta()
        .resource_version
        .as_deref()
        .unwrap_or("0")
        .parse()
        .unwrap()
}
