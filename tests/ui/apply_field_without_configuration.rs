use kubegen::prelude::*;

/// Not an ApiType, and no `Apply` impl: the spec's apply configuration cannot hold it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Window {
    pub hours: i32,
}

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub window: Window,
}

fn main() {}
