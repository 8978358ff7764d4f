use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "widgets", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
