use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rule("slef >= 0 && self <= object.maxReplicas")]
    pub replicas: i32,
}

fn main() {}
