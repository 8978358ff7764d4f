use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
