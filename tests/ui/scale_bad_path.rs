use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    scale(spec_replicas_path = ".replicas", status_replicas_path = ".status.replicas")
)]
pub struct WidgetSpec {
    pub replicas: i32,
}

fn main() {}
