use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", label("team", "a/b"))]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
