use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "widgets.x-k8s.kubernetes.io",
    version = "v1",
    kind = "Widget",
    annotation("api-approved.kubernetes.io", "approved by sig-apps")
)]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
