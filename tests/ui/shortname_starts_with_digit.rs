use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", shortname = "2w")]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
