use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "V1.0", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
