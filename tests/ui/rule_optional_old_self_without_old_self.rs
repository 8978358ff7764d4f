use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rule("self >= 0", optional_old_self = true)]
    pub replicas: i32,
}

fn main() {}
