use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[rule("self.replicas >", message = "replicas must be positive")]
pub struct WidgetSpec {
    pub replicas: i32,
}

fn main() {}
