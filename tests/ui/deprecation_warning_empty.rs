use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", deprecated(warning = ""))]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
