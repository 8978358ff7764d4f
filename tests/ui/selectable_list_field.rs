use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", selectable = ".spec.tags")]
pub struct WidgetSpec {
    pub tags: Vec<String>,
}

fn main() {}
