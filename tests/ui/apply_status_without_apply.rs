use kubegen::prelude::*;

/// A kind asks for its apply configuration; its status does not have one to offer.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
#[apply]
pub struct WidgetSpec {
    pub size: i32,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetStatus {
    pub ready: bool,
}

fn main() {}
