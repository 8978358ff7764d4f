//! A cluster-scoped kind with status and scale subresources, and a tour of the markers.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::prelude::*;

/// A Widget is a cluster-wide pool of identical gadgets.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "gadgets.example.com",
    version = "v1",
    kind = "Widget",
    scope = "Cluster",
    status = "WidgetStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    shortname = "wd",
    category = "gadgets",
    printcolumn(name = "Replicas", json_path = ".spec.replicas", type = "integer"),
    printcolumn(
        name = "Color",
        json_path = ".spec.color",
        type = "string",
        priority = 1
    ),
    selectable = ".spec.color",
    label("app.kubernetes.io/part-of", "gadgets")
)]
#[serde(rename_all = "camelCase")]
#[rule(
    "self.minAvailable <= self.replicas",
    message = "minAvailable cannot exceed replicas",
    reason = "FieldValueInvalid"
)]
pub struct WidgetSpec {
    /// How many gadgets to run.
    #[validate(minimum = 0, maximum = 100)]
    #[default(1)]
    pub replicas: Option<i32>,

    /// How many must stay up during disruptions.
    #[validate(minimum = 0)]
    #[serde(default)]
    #[default(0)]
    pub min_available: i32,

    /// The paint.
    pub color: Color,

    /// Either a count or a percentage such as "25%".
    #[schema(int_or_string)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,

    /// Free-form tags.
    #[validate(max_properties = 16)]
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,

    /// Ports, one per name.
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[validate(max_items = 8)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<Port>,

    /// Zones, each at most once.
    #[validate(unique_items)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<String>,

    /// How the widget is shaped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,

    /// Anything else, kept as written.
    #[schema(preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
}

/// Paint colours.
#[derive(ApiType, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Red,
    Green,
    Blue,
}

/// A named port.
#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Port {
    /// The port's name, unique in the list.
    #[validate(pattern = "^[a-z][a-z0-9-]*$", max_length = 15)]
    pub name: String,
    /// The port number.
    #[validate(minimum = 1, maximum = 65535)]
    pub port: u16,
    /// The protocol.
    #[default("TCP")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

/// A shape, tagged by `kind`.
#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Shape {
    /// A circle.
    Circle {
        /// The radius.
        #[validate(minimum = 0)]
        radius: f64,
    },
    /// A rectangle.
    Rectangle {
        /// The width.
        width: f64,
        /// The height.
        height: f64,
    },
}

/// Observed state of a Widget.
#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// Gadgets running.
    #[serde(default)]
    pub replicas: i32,
    /// Label selector of the gadgets, in string form, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}
