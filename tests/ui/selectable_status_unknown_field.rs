use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    status = "WidgetStatus",
    selectable = ".status.phsae"
)]
pub struct WidgetSpec {
    pub color: String,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetStatus {
    pub phase: Option<String>,
}

fn main() {}
