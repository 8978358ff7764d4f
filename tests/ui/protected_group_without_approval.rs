use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "widgets.k8s.io", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
