use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    printcolumn(name = "Size", json_path = "spec.size", type = "int")
)]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
