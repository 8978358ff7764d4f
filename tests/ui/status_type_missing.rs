use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
